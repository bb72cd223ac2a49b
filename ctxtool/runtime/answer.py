"""The typed answer of a question, and the deterministic sentence ``narrate`` writes without a model."""

from __future__ import annotations

import decimal
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any

ACTIONS = ("runsql", "showsql", "explainsql", "narrate", "chat", "showprompt")
STATUSES = ("answered", "disambiguate", "declined", "error")


def jsonable(value: Any) -> Any:
    """Row values as JSON-friendly values (dates as ISO text, decimals as numbers)."""
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() and abs(value) < 2**53 else float(value)
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    return value


@dataclass
class TemplateUse:
    index: int
    intent: str
    parameterized_intent: str
    score: float
    filled_intent: str


@dataclass
class FacetApplied:
    index: int
    intent: str
    params: list[Any]
    because: list[str]


@dataclass
class Answer:
    """What the runtime understood and did. ``status`` says whether there is an answer at all:
    ``answered``, ``disambiguate`` (see ``disambiguation``), ``declined`` (no confident answer) or
    ``error`` (the database or the model failed; see ``error``)."""

    question: str
    action: str
    status: str
    source: str | None = None  # "template" | "llm" | "followup" | "model" (chat)
    sql: str | None = None
    params: list[Any] = field(default_factory=list)
    dialect: str | None = None
    confidence: float = 0.0
    template: TemplateUse | None = None
    facets: list[FacetApplied] = field(default_factory=list)
    linked_values: list[dict[str, Any]] = field(default_factory=list)
    bindings: dict[str, dict[str, Any]] = field(default_factory=dict)  # slot -> {value, from, kind}
    explanation: str = ""
    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    truncated: bool = False
    executed: bool = False
    text: str = ""  # the natural-language answer
    disambiguation: list[str] = field(default_factory=list)
    prompt: list[dict[str, Any]] | None = None
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    model_calls: list[dict[str, Any]] | None = None  # at the debug/detailed message level
    refused: bool = False  # the error is the read-only gate's refusal of the SQL (exit code 4)

    @property
    def answered(self) -> bool:
        return self.status == "answered"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "question": self.question,
            "action": self.action,
            "status": self.status,
            "source": self.source,
            "sql": self.sql,
            "params": jsonable(self.params),
            "dialect": self.dialect,
            "confidence": round(self.confidence, 4),
            "template": None if self.template is None else vars(self.template).copy(),
            "facets": [vars(f).copy() | {"params": jsonable(f.params)} for f in self.facets],
            "linked_values": jsonable(self.linked_values),
            "bindings": jsonable(self.bindings),
            "explanation": self.explanation,
            "columns": self.columns,
            "rows": jsonable(self.rows),
            "truncated": self.truncated,
            "executed": self.executed,
            "text": self.text,
            "disambiguation": self.disambiguation,
            "error": self.error,
            "warnings": self.warnings,
            "timings_ms": self.timings_ms,
        }
        if self.prompt is not None:
            out["prompt"] = self.prompt
        if self.model_calls is not None:
            out["model_calls"] = self.model_calls
        return out


def _fmt(value: Any) -> str:
    value = jsonable(value)
    if isinstance(value, float):
        return f"{value:,.2f}".rstrip("0").rstrip(".") if abs(value) >= 1000 else f"{value:.4g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return "none" if value is None else str(value)


def _label(column: str) -> str:
    return column.replace("_", " ").strip() or "value"


def narrate(
    question: str, understood: str | None, columns: list[str], rows: list[list[Any]], truncated: bool
) -> str:
    """One or two plain sentences from the rows, no model involved."""
    about = understood or question
    if not rows:
        return f"No data found for: {about.rstrip('?.')}."
    if len(rows) == 1 and len(columns) == 1:
        return f"{about.rstrip('?.')}: {_fmt(rows[0][0])}."
    if len(rows) == 1:
        parts = ", ".join(f"{_label(c)} {_fmt(v)}" for c, v in zip(columns, rows[0], strict=False))
        return f"{about.rstrip('?.')}: {parts}."
    shown = rows[:5]
    if len(columns) == 1:
        items = ", ".join(_fmt(r[0]) for r in shown)
    else:
        items = "; ".join(
            ", ".join(f"{_label(c)} {_fmt(v)}" for c, v in zip(columns, r, strict=False)) for r in shown
        )
    more = f" (first {len(shown)} shown)" if len(rows) > len(shown) else ""
    cap = " The row cap cut the result." if truncated else ""
    return f"{about.rstrip('?.')}: {len(rows)} rows{more}: {items}.{cap}"
