"""Checking tools: parameterize, validate, test value searches, evaluate on golden questions. Thin
wrappers over the library calls the CLI makes; the tools' schemas live beside them in :data:`TOOLS`."""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
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
    counter,
    dsn_of,
    each,
    schema,
)


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
    dialect = dialect or (snap or {}).get("dialect") or "postgres"  # as the CLI and validate
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
            progress=counter("testing value searches", total),
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
    compare: str | None = None,
) -> dict[str, Any]:
    from ctxtool.loop.compare import compare as compare_reports
    from ctxtool.mcp.runtime_tools import set_ref
    from ctxtool.runtime import Runtime
    from ctxtool.runtime.evaluate import load_golden, run_eval

    questions = load_golden(golden)
    refs = [set_ref(context, set, defaults)] + ([compare] if compare else [])
    reports = []
    for ref in refs:
        with Runtime(ref, dsn=dsn_of(dsn, defaults), store=defaults.store) as rt:
            reports.append(
                run_eval(rt, questions, database=database, progress=each("asking golden questions"))
            )
    report = reports[-1]
    data = report.to_dict()
    if compare:
        data["comparison"] = compare_reports(reports[0], reports[1]).to_dict()
    if not verbose:
        data["questions"] = [q for q in data["questions"] if q["outcome"] != "correct"]
    return data


TOOLS = [
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
        reads=("path", "snapshot"),
        writes_if=(("path", "write"),),
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
        reads=("paths", "snapshot"),
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
        reads=("path",),
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
                "compare": {
                    "type": "string",
                    "description": "Another set (file or published NAME[@VERSION]) to evaluate too: the "
                    "result's comparison lists the questions that went from right to not right and back, "
                    "per tag and per template; summary is then this other set's.",
                },
            },
            ("golden",),
        ),
        evaluate,
        reads=("golden", "context", "set"),
    ),
]
