"""Verifying a candidate's SQL against the question: what the similarity of wordings cannot see.

The checks read the template's SQL and its bindings: what a ``COUNT(DISTINCT ...)`` counts, which
end an ``ORDER BY ... LIMIT`` takes, whether two conditions are ANDed or ORed, which columns come
back and of which table, whether a bound value was found on the slot's own table. Each lowers a
candidate whose SQL computes something else than the question asks (a wrong answer is worse than
none: the runtime then asks back or declines). No check names a word of any database: the words
come from the schema's names, the set's wordings and general English.

The checks live by what they read: :mod:`ctxtool.runtime.checks.shape` (what comes back: a count or
rows, the columns asked for) and :mod:`ctxtool.runtime.checks.conditions` (which rows: values, operators,
polarity). This module weighs them, applies them (:func:`review`) and tells reverse templates apart;
the checks stay importable from here.
"""

from __future__ import annotations

import re
from collections.abc import Container
from typing import Any

from ctxtool.english.reading import counted_words
from ctxtool.runtime.checks.conditions import (
    both_values_one_slot,
    compared_both_ways,
    conjunction,
    contracted_negation,
    extreme_direction,
    inclusive_bound,
    prefixed_opposite,
    spelled_otherwise,
    unlinked_codes,
    value_of_other_table,
)
from ctxtool.runtime.checks.grounding import regrounded, regrouped
from ctxtool.runtime.checks.shape import (
    age_end,
    aggregate_unsaid,
    asked_entity,
    asked_not_returned,
    asks_for_two,
    count_or_rows,
    counted_thing,
    extra_measure,
    name_words,
    one_number,
    returned_unlisted,
    unasked_columns,
)
from ctxtool.runtime.checks.verify import NEGATION, OPPOSITE
from ctxtool.runtime.decide.rivals import separate
from ctxtool.runtime.matching.alignment import realign, recolumned
from ctxtool.runtime.matching.matcher import COLUMN_NOT_READ
from ctxtool.runtime.matching.rewording import instruction_values, reword

__all__ = [
    "age_end",
    "aggregate_unsaid",
    "asked_entity",
    "asked_not_returned",
    "asks_for_two",
    "both_values_one_slot",
    "compared_both_ways",
    "conjunction",
    "contracted_negation",
    "count_or_rows",
    "counted_thing",
    "counted_words",
    "disagreements",
    "extra_measure",
    "extreme_direction",
    "inclusive_bound",
    "name_words",
    "named_disagreements",
    "one_number",
    "prefixed_opposite",
    "returned_unlisted",
    "reverse_pairs",
    "review",
    "spelled_otherwise",
    "unasked_columns",
    "unlinked_codes",
    "value_of_other_table",
]

COUNTED_OTHER = 0.5  # "how many accounts" is not answered by counting the distinct customers
COLUMN_UNASKED = 0.6  # the template returns a column the question does not ask for
CONJUNCTION_CLASH = 0.3  # "A or B" answered with A AND B
OTHER_TABLE = 0.3  # a customer's first name in a slot for a staff member's first name
OTHER_ENTITY = 0.4  # "the names of projects" answered with the names of scientists
ONE_NUMBER = 0.5  # "how many countries?" answered with one count per country
BOTH_WAYS = 0.3  # "more than 2" answered by a template comparing its value both ways
UNUSED_VALUE = 0.45  # a value the question states (a code, "both A and B") that the SQL cannot use
SPELLED_OTHER = 0.5  # "DVD drives" bound as 'DVD burner'
COUNT_OR_ROWS = 0.6  # "how many X" is not a list of X, and "what are the X" is not their count
EXTRA_MEASURE = 0.8  # "how many ... and what are their average ages" against the average alone
ASKED_TWO = 0.5  # "the hobbies and their kinds" answered with the kinds alone
NO_AGGREGATE = 0.5  # "the average price" answered with the prices, "the most" with no order
STRICT_BOUND = 0.5  # "at least 25" answered with "> 25"


def named_disagreements(
    question: str,
    entities: list[Any],
    cand: Any,
    q_set: set[str],
    dialect: str,
    vocabulary: Container[str],
    entity_words: set[str],
) -> list[tuple[str, float, str]]:
    """Every check that finds the candidate's SQL computing something else: (check, factor, reason);
    the check's name goes into the candidate's factors, so an explanation (and a measurement) can
    say which check lowered it."""
    tpl = cand.template
    phrasing = tpl.phrasings[cand.phrasing].text if tpl.phrasings else tpl.intent
    found: list[tuple[str, float, str | None]] = [
        ("other_table", OTHER_TABLE, value_of_other_table(q_set, cand, entities)),
        ("counted_other", COUNTED_OTHER, counted_thing(question, tpl)),
        ("extreme_direction", OPPOSITE, extreme_direction(q_set, tpl)),
        ("contracted_negation", NEGATION, contracted_negation(question, phrasing, q_set)),
        ("prefixed_opposite", OPPOSITE, prefixed_opposite(question, phrasing)),
        ("conjunction", CONJUNCTION_CLASH, conjunction(question, entities, cand)),
        ("other_entity", OTHER_ENTITY, asked_entity(question, cand, entity_words)),
        ("one_number", ONE_NUMBER, one_number(question, q_set, tpl)),
        ("both_ways", BOTH_WAYS, compared_both_ways(entities, cand)),
        ("both_values", UNUSED_VALUE, both_values_one_slot(question, entities, cand)),
        ("extra_measure", EXTRA_MEASURE, extra_measure(question, q_set, tpl)),
        ("count_or_rows", COUNT_OR_ROWS, count_or_rows(question, q_set, tpl, phrasing)),
        ("asks_for_two", ASKED_TWO, asks_for_two(question, tpl)),
        ("aggregate_unsaid", NO_AGGREGATE, aggregate_unsaid(question, tpl)),
        ("age_end", NO_AGGREGATE, age_end(question, tpl)),
        ("not_returned", ASKED_TWO, asked_not_returned(question, tpl)),
        ("returned_unlisted", ASKED_TWO, returned_unlisted(question, tpl)),
        ("inclusive_bound", STRICT_BOUND, inclusive_bound(question, entities, cand)),
    ]
    cols = unasked_columns(q_set, cand, entities)
    if cols:
        found.append(
            (
                "unasked_columns",
                COLUMN_UNASKED ** len(cols),
                "the template also returns what the question does not ask: " + ", ".join(cols),
            )
        )
    codes = unlinked_codes(question, entities, cand, vocabulary)
    if codes:
        found.append(
            (
                "unlinked_codes",
                UNUSED_VALUE ** len(codes),
                "the question states values nothing uses: " + ", ".join(codes),
            )
        )
    spelled = spelled_otherwise(cand, entities)
    if spelled:
        found.append(
            (
                "spelled_otherwise",
                SPELLED_OTHER ** len(spelled),
                "the stored value reads otherwise: " + ", ".join(spelled),
            )
        )
    return [(name, f, why) for name, f, why in found if why]


def disagreements(
    question: str,
    entities: list[Any],
    cand: Any,
    q_set: set[str],
    dialect: str,
    vocabulary: Container[str],
    entity_words: set[str],
) -> list[tuple[float, str]]:
    """Every check that finds the candidate's SQL computing something else: (factor, reason)."""
    found = named_disagreements(question, entities, cand, q_set, dialect, vocabulary, entity_words)
    return [(f, why) for _, f, why in found]


def review(
    question: str,
    entities: list[Any],
    cands: list[Any],
    q_tokens: list[str],
    dialect: str,
    matcher: Any = None,
) -> list[Any]:
    """Lower each candidate whose SQL does not compute what the question asks (see the checks above),
    and tell reverse templates apart (:func:`reverse_pairs`); the list comes back best first."""
    q_set = set(q_tokens)
    # the words of every wording of the set (the index's postings: no copy per question)
    vocabulary: Container[str] = matcher.index.postings if matcher is not None else set()
    entity_words: set[str] = getattr(matcher, "entity_words", set())
    for c in cands:
        # words the SQL's constructs explain ("different", "for each", "sorted"): before the checks,
        # which it needs passed (ctxtool.runtime.matching.alignment)
        regrouped(question, c, getattr(matcher, "table_words", {}))
        recolumned(question, c, COLUMN_NOT_READ)
        instruction_values(question, entities, c)
        realign(c, q_tokens, matcher, question)
        reword(c, q_tokens, matcher, question)
        regrounded(question, entities, c, q_set)
        found = named_disagreements(question, entities, c, q_set, dialect, vocabulary, entity_words)
        if not found:
            continue
        factor = 1.0
        for name, f, _ in found:
            factor *= f
            c.factors[f"sql.{name}"] = round(f, 4)
        c.score = round(c.score * factor, 4)
        c.evidence = round(c.evidence * factor, 4)
        c.checks = round(c.checks * factor, 4)
        c.reasons.append("the SQL disagrees with the question: " + "; ".join(why for _, _, why in found))
    cands.sort(key=lambda c: -c.score)
    reverse_pairs(cands)
    separate(question, q_set, cands)
    return cands


REVERSE_MARGIN = 0.01  # the encoder's cosine must prefer one reading of a reverse pair by this much


def _sql_bag(sql: str) -> tuple[str, ...]:
    return tuple(sorted(re.findall(r"\w+|[^\s\w]", sql.lower())))


def reverse_pairs(cands: list[Any]) -> None:
    """Reverse templates ("the prerequisite of X" / "the courses whose prerequisite is X", "the code
    of a description" / "the description of a code") read the same words in another order: their
    SQL holds the same tokens in another sequence, so word overlap cannot tell them apart. The
    encoder's cosine, which sees the order, decides; when it does not prefer one, both are offered
    (equal scores make the runtime ask back)."""
    if len(cands) < 2:
        return
    best = cands[0]
    bag = _sql_bag(best.template.sql)
    for rival in cands[1:]:
        if rival.template.sql == best.template.sql or _sql_bag(rival.template.sql) != bag:
            continue
        if rival.similarity > best.similarity + REVERSE_MARGIN:
            best.score, rival.score = (
                round(min(best.score, rival.score) - 0.01, 4),
                max(best.score, rival.score),
            )
            best.reasons.append(
                f"its reverse, template #{rival.template.index}, reads closer to the question"
            )
        elif rival.similarity >= best.similarity - REVERSE_MARGIN:
            rival.score = best.score
            best.reasons.append(f"its reverse, template #{rival.template.index}, reads as close")
        break
    cands.sort(key=lambda c: -c.score)
