"""Sentence vectors of a context set, computed once and kept on disk by content hash.

The key is the SHA-256 of the encoder's name and the texts, so a changed set (or encoder) gets new
vectors and an unchanged one loads in milliseconds. Files live in ``<data dir>/embeddings/`` as
``.npy``; they are written atomically (a crash leaves no half file) and a broken one is recomputed.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import tempfile
from array import array
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


# the header np.save writes for a 2-D little-endian float32 array in C order
_NPY_HEADER = re.compile(rb"\{'descr': '<f4', 'fortran_order': False, 'shape': \((\d+), (\d+)\), \}\s*\n")


def _npy_rows(raw: bytes, rows: int, dim: int) -> list[bytes] | None:
    """The rows of an ``.npy`` file as float32 bytes, read without numpy (None: another layout)."""
    if not raw.startswith(b"\x93NUMPY") or len(raw) < 10:
        return None
    major = raw[6]
    size_bytes = 2 if major == 1 else 4
    length = int.from_bytes(raw[8 : 8 + size_bytes], "little")
    start = 8 + size_bytes
    m = _NPY_HEADER.fullmatch(raw[start : start + length])
    if m is None or (int(m.group(1)), int(m.group(2))) != (rows, dim):
        return None
    body = raw[start + length :]
    width = dim * 4
    if len(body) != rows * width:
        return None
    return [body[i * width : (i + 1) * width] for i in range(rows)]


def cached_rows(encoder: Any, texts: list[str]) -> list[bytes]:
    """:func:`cached_vectors` as one ``bytes`` of float32 per text; a file cached before is read
    without importing numpy (what a small set asked one question needs)."""
    key = content_key(encoder.name, texts)
    if key not in _MEMORY and sys.byteorder == "little":
        try:
            raw = (cache_dir() / f"{key}.npy").read_bytes()
        except OSError:
            raw = b""
        rows = _npy_rows(raw, len(texts), encoder.dim) if raw else None
        if rows is not None:
            return rows
    vectors = cached_vectors(encoder, texts)
    return [row.astype("<f4").tobytes() for row in vectors]


def floats(row: bytes) -> array:
    """A row of float32 bytes as an array of floats."""
    out = array("f")
    out.frombytes(row)
    return out
