"""Two evaluations of one golden file side by side, thresholds for CI, and a JUnit report.

:func:`compare` pairs the items of two :class:`~ctxtool.runtime.evaluate.EvalReport` by id: which
went from right to wrong or unanswered (``regressed``) and back (``fixed``), and the counts per tag
and per template (the ``template`` field a generated golden file carries). :func:`check_thresholds`
reads ``--fail-under`` specs (``0.8``, ``covered=0.9``, ``tag:paraphrase=0.5``) against a report;
:func:`junit` writes the report (and the comparison) as JUnit XML, one test case per question.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from ctxtool.errors import InputError
from ctxtool.runtime.evaluate import EvalItem, EvalReport

__all__ = ["Comparison", "check_thresholds", "compare", "junit", "parse_threshold"]


@dataclass
class Change:
    id: str
    nlq: str
    before: str
    after: str
    tags: list[str]
    template: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "nlq": self.nlq,
            "before": self.before,
            "after": self.after,
            "tags": self.tags,
            "template": self.template,
        }


def _group_counts(pairs: list[tuple[EvalItem, EvalItem]], key: Any) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for a, b in pairs:
        for k in key(a):
            g = out.setdefault(
                k, {"questions": 0, "correct_a": 0, "correct_b": 0, "wrong_a": 0, "wrong_b": 0}
            )
            g["questions"] += 1
            g["correct_a"] += a.outcome == "correct"
            g["correct_b"] += b.outcome == "correct"
            g["wrong_a"] += a.outcome == "wrong"
            g["wrong_b"] += b.outcome == "wrong"
    return dict(sorted(out.items()))


@dataclass
class Comparison:
    a: EvalReport
    b: EvalReport
    regressed: list[Change] = field(default_factory=list)  # right in a, not right in b
    fixed: list[Change] = field(default_factory=list)  # not right in a, right in b
    only_in_one: list[str] = field(default_factory=list)
    by_tag: dict[str, dict[str, int]] = field(default_factory=dict)
    by_template: dict[str, dict[str, int]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a.summary(),
            "b": self.b.summary(),
            "regressed": [c.to_dict() for c in self.regressed],
            "fixed": [c.to_dict() for c in self.fixed],
            "only_in_one": self.only_in_one,
            "by_tag": self.by_tag,
            "by_template": self.by_template,
        }

    def text(self) -> str:
        sa, sb = self.a.summary(), self.b.summary()
        lines = [f"A: {sa['set']}", f"B: {sb['set']}", ""]
        header = f"{'group':<34} {'n':>5} {'right A':>8} {'right B':>8} {'wrong A':>8} {'wrong B':>8}"
        lines += [header, "-" * len(header)]
        oa, ob = sa["overall"], sb["overall"]
        lines.append(
            f"{'overall':<34} {oa['questions']:>5} {oa['correct']:>8} {ob['correct']:>8} {oa['wrong']:>8} {ob['wrong']:>8}"
        )
        for prefix, groups in (("tag:", self.by_tag), ("template:", self.by_template)):
            for name, g in groups.items():
                if (
                    prefix == "template:"
                    and g["correct_a"] == g["correct_b"]
                    and g["wrong_a"] == g["wrong_b"]
                ):
                    continue  # only the templates whose figures changed
                label = (prefix + name)[:34]
                lines.append(
                    f"{label:<34} {g['questions']:>5} {g['correct_a']:>8} {g['correct_b']:>8} "
                    f"{g['wrong_a']:>8} {g['wrong_b']:>8}"
                )
        lines.append("")
        lines.append(f"{len(self.fixed)} fixed (not right in A, right in B), {len(self.regressed)} regressed")
        for c in self.regressed:
            lines.append(f"  regressed [{c.before} -> {c.after}] {c.id}: {c.nlq}")
        for c in self.fixed:
            lines.append(f"  fixed [{c.before} -> {c.after}] {c.id}: {c.nlq}")
        return "\n".join(lines)


def compare(a: EvalReport, b: EvalReport) -> Comparison:
    """Pair the items of ``a`` and ``b`` by id (the same golden file evaluated twice)."""
    by_id = {i.id: i for i in b.items}
    pairs = [(i, by_id[i.id]) for i in a.items if i.id in by_id]
    out = Comparison(a, b)
    out.only_in_one = sorted({i.id for i in a.items} ^ set(by_id))
    for x, y in pairs:
        change = Change(x.id, x.nlq, x.outcome, y.outcome, x.tags, x.template)
        if x.outcome == "correct" and y.outcome != "correct":
            out.regressed.append(change)
        elif x.outcome != "correct" and y.outcome == "correct":
            out.fixed.append(change)
    out.by_tag = _group_counts(pairs, lambda i: i.tags)
    out.by_template = _group_counts(pairs, lambda i: [i.template] if i.template else [])
    return out


def parse_threshold(spec: str) -> tuple[str, float]:
    """``0.8`` -> ("overall", 0.8); ``covered=0.9``; ``tag:paraphrase=0.5``."""
    scope, _, value = spec.rpartition("=")
    scope = scope or "overall"
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if not 0.0 <= number <= 1.0:
        raise InputError(
            f"--fail-under {spec!r}: write an accuracy from 0 to 1, optionally for a group: "
            "0.8, covered=0.9, tag:paraphrase=0.5"
        )
    if scope not in ("overall", "covered", "uncovered") and not scope.startswith("tag:"):
        raise InputError(f"--fail-under {spec!r}: the group is overall, covered, uncovered or tag:NAME")
    return scope, number


def check_thresholds(report: EvalReport, specs: list[str]) -> list[str]:
    """The thresholds ``report`` misses, as sentences (empty: all met). A tag no question has misses."""
    s = report.summary()
    missed = []
    for spec in specs:
        scope, floor = parse_threshold(spec)
        stats = s["by_tag"].get(scope[4:]) if scope.startswith("tag:") else s[scope]
        acc = (stats or {}).get("execution_accuracy")
        if acc is None or acc < floor:
            shown = "no questions" if acc is None else f"{acc:.1%}"
            missed.append(f"{scope} execution accuracy {shown} is under {floor:.1%}")
    return missed


def junit(report: EvalReport, comparison: Comparison | None = None) -> str:
    """JUnit XML: one test suite, one test case per question (class: its template or first tag); a
    question not answered right fails (a wrong answer is a failure, a decline a skipped case when
    it was not right before either); with ``comparison``, a regression names what it was in A."""
    regressed = {c.id: c for c in comparison.regressed} if comparison else {}
    cases = []
    failures = skipped = 0
    for i in report.items:
        cls = i.template or (i.tags[0] if i.tags else "golden")
        body = ""
        if i.outcome != "correct":
            was = f" (right in {comparison.a.set_ref})" if i.id in regressed and comparison else ""
            message = f"{i.outcome}{was}: {i.detail}"[:500]
            if i.outcome in ("wrong", "error", "golden_error") or i.id in regressed:
                failures += 1
                body = f"<failure message={quoteattr(message)}>{escape(i.sql or '')}</failure>"
            else:
                skipped += 1
                body = f"<skipped message={quoteattr(message)}/>"
        cases.append(
            f"  <testcase classname={quoteattr(cls)} name={quoteattr(i.id + ': ' + i.nlq)} "
            f'time="{i.ms / 1000:.3f}">{body}</testcase>'
        )
    head = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name={quoteattr("ctxtool eval " + report.set_ref)} '
        f'tests="{len(report.items)}" failures="{failures}" skipped="{skipped}" errors="0">'
    )
    return "\n".join([head, *cases, "</testsuite>"]) + "\n"
