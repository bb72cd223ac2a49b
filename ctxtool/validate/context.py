"""What every validation layer works on: the set, the dialect, optional snapshot and connector, the
shared SQL parse cache, and the findings collected so far."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ctxtool.contextset import ContextSet, Item
from ctxtool.placeholders import Placeholder, find_sql_placeholders, find_text_placeholders
from ctxtool.validate import sqlcache
from ctxtool.validate.findings import Finding
from ctxtool.validate.rules import RULES

_MONEY_AFTER = re.compile(r"[.,]\d")

# Where each kind keeps its SQL: (concrete field, parameterized field under "parameterized")
SQL_FIELDS: dict[str, tuple[str, str | None]] = {
    "templates": ("sql", "parameterized_sql"),
    "facets": ("sql_snippet", "parameterized_sql_snippet"),
    "value_searches": ("query", None),
}


def text(data: Any, *path: str) -> str | None:
    """The string at ``path`` inside ``data``, or None when missing or not a string."""
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data if isinstance(data, str) else None


@dataclass
class Context:
    """The state shared by the layers of one validation run over one context set.

    ``snapshot`` (a loaded schema snapshot) and ``connector`` (an open database connector) are only
    set when the user asked for the schema-reference or live-planning layers.
    """

    cs: ContextSet
    dialect: str
    snapshot: Any = None
    connector: Any = None
    findings: list[Finding] = field(default_factory=list)
    # item pointers whose placeholders are broken: consistency checks skip them (no cascades)
    placeholder_trouble: set[str] = field(default_factory=set)
    _items: dict[str | None, list[Item]] = field(default_factory=dict, repr=False)
    _placeholders: dict[str, list[Placeholder]] = field(default_factory=dict, repr=False)
    # per-layer state that must outlive one chunk of items (e.g. what the duplicate layer has seen)
    state: dict[str, Any] = field(default_factory=dict, repr=False)
    _parsed: dict[str, sqlcache.Parsed] = field(default_factory=dict, repr=False)
    # the items the per-item layers look at now (None: all of them); see :meth:`scope`
    _scope: list[Item] | None = field(default=None, repr=False)
    # whether parses also go to the cache shared between runs (off for sets validated in chunks)
    share_parses: bool = field(default=True, repr=False)

    @property
    def path(self) -> str:
        return self.cs.path

    def parse(self, sql: str) -> sqlcache.Parsed:
        """The parse of ``sql``: each string is parsed once per run and its tree shared by the layers."""
        parsed = self._parsed.get(sql)
        if parsed is None:
            parsed = self._parsed[sql] = sqlcache.parse(sql, self.dialect, share=self.share_parses)
        return parsed

    def items(self, kind: str | None = None) -> list[Item]:
        """The set's items (of one kind) in file order, listed once and shared by the layers; while
        a chunk is in :meth:`scope`, only that chunk's items."""
        found = self._items.get(kind)
        if found is None:
            found = self._items[kind] = list(self.cs.items(kind))
        if self._scope is not None:
            return self._scope if kind is None else [i for i in self._scope if i.kind == kind]
        return found

    def scope(self, chunk: list[Item] | None) -> None:
        """Let the per-item layers see only ``chunk`` (None: the whole set again)."""
        self._scope = chunk

    def forget_parses(self) -> None:
        """Drop the parse trees and placeholder lists kept so far: a large set is validated chunk by
        chunk, so that its trees never all live at once (memory, and time, would grow faster than
        the set)."""
        self._parsed.clear()
        self._placeholders.clear()

    def text_placeholders(self, text_: str) -> list[Placeholder]:
        """Placeholders of an intent, without amounts of money: in "$10,000" or "$4.50" the ``$``
        is a currency sign, not parameter 10 or 4."""
        found = find_text_placeholders(text_, self.dialect)
        return [p for p in found if not (p.kind == "numbered" and _MONEY_AFTER.match(text_, p.end))]

    def sql_placeholders(self, sql: str) -> list[Placeholder]:
        """:func:`ctxtool.placeholders.find_sql_placeholders` in this dialect, once per string."""
        found = self._placeholders.get(sql)
        if found is None:
            found = self._placeholders[sql] = find_sql_placeholders(sql, self.dialect)
        return found

    def _legacy_field(self, pointer: str) -> str:
        """``/fragments/0/sql_snippet`` -> ``/fragments/0/fragment`` when the file spells it so."""
        parts = pointer.split("/")
        doc = self.cs.doc.data
        try:
            item = doc["fragments"][int(parts[2])]
        except (KeyError, IndexError, ValueError, TypeError):
            return pointer
        if len(parts) > 3 and parts[3] == "sql_snippet" and isinstance(item, dict) and "fragment" in item:
            parts[3] = "fragment"
        elif (
            len(parts) > 4
            and parts[4] == "parameterized_sql_snippet"
            and isinstance(item, dict)
            and isinstance(item.get("parameterized"), dict)
            and "parameterized_fragment" in item["parameterized"]
        ):
            parts[4] = "parameterized_fragment"
        return "/".join(parts)

    def report(self, code: str, pointer: str, message: str, severity: str | None = None) -> None:
        """Record a finding of rule ``code`` at the JSON node ``pointer`` (as written in the file)."""
        if pointer.startswith("/fragments/"):
            pointer = self._legacy_field(pointer)
        line, column = self.cs.position(pointer)
        self.findings.append(
            Finding(
                code=code,
                severity=severity or RULES[code].severity,
                message=message,
                path=self.cs.path,
                line=line,
                column=column,
                pointer=pointer,
            )
        )
