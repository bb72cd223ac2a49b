"""What changed between two versions of a set, item by item (templates by question, facets by
intent, value searches by concept type)."""

from __future__ import annotations

from typing import Any

_KEYS = {
    "templates": ("nl_query", "intent"),
    "facets": ("intent", "sql_snippet"),
    "value_searches": ("concept_type", "query"),
}


def _key(kind: str, item: Any, index: int) -> str:
    if isinstance(item, dict):
        for field in _KEYS[kind]:
            if isinstance(item.get(field), str) and item[field].strip():
                return item[field].strip()
    return f"#{index}"


def diff_sets(old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    """A list of ``{kind, change: added|removed|changed, key, fields}``; empty when equal."""
    out: list[dict[str, Any]] = []
    for kind in _KEYS:
        a = {_key(kind, it, i): it for i, it in enumerate(old.get(kind) or [])}
        b = {_key(kind, it, i): it for i, it in enumerate(new.get(kind) or [])}
        for key, item in a.items():
            if key not in b:
                out.append({"kind": kind, "change": "removed", "key": key, "fields": []})
            elif b[key] != item:
                fields = sorted(
                    f
                    for f in set(item) | set(b[key])
                    if not isinstance(item, dict) or item.get(f) != b[key].get(f)
                )
                out.append({"kind": kind, "change": "changed", "key": key, "fields": fields})
        for key in b:
            if key not in a:
                out.append({"kind": kind, "change": "added", "key": key, "fields": []})
    return out
