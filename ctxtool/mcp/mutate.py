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

from ctxtool.mcp.tools import DIALECT, SET_PATH, Defaults, Tool, ToolError, schema

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


def _apply(data: dict[str, Any], operations: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """Apply ``operations`` to ``data`` (current spelling); returns (kind, index) of items added or
    updated, indices as they are after every operation."""
    changed: list[tuple[str, int]] = []
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


def mutate_set(
    *,
    defaults: Defaults,
    path: str,
    operations: list[dict[str, Any]],
    dialect: str = "postgres",
    parameterize: bool = True,
    dry_run: bool = False,
) -> dict[str, Any]:
    from ctxtool.contextset import normalize_legacy
    from ctxtool.draft.merge import _indent, _legacy
    from ctxtool.jsondoc import load_json, pointer, write_text_atomic
    from ctxtool.mcp.checks import findings_payload
    from ctxtool.validate import validate_text

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
    changed = _apply(data, operations)
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
    findings = validate_text(new_text, path, dialect=dialect)
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
        "changed": [{"kind": k, "index": i, "pointer": pointer(k, i)} for k, i in changed],
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
        "nothing was written) and the other findings. Use it instead of editing the JSON by hand.",
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
                "dialect": {**DIALECT, "default": "postgres"},
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
    )
]
