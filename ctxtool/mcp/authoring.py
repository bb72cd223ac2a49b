"""The authoring workflow as tool functions: introspect, draft, parameterize, validate, test values,
evaluate. Each is a thin wrapper over the library call the CLI makes, returning JSON-ready data
instead of printing; the tool's schema lives beside it in :data:`TOOLS`."""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
from collections.abc import Callable, Iterator
from typing import Any

from ctxtool.mcp.connections import CONNECTIONS
from ctxtool.mcp.tools import (
    DIALECT,
    DSN,
    SET_PATH,
    SNAPSHOT,
    Defaults,
    Tool,
    ToolError,
    dsn_of,
    progress,
    schema,
)


def _counter(what: str, total: int | None = None) -> Callable[[Any], None]:
    """A library ``progress`` callback (called once per step) reporting to the MCP client."""
    done = [0]

    def step(item: Any) -> None:
        done[0] += 1
        progress(done[0], total, f"{what}: {item}" if isinstance(item, str) else what)

    return step


def _each(what: str) -> Callable[[list[Any]], Iterator[Any]]:
    """A library ``progress`` wrapper of a list (``run_eval``'s) reporting to the MCP client."""

    def wrap(items: list[Any]) -> Iterator[Any]:
        for i, item in enumerate(items):
            progress(i, len(items), what)
            yield item
        progress(len(items), len(items), what)

    return wrap


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
        snap = snapshots.build(conn, schemas or None, profile=profile, progress=_counter("introspecting"))
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
            snap = snapshots.build(conn, profile=True, progress=_counter("introspecting"))
            result = draft(
                kind, snap, connector=conn, progress=_counter(f"checking drafted {kind}"), **options
            )
    items = result.items()
    out: dict[str, Any] = {"report": result.report(), "executed": not snapshot}
    if merge:
        added, skipped = merge_file(merge, kind, items, result.dialect)
        out.update(written=merge, added=added, skipped=skipped + result.already)
    elif output:
        from ctxtool.jsondoc import dump_json

        dump_json(output, result.to_set())
        out.update(written=output, added=len(items))
    out[kind] = items
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


def parameterize(
    *,
    defaults: Defaults,
    path: str,
    dialect: str | None = None,
    snapshot: str | None = None,
    force: bool = False,
    write: bool = False,
) -> dict[str, Any]:
    from ctxtool import contextset
    from ctxtool import snapshot as snapshots
    from ctxtool.jsondoc import write_text_atomic
    from ctxtool.parameterize import parameterize_contextset

    cs = contextset.load(path)
    snap = snapshots.load(snapshot) if snapshot else None
    dialect = dialect or (snap or {}).get("dialect")
    if not dialect:
        raise ToolError("name the SQL dialect (dialect: postgres|mysql|spanner) or pass a snapshot")
    _, report, changed_text = parameterize_contextset(cs, dialect, snap, force=force)
    changed = changed_text is not None
    new_text = changed_text if changed else cs.doc.text
    if write and changed:
        write_text_atomic(path, new_text)
    items = []
    for entry in report:
        line, column = cs.position(entry.pointer)
        items.append({**entry.to_dict(), "line": line, "column": column})
    diff = "".join(
        difflib.unified_diff(
            cs.doc.text.splitlines(keepends=True),
            new_text.splitlines(keepends=True),
            fromfile=path,
            tofile=f"{path} (parameterized)",
        )
    )
    return {
        "path": path,
        "changed": changed,
        "written": bool(write and changed),
        "filled": sum(1 for e in report if e.status == "filled"),
        "problems": sum(len(e.problems) for e in report),
        "items": [i for i in items if i["status"] != "complete"],
        "diff": diff if not write else "",
    }


def findings_payload(findings: list[Any]) -> list[dict[str, Any]]:
    """Findings as tool output: the rule's fix beside each (``file`` rather than ``path``)."""
    from ctxtool.validate.rules import RULES

    out = []
    for f in findings:
        rule = RULES.get(f.code)
        out.append(
            {
                "code": f.code,
                "severity": f.severity,
                "file": f.path,
                "line": f.line,
                "column": f.column,
                "pointer": f.pointer,
                "message": f.message,
                "fix": rule.fix if rule else "",
            }
        )
    return out


def validate(
    *,
    defaults: Defaults,
    paths: list[str] | None = None,
    text: str | None = None,
    dialect: str | None = None,
    snapshot: str | None = None,
    dsn: str | None = None,
    strict: bool = False,
) -> dict[str, Any]:
    from ctxtool import snapshot as snapshots
    from ctxtool.validate import validate_paths, validate_text

    if bool(paths) == (text is not None):
        raise ToolError("give exactly one of paths (files, directories, globs) and text (a set as JSON)")
    snap = snapshots.load(snapshot) if snapshot else None
    with contextlib.ExitStack() as stack:
        connector = stack.enter_context(CONNECTIONS.session(dsn)) if dsn else None
        dialect = dialect or (connector.dialect if connector else None) or (snap or {}).get("dialect")
        dialect = dialect or "postgres"
        if text is not None:
            findings = validate_text(text, "<text>", dialect=dialect, snapshot=snap, connector=connector)
            files, unreadable = ["<text>"], []
        else:
            result = validate_paths(
                paths or [], dialect=dialect, strict=strict, snapshot=snap, connector=connector
            )
            findings, files, unreadable = result.findings, result.files, result.unreadable
    if strict and text is not None:
        findings = [dataclasses.replace(f, severity="error") for f in findings]
    if not files and not unreadable:
        raise ToolError("no context-set file found under the given paths (looked for *.json)")
    errors = sum(1 for f in findings if f.severity == "error")
    return {
        "ok": errors == 0 and not unreadable,
        "summary": {"files": len(files), "errors": errors, "warnings": len(findings) - errors},
        "files": files,
        "findings": findings_payload(findings),
        "unreadable": unreadable,
    }


def test_values(
    *,
    defaults: Defaults,
    path: str,
    dsn: str | None = None,
    probe: str | None = None,
    samples: int = 20,
    seed: int = 0,
    min_recall: float | None = None,
) -> dict[str, Any]:
    from ctxtool import contextset
    from ctxtool.runtime.answer import jsonable
    from ctxtool.values.testing import probe_value
    from ctxtool.values.testing import test_values as run

    cs = contextset.load(path)
    with CONNECTIONS.session(dsn_of(dsn, defaults), statement_timeout=5.0) as conn:
        if probe is not None:
            rows = probe_value(cs, conn, probe)
            names = ("value", "columns", "concept_type", "distance", "context")
            return {
                "probe": probe,
                "searches": [
                    {
                        "search": r.search,
                        "location": r.location,
                        "ms": r.ms,
                        "error": r.error,
                        "rows": [dict(zip(names, jsonable(list(row)), strict=False)) for row in r.rows],
                    }
                    for r in rows
                ],
            }
        total = sum(1 for _ in cs.items("value_searches"))
        report = run(
            cs,
            conn,
            samples=samples,
            seed=seed,
            min_recall=min_recall,
            progress=_counter("testing value searches", total),
        )
    return report.to_dict()


test_values.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


def evaluate(
    *,
    defaults: Defaults,
    golden: str,
    context: str | None = None,
    set: str | None = None,  # noqa: A002 - the argument's name in the schema
    dsn: str | None = None,
    database: str | None = None,
    verbose: bool = False,
) -> dict[str, Any]:
    from ctxtool.mcp.runtime_tools import set_ref
    from ctxtool.runtime import Runtime
    from ctxtool.runtime.evaluate import load_golden, run_eval

    questions = load_golden(golden)
    with Runtime(set_ref(context, set, defaults), dsn=dsn_of(dsn, defaults), store=defaults.store) as rt:
        report = run_eval(rt, questions, database=database, progress=_each("asking golden questions"))
    data = report.to_dict()
    if not verbose:
        data["questions"] = [q for q in data["questions"] if q["outcome"] != "correct"]
    return data


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
    ),
    Tool(
        "draft_templates",
        "Draft templates (a natural-language question with its SQL): counts, breakdowns, top-N, sums, "
        "lookups by name, joins along foreign keys, and (with workload) the queries people actually "
        "run. Every draft is parameterized and validated, and executed read-only when drafting from a "
        "dsn; failing drafts are dropped and listed in report.dropped. Show the drafts to the user "
        "before keeping them. Returns report and the kept templates (and where they were written).",
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
    ),
    Tool(
        "draft_facets",
        "Draft facets: reusable filter conditions (numeric ranges, equality on categories, date "
        "ranges, flags, names) with every column written table.column. Checked like templates. "
        "Returns report and the kept facets.",
        schema(_DRAFT_SOURCE),
        draft_facets,
        read_only=False,
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
    ),
    Tool(
        "parameterize",
        "Fill each template's and facet's intent, manifest and parameterized intent/SQL (values the "
        "question mentions become placeholders). Call it after adding or editing templates and facets. "
        "Without write it only reports: items (status filled/problem, parameters found) and a unified "
        "diff; with write it rewrites the file atomically. Items it cannot derive exactly are left "
        "unchanged and listed with their problems.",
        schema(
            {
                "path": SET_PATH,
                "dialect": DIALECT,
                "snapshot": {
                    **SNAPSHOT,
                    "description": SNAPSHOT["description"] + " Gives better manifest types.",
                },
                "force": {
                    "type": "boolean",
                    "default": False,
                    "description": "Recompute complete items too.",
                },
                "write": {"type": "boolean", "default": False, "description": "Rewrite the file in place."},
            },
            ("path",),
        ),
        parameterize,
        read_only=False,
    ),
    Tool(
        "validate",
        "Check context sets: JSON and the JSON Schema, SQL syntax and read-only-ness, placeholders, "
        "consistency of the parameterized forms, facets, value searches, duplicates; with snapshot, "
        "that tables and columns exist; with dsn, that every query plans on the database. Call it after "
        "every change. Returns ok, a summary and findings, each with code, severity, file, line, column, "
        "JSON pointer, message and fix (what to do).",
        schema(
            {
                "paths": {
                    "type": "array",
                    "items": {"type": "string"},
                    "minItems": 1,
                    "description": "Files, directories (every *.json below) or globs.",
                },
                "text": {"type": "string", "description": "A context set as JSON text, instead of paths."},
                "dialect": DIALECT,
                "snapshot": SNAPSHOT,
                "dsn": {**DSN, "description": "Also plan every query on this database (read-only EXPLAIN)."},
                "strict": {"type": "boolean", "default": False, "description": "Report warnings as errors."},
            }
        ),
        validate,
    ),
    Tool(
        "test_values",
        "Run every value search of a set against the database with probe values (stored values, "
        "misspellings, partial values, values that must not match) and check the answers' shape, "
        "recall@5, precision, latency and index use. With probe, instead show what each search "
        "returns for that one value. Returns per search ok, the checks that failed, and the measures.",
        schema(
            {
                "path": SET_PATH,
                "dsn": DSN,
                "probe": {"type": "string", "description": "Show what each search returns for this value."},
                "samples": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 20},
                "seed": {"type": "integer", "default": 0},
                "min_recall": {"type": "number", "minimum": 0, "maximum": 1},
            },
            ("path",),
        ),
        test_values,
    ),
    Tool(
        "eval",
        "Evaluate a set on golden questions: a JSON list of {id, database, nlq, golden_sql, tags}. "
        "Asks every question, runs its golden SQL and compares the rows. Returns summary (execution "
        "accuracy, answered and wrong-answer rates, overall, covered, per tag) and the questions not "
        "answered correctly (all with verbose), with the SQL the set produced. Use it to find what "
        "to improve: add or reword templates for the questions that failed, then evaluate again.",
        schema(
            {
                "golden": {"type": "string", "description": "Path of the golden-questions JSON file."},
                "context": SET_PATH,
                "set": {
                    "type": "string",
                    "description": "A published set NAME[@VERSION] instead of context.",
                },
                "dsn": DSN,
                "database": {"type": "string", "description": "Only the golden questions of this database."},
                "verbose": {
                    "type": "boolean",
                    "default": False,
                    "description": "List correct questions too.",
                },
            },
            ("golden",),
        ),
        evaluate,
    ),
]
