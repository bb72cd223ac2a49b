"""Driver errors turned into one-line :class:`~ctxtool.errors.DatabaseError` messages a person can act
on, with every password scrubbed out (the DSN's, and any ``password=`` the driver echoes back)."""

from __future__ import annotations

from typing import Any

from ctxtool.connectors.dsn import DSN, redact_text
from ctxtool.errors import DatabaseError, InputError

# (substring of the driver's message, what happened, what to do)
_CONNECT_HINTS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (
        ("password authentication failed", "access denied", "authentication failed", "no password supplied"),
        "authentication failed",
        "check the user and password in the DSN",
    ),
    (
        (
            "could not translate host name",
            "name or service not known",
            "unknown mysql server host",
            "nodename nor servname",
            "temporary failure in name resolution",
            "no address associated",
            "dns resolution failed",
        ),
        "unknown host",
        "check the host name in the DSN",
    ),
    (
        ("does not exist", "unknown database", "database not found"),
        "the database does not exist",
        "check the database name in the DSN",
    ),
    (
        (
            "connection refused",
            "can't connect",
            "timeout expired",
            "timed out",
            "no route to host",
            "could not connect",
            "lost connection",
            "server closed the connection",
            "failed to connect",
            "deadline exceeded",
            "unavailable",
        ),
        "the server cannot be reached",
        "check that it is running and that the host and port in the DSN are right",
    ),
)


def first_line(exc: BaseException) -> str:
    """The first non-empty line of an exception's message (drivers often add context lines)."""
    for line in str(exc).splitlines():
        if line.strip():
            return line.strip()
    return type(exc).__name__


def connect_error(exc: BaseException, dsn: DSN) -> DatabaseError:
    """A failed connection as ``cannot connect to <redacted dsn>: <what>; <what to do>``."""
    detail = first_line(exc)
    lowered = detail.lower()
    where = dsn.redacted or "the database named by PG* environment variables"
    for needles, what, todo in _CONNECT_HINTS:
        if any(n in lowered for n in needles):
            if what == "authentication failed" and dsn.engine == "postgres":
                todo += " (or PGPASSWORD / the server's pg_hba.conf)"
            msg = f"cannot connect to {where}: {what} ({detail}); {todo}"
            break
    else:
        msg = f"cannot connect to {where}: {detail}; check the DSN and that the server is running"
    return DatabaseError(redact_text(msg, dsn.password))


def statement_error(exc: BaseException, dsn: DSN, what: str = "the statement failed") -> DatabaseError:
    """A failed statement as ``<what>: <server message>`` (one line, password-free)."""
    detail = first_line(exc)
    lowered = detail.lower()
    if "statement timeout" in lowered or (
        ("max_statement_time" in lowered or "max_execution_time" in lowered or "deadline" in lowered)
        and ("exceeded" in lowered or "interrupted" in lowered)
    ):
        detail += " (raise --statement-timeout or make the query cheaper)"
    return DatabaseError(redact_text(f"{what}: {detail}", dsn.password))


def bind(sql: str, dialect: str, params: Any, style: str) -> tuple[str, Any]:
    """:func:`ctxtool.placeholders.to_driver`, with a mismatch between placeholders and values
    reported as an :class:`InputError` that says what to pass."""
    from ctxtool.placeholders import to_driver

    try:
        return to_driver(sql, dialect, params if params is not None else (), style)
    except (IndexError, KeyError, TypeError, ValueError) as exc:
        raise InputError(
            f"the query's placeholders do not match the values given ({type(exc).__name__}: {exc}); pass one "
            "value per $n or ? in a list, and {'value': ...} for $value"
        ) from None
