"""A candidate's query against the question's typed parts: what it uses, what it would need added
(conditions, a time, a grouping, an order or limit: :mod:`ctxtool.compose`) and what it cannot use.

The runtime's ``compose`` stage (:mod:`ctxtool.runtime.pipeline`) reads the decided candidate's
bound SQL with the question's mentions (:mod:`ctxtool.mentions`) and the values it leaves unused,
runs the checks of the ``compose`` phase on that reading (a time, a number, a value or a word of
grouping, order or measure the answer would not use declines it: "never confidently wrong"), and
answers with the template plus the edits when they use every part of the question. A question the
matcher declines is composed from its best candidate only when that candidate is close
(:data:`FLOOR`) and the composition uses every value and every word the candidate left unexplained.

Composing parses SQL: the parser is imported here, loaded only when a question reaches this stage
with something to compose or check (a question in a template's own words and nothing more costs no
parse at all).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ctxtool import gate
from ctxtool.english.content import content_tokens
from ctxtool.errors import CtxtoolError, InputError
from ctxtool.mentions import (
    GroupingMention,
    MeasureMention,
    Mentions,
    OrderMention,
    TimeMention,
    read_mentions,
)
from ctxtool.runtime.checks.registry import run as run_checks
from ctxtool.runtime.checks.values import UNUSED_VALUE, unused_values, value_weight
from ctxtool.runtime.matching.candidate import Candidate, Finding
from ctxtool.runtime.plan import Plan
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.question.values import Entity

if TYPE_CHECKING:
    from ctxtool.compose import LinkedValue, SchemaGraph
    from ctxtool.compose.plan import Plan as EditPlan

__all__ = ["FLOOR", "Reading", "close_enough", "composed_plan", "read_candidate", "review", "worth_reading"]

# the least evidence of a best candidate the matcher declined that composition may still answer:
# below it the declined cases of the Spider train kit's even half composed wrong answers only
FLOOR = 0.5


@dataclass
class Reading:
    """What the question's typed parts mean for one candidate's bound SQL."""

    edits: EditPlan
    unexplained: list[str]  # the question words the matcher left unexplained
    closest: str  # the template's wording, for a decline to name
    values: list[Entity] = field(default_factory=list)  # the values nothing of the template uses
    written: dict[str, str] = field(default_factory=dict)  # a question word -> as written
    measured: list[tuple[int, int]] = field(default_factory=list)  # the spans of what it measures

    def measures_unexplained(self, text: str) -> bool:
        """Whether a word the matcher left unexplained names what the question measures ("how many
        units of chai"): the template measures something else, or more."""
        low = text.lower()
        for w in self.unexplained:
            at = low.find(self.written.get(w, w).lower())
            if at >= 0 and any(a <= at < b for a, b in self.measured):
                return True
        return False

    @property
    def decisive(self) -> list[tuple[Any, str]]:
        """The unused parts that must stop the answer: a time, a number or a value (they carry
        meaning whatever the score), and a share of a total whose words the wording does not say
        (:meth:`ctxtool.compose.plan.Plan.decisive`). A grouping, an order or another measure is a
        question of the template's shape, which the matcher's own checks weigh."""
        return [(m, why) for m, why in self.edits.decisive(self.unexplained) if _meaningful(m)]

    def needed(self) -> list[Any]:
        """The edits an answer the matcher is confident of needs: those for a part that would be
        decisive unused (a time, a number, a value). A grouping or an order its wording already
        says is the template's own, and is not re-made."""
        said = {m.text for m in self.edits.used if _meaningful(m)}
        return [e for e in self.edits.edits if getattr(e, "said", "") in said]

    @property
    def composes(self) -> bool:
        """Edits to make, every part used and nothing computed that is not asked."""
        return bool(self.edits.edits) and self.edits.complete

    def failed(self, why: str) -> bool:
        """Whether, the edits not made, a part that carries meaning goes unused (a time, a number,
        a value; or a word of grouping, order or measure the wording does not say): then there is
        no answer, since the template alone would answer another question."""
        said = {getattr(e, "said", "") for e in self.edits.edits}
        lost = [(m, why) for m in self.edits.used if m.text in said]
        return bool(replace(self.edits, unused=lost, mismatch=[]).decisive(self.unexplained))

    def uses_everything(self, text: str) -> bool:
        """Every value the candidate left unused and every word it left unexplained lies in a part
        of the question the composition uses: nothing of the question is dropped."""
        spans = self.edits.covers
        for e in self.values:
            if not any(a <= e.start and e.end <= b for a, b in spans):
                return False
        low = text.lower()
        for w in self.unexplained:
            at = low.find(self.written.get(w, w).lower())
            if at < 0 or not any(a <= at < b for a, b in spans):
                return False
        return True


def _meaningful(m: Any) -> bool:
    """A part that carries meaning whatever the score: a time, a number, a value, a share."""
    if isinstance(m, MeasureMention):
        return m.function == "share"
    return not isinstance(m, (GroupingMention, OrderMention))


_OF = re.compile(r"\s+of\s+(?:the\s+|our\s+|all\s+)?\w+")


def _measured(text: str, span: tuple[int, int]) -> tuple[int, int]:
    """The words of what a measure measures: "How many units" and what they are "of" ("How many
    units of chai")."""
    more = _OF.match(text, span[1])
    return (span[0], more.end()) if more else span


def close_enough(cand: Candidate) -> bool:
    """Whether a candidate the matcher did not answer with is close enough to be composed: its
    evidence without the values it leaves unused (the composition must use each of them) reaches
    :data:`FLOOR`."""
    unused = cand.factors.get("unused", 1.0)
    return unused > 0 and cand.evidence / unused >= FLOOR


def worth_reading(q: Question, cand: Candidate) -> bool:
    """Whether the question has a part the candidate may leave unused: a time, a number, a
    grouping or an order, or a value nothing of the template uses (a question in a template's own
    words, or with its slots' values only, is read no further and costs no parse)."""
    m = read_mentions(q.text)
    if m.times or m.numbers or m.groupings or m.orders:
        return True
    if cand.template.facts.grouped and m.measures:
        return True  # one measure asked of a template that measures per group
    entities = list(q.values)
    return any(
        value_weight(entities[i], q, cand.template.facts) <= UNUSED_VALUE + 1e-9
        for i in unused_values(q, cand)
    )


def _linked(e: Entity) -> LinkedValue | None:
    from ctxtool.compose import ColumnRef, LinkedValue  # the SQL parser loads with composition (module doc)

    link = e.link
    if link is None or "." not in (link.column or ""):
        return None
    table, _, column = link.column.rpartition(".")
    return LinkedValue(e.text, (e.start, e.end), ColumnRef(table.split(".")[-1], column), link.value)


def _outside(mentions: Mentions, spans: Sequence[tuple[int, int]], facet_words: set[str]) -> Mentions:
    """The mentions no slot, facet or wording of the candidate already takes: a time whose year a
    slot binds, a number the template's wording states, a time a facet's words say."""

    def free(span: tuple[int, int], text: str) -> bool:
        if any(span[0] < b and a < span[1] for a, b in spans):
            return False  # "at least ten professors" of a slot holding 10, "in year 2000" of its year
        words = set(content_tokens(text))
        return not (words and facet_words and words <= facet_words)

    def free_time(m: TimeMention) -> bool:
        # a time finer than a year is the slot's only when the slot's value is all of it: "March
        # 2024" is not the year 2024 a slot holds
        if m.grain != "year" and m.kind != "range":
            if any(a <= m.span[0] and m.span[1] <= b for a, b in spans):
                return False
            words = set(content_tokens(m.text))
            return not (words and facet_words and words <= facet_words)
        return free(m.span, m.text)

    return Mentions(
        mentions.text,
        [m for m in mentions.times if free_time(m)],
        [m for m in mentions.numbers if free(m.span, m.text)],
        [m for m in mentions.measures if free(m.span, m.text)],
        [m for m in mentions.groupings if free(m.span, m.text)],
        [m for m in mentions.orders if free(m.span, m.text)],
    )


def read_candidate(
    q: Question,
    cand: Candidate,
    sql: str,
    params: Sequence[Any],
    dialect: str,
    graph: SchemaGraph,
) -> Reading | None:
    """The reading of ``cand``'s bound ``sql`` against the question's typed parts and the values it
    leaves unused; None when the SQL is one composition cannot read."""
    entities = list(q.values)
    facts = cand.template.facts
    unused = unused_values(q, cand)
    # a value that counts against the candidate as a dropped condition (not a lower-case word that
    # only resembles a stored value, not words of comparing)
    real = [entities[i] for i in unused if value_weight(entities[i], q, facts) <= UNUSED_VALUE + 1e-9]
    # the values its slots, its facets or its wording take (or that count as no value)
    taken = [(e.start, e.end) for e in entities if e not in real]
    wording = cand.wording.text if cand.wording is not None else cand.template.intent
    own = read_mentions(cand.template.data.get("nl_query") or cand.template.intent)
    mentions = _outside(read_mentions(q.text), taken, cand.facet_words)
    # the mentions the template's own wording says in the same words are the template's
    said = {m.text.lower() for m in (*own.times, *own.numbers)} | {
        m.text.lower() for m in (*read_mentions(wording).times, *read_mentions(wording).numbers)
    }
    mentions = Mentions(
        mentions.text,
        [m for m in mentions.times if m.text.lower() not in said],
        [m for m in mentions.numbers if m.text.lower() not in said],
        mentions.measures,
        mentions.groupings,
        mentions.orders,
    )
    # a condition is added for a value found as written only: one found approximately ("March" for
    # a customer named 'Marc') stays unused, and a value left unused declines the answer
    # nor on a column the query returns as it is: "the ranges ... in the North range" would answer
    # 'North' once per row
    values = [
        lv
        for lv in (_linked(e) for e in real if e.link and e.link.distance <= 1e-9)
        if lv is not None
        and not {f"{lv.column.table}.{lv.column.column}".lower(), lv.column.column.lower()} & facts.projected
    ]
    from ctxtool.compose import ComposeError
    from ctxtool.compose.plan import TemplateShape
    from ctxtool.compose.plan import plan as plan_edits

    try:
        shape = TemplateShape.read(sql, params, dialect, graph)
    except (ComposeError, CtxtoolError, ValueError):
        return None
    edits = plan_edits(mentions, shape, graph, template_mentions=own, values=values)
    for e in real:  # a value found approximately and inside no part the answer uses: not used
        lv = _linked(e)
        if (
            lv is not None
            and lv not in values
            and not any(a <= e.start and e.end <= b for a, b in edits.covers)
        ):
            edits.unused.append((lv, f"'{e.text}' (read as {lv.value!r} of {lv.column})"))
    measured = [_measured(q.text, m.span) for m in mentions.measures]
    return Reading(
        edits, list(cand.unexplained), cand.template.parameterized_intent, real, q.written_words, measured
    )


def review(
    q: Question, cand: Candidate, sql: str, params: Sequence[Any], dialect: str, graph: SchemaGraph
) -> list[Finding]:
    """The candidate read against the question's typed parts (its ``composition``) and the findings
    of the ``compose`` phase of the check catalogue on it (none when its SQL cannot be read)."""
    cand.composition = read_candidate(q, cand, sql, params, dialect, graph)
    if cand.composition is None:
        return []
    return run_checks("compose", q, cand, cand.template.facts)


def composed_plan(
    reading: Reading,
    base: Plan,
    dialect: str,
    graph: SchemaGraph,
    allowed: set[str] | None,
    edits: Sequence[Any] | None = None,
) -> Plan | str:
    """``base`` (the candidate's bound SQL) with the reading's edits (or ``edits``) made, checked
    by the read-only gate and the allowed objects as any generated SQL is, and explained (which template, which edits, which values);
    or why not."""
    from ctxtool.compose import ComposeError, compose
    from ctxtool.runtime.templates.sqlparts import check_allowed_objects

    try:
        done = compose(base.sql, base.params, dialect, graph, reading.edits.edits if edits is None else edits)
        gate.require(done.sql, dialect)
        check_allowed_objects(done.sql, dialect, allowed)
    except (ComposeError, InputError, gate.GateRefused) as exc:
        return (
            f"the template could not take {_said(reading)}: {exc}. The closest template: {reading.closest!r}"
        )
    unexplained = ", ".join(reading.unexplained)
    explanation = (
        base.explanation.replace(f"; words not used: {unexplained}", "") if unexplained else base.explanation
    )
    explanation += "; composed: " + "; ".join(done.explanation)
    return replace(base, sql=done.sql, params=list(done.params), source="composed", explanation=explanation)


def _said(reading: Reading) -> str:
    said = [getattr(e, "said", "") for e in reading.edits.edits]
    return ", ".join(f"'{s}'" for s in said if s) or "the edits"
