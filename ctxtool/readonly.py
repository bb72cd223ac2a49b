"""The one call through which the loop (golden datasets, eval, feedback, promote) runs SQL.

Golden SQL, a corrected SQL from feedback, a sample of a column's values: each is SQL that did not
come from a checked template, so each is first passed through the read-only gate
(:func:`ctxtool.gate.require`, which the connector's ``query`` applies again), then run with bound
parameters on the connector's read-only session (its statement timeout and row cap).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ctxtool import gate

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
    gate; raises :class:`~ctxtool.gate.GateRefused` for anything but one read-only query, and
    :class:`~ctxtool.errors.DatabaseError` when the database rejects it."""
    gate.require(sql, dialect or connector.dialect)
    return connector.query(sql, tuple(params), max_rows=max_rows)
