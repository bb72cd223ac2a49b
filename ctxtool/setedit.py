"""Edit a context-set file: add, update and delete templates, facets and value searches.

The one code path every change to a set file takes (MCP ``mutate_set``, ``ctxtool promote``,
``ctxtool improve --apply``). An item is named by its index or by its text (a template's
``nl_query``, a facet's ``intent``, a value search's ``concept_type``). Changed templates and facets
get their derived forms (intent, manifest, parameterized) again, the whole new file is validated
(against a snapshot or a database when given), and it is written atomically only when the changed
items have no error: otherwise nothing is written and the blocking findings say why. The file keeps
its key order, indentation, escaping and spelling (a legacy ``fragments`` file stays legacy-spelled).
"""

from __future__ import annotations

import copy
import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from ctxtool.contextset import normalize_legacy
from ctxtool.errors import InputError
from ctxtool.jsondoc import load_json, pointer, write_text_atomic

__all__ = [
    "DERIVED_FIELDS",
    "KINDS",
    "NAME_FIELD",
    "SOURCE_FIELDS",
    "EditResult",
    "edit_set",
    "file_indent",
    "legacy_item",
    "set_dialect",
]

KINDS = ("templates", "facets", "value_searches")
NAME_FIELD = {"templates": "nl_query", "facets": "intent", "value_searches": "concept_type"}
SOURCE_FIELDS = {"templates": ("nl_query", "sql", "intent"), "facets": ("sql_snippet", "intent")}
DERIVED_FIELDS = ("manifest", "parameterized")
_TO_LEGACY = {"sql_snippet": "fragment", "parameterized_sql_snippet": "parameterized_fragment"}


@dataclass
class EditResult:
    """What :func:`edit_set` did: whether it wrote, what changed, and the findings (blocking: an
    error on a changed item, the reason nothing was written)."""

    path: str
    written: bool
    created: bool
    dialect: str
    dialect_from: str
    checked_against: str | None
    changed: list[tuple[str, int]]  # (kind, index) added or updated, indices after every operation
    deleted: list[dict[str, Any]]
    counts: dict[str, int]
    blocking: list[Any] = field(default_factory=list)  # validate Findings
    other: list[Any] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)  # the new set (current spelling)


def file_indent(text: str) -> int | str | None:
    """The indentation the file uses (None for a one-line file)."""
    m = re.search(r"\n([ \t]+)\S", text)
    if not m:
        return None
    ws = m.group(1)
    return "\t" if "\t" in ws else len(ws)


def legacy_item(item: dict[str, Any]) -> dict[str, Any]:
    """A facet (or its parameterized forms) in the legacy ``fragment`` spelling."""
    out: dict[str, Any] = {}
    for k, v in item.items():
        if k == "parameterized" and isinstance(v, dict):
            v = {_TO_LEGACY.get(a, a): b for a, b in v.items()}
        out[_TO_LEGACY.get(k, k)] = v
    return out


def _norm(text: Any) -> str:
    return " ".join(str(text).split()).lower()


def _find(items: list[Any], kind: str, op: dict[str, Any], n: int) -> int:
    if "index" in op:
        i = op["index"]
        if not 0 <= i < len(items):
            raise InputError(f"operation {n}: {kind} has {len(items)} items; index {i} is out of range")
        return i
    name = NAME_FIELD[kind]
    wanted = op.get(name)
    if wanted is None:
        raise InputError(f"operation {n}: name the {kind} item with index or {name}")
    found = [
        i for i, it in enumerate(items) if isinstance(it, dict) and _norm(it.get(name, "")) == _norm(wanted)
    ]
    if not found:
        raise InputError(f"operation {n}: no item of {kind} has {name} {wanted!r}")
    if len(found) > 1:
        raise InputError(f"operation {n}: {len(found)} items of {kind} have {name} {wanted!r}; use index")
    return found[0]


def _apply(
    data: dict[str, Any], operations: list[dict[str, Any]], deleted: list[dict[str, Any]]
) -> list[tuple[str, int]]:
    """Apply ``operations`` to ``data`` (current spelling); returns (kind, index) of items added or
    updated, indices as they are after every operation. Deleted items are appended to ``deleted``
    (kind, index at the time of the delete, name)."""
    changed: list[tuple[str, int]] = []
    for n, op in enumerate(operations):
        kind, action = op.get("kind"), op.get("op")
        if kind not in KINDS or action not in ("add", "update", "delete"):
            raise InputError(f"operation {n}: op is add, update or delete and kind one of {', '.join(KINDS)}")
        items = data.setdefault(kind, [])
        if not isinstance(items, list):
            raise InputError(f'"{kind}" is not a list in the file; fix it before changing its items')
        if action == "add":
            if not isinstance(op.get("item"), dict):
                raise InputError(f"operation {n}: add needs item (the new {kind[:-1].replace('_', ' ')})")
            at = op.get("index", len(items))
            if not 0 <= at <= len(items):
                raise InputError(f"operation {n}: cannot insert at index {at} of {len(items)} {kind}")
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
            raise InputError(f"operation {n}: update needs item (the fields to set; null removes a field)")
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


def edit_set(
    path: str,
    operations: list[dict[str, Any]],
    *,
    dialect: str | None = None,
    snapshot: Any = None,
    connector: Any = None,
    parameterize: bool = True,
    dry_run: bool = False,
) -> EditResult:
    """Apply ``operations`` (``{"op": add|update|delete, "kind": ..., "index"|name..., "item": ...}``,
    in order, all or nothing) to the set file ``path`` (created when missing), check the result
    against ``snapshot`` (a loaded schema snapshot) or ``connector`` (an open connector) when given,
    and write it atomically unless a changed item has an error finding or ``dry_run``."""
    from ctxtool.validate import validate_text

    creating = not os.path.exists(path)
    if creating:
        text, raw = "", {}
    else:
        doc = load_json(path)
        text, raw = doc.text, doc.data
        if not isinstance(raw, dict):
            raise InputError(f"{path}:1:1: a context set is a JSON object; cannot change its items")
    legacy = "fragments" in raw and "facets" not in raw
    data, _ = normalize_legacy(copy.deepcopy(raw))
    dialect, dialect_from = _dialect(dialect, snapshot, connector, data)
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
    out_data = _respell(raw, data) if legacy else _keep_order(raw, data)
    indent = file_indent(text) if text else 2
    ascii_only = "\\u" in text and not re.search(r"[^\x00-\x7f]", text)
    new_text = json.dumps(out_data, indent=indent, ensure_ascii=ascii_only)
    if not text or text.endswith("\n") or indent is not None:
        new_text += "\n"
    findings = validate_text(new_text, path, dialect=dialect, snapshot=snapshot, connector=connector)
    where = {pointer("fragments" if legacy and k == "facets" else k, i) for k, i in changed}
    blocking = [
        f
        for f in findings
        if f.severity == "error" and any(f.pointer == w or f.pointer.startswith(w + "/") for w in where)
    ]
    written = not blocking and not dry_run and new_text != text
    if written:
        write_text_atomic(path, new_text)
    if blocking:
        notes.append("nothing written: fix the blocking findings and send the operations again")
    return EditResult(
        path=path,
        written=written,
        created=written and creating,
        dialect=dialect,
        dialect_from=dialect_from,
        checked_against="snapshot" if snapshot is not None else "database" if connector is not None else None,
        changed=changed,
        deleted=deleted,
        counts={k: len(data.get(k) or []) for k in KINDS},
        blocking=blocking,
        other=[f for f in findings if f not in blocking],
        notes=notes,
        data=data,
    )


def _keep_order(raw: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with the file's key order (new lists at the end)."""
    out = {k: data[k] for k in raw if k in data}
    out.update({k: v for k, v in data.items() if k not in out})
    return out


def _respell(raw: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in raw:
        if key == "fragments":
            out[key] = [legacy_item(f) if isinstance(f, dict) else f for f in data.get("facets", [])]
        elif key in data:
            out[key] = data[key]
    out.update({k: v for k, v in data.items() if k not in out and k != "facets"})
    return out
