"""A drafted item and where it came from, so the report can say what was kept and what was dropped."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Draft:
    kind: str  # "templates" | "facets"
    item: dict[str, Any]  # nl_query/intent/sql, or intent/sql_snippet (+ derived forms once parameterized)
    origin: str  # "schema:count", "workload", "llm", ...
    tables: list[str] = field(default_factory=list)
    table: str | None = None  # for facets: the table the snippet filters (to execute it)
    from_sql: str | None = None  # that table as FROM writes it (schema-qualified where needed)
    fingerprint: str | None = None  # the workload group this draft answers
    frequency: int = 0  # how often the workload ran it
    alternatives: list[str] = field(default_factory=list)  # other concrete SQL for the same template
    status: str = "pending"  # "kept" | "dropped"
    reason: str | None = None
    rows: int | None = None  # rows returned by the check run
    redescribe: Callable[[str], str] | None = field(default=None, repr=False)  # question for another example

    @property
    def text(self) -> str:
        return str(self.item.get("nl_query") or self.item.get("intent") or "")

    @property
    def sql(self) -> str:
        return str(self.item.get("sql") if self.kind == "templates" else self.item.get("sql_snippet"))

    def drop(self, reason: str) -> None:
        self.status = "dropped"
        self.reason = reason

    def to_report(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "origin": self.origin, "text": self.text, "sql": self.sql}
        out["status"] = self.status
        if self.reason:
            out["reason"] = self.reason
        if self.frequency:
            out["frequency"] = self.frequency
        if self.rows is not None:
            out["rows"] = self.rows
        return out


def template(question: str, sql: str, origin: str, tables: list[str]) -> Draft:
    return Draft("templates", {"nl_query": question, "sql": sql}, origin, tables)


def facet(intent: str, snippet: str, origin: str, table: str) -> Draft:
    return Draft("facets", {"intent": intent, "sql_snippet": snippet}, origin, [table], table=table)
