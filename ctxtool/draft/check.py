"""Everything drafted is checked before it is kept: parameterized, validated, and executed.

A draft is dropped (and listed in the report with the reason) when ``parameterize`` cannot derive its
forms exactly, when ``validate_set`` reports an error on it, when it fails to run in the read-only
session, or when it returns no rows. Nothing unchecked reaches the user's file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from ctxtool import contextset
from ctxtool.draft.drafts import Draft
from ctxtool.errors import CtxtoolError
from ctxtool.parameterize import parameterize_item

# Findings about the set as a whole, not about one draft.
_SET_LEVEL_CODES = {"CTX003"}


def parameterize_drafts(drafts: Sequence[Draft], dialect: str, snapshot: Any = None) -> None:
    for d in drafts:
        if d.status == "dropped":
            continue
        res = parameterize_item(d.item, d.kind, dialect, snapshot)
        if res.problems:
            d.drop("parameterize: " + "; ".join(res.problems))
        else:
            d.item = dict(res)


def validate_drafts(
    drafts: Sequence[Draft], dialect: str, snapshot: Any = None, connector: Any = None
) -> None:
    """Validate the live drafts as one set and drop each draft with an error finding."""
    from ctxtool.validate import validate_set

    live = [d for d in drafts if d.status != "dropped"]
    if not live:
        return
    data: dict[str, list[dict[str, Any]]] = {"templates": [], "facets": []}
    where: dict[str, Draft] = {}
    for d in live:
        where[f"/{d.kind}/{len(data[d.kind])}"] = d
        data[d.kind].append(d.item)
    cs = contextset.loads(json.dumps(data), "<draft>")
    findings = None
    for snap, conn in ((snapshot, connector), (snapshot, None), (None, None)):
        try:
            findings = validate_set(cs, dialect=dialect, snapshot=snap, connector=conn)
            break
        except CtxtoolError as exc:
            if "layer" not in str(exc):
                raise
    assert findings is not None
    for f in findings:
        if not f.is_error or f.code in _SET_LEVEL_CODES:
            continue
        parts = (f.pointer or "").split("/")
        key = "/".join(parts[:3]) if len(parts) >= 3 else ""
        d = where.get(key)
        if d is not None and d.status != "dropped":
            d.drop(f"{f.code}: {f.message}")


def execute_drafts(
    drafts: Sequence[Draft],
    connector: Any,
    *,
    progress: Callable[[Draft], None] | None = None,
) -> None:
    """Run each live draft read-only (the connector's statement timeout and row cap apply); drop
    those that fail or return nothing."""
    m_quote = _quote_for(connector)
    for d in drafts:
        if d.status == "dropped":
            continue
        if d.kind == "templates":
            candidates = [d.item["sql"], *d.alternatives]
            error: str | None = None
            for n, sql in enumerate(candidates):
                try:
                    # the session's own row cap bounds the fetch; a smaller max_rows than the
                    # statement's LIMIT leaves unread rows that stall the MySQL driver
                    result = connector.query(sql)
                except CtxtoolError as exc:
                    error = f"fails: {str(exc).splitlines()[0]}"
                    continue
                if result.rows:
                    if n:
                        _swap_example(d, sql)
                    d.rows = len(result.rows)
                    error = None
                    break
                error = "returns no rows"
            if error:
                d.drop(error)
        else:
            table = d.table or (d.tables[0] if d.tables else None)
            if table is None:
                continue
            sql = f"SELECT 1 FROM {d.from_sql or m_quote(table)} WHERE {d.item['sql_snippet']} LIMIT 1"
            try:
                result = connector.query(sql, max_rows=1)
            except CtxtoolError as exc:
                d.drop(f"fails: {str(exc).splitlines()[0]}")
                continue
            if not result.rows:
                d.drop("matches no rows")
            else:
                d.rows = len(result.rows)
        if progress:
            progress(d)


def _swap_example(d: Draft, sql: str) -> None:
    """Use another concrete example of the same workload query (one that returns rows)."""
    d.alternatives = [s for s in [d.item["sql"], *d.alternatives] if s != sql]
    d.item["sql"] = sql
    if d.redescribe is not None:
        d.item["nl_query"] = d.redescribe(sql)


def _quote_for(connector: Any) -> Callable[[str], str]:
    from ctxtool.draft.model import quote_ident

    dialect = getattr(connector, "dialect", "postgres")
    return lambda name: quote_ident(name, dialect)


def check_drafts(
    drafts: Sequence[Draft],
    dialect: str,
    *,
    snapshot: Any = None,
    labelled: Any = None,
    connector: Any = None,
    progress: Callable[[Draft], None] | None = None,
) -> list[Draft]:
    """Parameterize, validate and (with a connector) execute ``drafts``; return the kept ones.
    ``labelled`` is the snapshot parameterize reads column meanings from (see
    :meth:`ctxtool.draft.model.Model.labelled_snapshot`)."""
    if connector is not None:
        execute_drafts(drafts, connector, progress=progress)
    parameterize_drafts(drafts, dialect, labelled if labelled is not None else snapshot)
    validate_drafts(drafts, dialect, snapshot, connector)
    kept = []
    for d in drafts:
        if d.status != "dropped":
            d.status = "kept"
            kept.append(d)
    return kept
