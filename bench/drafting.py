"""A set drafted from a database alone, the way a user drafts one with the CLI (shared by the benches).

``draft_set(dsn)`` makes the library calls behind ``ctxtool introspect --profile``, ``ctxtool draft
templates --dsn`` (optionally ``--workload FILE`` and ``--max N``), ``ctxtool draft facets --dsn``,
``ctxtool draft values --dsn`` (the searches that run on the database as it is) and ``ctxtool
parameterize``: no model, nothing written to the database. ``code_hash()`` is a hash of the code
those calls run, for caching drafted sets between runs of a bench.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# the code a drafted set depends on (drafting, value searches, parameterize, validate, the
# connectors and snapshots, the shared name and word resources)
DRAFTING_CODE = (
    "ctxtool/draft",
    "ctxtool/values",
    "ctxtool/parameterize",
    "ctxtool/validate",
    "ctxtool/connectors",
    "ctxtool/snapshot.py",
    "ctxtool/identifiers.py",
    "ctxtool/sqlrefs.py",
    "ctxtool/placeholders.py",
    "ctxtool/dialects.py",
    "bench/drafting.py",
)


def code_hash(extra: bytes = b"") -> str:
    """A short hash of the drafting code (every ``.py`` file under :data:`DRAFTING_CODE`) and ``extra``."""
    h = hashlib.sha256(extra)
    for entry in DRAFTING_CODE:
        path = ROOT / entry
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for f in files:
            h.update(str(f.relative_to(ROOT)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def draft_set(
    dsn: str,
    *,
    workload: str | None = None,
    max_templates: int | None = None,
    statement_timeout: float = 10.0,
) -> tuple[dict[str, Any], list[str], dict[str, Any]]:
    """The set a user drafts from the database at ``dsn`` (and the query log ``workload``):
    templates, facets and value searches, parameterized. Returns (set, notes, report)."""
    from ctxtool import snapshot as snapshots
    from ctxtool.connectors import connect
    from ctxtool.draft import draft
    from ctxtool.errors import CtxtoolError
    from ctxtool.parameterize import parameterize_set
    from ctxtool.values.draft import draft as draft_value_searches
    from ctxtool.values.draft import merge, server_from_connector

    notes: list[str] = []
    report: dict[str, Any] = {}
    data: dict[str, Any] = {}
    with connect(dsn, statement_timeout=statement_timeout, row_cap=1000) as conn:
        snap = snapshots.build(conn, profile=True)
        for kind in ("templates", "facets"):
            kw: dict[str, Any] = {}
            if kind == "templates":
                if workload is not None:
                    kw["workload"] = workload
                if max_templates is not None:
                    kw["max_templates"] = max_templates
            result = draft(kind, snap, connector=conn, **kw)
            data[kind] = result.items()
            report[kind] = len(result.kept)
            if kind == "templates":
                report["left_out"] = len(result.left_out)
                report["dropped"] = len(result.dropped)
        try:
            recipes, _ = draft_value_searches(
                snap, server=server_from_connector(conn), connector=conn, as_is=True
            )
            data, _, _ = merge(data, recipes)
            report["value_searches"] = len(recipes)
        except CtxtoolError as exc:
            notes.append(f"draft values failed: {exc}")
    data, _ = parameterize_set(data, snap.get("dialect") or conn.dialect, snap)
    return data, notes, report
