"""Round trips as the PostgreSQL wire protocol sees them, for tests that count them."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from typing import Any


def wire_round_trips(connector: Any, action: Callable[[], Any]) -> int:
    """Sync (extended protocol) and Query (simple protocol) messages the client sends while
    ``action`` runs: each waits for the server once. Counted from libpq's protocol trace."""
    fd, path = tempfile.mkstemp(prefix="ctx_pgtrace_")
    try:
        connector.conn.pgconn.trace(fd)
        action()
        connector.conn.pgconn.untrace()
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    finally:
        os.close(fd)
        os.unlink(path)
    return sum(1 for line in lines if "\tF\t" in line and line.split("\t")[3] in ("Sync", "Query"))
