"""Sentence vectors of a context set, computed once and kept on disk by content hash.

The key is the SHA-256 of the encoder's name and the texts, so a changed set (or encoder) gets new
vectors and an unchanged one loads in milliseconds. Files live in ``<data dir>/embeddings/`` as
``.npy``; they are written atomically (a crash leaves no half file) and a broken one is recomputed.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any

from ctxtool.paths import data_dir

_MEMORY: dict[str, Any] = {}


def content_key(name: str, texts: list[str]) -> str:
    h = hashlib.sha256(name.encode())
    for t in texts:
        h.update(b"\x00" + t.encode("utf-8"))
    return h.hexdigest()[:32]


def cache_dir() -> Path:
    return data_dir() / "embeddings"


def cached_vectors(encoder: Any, texts: list[str]) -> Any:
    """``encoder.embed_array(texts)``, from memory or disk when these texts were embedded before."""
    import numpy as np

    key = content_key(encoder.name, texts)
    if key in _MEMORY:
        return _MEMORY[key]
    path = cache_dir() / f"{key}.npy"
    vectors = None
    if path.is_file():
        try:
            vectors = np.load(path, allow_pickle=False)
            if vectors.shape != (len(texts), encoder.dim):
                vectors = None
        except (OSError, ValueError):
            vectors = None
    if vectors is None:
        vectors = encoder.embed_array(texts)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                np.save(f, vectors, allow_pickle=False)
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only home: the vectors are still used, only not kept
    _MEMORY[key] = vectors
    return vectors
