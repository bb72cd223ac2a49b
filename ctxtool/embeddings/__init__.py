"""Text embedders: turn text into fixed-size vectors for similarity search.

``get_embedder(name)`` picks one by name:

- ``None`` / ``"hash"`` / ``"hash:DIM"``: the built-in :class:`HashingEmbedder`, pure Python, no
  download, deterministic across processes and machines (the default; ``$CTXTOOL_EMBEDDER`` overrides).
- ``"openai:MODEL"``: an OpenAI-compatible ``/embeddings`` endpoint (:class:`OpenAIEmbedder`).
- ``"local"`` / ``"local:NAME_OR_PATH"``: a sentence-transformers model whose weights come with the
  optional ``local-embeddings`` extra (:class:`LocalEmbedder`); nothing is fetched from a hub.

Every embedder returns L2-normalized vectors, so a dot product is the cosine similarity.
"""

from __future__ import annotations

import os

from ctxtool.embeddings.base import Embedder, cosine, normalize
from ctxtool.embeddings.hashing import HashingEmbedder
from ctxtool.errors import InputError

__all__ = ["Embedder", "HashingEmbedder", "cosine", "get_embedder", "normalize"]


def get_embedder(name: str | None = None) -> Embedder:
    """The embedder called ``name`` (see the module docstring); ``None`` means ``$CTXTOOL_EMBEDDER``
    or the built-in hashing embedder."""
    if name is None:
        name = os.environ.get("CTXTOOL_EMBEDDER") or "hash"
    name = name.strip()
    kind, _, arg = name.partition(":")
    kind = kind.lower()
    if kind == "hash":
        if not arg:
            return HashingEmbedder()
        try:
            dim = int(arg)
        except ValueError:
            raise InputError(
                f"embedder {name!r}: the dimension after 'hash:' must be a number, e.g. hash:256"
            ) from None
        return HashingEmbedder(dim=dim)
    if kind == "openai":
        from ctxtool.embeddings.openai import OpenAIEmbedder

        return OpenAIEmbedder(model=arg or None)
    if kind == "local":
        from ctxtool.embeddings.local import LocalEmbedder

        return LocalEmbedder(arg or None)
    raise InputError(f"unknown embedder {name!r}: use hash, hash:DIM, openai:MODEL or local[:NAME_OR_PATH]")
