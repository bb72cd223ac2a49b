"""ctxtool's own catalog SQL: the one way past the function allow-list.

Introspection, profiling and workload reading run fixed SQL written in ctxtool (constant strings over
``pg_catalog``, ``information_schema``, ``pg_stat_statements``, ``performance_schema``) that calls
catalog functions no user query may call (``pg_get_expr``, ``format_type``...). The connectors run
such SQL through ``Connector.catalog_query``, which marks that exact text as ctxtool's own for the
call (a context variable, so another thread's or another call's text is never marked) and then runs
it in the same read-only session, with the same timeout and row cap. Nothing a user, a file or a
model writes may go through it: callers pass constant strings only.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_OWN_SQL: ContextVar[str | None] = ContextVar("ctxtool_own_catalog_sql", default=None)


@contextmanager
def own_catalog_sql(sql: str) -> Iterator[None]:
    """Within the block, :func:`is_own_catalog_sql` is true for exactly ``sql``."""
    token = _OWN_SQL.set(sql)
    try:
        yield
    finally:
        _OWN_SQL.reset(token)


def is_own_catalog_sql(sql: str) -> bool:
    return _OWN_SQL.get() == sql
