"""Connection strings: parsing per engine, and redaction so a password never reaches a message.

Accepted forms:

- ``postgresql://`` and ``postgres://`` URIs, libpq ``key=value`` strings, and an empty string (libpq
  then takes everything from ``PGHOST``, ``PGUSER``, ``PGPASSWORD``...);
- ``alloydb://...``: a PostgreSQL connection (AlloyDB features are detected from its extensions);
- ``mysql://user:pass@host:port/db`` (``mariadb://`` is accepted as a synonym);
- ``spanner://projects/P/instances/I/databases/D`` (``SPANNER_EMULATOR_HOST`` is honoured).

:func:`redact` hides the password of any of these forms; :func:`redact_text` scrubs a known secret
out of free text such as a driver's error message.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from dataclasses import dataclass, field

from ctxtool.connectors import libpq
from ctxtool.errors import InputError

_SCHEMES = {
    "postgresql": "postgres",
    "postgres": "postgres",
    "alloydb": "postgres",
    "mysql": "mysql",
    "mariadb": "mysql",
    "spanner": "spanner",
}
_MASK = "***"
_KV_PASSWORD = re.compile(r"""(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)""", re.IGNORECASE)
_URI_PASSWORD = re.compile(r"(\b[a-z][a-z0-9+.-]*://[^:/@\s]*:)([^@\s]*)(@)", re.IGNORECASE)
_QUERY_PASSWORD = re.compile(r"([?&]password=)([^&\s]*)", re.IGNORECASE)


@dataclass
class DSN:
    """A parsed connection string. ``password`` is kept for the driver only; never print it."""

    raw: str
    engine: str  # "postgres" | "mysql" | "spanner"
    scheme: str  # as written: "postgresql", "alloydb", "mysql", "spanner", "" for libpq key=value
    host: str | None = None
    port: int | None = None
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    database: str | None = None
    params: dict[str, str] = field(default_factory=dict)
    # Spanner only
    project: str | None = None
    instance: str | None = None
    emulator_host: str | None = None

    @property
    def redacted(self) -> str:
        return redact(self.raw)

    def libpq(self) -> str:
        """The libpq connection string psycopg takes (``alloydb://`` rewritten to ``postgresql://``)."""
        if self.scheme == "alloydb":
            return "postgresql://" + self.raw.split("://", 1)[1]
        return self.raw


def engine_of(dsn: str) -> str:
    """``postgres``, ``mysql`` or ``spanner`` for a connection string (libpq key=value -> postgres)."""
    return parse(dsn).engine


def parse(dsn: str) -> DSN:
    """Parse ``dsn``; an unusable string raises :class:`InputError` (with the password hidden)."""
    if not isinstance(dsn, str):
        raise InputError("the DSN must be a string such as postgresql://user@host:5432/db")
    text = dsn.strip()
    match = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*)://", text)
    if not match:
        if text == "" or "=" in text:
            return _parse_libpq_kv(text)
        raise InputError(
            f"cannot read the DSN {redact(text)!r}: use postgresql://, alloydb://, mysql:// or "
            "spanner://projects/P/instances/I/databases/D"
        )
    scheme = match.group(1).lower()
    if scheme not in _SCHEMES:
        raise InputError(
            f"unknown DSN scheme {scheme}:// in {redact(text)!r}: use postgresql://, postgres://, "
            "alloydb://, mysql:// or spanner://"
        )
    engine = _SCHEMES[scheme]
    if engine == "spanner":
        return _parse_spanner(text, scheme)
    if engine == "postgres":
        return _parse_postgres_uri(text, scheme)
    return _parse_mysql(text, scheme)


def _conninfo(text: str) -> dict[str, str]:
    """The parameters a libpq connection string sets, as libpq reads it: through ctxtool's own
    libpq binding where it loads (no psycopg import, for commands that need no psycopg), else
    psycopg's."""
    if libpq.library() is not None:
        return libpq.parse_conninfo(text)
    import psycopg.conninfo

    return {k: str(v) for k, v in psycopg.conninfo.conninfo_to_dict(text).items() if v is not None}


def _parse_libpq_kv(text: str) -> DSN:
    try:
        values = _conninfo(text)
    except Exception as exc:  # noqa: BLE001 - libpq's message (psycopg raises ProgrammingError with it)
        raise InputError(f"cannot read the libpq DSN {redact(text)!r}: {_first_line(exc)}") from None
    return _postgres_from_values(text, "", values)


def _parse_postgres_uri(text: str, scheme: str) -> DSN:
    libpq_text = "postgresql://" + text.split("://", 1)[1] if scheme == "alloydb" else text
    try:
        values = _conninfo(libpq_text)
    except Exception as exc:  # noqa: BLE001
        raise InputError(f"cannot read the DSN {redact(text)!r}: {_first_line(exc)}") from None
    return _postgres_from_values(text, scheme, values)


def _postgres_from_values(raw: str, scheme: str, values: dict[str, str]) -> DSN:
    env = os.environ
    port_text = values.get("port") or env.get("PGPORT")
    try:
        port = int(port_text) if port_text and "," not in port_text else None
    except ValueError:
        raise InputError(f"the port in {redact(raw)!r} is not a number") from None
    user = values.get("user") or env.get("PGUSER")
    params = {k: v for k, v in values.items() if k not in ("host", "port", "user", "password", "dbname")}
    return DSN(
        raw=raw,
        engine="postgres",
        scheme=scheme,
        host=values.get("host") or values.get("hostaddr") or env.get("PGHOST"),
        port=port,
        user=user,
        password=values.get("password") or env.get("PGPASSWORD"),
        database=values.get("dbname") or env.get("PGDATABASE") or user,
        params=params,
    )


def _parse_mysql(text: str, scheme: str) -> DSN:
    parts = urllib.parse.urlsplit(text)
    try:
        port = parts.port
    except ValueError:
        raise InputError(f"the port in {redact(text)!r} is not a number") from None
    database = urllib.parse.unquote(parts.path.lstrip("/")) or None
    params = dict(urllib.parse.parse_qsl(parts.query))
    password = params.pop("password", None)
    return DSN(
        raw=text,
        engine="mysql",
        scheme=scheme,
        host=parts.hostname or "127.0.0.1",
        port=port or 3306,
        user=urllib.parse.unquote(parts.username) if parts.username else params.pop("user", "root"),
        password=urllib.parse.unquote(parts.password) if parts.password is not None else password,
        database=database,
        params=params,
    )


_SPANNER_PATH = re.compile(
    r"^spanner://projects/(?P<project>[^/?#]+)/instances/(?P<instance>[^/?#]+)/databases/(?P<database>[^/?#]+)/?(?:\?(?P<query>.*))?$",
    re.IGNORECASE,
)


def _parse_spanner(text: str, scheme: str) -> DSN:
    match = _SPANNER_PATH.match(text)
    if not match:
        raise InputError(
            f"cannot read the Spanner DSN {redact(text)!r}: write "
            "spanner://projects/PROJECT/instances/INSTANCE/databases/DATABASE"
        )
    params = dict(urllib.parse.parse_qsl(match.group("query") or ""))
    emulator = params.pop("emulator_host", None) or os.environ.get("SPANNER_EMULATOR_HOST") or None
    return DSN(
        raw=text,
        engine="spanner",
        scheme=scheme,
        database=match.group("database"),
        project=match.group("project"),
        instance=match.group("instance"),
        emulator_host=emulator,
        params=params,
    )


def redact(dsn: str) -> str:
    """``dsn`` with any password replaced by ``***`` (URI user info, ``?password=``, ``password=``)."""
    if not dsn:
        return dsn
    out = _URI_PASSWORD.sub(lambda m: m.group(1) + _MASK + m.group(3), dsn)
    out = _QUERY_PASSWORD.sub(lambda m: m.group(1) + _MASK, out)
    return _KV_PASSWORD.sub(lambda m: m.group(1) + _MASK, out)


def redact_text(text: str, *secrets: str | None) -> str:
    """Free text (a driver's error) with every DSN password form and each given secret masked."""
    out = redact(text)
    for secret in secrets:
        if secret:
            out = out.replace(secret, _MASK)
            quoted = urllib.parse.quote(secret, safe="")
            if quoted != secret:
                out = out.replace(quoted, _MASK)
    return out


def _first_line(exc: BaseException, *secrets: str | None) -> str:
    text = str(exc).strip().splitlines()
    return redact_text(text[0] if text else type(exc).__name__, *secrets)
