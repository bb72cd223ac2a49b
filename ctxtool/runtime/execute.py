"""Executing a planned answer: its SQL with its parameters, read-only through the connector
(statement timeout and row cap are the connector's), the time it took, and the rows in the answer.

A transient database error (no session just now) is raised so the caller can try again; any other
failure becomes the answer's ``error`` status, never a traceback.
"""

from __future__ import annotations

import time
from typing import Any

from ctxtool.errors import DatabaseError, InputError
from ctxtool.gate import GateRefused
from ctxtool.runtime.answer import Answer


def run(connector: Any, ans: Answer, row_cap: int) -> None:
    """Run ``ans.sql`` with ``ans.params`` and put the rows (at most ``row_cap``) in ``ans``."""
    if connector is None:
        raise InputError("no database to run the SQL on: give --dsn (or use --action showsql)")
    t = time.perf_counter()
    try:
        result = connector.query(ans.sql, ans.params, max_rows=row_cap)
    except DatabaseError as exc:
        if getattr(exc, "transient", False):  # no database session just now: no answer, try again
            raise
        ans.status = "error"
        ans.error = str(exc)
        ans.refused = isinstance(exc, GateRefused)
        ans.text = f"The query failed: {exc}"
        return
    finally:
        ans.timings_ms["execute"] = round((time.perf_counter() - t) * 1000, 3)
    ans.columns = list(result.columns)
    ans.rows = [list(r) for r in result.rows]
    ans.truncated = bool(result.truncated)
    ans.executed = True


def rows_text(question: str, ans: Answer) -> str:
    """The answer's text for ``runsql``: how many rows, or that there were none."""
    if not ans.rows:
        return f"No data found for: {question}"
    return f"{len(ans.rows)} row(s)" + (" (row cap reached)" if ans.truncated else "")
