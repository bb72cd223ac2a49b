"""Published context sets: immutable versions in a SQLite file or a shared PostgreSQL schema.

``publish(path_or_data, name)`` validates a set and stores it as the next version (content hash,
time, who); ``load_set("NAME" | "NAME@VERSION" | "path.json")`` gives a runtime its set.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxtool.errors import EXIT_FINDINGS, CtxtoolError, InputError
from ctxtool.store.base import SetVersion, Store, canonical_text, content_hash, current_user
from ctxtool.store.diff import diff_sets

__all__ = [
    "SetVersion",
    "Store",
    "LoadedSet",
    "PublishRejected",
    "canonical_text",
    "content_hash",
    "current_user",
    "diff_sets",
    "infer_dialect",
    "load_set",
    "open_store",
    "parse_ref",
    "publish",
]


class PublishRejected(CtxtoolError):
    """The set has validation errors; nothing was stored."""

    exit_code = EXIT_FINDINGS

    def __init__(self, message: str, findings: list[Any]) -> None:
        super().__init__(message)
        self.findings = findings


def _data_store() -> Path:
    from ctxtool.paths import data_dir

    return data_dir() / "sets.sqlite"


def open_store(store: str | os.PathLike[str] | Store | None = None) -> Store:
    """A store from ``--store``: a PostgreSQL DSN, a SQLite path (``sqlite:///path`` or a file name), or
    None for ``$CTXTOOL_STORE`` / the SQLite file in the user's data directory."""
    if isinstance(store, Store):
        return store
    if store is None:
        env = os.environ.get("CTXTOOL_STORE")
        store = env if env else _data_store()
    text = os.fspath(store)
    if text.startswith(("postgresql://", "postgres://")):
        from ctxtool.store.postgres import PostgresStore

        return PostgresStore(text)
    if "://" in text and not text.startswith("sqlite://"):
        raise InputError(
            f"unsupported store {text!r}: use a PostgreSQL DSN (postgresql://...) or a SQLite file path"
        )
    if text.startswith("sqlite://"):
        text = text[len("sqlite://") :]
        if text.startswith("/") and text[1:2] == "/":
            text = text[1:]
    from ctxtool.store.sqlite import SqliteStore

    return SqliteStore(text)


def infer_dialect(data: Any) -> str:
    """The dialect a set is written for, from its placeholders: ``$1`` means PostgreSQL, ``?`` means
    MySQL/Spanner (``mysql`` is returned; pass the dialect explicitly for Spanner)."""
    from ctxtool.placeholders import find_sql_placeholders

    if isinstance(data, dict):
        for kind, key in (("templates", "parameterized_sql"), ("facets", "parameterized_sql_snippet")):
            for item in data.get(kind) or []:
                sql = ((item or {}).get("parameterized") or {}).get(key) if isinstance(item, dict) else None
                if isinstance(sql, str):
                    kinds = {p.kind for p in find_sql_placeholders(sql, "mysql")}
                    if "qmark" in kinds:
                        return "mysql"
                    if any(p.kind == "numbered" for p in find_sql_placeholders(sql, "postgres")):
                        return "postgres"
    return "postgres"


def _load_contextset(path_or_data: Any):
    from ctxtool import contextset
    from ctxtool.jsondoc import dumps_json, parse_json

    if isinstance(path_or_data, (str, os.PathLike)):
        return contextset.load(os.fspath(path_or_data))
    if isinstance(path_or_data, dict):
        return contextset.from_doc(parse_json(dumps_json(path_or_data), "<data>"))
    raise InputError("publish takes a context-set file path or a dict")


def validation_errors(cs: Any, dialect: str) -> list[Any]:
    """The findings of severity error that stop a publish."""
    data = cs.data
    if not isinstance(data, dict):
        raise InputError(
            f"{cs.path}:1:1: a context set is a JSON object; see schemas/context_set.schema.json"
        )
    try:
        from ctxtool.validate import validate_set
    except ImportError:  # validate ships with ctxtool; keep publishing usable while it is absent
        validate_set = None
    findings: list[Any] = []
    if validate_set is not None:
        findings = [
            f for f in validate_set(cs, dialect=dialect) if getattr(f, "severity", "error") == "error"
        ]
    if not data.get("templates"):
        findings.append(
            _SimpleFinding(
                "no-templates", "error", "the set has no template; the service rejects such sets", cs.path
            )
        )
    return findings


@dataclass
class _SimpleFinding:
    code: str
    severity: str
    message: str
    path: str
    line: int = 1
    column: int = 1
    pointer: str = ""


def publish(
    path_or_data: Any,
    name: str,
    store: str | os.PathLike[str] | Store | None = None,
    *,
    dialect: str | None = None,
    who: str | None = None,
    note: str | None = None,
) -> SetVersion:
    """Validate a set and store it as the next immutable version of ``name``.

    Raises :class:`PublishRejected` (exit 1) when validation finds errors; nothing is stored then.
    """
    from ctxtool.dialects import normalize

    cs = _load_contextset(path_or_data)
    dialect = normalize(dialect) if dialect else infer_dialect(cs.data)
    errors = validation_errors(cs, dialect)
    if errors:
        first = errors[0]
        where = f"{getattr(first, 'path', cs.path)}:{getattr(first, 'line', 1)}:{getattr(first, 'column', 1)}"
        raise PublishRejected(
            f"{where}: {first.message} ({len(errors)} error(s)); fix them and publish again "
            f"(`ctxtool validate {cs.path}` lists them all)",
            errors,
        )
    source = os.fspath(path_or_data) if isinstance(path_or_data, (str, os.PathLike)) else None
    st = open_store(store)
    try:
        return st.publish(cs.data, name, who=who, dialect=dialect, note=note, source=source)
    finally:
        if st is not store:
            st.close()


def parse_ref(ref: str) -> tuple[str, int | None]:
    """``NAME`` or ``NAME@VERSION`` -> ``(name, version or None)``."""
    if "@" in ref:
        name, _, ver = ref.rpartition("@")
        if not ver.isdigit():
            raise InputError(f"invalid set reference {ref!r}: write NAME or NAME@VERSION (a number)")
        return name, int(ver)
    return ref, None


@dataclass
class LoadedSet:
    """A set ready for a runtime: its data and where it came from."""

    data: dict[str, Any]
    ref: str  # "NAME@VERSION" or the file path
    dialect: str | None = None
    version: SetVersion | None = None


def load_set(ref: str, store: str | os.PathLike[str] | Store | None = None) -> LoadedSet:
    """Load ``NAME``, ``NAME@VERSION`` or a context-set file path (anything ending ``.json`` or existing)."""
    if ref.endswith(".json") or os.path.sep in ref or Path(ref).is_file():
        cs = _load_contextset(ref)
        if not isinstance(cs.data, dict):
            raise InputError(f"{ref}:1:1: a context set is a JSON object")
        return LoadedSet(cs.data, ref, infer_dialect(cs.data))
    name, version = parse_ref(ref)
    st = open_store(store)
    try:
        v = st.get(name, version)
    finally:
        if st is not store:
            st.close()
    assert v.data is not None
    return LoadedSet(v.data, v.ref, v.dialect, v)
