"""Drafting tools: introspect a database, draft templates, facets and value searches. Each is a thin
wrapper over the library call the CLI makes, returning JSON-ready data instead of printing; the tool's
schema lives beside it in :data:`TOOLS`."""

from __future__ import annotations

from typing import Any

from ctxtool.mcp.connections import CONNECTIONS
from ctxtool.mcp.tools import DSN, SNAPSHOT, Defaults, Tool, ToolError, counter, dsn_of, schema


def introspect(
    *,
    defaults: Defaults,
    dsn: str | None = None,
    output: str | None = None,
    schemas: list[str] | None = None,
    profile: bool = True,
    include_snapshot: bool = False,
) -> dict[str, Any]:
    from ctxtool import snapshot as snapshots
    from ctxtool.connectors.base import DEFAULT_STATEMENT_TIMEOUT
    from ctxtool.jsondoc import write_text_atomic

    with CONNECTIONS.session(dsn_of(dsn, defaults), statement_timeout=DEFAULT_STATEMENT_TIMEOUT * 6) as conn:
        snap = snapshots.build(conn, schemas or None, profile=profile, progress=counter("introspecting"))
    if output:
        write_text_atomic(output, snapshots.dumps(snap))
    tables = [
        {"table": (f"{s['name']}." if s.get("name") else "") + t["name"], "columns": len(t["columns"])}
        for s in snap["schemas"]
        for t in s["tables"]
    ]
    out: dict[str, Any] = {
        "dialect": snap.get("dialect"),
        "flavour": snap.get("flavour"),
        "version": snap.get("version"),
        "written": output,
        "tables": tables,
        "missing_schemas": sorted(set(schemas or ()) - {s["name"] for s in snap["schemas"]}),
    }
    if include_snapshot or not output:
        out["snapshot"] = snap
    return out


def _draft(
    kind: str,
    defaults: Defaults,
    dsn: str | None,
    snapshot: str | None,
    tables: list[str] | None,
    glossary: str | None,
    output: str | None,
    merge: str | None,
    workload: str | None = None,
    use_llm: bool = False,
) -> dict[str, Any]:
    from ctxtool import snapshot as snapshots
    from ctxtool.draft import draft
    from ctxtool.draft.merge import existing_items, merge_file

    if output and merge:
        raise ToolError("give at most one of output (a new set) and merge (an existing set)")
    llm = None
    if use_llm:
        from ctxtool.llm import ChatClient

        llm = ChatClient.from_env()
    existing = existing_items(merge, kind) if merge else []
    options = {"tables": tables, "workload": workload, "glossary": glossary, "llm": llm, "existing": existing}
    if snapshot:
        result = draft(kind, snapshots.load(snapshot), **options)
    else:
        with CONNECTIONS.session(dsn_of(dsn, defaults), statement_timeout=10.0, row_cap=1000) as conn:
            snap = snapshots.build(conn, profile=True, progress=counter("introspecting"))
            result = draft(
                kind, snap, connector=conn, progress=counter(f"checking drafted {kind}"), **options
            )
    items = result.items()
    out: dict[str, Any] = {"report": result.report(), "executed": not snapshot}
    written = merge or output
    if merge:
        added, skipped = merge_file(merge, kind, items, result.dialect)
        out.update(written=merge, added=added, skipped=skipped + result.already)
    elif output:
        from ctxtool.jsondoc import dump_json

        dump_json(output, result.to_set())
        out.update(written=output, added=len(items))
    out["review"] = review_list(kind, items, [d.origin for d in result.kept], written)
    out[kind] = items  # dropped from the result first when it is too long (the file has them)
    return out


def review_list(
    kind: str, items: list[dict[str, Any]], families: list[str], path: str | None
) -> list[dict[str, Any]]:
    """What the agent shows the user: each draft's index in the written set (what mutate_set takes),
    its question (or a facet's intent) and its family (how it was drafted: schema:count, workload...)."""
    from ctxtool.mcp.mutate import NAME_FIELD

    name = NAME_FIELD[kind]
    where: dict[str, int] = {}
    if path:
        from ctxtool.contextset import normalize_legacy
        from ctxtool.jsondoc import load_json

        data, _ = normalize_legacy(load_json(path).data)
        for i, item in enumerate(data.get(kind) or []):
            if isinstance(item, dict):
                where.setdefault(" ".join(str(item.get(name, "")).split()).lower(), i)
    out = []
    for i, (item, family) in enumerate(zip(items, families, strict=False)):
        text = str(item.get(name, ""))
        index = where.get(" ".join(text.split()).lower(), None if path else i)
        out.append({"index": index, "question" if kind == "templates" else "intent": text, "family": family})
    return out


def draft_templates(
    *,
    defaults: Defaults,
    dsn: str | None = None,
    snapshot: str | None = None,
    tables: list[str] | None = None,
    glossary: str | None = None,
    workload: str | None = None,
    output: str | None = None,
    merge: str | None = None,
    use_llm: bool = False,
) -> dict[str, Any]:
    return _draft("templates", defaults, dsn, snapshot, tables, glossary, output, merge, workload, use_llm)


def draft_facets(
    *,
    defaults: Defaults,
    dsn: str | None = None,
    snapshot: str | None = None,
    tables: list[str] | None = None,
    glossary: str | None = None,
    output: str | None = None,
    merge: str | None = None,
    use_llm: bool = False,
) -> dict[str, Any]:
    return _draft("facets", defaults, dsn, snapshot, tables, glossary, output, merge, None, use_llm)


def draft_values(
    *,
    defaults: Defaults,
    dsn: str | None = None,
    snapshot: str | None = None,
    columns: list[str] | None = None,
    match: str | None = None,
    output: str | None = None,
    merge: str | None = None,
    apply_ddl: bool = False,
    limit: int = 10,
) -> dict[str, Any]:
    from ctxtool.values.workflow import draft_values as run

    if output and merge:
        raise ToolError("give at most one of output (a new set) and merge (an existing set)")
    target = None if snapshot else dsn_of(dsn, defaults)
    if apply_ddl and not target:
        raise ToolError("apply_ddl changes a database: pass dsn (not snapshot)")
    result = run(
        dsn=target,
        snapshot_path=snapshot,
        columns=columns or (),
        match=match,
        output=output,
        merge_path=merge,
        apply=apply_ddl,
        limit=limit,
    )
    if result.applied:
        CONNECTIONS.forget(target)  # their cached server info (extensions) may be out of date
    return {
        "written": output or merge,
        "added": result.added,
        "replaced": result.replaced,
        "searches": [
            {
                "column": r.target.label,
                "match": r.match,
                "concept_type": r.concept_type,
                "ddl": r.ddl,
                "ddl_required": r.ddl_required,
            }
            for r in result.recipes
        ],
        "ddl": result.ddl,
        "ddl_applied": [{"statement": a.statement, "status": a.status} for a in result.applied],
        "notes": result.notes,
        "value_searches": result.data.get("value_searches", []),
    }


_DRAFT_SOURCE = {
    "dsn": {**DSN, "description": DSN["description"] + " Drafts are executed on it read-only."},
    "snapshot": {
        **SNAPSHOT,
        "description": "Draft from this snapshot instead of a live database "
        "(drafts are validated, not executed).",
    },  # fmt: skip
    "tables": {"type": "array", "items": {"type": "string"}, "description": "Only these tables."},
    "glossary": {
        "type": "string",
        "description": 'A JSON glossary naming cryptic tables and columns: {"tables": {...}, "columns": '
        '{"table.COL": "plain name"}}.',
    },
    "output": {"type": "string", "description": "Write a new context set to this path."},
    "merge": {
        "type": "string",
        "description": "Add the drafts to this context set (skipping duplicates; order and format kept).",
    },
    "use_llm": {
        "type": "boolean",
        "default": False,
        "description": "Also ask the language model configured in CTXTOOL_LLM_* (every proposal checked).",
    },
}

TOOLS = [
    Tool(
        "introspect",
        "Read a live database's schema (tables, columns, keys, indexes) and, by default, a profile of "
        "its data (distinct counts, null share, common values, min/max) into a schema snapshot. Call "
        "it first: drafting, validation with a snapshot and parameterize use the snapshot. Read-only. "
        "Returns the tables with their column counts and where the snapshot was written (the snapshot "
        "itself when no output is given).",
        schema(
            {
                "dsn": DSN,
                "output": {
                    "type": "string",
                    "description": "Write the snapshot here (e.g. db.snapshot.json).",
                },
                "schemas": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Only these schemas.",
                },
                "profile": {"type": "boolean", "default": True, "description": "Profile column values."},
                "include_snapshot": {
                    "type": "boolean",
                    "default": False,
                    "description": "Return the snapshot even when it is written to output.",
                },
            }
        ),
        introspect,
        read_only=False,
        bulky=("snapshot",),
        writes=("output",),
        writes_kind="snapshot",
    ),
    Tool(
        "draft_templates",
        "Draft templates (a natural-language question with its SQL): counts, breakdowns, top-N, sums, "
        "lookups by name, joins along foreign keys, and (with workload) the queries people actually "
        "run. Every draft is parameterized and validated, and executed read-only when drafting from a "
        "dsn; failing drafts are dropped and listed in report.dropped. Show the drafts to the user "
        "before keeping them: the result's review list (index in the set, question, family) is what to show. "
        "Returns report, review and the kept templates with their SQL (left out when the result would be "
        "too long: then they are in the written set and in the file full_result names).",
        schema(
            {
                **_DRAFT_SOURCE,
                "workload": {
                    "type": "string",
                    "description": "Also draft from the query workload: pg_stat_statements, "
                    "performance_schema, or a query-log file path.",
                },
            }
        ),
        draft_templates,
        read_only=False,
        bulky=("templates", "report.left_out", "report.dropped", "report.skipped_columns"),
        writes=("output", "merge"),
        reads=("snapshot", "glossary", "workload"),
    ),
    Tool(
        "draft_facets",
        "Draft facets: reusable filter conditions (numeric ranges, equality on categories, date "
        "ranges, flags, names) with every column written table.column. Checked like templates. "
        "Returns report and the kept facets.",
        schema(_DRAFT_SOURCE),
        draft_facets,
        read_only=False,
        bulky=("facets", "report.left_out", "report.dropped", "report.skipped_columns"),
        writes=("output", "merge"),
        reads=("snapshot", "glossary"),
    ),
    Tool(
        "draft_values",
        "Draft value searches for the columns where users name things (names, codes, categories), "
        "using the engine's fuzzy search (PostgreSQL pg_trgm, MySQL/MariaDB FULLTEXT, Spanner "
        "SEARCH_NGRAMS). Returns the searches, the DDL (indexes, extensions) they need, and notes. The "
        "DDL is only reported unless apply_ddl is true: ask the user before applying it, it is the only "
        "write ctxtool makes to a database.",
        schema(
            {
                "dsn": DSN,
                "snapshot": {
                    **SNAPSHOT,
                    "description": "Draft from this snapshot instead of a live database.",
                },
                "columns": {
                    "type": "array",
                    "items": {"type": "string", "pattern": "^[^.]+\\.[^.]+"},
                    "description": "Exactly these columns, as table.column (default: chosen from the profile).",
                },
                "match": {"type": "string", "enum": ["exact", "trigram", "fuzzy", "semantic"]},
                "output": {"type": "string", "description": "Write a new context set to this path."},
                "merge": {
                    "type": "string",
                    "description": "Add the searches to this set (replacing ones on the same column).",
                },
                "apply_ddl": {
                    "type": "boolean",
                    "default": False,
                    "description": "Run the DDL on dsn through a separate write connection. Only when the "
                    "user agreed.",
                },
                "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 10},
            }
        ),
        draft_values,
        read_only=False,
        bulky=("value_searches",),
        writes=("output", "merge"),
        reads=("snapshot",),
    ),
]
