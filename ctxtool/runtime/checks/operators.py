"""The operator words of a question and a template: the checks that similarity cannot make.

A sentence encoder rates "Which artist has the most albums?" and "... the fewest albums?" 0.92
alike; what tells them apart is the words that decide what a query computes (the canonical tokens
of :mod:`ctxtool.english.content`). They are compared by *axis* (:func:`operator_agreement`): an
opposite on the same axis (most vs fewest, above vs below, before vs after, a negation on one side
only) is a different question; a word on one side only (the question says "most", the template
says nothing of an order) is weaker evidence against; words of the same direction ("more than" /
"at least") agree.

Whether a word only one side states is evidence at all, the template's SQL decides
(:func:`grounded_ops`): a wording's word its SQL does not compute is no operator of it ("the phone
number of", "the first name", "the policy under code X" compute no count, no end, no comparison); a
word only the question states is answered when the SQL computes it ("aged 25 or older" is
``age >= 25``, "the youngest" an ORDER BY ... LIMIT however it is said). Measured on the Spider
train kit (``bench/spider.py``): 63 more covered questions answered, no wrong answer more. Nothing
here knows a database: the words come from the SQL's constructs and identifiers and general English.
"""

from __future__ import annotations

import re

from ctxtool.english.content import content_tokens
from ctxtool.english.lexicon import (
    COMPOUND_NUMBER_OF,
    CONTRACTED_NOT,
    NOT_ONLY_BUT,
    OPPOSITE_PREFIXES,
    OPPOSITE_PREFIXES_LONG,
    POINT_IN_TIME_WORDS,
    SPAN_WORDS,
    TOTAL_AMOUNT_SAID,
    TOTAL_SAID,
)
from ctxtool.english.reading import counted_measures
from ctxtool.runtime.checks.registry import check
from ctxtool.runtime.matching.candidate import Candidate, Finding
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.question.values import Entity
from ctxtool.runtime.templates.facts import TemplateFacts, name_words

# canonical token -> (axis, direction)
AXES: dict[str, tuple[str, int]] = {
    "__max": ("extreme", 1),
    "__min": ("extreme", -1),
    "__max_date": ("recency", 1),
    "__min_date": ("recency", -1),
    "__gt": ("compare", 1),
    "__gte": ("compare", 1),
    "__lt": ("compare", -1),
    "__lte": ("compare", -1),
    "__after": ("time", 1),
    "__before": ("time", -1),
    "__not": ("negation", 1),
    "__desc": ("order", 1),  # descending vs ascending (alphabetical): stated or not, never opposite
    "__asc": ("order", -1),
    "__both": ("conjunction", 1),  # both A and B (an intersection) against either A or B (a union)
    "__either": ("conjunction", -1),
    # an adjective's degree without a known direction ("cheapest", "cheaper than"): either way
    "__superlative": ("extreme", 0),
    "__comparative": ("compare", 0),
    "__recency": ("recency", 0),  # an end of a date, direction unknown (only as grounded_ops adds it)
    "__timed": ("time", 0),  # a point in time compared, direction unknown (idem)
}
_AGGREGATES = frozenset({"__count", "__avg", "__sum"})

OPPOSITE = 0.3  # most vs fewest: another question
NEGATION = 0.4  # "do not have" vs "have"
ONE_SIDED = 0.75  # an order or comparison only one side states
AGGREGATE_CLASH = 0.6  # average vs total
AGGREGATE_ONE_SIDED = 0.9  # "number of" is often only how people say it ("the most number of songs")
AGGREGATE_UNSAID = 0.75  # "how many campuses" is not "which campuses"; "crimes in 1995" may be short for it


def _label(token: str) -> str:
    return token.strip("_").replace("_", " ")


def operator_agreement(question_ops: set[str], template_ops: set[str]) -> tuple[float, list[str]]:
    """A factor in (0, 1] and the disagreements found, for the operator words of both sides."""
    factor = 1.0
    found: list[str] = []
    q_axes: dict[str, set[int]] = {}
    t_axes: dict[str, set[int]] = {}
    for tok in question_ops:
        if tok in AXES:
            axis, d = AXES[tok]
            q_axes.setdefault(axis, set()).add(d)
    for tok in template_ops:
        if tok in AXES:
            axis, d = AXES[tok]
            t_axes.setdefault(axis, set()).add(d)
    for axis in set(q_axes) | set(t_axes):
        q, t = q_axes.get(axis, set()), t_axes.get(axis, set())
        if q == t or (q and t and (0 in q or 0 in t)):
            continue
        if axis in ("conjunction", "order") and not (q and t):
            continue  # "or" alone is how people list things
        if axis == "negation":
            factor *= NEGATION
            found.append("negation (" + ("the question" if q else "the template") + " says not)")
        elif q and t and not (q & t):
            factor *= OPPOSITE
            found.append(f"opposite {axis}")
        elif q and t:
            continue  # "the largest and the smallest" against "the largest": the template covers a part
        else:
            factor *= ONE_SIDED
            found.append(f"{axis} stated by the {'question' if q else 'template'} only")
    qa, ta = question_ops & _AGGREGATES, template_ops & _AGGREGATES
    if qa and ta and not (qa & ta):
        factor *= AGGREGATE_CLASH
        found.append(f"{'/'.join(sorted(map(_label, qa)))} vs {'/'.join(sorted(map(_label, ta)))}")
    else:
        for side, ops, alone in (("question", question_ops, qa - ta), ("template", template_ops, ta - qa)):
            if not alone:
                continue
            if "extreme" in {AXES[t][0] for t in ops if t in AXES}:
                factor *= AGGREGATE_ONE_SIDED  # "the most number of songs": an order, said twice
            else:
                factor *= AGGREGATE_UNSAID ** len(alone)
                found.append(f"{'/'.join(sorted(map(_label, alone)))} asked by the {side} only")
    return factor, found


# the token of no known direction on each axis a SQL construct realizes (grounded_ops)
_NEUTRAL = {"extreme": "__superlative", "compare": "__comparative", "recency": "__recency", "time": "__timed"}
# axes one SQL construct realizes: an ORDER BY (with a LIMIT, or MIN/MAX) puts an end first, whether
# the words say "the highest", "the youngest" or "the first"; a comparison operator compares a number
# or a date
_FAMILY = {"extreme": "end", "recency": "end", "compare": "range", "time": "range"}
_CALLS = frozenset({"__count", "__sum", "__avg"})  # the aggregates a query realizes (TemplateFacts.realizes)


def listed_ends(
    question_ops: set[str], template_ops: set[str], realized: frozenset[str]
) -> tuple[set[str], set[str]]:
    """An end a wording states of rows its SQL lists in that order ("starting from the most recent
    one") is the question's "in descending order": no end of the template. (Not the other way: "the
    one with the greatest X" asks for one row, not a list in descending order of X.)"""
    t = set(template_ops)
    for tok in template_ops - question_ops:
        axis, d = AXES.get(tok, ("", 0))
        way = "desc" if d > 0 else "asc"
        if (
            axis in ("extreme", "recency")
            and d
            and f"listed {way}" in realized
            and f"__{way}" in question_ops
        ):
            t.discard(tok)
    return set(question_ops), t


def grounded_ops(
    question_ops: set[str],
    template_ops: set[str],
    realized: frozenset[str],
) -> tuple[set[str], set[str]]:
    """The operator words of both sides as the template's SQL reads them.

    A word of the template's wording that its SQL does not compute is no operator of it ("the phone
    number of", "the first name", "the policy under code X" compute no count, no end, no comparison);
    a word only the question states is answered when the SQL computes it in the wording's own terms
    ("aged 25 or older" is ``age >= 25``; "the youngest" is an ORDER BY ... LIMIT however it is said)."""

    def kept(tok: str) -> bool:
        if tok in _CALLS:
            return tok in realized
        axis = AXES.get(tok, ("", 0))[0]
        return _FAMILY.get(axis) in realized if axis in _FAMILY else True

    question_ops, template_ops = listed_ends(question_ops, template_ops, realized)
    q_axes = {AXES[t][0] for t in question_ops if t in AXES}
    # "the last names" against "the first names": words on one axis both sides state still differ
    t_ops = {t for t in template_ops if kept(t) or t in question_ops or AXES.get(t, ("", 0))[0] in q_axes}
    q_ops = set(question_ops)
    q_families = {_FAMILY[AXES[t][0]] for t in q_ops if t in AXES and AXES[t][0] in _FAMILY}
    for tok in question_ops - t_ops:
        if tok in _CALLS and tok in realized and not (template_ops & set(_CALLS)) - {tok}:
            t_ops.add(tok)  # "how many" said in other words ("the number of", "count")
            continue
        axis = AXES.get(tok, ("", 0))[0]
        fam = _FAMILY.get(axis)
        wanted = "one end" if fam == "end" else fam
        if fam and wanted in realized and not any(AXES.get(t, ("", 0))[0] == axis for t in t_ops):
            t_ops.add(_NEUTRAL[axis])  # said in words the canonical tokens do not know
    for tok in list(t_ops - question_ops):
        axis = AXES.get(tok, ("", 0))[0]
        fam = _FAMILY.get(axis)
        if fam and fam in q_families and not any(AXES.get(q, ("", 0))[0] == axis for q in q_ops):
            q_ops.add(_NEUTRAL[axis])  # "the youngest" against "the smallest age": one end, two axes
    return q_ops, t_ops


def implied_ops(question_ops: set[str], template_ops: set[str], realized: frozenset[str]) -> set[str]:
    """The operators a question implies that its words do not say: "the region with the most
    cities" is the one counted most when the template's SQL counts and takes one end; "the
    categories with more than 1 festival" compares a count when the SQL compares its groups' counts
    (HAVING count). ("The total number of hours" read as a sum of an hours column answered 2 more for
    1 wrong more on the Spider kit: not kept.)"""
    axes = {AXES.get(t, ("", 0))[0] for t in question_ops}
    out: set[str] = set()
    counted = "__count" in template_ops and "__count" in realized and not question_ops & set(_CALLS)
    if counted and "extreme" in axes and "one end" in realized:
        out.add("__count")
    if counted and "compare" in axes and "counted" in realized:
        out.add("__count")
    return out


def named_measures(
    question: str, facts: TemplateFacts, q_ops: set[str], columns: set[str] = frozenset()
) -> set[str]:
    """The question's aggregate words that name a column, not a computation: "the phone number of"
    when the SQL reads a phone column (and no "how many" or "the number of" elsewhere), "the total
    horses" when the SQL reads a ``total_horses`` column and sums nothing, "the total number of" of a
    COUNT (the total of a count is the count)."""
    out: set[str] = set()
    pieces = facts.identifier_words
    realized = facts.realizes
    if "__count" in q_ops and "__count" not in realized:
        compounds = COMPOUND_NUMBER_OF.findall(question)
        if compounds and all(w.lower() in pieces for w in compounds):
            rest = COMPOUND_NUMBER_OF.sub(" ", question)
            if not re.search(r"\bhow\s+many\b|\bcount\b|\bnumbers?\s+of\b", rest, re.I):
                out.add("__count")
    if "__count" in q_ops and "__count" not in realized and counted_measures(question, columns):
        out.add("__count")
    if "__sum" in q_ops and "__sum" not in realized and TOTAL_SAID.search(question):
        if "total" in pieces or ("__count" in q_ops and "__count" in realized):
            out.add("__sum")
    return out


def said_total(question: str, q_ops: set[str], t_ops: set[str], realized: frozenset[str]) -> bool:
    """The question asks for the sum a wording calls "the total" in words the canonical tokens drop
    ("how much ... in total", "the total number of hours"): the SQL sums, and every other aggregate
    the question asks for the wording states too."""
    return (
        "__sum" in t_ops
        and "__sum" in realized
        and "__sum" not in q_ops
        and q_ops & {"__avg", "__count"} <= t_ops
        and bool(TOTAL_AMOUNT_SAID.search(question))
    )


def grounded_operators(
    question: str, entities: list[Entity], cand: Candidate, q_set: set[str] | frozenset[str]
) -> tuple[float, list[str]]:
    """The operator words' agreement (:func:`ctxtool.runtime.checks.verify.operator_agreement`) with the
    template's SQL deciding a word one side only states (:func:`grounded_ops`);
    an everyday word a value search took for a value ("higher than 42000") still says its operator,
    and "don't" is the "not" of the other side."""
    tpl = cand.template
    phrasing = tpl.phrasings[cand.phrasing] if tpl.phrasings else None
    t_ops = {t for t in (phrasing.tokens if phrasing else tpl.token_set) if t.startswith("__")}
    q_ops = {t for t in q_set if t.startswith("__")}
    if any(e.literal is None and e.text == e.text.lower() for e in entities):
        kept = list(question)
        for e in entities:
            if e.literal is not None or e.text != e.text.lower():
                kept[e.start : e.end] = " " * (e.end - e.start)
        q_ops |= {t for t in content_tokens("".join(kept)) if t.startswith("__")}
    for fu in cand.facets:
        q_ops -= fu.explains
    text = phrasing.text if phrasing else tpl.intent
    if "__not" in q_ops and NOT_ONLY_BUT.search(question):
        # "not only A but also B" says both, and negates nothing
        if "__not" not in content_tokens(NOT_ONLY_BUT.sub(" ", question)):
            q_ops.discard("__not")
            q_ops.add("__both")
    if ("__not" in q_ops) != ("__not" in t_ops):
        other = text if "__not" in q_ops else question
        if CONTRACTED_NOT.search(other):
            q_ops.add("__not")
            t_ops.add("__not")
    realized = tpl.facts.realizes
    if said_total(question, q_ops, t_ops, realized):
        q_ops.add("__sum")
    q_ops -= named_measures(question, tpl.facts, q_ops, tpl.column_heads)
    q_ops |= implied_ops(q_ops, t_ops, realized)
    q_ops, t_ops = grounded_ops(q_ops, t_ops, realized)
    return operator_agreement(q_ops, t_ops)


def _says_not(text: str) -> bool:
    return "__not" in content_tokens(text)


def _negated(text: str) -> bool:
    return _says_not(text) or bool(CONTRACTED_NOT.search(text))


_WORDS = re.compile(r"[a-z][a-z-]*", re.I)


def _opposite(a: str, b: str) -> bool:
    """``b`` is ``a`` with a prefix of the opposite ("male" / "female", "active" / "inactive")."""
    if len(a) < 4 or not b.endswith(a):
        return False
    head = b[: -len(a)]
    return head in OPPOSITE_PREFIXES or (head in OPPOSITE_PREFIXES_LONG and len(a) >= 5)


# a column of points in time ("the oldest" is its lowest) and of spans ("the longest" its highest),
# as the content words of their names
_DATED = frozenset(content_tokens(POINT_IN_TIME_WORDS))
_SPAN = frozenset(content_tokens(SPAN_WORDS))


def _is(word: str, kinds: frozenset[str]) -> bool:
    return any(word == k or word.endswith(k) for k in kinds)  # "milliseconds" is seconds


def said_ends(q_tokens: list[str], facts: TemplateFacts) -> tuple[set[str], set[str]]:
    """The question's words for an end that the SQL takes in its own terms, and the wording's end
    tokens they say: "the oldest" is the highest age or the earliest date, "the youngest" the lowest
    age or the latest date, "the longest" / "the shortest" the highest / lowest length, duration,
    distance or time. The direction must agree: "the youngest" is never the highest age."""
    q = set(q_tokens)
    said: set[str] = set()
    tokens: set[str] = set()
    for up, words in facts.ends:
        found: set[str] = set()
        if "age" in words:
            found.add("__min_date" if up else "__max_date")
        elif any(_is(w, _DATED) for w in words):
            found.add("__max_date" if up else "__min_date")
        if "__superlative" in q and ("long" if up else "short") in q and any(_is(w, _SPAN) for w in words):
            found |= {"__superlative", "long" if up else "short"}
        if found & q:
            said |= found & q
            tokens.add("__max" if up else "__min")
    return said, tokens


# -- the checks --------------------------------------------------------------------------------------
ORDER_UNMET = 0.5  # the question asks for an order the template does not give
VALUE_FOR_WHO = 0.5  # "the author with the most books" answered with one aggregate value


def word_agreement(q: Question, c: Candidate, facts: TemplateFacts) -> float:
    """The operator words' agreement as the wording says them (and what the SQL computes that the
    question says), before the SQL decides the words only one side states: the stricter reading
    rewording asks of a candidate (:mod:`ctxtool.runtime.matching.rewording`)."""
    q_ops = q.operators - c.facet_words
    t_ops = {t for t in c.wording_words if t.startswith("__")} | (q.word_set & facts.operators)
    return operator_agreement(q_ops, t_ops)[0]


@check("operators", "words", OPPOSITE)
def operators(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """The words that decide what the query computes (count, average, most, above, before, not...)
    agree between the question and the template, read as the template's SQL computes them: "the
    lowest salary" is not answered by the highest-salary template.

    Fails: "Which artist has the fewest albums?" against "Which artist has the most albums?".
    Passes: "Which artist has the largest number of albums?" against the same template."""
    factor, clashes = grounded_operators(q.text, list(q.values), c, q.word_set)
    if factor >= 0.999999:
        return None
    return Finding("the question and the template disagree on: " + ", ".join(clashes), factor)


@check("order", "words", ORDER_UNMET)
def order(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """The question's order of the rows ("sorted by", "in descending order", "in order of last name")
    is the template's: rows in no order, in the other order or by another column are another answer.

    Fails: "List the boats in descending order of length" against ``... ORDER BY length ASC``.
    Passes: the same question against ``... ORDER BY length DESC``."""
    q_ops = q.operators - c.facet_words
    t_ops = {t for t in c.wording_words if t.startswith("__")} | (q.word_set & facts.operators)
    wanted = {"desc"} if "__desc" in q_ops else {"asc"} if "__asc" in q_ops else set()
    if ("__order" in q.word_set or wanted) and facts.order is None:
        return Finding("the question asks for an order, the template returns rows in none")
    if wanted and facts.order not in wanted and "__desc" not in t_ops and "__asc" not in t_ops:
        return Finding("the question asks for the opposite order", OPPOSITE)
    if facts.order_key and q.vocabulary is not None:
        said = q.order_key
        if said and any(said <= cols for cols in q.vocabulary.column_token_sets):
            if not said <= set(name_words(facts.order_key)):
                # "in order of last name" is not answered by rows sorted by first name
                return Finding("the question sorts by another column than the template")
    return None


@check("who", "words", VALUE_FOR_WHO)
def who(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """ "The author with the most books" asks for who, not for how many: a template that returns one
    aggregate value does not name the one with the most.

    Fails: "Which author has the most books?" against "How many books does the busiest author have?"
    (``SELECT MAX(n) FROM ...``). Passes: the same question against a template returning the author."""
    if facts.value_only and q.asks_who_has_the_most:
        return Finding("the question asks which one has the most, the template returns a value")
    return None


@check("extreme_direction", "sql", OPPOSITE)
def extreme_direction(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """The question asks for one end ("the highest price") and the template's wording has a
    superlative of no known direction ("cheapest") while its SQL takes the other end.

    Fails: "Which room has the highest base price?" against "Which room has the cheapest base
    price?" (``ORDER BY base_price ASC LIMIT 1``). Passes: "Which room has the lowest base price?"."""
    wanted = {AXES[t][1] for t in q.word_set if t in AXES and AXES[t][0] == "extreme"} - {0}
    t_ops = {t for t in c.template.token_set if t in AXES and AXES[t][0] == "extreme"}
    if len(wanted) != 1 or "__superlative" not in t_ops or t_ops & {"__max", "__min"}:
        return None
    d = facts.extreme
    if d is None or d in wanted:
        return None
    end = "highest" if 1 in wanted else "lowest"
    return Finding(f"the question asks for the {end}, the template's SQL takes the other end")


@check("contracted_negation", "sql", NEGATION)
def contracted_negation(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """One side says "don't" / "cannot" and the other has no negation at all (the operator words see
    "not" and "no", not the contracted forms).

    Fails: "Which students don't play any sport?" against "Which students play a sport?".
    Passes: "Which students do not play any sport?" against "Which students don't play a sport?"."""
    wording = c.wording.text if c.wording is not None else c.template.intent
    q_tok = "__not" in q.word_set
    t_tok = _says_not(wording)
    if q_tok != t_tok:
        return None  # the word checks saw it already
    said = q_tok or bool(CONTRACTED_NOT.search(q.text))
    if said == _negated(wording):
        return None
    return Finding("negation (" + ("the question" if said else "the template") + " says not)")


@check("prefixed_opposite", "sql", OPPOSITE)
def prefixed_opposite(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """The question says a word whose opposite the template says and the template not the word itself
    ("the male members" against "the female members", "active" against "inactive"): the encoder
    rates the two sentences alike; the rows are others.

    Fails: "How many male members are there?" against "How many female members are there?".
    Passes: "How many female members are there?" against the same template."""
    wording = c.wording.text if c.wording is not None else c.template.intent
    q_words = {w.lower() for w in _WORDS.findall(q.text)}
    t_words = {w.lower() for w in _WORDS.findall(wording)}
    for w in q_words - t_words:
        for v in t_words - {w}:
            if _opposite(w, v) or (_opposite(v, w) and v not in q_words):
                return Finding(f"the question says {w}, the template {v}")
    return None
