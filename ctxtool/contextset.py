"""Context-set files: loading (legacy ``fragments`` accepted), items with their JSON pointers, saving.

A context set is one JSON object with three optional lists: ``templates``, ``facets`` and
``value_searches``. An older spelling names facets ``fragments`` (with ``fragment`` and
``parameterized_fragment`` inside); :func:`normalize_legacy` rewrites it to the current names and
says what it changed, so every other module only ever sees the current names.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ctxtool.jsondoc import JsonDoc, load_json, parse_json, pointer

KINDS = ("templates", "facets", "value_searches")


@dataclass
class Item:
    """One template, facet or value search, with where it lives in its file."""

    kind: str  # "templates" | "facets" | "value_searches"
    index: int
    data: dict[str, Any]
    pointer: str  # JSON pointer of the item, e.g. /templates/3 (always the current spelling)
    source_pointer: str  # pointer in the file as written (``/fragments/3`` for legacy files)

    def field_pointer(self, *path: str | int) -> str:
        """The pointer of a field of this item, as written in the file."""
        return self.source_pointer + pointer(*path)

    @property
    def intent(self) -> str | None:
        """The intent, defaulting to ``nl_query`` for templates."""
        if isinstance(self.data.get("intent"), str):
            return self.data["intent"]
        if self.kind == "templates" and isinstance(self.data.get("nl_query"), str):
            return self.data["nl_query"]
        return None


@dataclass
class ContextSet:
    doc: JsonDoc
    data: Any  # the normalized data (current spelling); ``doc.data`` is what the file holds
    legacy: list[str] = field(default_factory=list)  # messages about legacy spellings found

    @property
    def path(self) -> str:
        return self.doc.path

    def items(self, kind: str | None = None) -> Iterator[Item]:
        """Every dict item of the given kind (or of all kinds), in file order."""
        if not isinstance(self.data, dict):
            return
        legacy_facets = (
            "facets" not in self.doc.data and "fragments" in self.doc.data
            if isinstance(self.doc.data, dict)
            else False
        )
        for k in KINDS if kind is None else (kind,):
            items = self.data.get(k)
            if not isinstance(items, list):
                continue
            source_list = "fragments" if k == "facets" and legacy_facets else k
            for i, item in enumerate(items):
                if isinstance(item, dict):
                    yield Item(k, i, item, pointer(k, i), pointer(source_list, i))

    def position(self, ptr: str) -> tuple[int, int]:
        return self.doc.position(ptr)


_LEGACY_FIELDS = {"fragment": "sql_snippet", "parameterized_fragment": "parameterized_sql_snippet"}


def normalize_legacy(data: Any) -> tuple[Any, list[str]]:
    """Rewrite the legacy ``fragments`` spelling to ``facets``; return the data and what changed."""
    if not isinstance(data, dict) or "fragments" not in data:
        return data, []
    messages: list[str] = []
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key == "fragments" and "facets" not in data:
            out["facets"] = [_normalize_fragment(f) for f in value] if isinstance(value, list) else value
            messages.append('"fragments" is the legacy name of "facets": rename the list to "facets"')
        else:
            out[key] = value
    if isinstance(value := data.get("fragments"), list) and "facets" not in data:
        for f in value:
            if isinstance(f, dict) and (
                "fragment" in f or "parameterized_fragment" in str(f.get("parameterized"))
            ):
                messages.append(
                    'legacy facet fields: rename "fragment" to "sql_snippet" and '
                    '"parameterized_fragment" to "parameterized_sql_snippet"'
                )
                break
    return out, messages


def _normalize_fragment(item: Any) -> Any:
    if not isinstance(item, dict):
        return item
    out: dict[str, Any] = {}
    for key, value in item.items():
        if key == "parameterized" and isinstance(value, dict):
            value = {_LEGACY_FIELDS.get(k, k): v for k, v in value.items()}
        out[_LEGACY_FIELDS.get(key, key)] = value
    return out


def from_doc(doc: JsonDoc) -> ContextSet:
    data, legacy = normalize_legacy(doc.data)
    return ContextSet(doc=doc, data=data, legacy=legacy)


def load(path: str) -> ContextSet:
    """Load a context-set file (``-`` for standard input). Raises ``InputError`` on unreadable or
    syntactically invalid JSON (with its line and column)."""
    return from_doc(load_json(path))


def loads(text: str, path: str = "<string>") -> ContextSet:
    return from_doc(parse_json(text, path))
