"""Evaluate a set against golden questions: execute the golden SQL and the runtime's answer and
compare the results (order-insensitive unless the golden SQL orders its rows).

Measures, overall, for the covered questions (those not tagged ``uncovered``) and per tag:
execution accuracy (correct / questions), answered rate, and wrong-answer rate (answered but wrong /
questions). A declined question or a "Did you mean" counts as not answered, never as wrong.

A question tagged ``negative`` (a value or column the database lacks, a request out of scope) must
be declined: declined (or asked back) is correct, answered is wrong, and its golden SQL is not run.
Golden SQL runs through :func:`ctxtool.readonly.run_read_only`.
"""

from __future__ import annotations

import decimal
import json
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from ctxtool.errors import CtxtoolError, InputError
from ctxtool.jsondoc import load_json, pointer
from ctxtool.readonly import run_read_only
from ctxtool.runtime.answer import jsonable
from ctxtool.runtime.templates.sqlparts import parse

UNCOVERED_TAG = "uncovered"
NEGATIVE_TAG = "negative"


@dataclass
class GoldenQuestion:
    id: str
    database: str
    nlq: str
    golden_sql: str
    tags: list[str] = field(default_factory=list)
    template: str | None = None  # the template the question was made from (generated files say)


def load_golden(path: str) -> list[GoldenQuestion]:
    """Read a golden file: a JSON list (or ``{"questions": [...]}``) of ``{id, database, nlq, golden_sql, tags}``."""
    doc = load_json(path)
    items = doc.data.get("questions") if isinstance(doc.data, dict) else doc.data
    base = "/questions" if isinstance(doc.data, dict) else ""
    if not isinstance(items, list):
        raise InputError(f'{path}:1:1: a golden file is a JSON list of questions (or {{"questions": [...]}})')
    out: list[GoldenQuestion] = []
    seen: set[str] = set()
    for i, q in enumerate(items):
        ptr = base + pointer(i)
        line, col = doc.position(ptr)
        if not isinstance(q, dict):
            raise InputError(f"{path}:{line}:{col}: question {i} is not an object")
        for key in ("nlq", "golden_sql"):
            if not isinstance(q.get(key), str) or not q[key].strip():
                raise InputError(f"{path}:{line}:{col}: question {i} needs a non-empty {key!r}")
        qid = str(q.get("id", i))
        if qid in seen:
            raise InputError(f"{path}:{line}:{col}: duplicate id {qid!r}; ids must be unique")
        seen.add(qid)
        tags = q.get("tags") or []
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise InputError(f"{path}:{line}:{col}: 'tags' must be a list of strings")
        template = q.get("template")
        out.append(
            GoldenQuestion(
                qid,
                str(q.get("database", "")),
                q["nlq"],
                q["golden_sql"],
                list(tags),
                template if isinstance(template, str) else None,
            )
        )
    return out


def _norm(value: Any) -> Any:
    if isinstance(value, decimal.Decimal):
        value = float(value)
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    return value


def _row(row: Any) -> tuple[Any, ...]:
    return tuple(_norm(v) for v in row)


def results_match(gold: list[Any], pred: list[Any], ordered: bool) -> bool:
    """Rows equal as multisets (as lists when ``ordered``); a column order different from the golden
    one is accepted when each row holds the same values."""
    g = [_row(r) for r in gold]
    p = [_row(r) for r in pred]
    if ordered:
        if g == p:
            return True
        return [sorted(map(repr, r)) for r in g] == [sorted(map(repr, r)) for r in p]
    if Counter(g) == Counter(p):
        return True
    return Counter(tuple(sorted(map(repr, r))) for r in g) == Counter(tuple(sorted(map(repr, r))) for r in p)


def golden_orders(sql: str, dialect: str) -> bool:
    """Whether the golden SQL's outermost query orders its rows."""
    try:
        tree = parse(sql, dialect)
    except CtxtoolError:
        return "order by" in sql.lower()
    return tree.args.get("order") is not None


@dataclass
class EvalItem:
    id: str
    nlq: str
    tags: list[str]
    outcome: str  # "correct" | "wrong" | "declined" | "disambiguate" | "error" | "golden_error"
    confidence: float = 0.0
    sql: str | None = None
    params: list[Any] = field(default_factory=list)
    detail: str = ""
    ms: float = 0.0
    template: str | None = None
    golden_sql: str | None = None  # in the report, so `improve` reads it without the golden file

    @property
    def answered(self) -> bool:
        """An answer was given (a negative declined is correct, not answered)."""
        if NEGATIVE_TAG in self.tags:
            return self.outcome == "wrong"
        return self.outcome in ("correct", "wrong")


def _stats(items: list[EvalItem]) -> dict[str, Any]:
    n = len(items)
    answered = sum(1 for i in items if i.answered)
    correct = sum(1 for i in items if i.outcome == "correct")
    wrong = sum(1 for i in items if i.outcome == "wrong")
    return {
        "questions": n,
        "answered": answered,
        "correct": correct,
        "wrong": wrong,
        "execution_accuracy": round(correct / n, 4) if n else None,
        "answered_rate": round(answered / n, 4) if n else None,
        "wrong_rate": round(wrong / n, 4) if n else None,
        "precision": round(correct / answered, 4) if answered else None,
    }


@dataclass
class EvalReport:
    set_ref: str
    items: list[EvalItem]

    def summary(self) -> dict[str, Any]:
        covered = [i for i in self.items if UNCOVERED_TAG not in i.tags]
        uncovered = [i for i in self.items if UNCOVERED_TAG in i.tags]
        tags = sorted({t for i in self.items for t in i.tags})
        return {
            "set": self.set_ref,
            "overall": _stats(self.items),
            "covered": _stats(covered),
            "uncovered": _stats(uncovered),
            "by_tag": {t: _stats([i for i in self.items if t in i.tags]) for t in tags},
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": self.summary(),
            "questions": [
                {
                    "id": i.id,
                    "nlq": i.nlq,
                    "tags": i.tags,
                    "outcome": i.outcome,
                    "confidence": i.confidence,
                    "sql": i.sql,
                    "params": jsonable(i.params),
                    "detail": i.detail,
                    "ms": i.ms,
                    **({"template": i.template} if i.template is not None else {}),
                    **({"golden_sql": i.golden_sql} if i.golden_sql is not None else {}),
                }
                for i in self.items
            ],
        }

    def text(self, verbose: bool = False) -> str:
        s = self.summary()
        lines = [f"golden evaluation of {s['set']}", ""]
        header = f"{'group':<22} {'n':>4} {'answered':>9} {'correct':>8} {'wrong':>6} {'exec acc':>9} {'answ rate':>10} {'wrong rate':>11}"
        lines.append(header)
        lines.append("-" * len(header))

        def row(name: str, st: dict[str, Any]) -> str:
            def pct(v: float | None) -> str:
                return "-" if v is None else f"{v:.1%}"

            return (
                f"{name:<22} {st['questions']:>4} {st['answered']:>9} {st['correct']:>8} {st['wrong']:>6} "
                f"{pct(st['execution_accuracy']):>9} {pct(st['answered_rate']):>10} {pct(st['wrong_rate']):>11}"
            )

        lines.append(row("overall", s["overall"]))
        lines.append(row("covered", s["covered"]))
        lines.append(row("uncovered", s["uncovered"]))
        for tag, st in s["by_tag"].items():
            lines.append(row(f"tag:{tag}", st))
        bad = [
            i
            for i in self.items
            if i.outcome not in ("correct",)
            and (verbose or i.outcome in ("wrong", "error", "golden_error") or UNCOVERED_TAG not in i.tags)
        ]
        if bad:
            lines.append("")
            lines.append("not correct:")
            for i in bad:
                lines.append(f"  [{i.outcome}] {i.id}: {i.nlq}" + (f" -- {i.detail}" if i.detail else ""))
        return "\n".join(lines)


def run_eval(
    runtime: Any, golden: list[GoldenQuestion], *, database: str | None = None, progress: Any = None
) -> EvalReport:
    """Ask every golden question (``runsql``), run its golden SQL, compare."""
    items: list[EvalItem] = []
    questions = [q for q in golden if not database or not q.database or q.database == database]
    for q in progress(questions) if progress else questions:
        items.append(eval_one(runtime, q))
    return EvalReport(getattr(runtime, "ref", ""), items)


def eval_one(runtime: Any, q: GoldenQuestion) -> EvalItem:
    """Ask one golden question and score it (see the module docstring)."""
    item = _eval_one(runtime, q)
    item.golden_sql = q.golden_sql
    return item


def _eval_one(runtime: Any, q: GoldenQuestion) -> EvalItem:
    t = time.perf_counter()
    negative = NEGATIVE_TAG in q.tags
    gold = None
    if not negative:
        try:
            gold = run_read_only(
                runtime.connector, q.golden_sql, dialect=runtime.dialect, max_rows=runtime.row_cap
            )
        except CtxtoolError as exc:
            return EvalItem(
                q.id, q.nlq, q.tags, "golden_error", detail=f"golden SQL failed: {exc}", template=q.template
            )
    try:
        ans = runtime.ask(q.nlq, action="runsql")
    except CtxtoolError as exc:
        return EvalItem(q.id, q.nlq, q.tags, "error", detail=str(exc), template=q.template)
    ms = round((time.perf_counter() - t) * 1000, 2)
    if ans.status == "answered" and ans.executed:
        if negative:
            ok, detail = False, "a question the database cannot answer was answered"
        else:
            ok = results_match(gold.rows, ans.rows, golden_orders(q.golden_sql, runtime.dialect))
            detail = "" if ok else f"got {ans.rows[:3]!r}, expected {[list(r) for r in gold.rows[:3]]!r}"
        outcome = "correct" if ok else "wrong"
    elif ans.status == "error":
        outcome, detail = "error", ans.error or ""
    elif negative:
        outcome, detail = "correct", f"declined ({ans.status})"
    else:
        outcome = ans.status
        detail = "; ".join(ans.disambiguation[:2]) or ans.explanation
    return EvalItem(
        q.id, q.nlq, q.tags, outcome, ans.confidence, ans.sql, ans.params, detail, ms, template=q.template
    )


def dumps_report(report: EvalReport) -> str:
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False)
