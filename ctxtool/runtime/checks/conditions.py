"""Which rows a candidate takes, against the question: how its conditions join ("A or B" is no AND),
whether they can hold together, how a value is compared (both ways, strictly or with its end
included), and whether a value the question states of a column lands in a slot of that column.

No check names a word of any database: the words come from the question, the schema's names and the
template's wording; what the SQL does comes from its facts (:mod:`ctxtool.runtime.templates.facts`).
"""

from __future__ import annotations

import re

from ctxtool.english.content import content_tokens
from ctxtool.english.lexicon import ALTERNATIVES, COMPARISON_FILLERS, INCLUDED_END_BEFORE
from ctxtool.runtime.checks.registry import check
from ctxtool.runtime.matching.candidate import Candidate, Finding
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.question.values import Entity
from ctxtool.runtime.templates.compiled import Compiled, Slot
from ctxtool.runtime.templates.facts import TemplateFacts
from ctxtool.runtime.templates.vocabulary import SetFacts

__all__ = ["empty_range", "named_otherwise"]

EMPTY_RANGE = 0.3  # conditions no row satisfies together
NAMED_OTHERWISE = 0.5  # "height more than 5600" in a slot of a count
EITHER_ONE_VALUE = 0.7  # "either A or B" against a template holding one value
CONJUNCTION_CLASH = 0.3  # "A or B" answered with A AND B
BOTH_WAYS = 0.3  # "more than 2" answered by a template comparing its value both ways
BOTH_VALUES = 0.45  # "both A and B" for one slot: the second value would be dropped
STRICT_BOUND = 0.5  # "at least 25" answered with "> 25"

_LOWER = frozenset({"gt", "gte"})  # slot operators that bound a column from below / above
_UPPER = frozenset({"lt", "lte"})


def empty_range(uses: list[tuple[Compiled, dict[str, tuple[int, float]]]], entities: list[Entity]) -> bool:
    """The conditions ANDed hold one column above a bound and below a smaller one ("requested more
    than 140000" and "less than 120000"): no row passes both, so the question means rows of either
    kind, or things that have rows of both kinds, not this intersection."""
    low: dict[str, float] = {}
    high: dict[str, float] = {}
    if len(uses) < 2:
        return False  # a template alone is as curated: its own OR or INTERSECT holds its bounds
    first = uses[0][0].facts
    if first.ors or first.set_operations:
        uses = uses[1:]
    for item, bindings in uses:
        for slot in item.slots:
            if not slot.column or slot.operator not in _LOWER | _UPPER or slot.key not in bindings:
                continue
            try:
                v = float(entities[bindings[slot.key][0]].value)
            except (TypeError, ValueError):
                continue
            if slot.operator in _LOWER:
                low[slot.column] = max(v, low.get(slot.column, v))
            else:
                high[slot.column] = min(v, high.get(slot.column, v))
    return any(c in high and low[c] >= high[c] for c in low)


def named_otherwise(question: str, slot: Slot, e: Entity, vocabulary: SetFacts) -> bool:
    """The column word right before a value (only comparison words between: "height more than
    5600", "the governor 'X'") or, for a condition on a column, right after a number ("200
    sales") names a column of the schema that the slot taking the value is not compared with
    (a count slot is compared with none; what follows its number is what it counts)."""
    if slot.operator == "limit" or e.kind not in ("number", "linked", "quoted"):
        return False
    if e.kind != "number" and slot.column is None:
        return False
    before: list[str] = []
    for word in reversed(re.findall(r"[A-Za-z]+", question[: e.start])[-6:]):
        tokens = content_tokens(word)
        if word.lower() in COMPARISON_FILLERS or (tokens and all(t.startswith("__") for t in tokens)):
            continue  # "more than", "at least", "above", "the"
        before = tokens[-1:]
        break
    after = content_tokens(question[e.end :])[:1] if e.kind == "number" else []
    if slot.column is None:
        if set(after) & vocabulary.entity_words:
            return False  # "more than 4 customers": what follows is what is counted
        after = []
    named = [
        w for w in before + after if w in vocabulary.all_column_words and w not in vocabulary.entity_words
    ]
    return bool(named) and not (set(named) & slot.type_words)


@check("called_otherwise", "slots", 0.0)
def called_otherwise(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """A word of the schema right before a quoted value no value search found says what kind of value
    it is: a slot about another thing never takes it (vetoed).

    Fails: "How many books did the author 'Ann Berg' borrow?" against a slot for a reader's name.
    Passes: "How many books did the reader 'Ann Berg' borrow?" against the same slot."""
    voc = q.vocabulary
    if voc is None:
        return None
    tpl = c.template
    out: set[str] = set()
    for slot in tpl.slots:
        e = q.values[c.bindings[slot.key][0]]
        if e.kind != "quoted" or e.link is not None:
            continue
        before = re.findall(r"[A-Za-z]+", q.text[: e.start])[-1:]
        words = content_tokens(before[0]) if before else []
        own = set(slot.type_words)
        if slot.column and "." not in slot.column:  # a column named without its table: any of them
            own |= voc.words_of_tables(tpl.tables)
        if words and words[-1] in voc.schema_words and words[-1] not in own:
            out.add(words[-1])
    return Finding("the question calls the value " + ", ".join(sorted(out))) if out else None


@check("empty_range", "words", EMPTY_RANGE)
def no_rows_together(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """The template's and its facets' conditions together hold a column above a bound and below a
    smaller one: no row passes both, so the question meant either kind of row.

    Fails: "Which loans requested more than 140000 and less than 120000?" read as one range.
    Passes: "Which loans requested more than 120000 and less than 140000?"."""
    uses = [(c.template, c.bindings), *((fu.facet, fu.bindings) for fu in c.facets)]
    if empty_range(uses, list(q.values)):
        return Finding("the conditions together hold a column above a bound and below a smaller one")
    return None


@check("named_otherwise", "words", NAMED_OTHERWISE)
def value_of_another_column(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """A value the question states of a column ("height more than 5600") fills a slot compared with
    no column (a count or a LIMIT's).

    Fails: "How many mountains have a height more than 5600?" against "How many mountains are
    there in more than 5600 ranges?". Passes: "How many mountains are higher than 5600?" against a
    template comparing the height."""
    if q.vocabulary is None:
        return None
    for s in c.template.slots:
        if s.column is None and named_otherwise(q.text, s, q.values[c.bindings[s.key][0]], q.vocabulary):
            return Finding("a value the question states of a column fills a slot compared with none")
    return None


@check("either", "words", EITHER_ONE_VALUE)
def either(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """ "Either A or B" asks for two alternatives: a template with one value does not hold both.

    Fails: "Which ships sail either to Oslo or to Bergen?" against "Which ships sail to $1?".
    Passes: "Which ships sail to Oslo?" against the same template."""
    if "__either" in q.word_set and "__either" not in c.wording_words and len(c.template.slots) == 1:
        if not c.facets:
            return Finding("the question asks for either of two, the template holds one value")
    return None


def _connective(text: str, words: tuple[str, str] = ("or", "and|also")) -> str | None:
    """``"or"`` or ``"and"`` when ``text`` joins by one of ``words`` only (None: neither, or both)."""
    has_or = bool(re.search(rf"\b(?:{words[0]})\b", text, re.I))
    has_and = bool(re.search(rf"\b(?:{words[1]})\b", text, re.I))
    if has_or == has_and:
        return None
    return "or" if has_or else "and"


@check("conjunction", "sql", CONJUNCTION_CLASH)
def conjunction(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """The question joins two of its values with "or" and the SQL ANDs their conditions (or
    INTERSECTs), or joins values of two columns with "and" ("size A4 and speed below 5") or says
    "both" while the SQL ORs them.

    Fails: "Which products have the size A4 or a speed below 5?" against ``size = $1 AND speed < $2``.
    Passes: the same question against ``size = $1 OR speed < $2``."""
    tpl = c.template
    if len(tpl.slots) < 2:
        return None
    entities = q.values
    between_slots = facts.between_slots
    placed = {k for pair in between_slots for k in pair}
    slots = sorted(tpl.slots, key=lambda s: entities[c.bindings[s.key][0]].start)
    for a, b in zip(slots, slots[1:], strict=False):
        if a.key not in placed or b.key not in placed:
            continue
        ea, eb = entities[c.bindings[a.key][0]], entities[c.bindings[b.key][0]]
        said = _connective(q.text[ea.end : eb.start])
        # "the years shared by A or B" is often an INTERSECT: only conditions of one WHERE decide "or"
        sql_said, set_op = between_slots.get((a.key, b.key)) or between_slots[(b.key, a.key)]
        both = bool(re.search(r"\bboth\b", q.text[: ea.start + 1], re.I))
        if said == "or" and sql_said == "and" and set_op is None:
            return Finding(f"the question says '{ea.text}' or '{eb.text}', the template requires both")
        if said == "and" and "or" in (sql_said, set_op) and "and" not in (sql_said, set_op):
            if both or (a.column and b.column and a.column != b.column):
                return Finding(f"the question says '{ea.text}' and '{eb.text}', the template takes either")
        # "the Rock tracks stored on MPEG files": values a question states of one thing, with no
        # "or" anywhere, are all conditions on it, never alternatives
        if said is None and "or" in (sql_said, set_op) and "and" not in (sql_said, set_op):
            if not ALTERNATIVES.search(q.text):
                return Finding(
                    f"the question states '{ea.text}' and '{eb.text}' together, the template takes either"
                )
    return None


@check("both_ways", "sql", BOTH_WAYS)
def both_ways(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """The template compares one value both ways (``x > $1 ... x < $1``) and the question states one
    direction for it ("more than 2 weeks").

    Fails: "Which loans last more than 2 years?" against ``duration > $1 - 1 AND duration < $1 + 1``.
    Passes: "Which loans last about 2 years?" against the same template."""
    for slot in c.template.slots:
        senses = facts.slot_senses.get(slot.key, frozenset())
        lit = q.values[c.bindings[slot.key][0]].literal
        if len(senses) == 2 and lit is not None and lit.direction:
            return Finding("the template compares the value both ways, the question one way")
    return None


@check("both_values", "sql", BOTH_VALUES)
def both_values(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """The question asks for "both A and B" and the template takes one value: the second one
    ("... both London Heathrow and Gatwick") would be dropped, silently.

    Fails: "Which airlines fly from both London Heathrow and Gatwick?" against a one-airport slot.
    Passes: "Which airlines fly from London Heathrow?" against the same template."""
    if len(c.template.slots) >= 2 or "intersect" in facts.set_operations:
        return None
    m = re.search(r"\bboth\b(.{1,80}?)\band\b", q.text, re.I)
    if m is None:
        return None
    if not any(m.start(1) <= e.start < m.end(1) or m.end() <= e.start <= m.end() + 1 for e in q.values):
        return None
    return Finding("the question asks for both of two values, the template takes one")


@check("inclusive_bound", "sql", STRICT_BOUND)
def inclusive_bound(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """The question states a number as an included end ("at least 25", "at most 3") and the template
    compares its slot strictly (``> $1``, ``< $1``): the rows equal to the number belong to the answer
    asked and not to the template's.

    Fails: "Which rooms have at least 25 seats?" against ``seats > $1``.
    Passes: "Which rooms have more than 25 seats?" against the same template."""
    for slot in c.template.slots:
        if slot.operator not in ("gt", "lt") or slot.key not in c.bindings:
            continue
        e = q.values[c.bindings[slot.key][0]]
        m = INCLUDED_END_BEFORE.search(q.text[max(0, e.start - 30) : e.start])
        if m is None:
            continue
        if (slot.operator == "gt") == bool(m.group(1)):
            return Finding(
                f"'{m.group(0).strip()} {e.text}' includes {e.text}, the template compares strictly"
            )
    return None
