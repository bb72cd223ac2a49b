"""The one small interface every database engine implements.

A :class:`Connector` is a read-only session on a user's database: every statement runs in a
read-only transaction (or snapshot) with a statement timeout and a row cap, values are always bound
as parameters, and the password never appears in messages. SQL passed to :meth:`Connector.query`
and :meth:`Connector.plan` uses the context-set placeholder style of the engine's dialect
(``$1..$n`` on PostgreSQL, ``?`` on MySQL and Spanner) and/or ``$value``; each connector rewrites it
to its driver's style with :func:`ctxtool.placeholders.to_driver`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxtool.gate import is_own_catalog_sql, own_catalog_sql, require

DEFAULT_STATEMENT_TIMEOUT = 5.0  # seconds
DEFAULT_ROW_CAP = 1000


@dataclass
class ServerInfo:
    engine: str  # "postgres" | "mysql" | "spanner"
    flavour: (
        str  # "postgresql" | "alloydb" | "mysql" | "mariadb" | "spanner-googlesql" | "spanner-postgresql"
    )
    version: str
    dialect: str  # the ctxtool dialect of its SQL: "postgres" | "mysql" | "spanner"
    extensions: list[str] = field(default_factory=list)


@dataclass
class QueryResult:
    columns: list[str]
    rows: list[tuple[Any, ...]]
    truncated: bool = False  # True when the row cap cut the result
    column_types: list[str] = field(default_factory=list)  # driver/engine type names where known


class Connector(ABC):
    """A read-only session on one database. Use as a context manager."""

    engine: str
    dialect: str

    def __init__(
        self, *, statement_timeout: float = DEFAULT_STATEMENT_TIMEOUT, row_cap: int = DEFAULT_ROW_CAP
    ):
        self.statement_timeout = statement_timeout
        self.row_cap = row_cap

    @abstractmethod
    def info(self) -> ServerInfo:
        """Engine, flavour, version, dialect and extensions of the server."""

    @abstractmethod
    def query(
        self, sql: str, params: Sequence[Any] | Mapping[str, Any] = (), *, max_rows: int | None = None
    ) -> QueryResult:
        """Run one read-only statement with bound parameters; at most ``max_rows`` (default the row cap)."""

    @abstractmethod
    def plan(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> Any:
        """The server's plan for ``sql`` (EXPLAIN, or the Spanner query planner) without running it."""

    def gate(self, sql: str) -> None:
        """The read-only gate (:mod:`ctxtool.gate`): raise :class:`~ctxtool.gate.GateRefused` unless
        ``sql`` is one read-only query with allowed functions. ``query`` and ``plan`` call it first,
        so no statement reaches the database unchecked, whatever its source; only ctxtool's own
        catalog SQL (:meth:`catalog_query`) skips the function allow-list."""
        if not is_own_catalog_sql(sql):
            require(sql, self.dialect)

    def catalog_query(
        self, sql: str, params: Sequence[Any] | Mapping[str, Any] = (), *, max_rows: int | None = None
    ) -> QueryResult:
        """Run ctxtool's own fixed catalog SQL (a constant string in ctxtool's code that reads
        ``pg_stat_statements``, ``performance_schema``...), in the same read-only session with the same
        timeout and row cap as :meth:`query`, but past the gate's function allow-list. Never pass
        text that comes from a user, a file or a model."""
        with own_catalog_sql(sql):
            return self.query(sql, params, max_rows=max_rows)

    @abstractmethod
    def sample_column(self, table: str, column: str, n: int = 100, *, schema: str | None = None) -> list[Any]:
        """Up to ``n`` distinct non-null values of ``table.column``, deterministic where the engine allows."""

    @abstractmethod
    def introspect(
        self, schemas: Sequence[str] | None = None, *, profile: bool = False, progress: Any = None
    ) -> dict:
        """A schema snapshot (see ``schemas/schema_snapshot.schema.json``)."""

    def reset_session(self) -> None:
        """Bring the session back to how it was opened (locks, temporary tables, settings a
        statement left behind); connection pools call it when a session comes back. Engines whose
        every statement runs in a fresh read-only snapshot (Spanner) have nothing to reset."""
        return None

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> Connector:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
