"""``--merge FILE``: add drafted items to an existing context set without duplicates, keeping the
file's order, its other keys, its indentation and its spelling (a legacy ``fragments`` file gets
legacy-spelled facets)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from typing import Any

from ctxtool.contextset import normalize_legacy
from ctxtool.errors import InputError
from ctxtool.jsondoc import dumps_json, load_json, write_text_atomic
from ctxtool.setedit import file_indent, legacy_item


def existing_items(path: str, kind: str) -> list[dict[str, Any]]:
    """The items of ``kind`` already in ``path`` (current spelling); none when the file is missing."""
    if not os.path.exists(path):
        return []
    data, _ = normalize_legacy(_load(path))
    items = data.get(kind) if isinstance(data, dict) else None
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def _load(path: str) -> Any:
    doc = load_json(path)
    if not isinstance(doc.data, dict):
        raise InputError(f"{path}:1:1: a context set is a JSON object; cannot merge into it")
    return doc.data


def merge_file(path: str, kind: str, items: Sequence[dict[str, Any]], dialect: str) -> tuple[int, int]:
    """Append ``items`` to the ``kind`` list of ``path`` (created when missing), skipping duplicates.
    Returns (added, skipped). The write is atomic."""
    from ctxtool.draft.workload import fingerprint

    if not os.path.exists(path):
        write_text_atomic(path, dumps_json({kind: list(items)}))
        return len(items), 0
    text = open(path, encoding="utf-8-sig").read()
    data = _load(path)
    legacy = kind == "facets" and "facets" not in data and "fragments" in data
    key = "fragments" if legacy else kind
    current = data.get(key)
    if current is None:
        current = data[key] = []
    if not isinstance(current, list):
        raise InputError(f'{path}: "{key}" is not a list; fix the file before merging into it')
    normalized, _ = normalize_legacy({"fragments": current} if legacy else {kind: current})
    have = normalized.get(kind) or []

    def sql_key(item: dict[str, Any]) -> str:
        sql = item.get("sql") if kind == "templates" else item.get("sql_snippet")
        if not isinstance(sql, str):
            return ""
        fp = fingerprint(sql, dialect) if kind == "templates" else None
        return fp or " ".join(sql.split()).lower()

    def text_key(item: dict[str, Any]) -> str:
        return str(item.get("nl_query") or item.get("intent") or "").strip().lower()

    seen_sql = {sql_key(i) for i in have if isinstance(i, dict)} - {""}
    seen_text = {text_key(i) for i in have if isinstance(i, dict)} - {""}
    added = skipped = 0
    for item in items:
        if sql_key(item) in seen_sql or text_key(item) in seen_text:
            skipped += 1
            continue
        seen_sql.add(sql_key(item))
        seen_text.add(text_key(item))
        current.append(legacy_item(item) if legacy else item)
        added += 1
    indent = file_indent(text)
    out = json.dumps(data, indent=indent, ensure_ascii="\\u" in text and not re.search(r"[^\x00-\x7f]", text))
    if text.endswith("\n") or indent is not None:
        out += "\n"
    write_text_atomic(path, out)
    return added, skipped
