"""``mutate_set``: add, update and delete templates, facets and value searches in a context-set file.

An item is named by its index or by its text (a template's ``nl_query``, a facet's ``intent``, a value
search's ``concept_type``). Changed templates and facets get their derived forms (intent, manifest,
parameterized) again, the whole new file is validated, and it is written atomically only when the
changed items have no error: otherwise nothing is written and the findings say why. The file keeps its
key order, indentation, escaping and spelling (a legacy ``fragments`` file stays legacy-spelled).
"""

from __future__ import annotations

import copy
import json
import os
import re
from typing import Any

from ctxtool.mcp.tools import DIALECT, DSN, SET_PATH, SNAPSHOT, Defaults, Tool, ToolError, schema

KINDS = ("templates", "facets", "value_searches")
NAME_FIELD = {"templates": "nl_query", "facets": "intent", "value_searches": "concept_type"}
SOURCE_FIELDS = {"templates": ("nl_query", "sql", "intent"), "facets": ("sql_snippet", "intent")}
DERIVED_FIELDS = ("manifest", "parameterized")


def _norm(text: Any) -> str:
    return " ".join(str(text).split()).lower()


def _find(items: list[Any], kind: str, op: dict[str, Any], n: int) -> int:
    if "index" in op:
        i = op["index"]
        if not 0 <= i < len(items):
            raise ToolError(f"operation {n}: {kind} has {len(items)} items; index {i} is out of range")
        return i
    name = NAME_FIELD[kind]
    wanted = op.get(name)
    if wanted is None:
        raise ToolError(f"operation {n}: name the {kind} item with index or {name}")
    found = [
        i for i, it in enumerate(items) if isinstance(it, dict) and _norm(it.get(name, "")) == _norm(wanted)
    ]
    if not found:
        raise ToolError(f"operation {n}: no item of {kind} has {name} {wanted!r}")
    if len(found) > 1:
        raise ToolError(f"operation {n}: {len(found)} items of {kind} have {name} {wanted!r}; use index")
    return found[0]


def _apply(
    data: dict[str, Any], operations: list[dict[str, Any]], deleted: list[dict[str, Any]] | None = None
) -> list[tuple[str, int]]:
    """Apply ``operations`` to ``data`` (current spelling); returns (kind, index) of items added or
    updated, indices as they are after every operation. Deleted items are appended to ``deleted``
    (kind, index at the time of the delete, name)."""
    changed: list[tuple[str, int]] = []
    if deleted is None:
        deleted = []
    for n, op in enumerate(operations):
        kind, action = op["kind"], op["op"]
        items = data.setdefault(kind, [])
        if not isinstance(items, list):
            raise ToolError(f'"{kind}" is not a list in the file; fix it before changing its items')
        if action == "add":
            if not isinstance(op.get("item"), dict):
                raise ToolError(f"operation {n}: add needs item (the new {kind[:-1].replace('_', ' ')})")
            at = op.get("index", len(items))
            if not 0 <= at <= len(items):
                raise ToolError(f"operation {n}: cannot insert at index {at} of {len(items)} {kind}")
            items.insert(at, copy.deepcopy(op["item"]))
            changed = [(k, i + 1 if k == kind and i >= at else i) for k, i in changed]
            changed.append((kind, at))
            continue
        i = _find(items, kind, op, n)
        if action == "delete":
            gone = items[i]
            name = gone.get(NAME_FIELD[kind]) if isinstance(gone, dict) else None
            deleted.append({"op": "delete", "kind": kind, "index": i, NAME_FIELD[kind]: name})
            del items[i]
            changed = [(k, j - 1 if k == kind and j > i else j) for k, j in changed if (k, j) != (kind, i)]
            continue
        fields = op.get("item")
        if not isinstance(fields, dict) or not fields:
            raise ToolError(f"operation {n}: update needs item (the fields to set; null removes a field)")
        item = items[i]
        touched_source = any(k in SOURCE_FIELDS.get(kind, ()) for k in fields)
        gave_derived = any(k in DERIVED_FIELDS for k in fields)
        for key, value in fields.items():
            if value is None:
                item.pop(key, None)
            else:
                item[key] = copy.deepcopy(value)
        if touched_source and not gave_derived:
            for key in DERIVED_FIELDS:  # stale once the question or SQL changed: derived again below
                item.pop(key, None)
        if (kind, i) not in changed:
            changed.append((kind, i))
    return changed


def set_dialect(data: dict[str, Any]) -> str | None:
    """The dialect a set's own SQL is written in, when it shows: ``$1`` placeholders are PostgreSQL's,
    backtick quoting MySQL's, ``@p`` parameters Spanner's."""
    texts = []
    for kind in ("templates", "facets"):
        for item in data.get(kind) or []:
            if isinstance(item, dict):
                par = item.get("parameterized") or {}
                texts += [str(item.get("sql") or item.get("sql_snippet") or "")]
                texts += [str(v) for v in par.values()] if isinstance(par, dict) else []
    text = "\n".join(texts)
    if re.search(r"\$\d", text):
        return "postgres"
    if "`" in text:
        return "mysql"
    if re.search(r"@\w", text):
        return "spanner"
    return None


def mutate_set(
    *,
    defaults: Defaults,
    path: str,
    operations: list[dict[str, Any]],
    dialect: str | None = None,
    snapshot: str | None = None,
    dsn: str | None = None,
    parameterize: bool = True,
    dry_run: bool = False,
) -> dict[str, Any]:
    import contextlib

    from ctxtool import snapshot as snapshots
    from ctxtool.contextset import normalize_legacy
    from ctxtool.jsondoc import load_json
    from ctxtool.mcp.connections import CONNECTIONS

    creating = not os.path.exists(path)
    if creating:
        text, raw = "", {}
    else:
        doc = load_json(path)
        text, raw = doc.text, doc.data
        if not isinstance(raw, dict):
            raise ToolError(f"{path}:1:1: a context set is a JSON object; cannot change its items")
    legacy = "fragments" in raw and "facets" not in raw
    data, _ = normalize_legacy(copy.deepcopy(raw))
    snap = snapshots.load(snapshot) if snapshot else None
    dsn = None if snap is not None else dsn or defaults.dsn  # checked against one of them
    stack = contextlib.ExitStack()
    connector = stack.enter_context(CONNECTIONS.session(dsn)) if dsn else None
    with stack:
        dialect, dialect_from = _dialect(dialect, snap, connector, data)
        return _mutate(path, text, raw, data, legacy, operations, dialect, dialect_from, snap, connector,
                       parameterize=parameterize, dry_run=dry_run, creating=creating)  # fmt: skip


def _dialect(given: str | None, snap: Any, connector: Any, data: dict[str, Any]) -> tuple[str, str]:
    """The set's dialect and where it came from: the argument, the snapshot, the database, the
    set's own SQL, else postgres."""
    if given:
        return given, "argument"
    if snap is not None and snap.get("dialect"):
        return snap["dialect"], "snapshot"
    if connector is not None:
        return connector.dialect, "database"
    found = set_dialect(data)
    return (found, "the set's SQL") if found else ("postgres", "default")


def _mutate(
    path: str,
    text: str,
    raw: dict[str, Any],
    data: dict[str, Any],
    legacy: bool,
    operations: list[dict[str, Any]],
    dialect: str,
    dialect_from: str,
    snap: Any,
    connector: Any,
    *,
    parameterize: bool,
    dry_run: bool,
    creating: bool,
) -> dict[str, Any]:
    from ctxtool.draft.merge import _indent, _legacy
    from ctxtool.jsondoc import pointer, write_text_atomic
    from ctxtool.mcp.checks import findings_payload
    from ctxtool.validate import validate_text

    deleted: list[dict[str, Any]] = []
    changed = _apply(data, operations, deleted)
    notes = []
    if parameterize and changed:
        from ctxtool.parameterize import parameterize_set

        filled, report = parameterize_set(data, dialect)
        by_pointer = {e.pointer: e for e in report}
        for kind, i in changed:
            if kind in SOURCE_FIELDS:
                data[kind][i] = filled[kind][i]
                entry = by_pointer.get(pointer(kind, i))
                for problem in entry.problems if entry else ():
                    notes.append(f"{pointer(kind, i)}: {problem}")
    out_data = _respell(raw, data, _legacy) if legacy else _keep_order(raw, data)
    indent = _indent(text) if text else 2
    ascii_only = "\\u" in text and not re.search(r"[^\x00-\x7f]", text)
    new_text = json.dumps(out_data, indent=indent, ensure_ascii=ascii_only)
    if not text or text.endswith("\n") or indent is not None:
        new_text += "\n"
    findings = validate_text(new_text, path, dialect=dialect, snapshot=snap, connector=connector)
    where = {pointer("fragments" if legacy and k == "facets" else k, i) for k, i in changed}
    blocking = [
        f
        for f in findings
        if f.severity == "error" and any(f.pointer == w or f.pointer.startswith(w + "/") for w in where)
    ]
    written = not blocking and not dry_run and new_text != text
    if written:
        write_text_atomic(path, new_text)
    return {
        "path": path,
        "written": written,
        "created": written and creating,
        "dialect": dialect,
        "dialect_from": dialect_from,
        "checked_against": "snapshot" if snap is not None else "database" if connector is not None else None,
        "changed": [{"kind": k, "index": i, "pointer": pointer(k, i)} for k, i in changed],  # added, updated
        "deleted": deleted,
        "counts": {k: len(data.get(k) or []) for k in KINDS},
        "blocking_findings": findings_payload(blocking),
        "other_findings": findings_payload([f for f in findings if f not in blocking]),
        "notes": notes
        + (["nothing written: fix the blocking findings and send the operations again"] if blocking else []),
    }


def _keep_order(raw: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with the file's key order (new lists at the end)."""
    out = {k: data[k] for k in raw if k in data}
    out.update({k: v for k, v in data.items() if k not in out})
    return out


def _respell(raw: dict[str, Any], data: dict[str, Any], legacy_item: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in raw:
        if key == "fragments":
            out[key] = [legacy_item(f) if isinstance(f, dict) else f for f in data.get("facets", [])]
        elif key in data:
            out[key] = data[key]
    out.update({k: v for k, v in data.items() if k not in out and k != "facets"})
    return out


ITEM_SELECTOR = {
    "index": {"type": "integer", "minimum": 0, "description": "Position in its list (0-based)."},
    "nl_query": {"type": "string", "description": "A template's question (selects by text)."},
    "intent": {"type": "string", "description": "A facet's intent (selects by text)."},
    "concept_type": {"type": "string", "description": "A value search's concept type (selects by text)."},
}

TOOLS = [
    Tool(
        "mutate_set",
        "Change a context-set file: add, update or delete templates, facets and value searches. Name "
        "an item by index or by its text (nl_query for templates, intent for facets, concept_type "
        "for value searches). update sets the given fields (null removes one). Changed templates and "
        "facets get their intent/manifest/parameterized forms derived again; the new file is "
        "validated and written atomically only if the changed items have no error finding, keeping "
        "the file's order and format. Returns written, the changed items, the blocking findings (why "
        "nothing was written), the other findings and the deleted items. With snapshot or dsn the changed "
        "items are checked against the database's tables and columns too. Use it instead of editing the "
        "JSON by hand.",
        schema(
            {
                "path": {**SET_PATH, "description": SET_PATH["description"] + " Created when missing."},
                "operations": {
                    "type": "array",
                    "minItems": 1,
                    "description": "Applied in order, all or nothing.",
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["op", "kind"],
                        "properties": {
                            "op": {"type": "string", "enum": ["add", "update", "delete"]},
                            "kind": {"type": "string", "enum": list(KINDS)},
                            **ITEM_SELECTOR,
                            "item": {
                                "type": "object",
                                "description": "add: the whole new item (a template needs nl_query and sql; "
                                "a facet sql_snippet and intent; a value search query and concept_type). "
                                "update: the fields to set. add with index inserts there.",
                            },
                        },
                    },
                },
                "dialect": {
                    **DIALECT,
                    "description": "SQL dialect of the set (default: the snapshot's, the database's, else "
                    "what the set's own SQL shows, else postgres).",
                },
                "snapshot": {
                    **SNAPSHOT,
                    "description": "Check that the tables and columns the changed items read exist here.",
                },
                "dsn": {
                    **DSN,
                    "description": "Check the changed items on this database (tables, columns, a plan of "
                    "each query; read-only). Default: the server's database, unless snapshot is given.",
                },
                "parameterize": {
                    "type": "boolean",
                    "default": True,
                    "description": "Derive the changed items' intent, manifest and parameterized forms.",
                },
                "dry_run": {"type": "boolean", "default": False, "description": "Check only; write nothing."},
            },
            ("path", "operations"),
        ),
        mutate_set,
        read_only=False,
        writes=("path",),
        reads=("snapshot",),
    )
]
