"""Compiled sets kept on disk: a set compiled once is read back in a millisecond, without the SQL
parser, in every process that asks it a question.

Compiling reads every template's SQL (:mod:`.compile`, :mod:`.sqlread`): for a set of a few dozen
templates that is the SQL parser's import and a tenth of a second of parsing, more than answering a
question takes. The compiled templates and facets are kept in the cache directory
(``compiled/``: :func:`ctxtool.paths.cache_dir`) under the SHA-256 of the set's templates and
facets, its dialect and the code and data that compile them (every file of the ctxtool package by
size and time, the parser's and the word tables' versions): a changed set or a changed ctxtool gets
a new entry. Files are written atomically; one that cannot be read is compiled again.

They are pickles read by an unpickler that constructs nothing but the compiled types below and
plain values (no other class, no function: a file planted in the data directory cannot run code).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import sys
import tempfile
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from ctxtool.paths import cache_dir
from ctxtool.runtime.templates.compiled import Compiled

__all__ = ["compiled_set", "set_key"]

# the types a compiled set is made of, and nothing else
_ALLOWED = {
    ("ctxtool.runtime.templates.compiled", "Compiled"),
    ("ctxtool.runtime.templates.compiled", "Slot"),
    ("ctxtool.runtime.templates.compiled", "Phrasing"),
    ("ctxtool.runtime.templates.facts", "TemplateFacts"),
    ("ctxtool.runtime.templates.facts", "Output"),
    ("ctxtool.runtime.templates.equivalence", "Shape"),
    ("datetime", "date"),
    ("datetime", "datetime"),
    ("datetime", "time"),
    ("decimal", "Decimal"),
    ("builtins", "set"),
    ("builtins", "frozenset"),
}
_ROOT = Path(__file__).resolve().parents[2]  # the ctxtool package: its code and data compile a set
_MEMORY: dict[str, bytes] = {}  # key -> the pickle, per process (each runtime gets its own objects)


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"{module}.{name} is no part of a compiled set")
        return super().find_class(module, name)


def _stamp(path: Path) -> str:
    try:
        st = path.stat()
    except OSError:
        return f"{path}:-"
    return f"{path}:{st.st_size}:{st.st_mtime_ns}"


@lru_cache(maxsize=1)
def _compiler() -> str:
    """The code and data that compile a set: every file of the ctxtool package (sizes and times: a
    changed ctxtool is another compiler) and the versions of the parser and the word tables."""
    parts = [sys.version, str(pickle.HIGHEST_PROTOCOL)]
    for folder, subfolders, files in os.walk(_ROOT):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        parts += [_stamp(Path(folder) / f) for f in sorted(files) if not f.endswith((".pyc", ".tmp"))]
    for package in ("sqlglot", "wordninja", "lemminflect"):
        spec = find_spec(package)
        if spec is not None and spec.origin:
            origin = Path(spec.origin)
            parts += [
                f"{package}={_stamp(origin)}",
                *(_stamp(f) for f in sorted(origin.parent.glob("_version.py"))),
            ]
    return "\n".join(parts)


def set_key(data: dict[str, Any], dialect: str) -> str:
    """The cache key of a set's compiled templates and facets in ``dialect``."""
    h = hashlib.sha256(_compiler().encode())
    h.update(dialect.encode())
    items = {"templates": data.get("templates") or [], "facets": data.get("facets") or []}
    h.update(json.dumps(items, sort_keys=True, default=str).encode())
    return h.hexdigest()[:32]


def _compile(data: dict[str, Any], dialect: str) -> tuple[list[Compiled], list[Compiled]]:
    # the SQL parser is imported only when a set is compiled (:mod:`.compile` reads the SQL)
    from ctxtool.runtime.templates.compile import compile_item

    templates = [
        compile_item("template", i, t, dialect)
        for i, t in enumerate(data.get("templates") or [])
        if isinstance(t, dict)
    ]
    facets = [
        compile_item("facet", i, f, dialect)
        for i, f in enumerate(data.get("facets") or [])
        if isinstance(f, dict)
    ]
    return templates, facets


def _read(raw: bytes) -> tuple[list[Compiled], list[Compiled]] | None:
    try:
        out = _Unpickler(io.BytesIO(raw)).load()
    except Exception:  # a truncated, foreign or stale file: compile again
        return None
    if not (isinstance(out, tuple) and len(out) == 2 and all(isinstance(x, list) for x in out)):
        return None
    return out


def compiled_set(data: dict[str, Any], dialect: str) -> tuple[list[Compiled], list[Compiled]]:
    """The set's compiled templates and facets in ``dialect``: from this process's memory, from the
    data directory, else compiled (and kept)."""
    key = set_key(data, dialect)
    raw = _MEMORY.get(key)
    if raw is not None and (out := _read(raw)) is not None:
        return out
    path = cache_dir() / "compiled" / f"{key}.pickle"
    try:
        raw = path.read_bytes()
    except OSError:
        raw = None
    if raw is not None and (out := _read(raw)) is not None:
        _MEMORY[key] = raw
        return out
    out = _compile(data, dialect)
    raw = pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL)
    _MEMORY[key] = raw
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only data directory: compiled for this process only
    return out
