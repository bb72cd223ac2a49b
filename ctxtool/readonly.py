"""The one call through which the loop (golden datasets, eval, feedback, promote) runs SQL.

Golden SQL, a corrected SQL from feedback, a sample of a column's values: each is SQL that did not
come from a checked template, so each is first read as exactly one read-only SELECT (the check a
model's SQL passes, :func:`ctxtool.runtime.templates.sqlparts.check_read_only_select`), then run
with bound parameters on the connector's read-only session (its statement timeout and row cap).
Keeping the check in this one function makes it the one place to switch to the read-only gate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ctxtool.runtime.templates.sqlparts import check_read_only_select

__all__ = ["run_read_only"]


def run_read_only(
    connector: Any,
    sql: str,
    params: Sequence[Any] = (),
    *,
    dialect: str | None = None,
    max_rows: int | None = None,
) -> Any:
    """The rows of ``sql`` (a :class:`~ctxtool.connectors.base.QueryResult`) after the read-only
    check; raises :class:`~ctxtool.errors.InputError` for anything but one SELECT, and
    :class:`~ctxtool.errors.DatabaseError` when the database rejects it."""
    check_read_only_select(sql, dialect or connector.dialect, None)
    return connector.query(sql, tuple(params), max_rows=max_rows)
