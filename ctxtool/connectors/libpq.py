"""libpq through ctypes: the little of it that a command which reads the catalogs once needs, without
psycopg (importing psycopg costs about 0.15 s of CPU, more than ``ctxtool introspect``'s own work).

It loads the libpq psycopg itself uses (the copy the psycopg-binary wheel ships, else the system's
``libpq.so.5``), version 14 or later (pipeline mode), and offers: :func:`parse_conninfo` (libpq's own
reading of a connection string, as ``psycopg.conninfo.conninfo_to_dict`` gives it) and
:class:`Connection`, which connects and runs a list of statements with text parameters as one
pipeline (one round trip), returning each statement's first value as text. Where no such libpq
loads, :func:`library` is None and callers use psycopg. Failures raise :class:`LibpqError` with
libpq's message (what psycopg would raise with).
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Sequence
from functools import cache
from typing import Any

_OK, _TUPLES, _SYNC = 1, 2, 10  # PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_PIPELINE_SYNC


class LibpqError(Exception):
    """A libpq error message."""


class _Option(ctypes.Structure):  # PQconninfoOption
    _fields_ = [
        ("keyword", ctypes.c_char_p),
        ("envvar", ctypes.c_char_p),
        ("compiled", ctypes.c_char_p),
        ("val", ctypes.c_char_p),
        ("label", ctypes.c_char_p),
        ("dispchar", ctypes.c_char_p),
        ("dispsize", ctypes.c_int),
    ]


def _candidates() -> list[str]:
    import importlib.util
    from pathlib import Path

    found: list[str] = []
    spec = importlib.util.find_spec("psycopg_binary")
    if spec is not None and spec.origin:
        package = Path(spec.origin).parent
        found += sorted(str(p) for p in (package.parent / "psycopg_binary.libs").glob("libpq*.so*"))  # Linux
        found += sorted(str(p) for p in (package / ".dylibs").glob("libpq*.dylib"))  # macOS
    return [*found, "libpq.5.dylib" if sys.platform == "darwin" else "libpq.so.5"]


@cache
def library() -> Any:
    """libpq (14 or later) with the prototypes used here, or None where none loads."""
    if sys.platform == "win32":
        return None
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
            if lib.PQlibVersion() < 140000:
                continue
        except (OSError, AttributeError):
            continue
        p, s, i = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
        for name, restype, argtypes in (
            ("PQconninfoParse", ctypes.POINTER(_Option), [s, ctypes.POINTER(s)]),
            ("PQconninfoFree", None, [ctypes.POINTER(_Option)]),
            ("PQfreemem", None, [p]),
            ("PQconnectdbParams", p, [ctypes.POINTER(s), ctypes.POINTER(s), i]),
            ("PQstatus", i, [p]),
            ("PQerrorMessage", s, [p]),
            ("PQfinish", None, [p]),
            ("PQserverVersion", i, [p]),
            ("PQenterPipelineMode", i, [p]),
            ("PQsendQueryParams", i, [p, s, i, p, ctypes.POINTER(s), p, p, i]),
            ("PQpipelineSync", i, [p]),
            ("PQgetResult", p, [p]),
            ("PQresultStatus", i, [p]),
            ("PQresultErrorMessage", s, [p]),
            ("PQntuples", i, [p]),
            ("PQgetvalue", p, [p, i, i]),
            ("PQgetlength", i, [p, i, i]),
            ("PQclear", None, [p]),
        ):
            function = getattr(lib, name)
            function.restype, function.argtypes = restype, argtypes
        return lib
    return None


def _strings(values: Sequence[str | None]) -> Any:
    return (ctypes.c_char_p * len(values))(*(None if v is None else v.encode() for v in values))


def parse_conninfo(text: str) -> dict[str, str]:
    """The parameters a connection string sets (libpq's ``PQconninfoParse``; needs :func:`library`)."""
    lib = library()
    error = ctypes.c_char_p()
    options = lib.PQconninfoParse(text.encode(), ctypes.byref(error))
    if not options:
        if not error:
            raise MemoryError("libpq could not allocate memory to read the connection string")
        message = (error.value or b"").decode("utf-8", "replace")
        lib.PQfreemem(error)
        raise LibpqError(message)
    try:
        values: dict[str, str] = {}
        for option in options:
            if not option.keyword:
                return values
            if option.val is not None:
                values[option.keyword.decode()] = option.val.decode("utf-8", "replace")
        return values  # pragma: no cover - the array always ends with an empty keyword
    finally:
        lib.PQconninfoFree(options)


class Connection:
    """A libpq connection (needs :func:`library`): ``keywords`` as ``PQconnectdbParams`` takes them, a
    connection string under ``dbname`` expanded, later keywords overriding it."""

    def __init__(self, keywords: dict[str, str]) -> None:
        self.lib = lib = library()
        names, values = [*keywords, None], [*keywords.values(), None]
        self.conn = lib.PQconnectdbParams(_strings(names), _strings(values), 1)
        if not self.conn or lib.PQstatus(self.conn) != 0:
            message = self.error()
            self.close()
            raise LibpqError(message)

    @property
    def server_version(self) -> int:
        return int(self.lib.PQserverVersion(self.conn))

    def error(self) -> str:
        raw = self.lib.PQerrorMessage(self.conn) if self.conn else None
        return (raw or b"out of memory").decode("utf-8", "replace")

    def pipeline(self, statements: Sequence[tuple[str, Sequence[str]]]) -> list[str | None]:
        """Run ``statements`` (SQL with ``$n`` placeholders, the parameters' text) as one pipeline;
        each statement's first value (None for a command). The first failure raises, after every
        result is read."""
        lib, conn = self.lib, self.conn
        if lib.PQenterPipelineMode(conn) != 1:
            raise LibpqError(self.error())
        for sql, values in statements:
            if not lib.PQsendQueryParams(
                conn, sql.encode(), len(values), None, _strings(values), None, None, 0
            ):
                raise LibpqError(self.error())
        if lib.PQpipelineSync(conn) != 1:
            raise LibpqError(self.error())
        out: list[str | None] = []
        failure: str | None = None
        for _ in statements:
            res = lib.PQgetResult(conn)
            if not res:
                raise LibpqError(self.error())
            status = lib.PQresultStatus(res)
            if status == _TUPLES and lib.PQntuples(res) > 0:
                out.append(ctypes.string_at(lib.PQgetvalue(res, 0, 0), lib.PQgetlength(res, 0, 0)).decode())
            elif status in (_OK, _TUPLES):
                out.append(None)
            elif failure is None:
                failure = (lib.PQresultErrorMessage(res) or b"").decode("utf-8", "replace") or self.error()
            lib.PQclear(res)
            while res := lib.PQgetResult(conn):  # the NULL that ends this statement's results
                lib.PQclear(res)
        res = lib.PQgetResult(conn)
        if res:
            status = lib.PQresultStatus(res)
            lib.PQclear(res)
            if status != _SYNC and failure is None:
                failure = self.error()
        if failure is not None:
            raise LibpqError(failure)
        return out

    def close(self) -> None:
        if self.conn:
            self.lib.PQfinish(self.conn)
            self.conn = None

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
