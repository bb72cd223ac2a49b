"""What a candidate computes against what the question asks it to compute: a count or the rows, one
number or one per group, what a count counts, an average or an end the SQL computes, the count a
question only sorts by, two aggregates of a kind. The words come from general English
(:mod:`ctxtool.english.reading`) and the schema's names; what the SQL computes from its facts.
"""

from __future__ import annotations

import re

from ctxtool.english.content import content_tokens
from ctxtool.english.lexicon import (
    AGE_COLUMN_STEMS,
    ASKS_ONE_COUNT,
    AVERAGE_SAID,
    COUNT_SAID_PLAINLY,
    END_SAID,
    GENERIC_COLUMN_WORDS,
    GROUPING_SAID,
    LABEL_COLUMN_WORDS,
    YOUNGEST_OR_OLDEST,
)
from ctxtool.english.reading import counted_measures, joined_twice, words_meet
from ctxtool.runtime.checks.registry import check
from ctxtool.runtime.matching.candidate import Candidate, Finding
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.templates.compiled import Compiled
from ctxtool.runtime.templates.facts import TemplateFacts, name_words

COUNT_NOT_RETURNED = 0.5  # "how many ..." answered by a query that counts only to rank or filter
ONE_AGGREGATE = 0.5  # "the average distance and average price" answered with one average
COUNTED_OTHER = 0.5  # "how many accounts" is not answered by counting the distinct customers
ONE_NUMBER = 0.5  # "how many countries?" answered with one count per country
EXTRA_MEASURE = 0.8  # "how many ... and what are their average ages" against the average alone
COUNT_OR_ROWS = 0.6  # "how many X" is not a list of X, and "what are the X" is not their count
NO_AGGREGATE = 0.5  # "the average price" answered with the prices, "the most" with no order


@check("count", "words", COUNT_NOT_RETURNED)
def count(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """ "How many" is answered by a count the template returns, not one it only ranks or filters by;
    and a count the question only sorts by ("ordered by the number of cities") is not returned.

    Fails: "How many orders has the busiest customer?" against ``SELECT name ... ORDER BY COUNT(*)
    DESC LIMIT 1``. Passes: the same question against ``SELECT COUNT(*) ...``."""
    output = facts.output
    if output.width and "count" not in output.aggregates and "__count" in facts.operators and q.asks_count:
        return Finding("the question asks how many, the template counts only to choose")
    if output.width > 1 and "count" in output.aggregates and q.count_only_to_order:
        return Finding("the question orders by a count, the template returns it as well")
    return None


@check("aggregates", "words", ONE_AGGREGATE)
def aggregates(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """Two aggregates of a kind asked ("the average distance and average price") are not answered by
    a template that returns one.

    Fails: "What are the average distance and average price of flights?" against the average
    distance alone. Passes: "What is the average distance of flights?"."""
    counts = facts.output.counts
    for op in ("__avg", "__sum"):
        if counts.get(op[2:], 0) == 1 and q.words.count(op) >= 2 and joined_twice(q.text, op):
            return Finding("the question asks two aggregates of a kind, the template returns one")
    return None


def _counted_column_words(tpl: Compiled) -> set[str] | None:
    """The words naming what the template's ``COUNT(DISTINCT col)`` counts: the column's own words
    without the generic ones, or its table's words when the column is only a key or a name."""
    if not tpl.facts.count_distinct:
        return None
    own = set(name_words(tpl.facts.count_distinct[0])) - GENERIC_COLUMN_WORDS
    if own:
        return own
    words: set[str] = set()
    for t in sorted(tpl.tables):
        words |= set(name_words(t))
    return words or None


@check("counted_other", "sql", COUNTED_OTHER)
def counted_other(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """The template counts distinct values of a column that is not what the question counts, or the
    rows of a table whose head noun is not what the question counts. Applies only when the
    template's own wording counts what its column or table names (a cryptic name decides nothing).

    Fails: "How many accounts are there?" against "How many customers have an account?"
    (``COUNT(DISTINCT customer_id)``). Passes: "How many customers have an account?"."""
    tpl = c.template
    asked = q.counted
    if not asked:
        return None
    own = [w for w in (p.counted for p in tpl.phrasings) if w]
    rows = set(facts.counted_rows)
    if rows and any(words_meet(w, rows) for w in own):
        # the thing the question counts is another of the template's tables ("how many widgets
        # have parts" of ``widget_parts``); a word the schema does not name may be a synonym
        head = q.counted_head
        tables = {w for t in tpl.tables for w in name_words(t)}
        if head and not words_meet({head}, rows) and words_meet({head}, tables):
            return Finding(f"the question counts {head}, the template counts {'/'.join(sorted(rows))}")
    col_words = _counted_column_words(tpl)
    if not col_words:
        return None
    if not own or not any(words_meet(w, col_words) for w in own):
        return None
    if words_meet(asked, col_words) or any(asked <= w for w in own):
        return None
    return Finding(
        f"the question counts {'/'.join(sorted(asked))}, the template counts distinct {'/'.join(sorted(col_words))}"
    )


_ENDS_OR_BOUNDS = frozenset(
    {"__max", "__min", "__superlative", "__gt", "__gte", "__lt", "__lte", "__comparative"}
)


@check("one_number", "sql", ONE_NUMBER)
def one_number(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """The question asks for one number and the template returns one count per group.

    Fails: "How many distinct countries are there?" against ``SELECT country, COUNT(*) ... GROUP BY
    country``. Passes: "How many singers are there in each country?" against the same template."""
    if not facts.grouped or facts.value_only or not facts.projected:
        return None
    if "__each" in q.word_set or GROUPING_SAID.search(q.text):
        return None
    if q.word_set & _ENDS_OR_BOUNDS:
        return None
    if not ASKS_ONE_COUNT.search(q.text) or "__count" not in facts.realizes or facts.limited or facts.having:
        return None
    return Finding("the question asks for one number, the template returns one per group")


@check("extra_measure", "sql", EXTRA_MEASURE)
def extra_measure(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """The question asks for a count besides the measure the template computes; "the average number
    of X" is one measure, not two.

    Fails: "How many members live in each city and what are their average ages?" against the average
    age per city. Passes: "What is the average age of the members of each city?"."""
    t_ops = c.template.token_set
    if "__count" not in q.word_set or "__count" in t_ops or not (t_ops & {"__avg", "__sum"}):
        return None
    if q.word_set & {"__max", "__min", "__superlative"}:
        return None
    if re.search(r"\b(?:average|mean|total|sum|avg)\s+(?:the\s+)?number\s+of\b", q.text, re.I):
        return None
    if not re.search(r"\bhow\s+many\b|\bnumber\s+of\b|\bcount\b", q.text, re.I):
        return None
    if counted_measures(q.text, c.template.column_heads):
        return None  # "how many hours on average": the hours are a column, averaged
    return Finding("the question asks for a count the template does not compute")


# words of a column that labels rows, never one that holds a count (as stemmed by name_words)
_LABEL_WORDS = frozenset(w for label in LABEL_COLUMN_WORDS for w in name_words(label))


@check("count_or_rows", "sql", COUNT_OR_ROWS)
def count_or_rows(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """One side counts and the other does not: "how many X" answered by the X themselves (no aggregate
    in the SQL, no returned column that holds the count of X, and no "how many" in the template's own
    words either), or "what are the X" answered by one count.

    Fails: "How many rooms are there?" against "List the rooms." Passes: "How many inhabitants
    has the district?" against ``SELECT "A4" ...`` whose wording says "How many inhabitants"."""
    wording = c.wording.text if c.wording is not None else c.template.intent
    if COUNT_SAID_PLAINLY.search(q.text) and not facts.aggregate_call:
        if COUNT_SAID_PLAINLY.search(wording):
            return None  # its author says this column is the count ("How many inhabitants ...": A4)
        said = q.counted
        held = {
            w for col in facts.projected if not _LABEL_WORDS & set(words := name_words(col)) for w in words
        }
        if said and words_meet(said, held):
            return None
        return Finding("the question asks how many, the template returns rows")
    if "__count" in q.word_set or COUNT_SAID_PLAINLY.search(q.text):
        return None
    if not facts.value_only or facts.projected:
        return None
    calls = facts.outer_aggregates
    if calls and all(a == "count" for a in calls):
        return Finding("the template counts, the question asks for the rows")
    return None


@check("aggregate_unsaid", "sql", NO_AGGREGATE)
def aggregate_unsaid(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """The question asks for an average and the SQL computes none (nor returns a column named so), or
    for the most / the highest ... and the SQL neither orders nor takes a maximum or minimum. "At
    least" and "at most" are comparisons, not ends; a template whose own wording says "average" (or
    "most") has a column that holds it.

    Fails: "What is the average unit price?" against "List the unit prices." Passes: the same question
    against ``SELECT AVG(unit_price) ...``."""
    tpl = c.template
    own_words = " ".join(p.text for p in tpl.phrasings) if tpl.phrasings else tpl.intent
    if AVERAGE_SAID.search(q.text) and not facts.averages and not AVERAGE_SAID.search(own_words):
        # the template's own wording saying "average" tells a column that holds one ("A11")
        return Finding("the question asks for an average, the SQL computes none")
    said = END_SAID.search(re.sub(r"\bat\s+(?:least|most)\b", " ", q.text, flags=re.I))
    if said and not facts.takes_end and not END_SAID.search(own_words):
        word = said.group(0).lower()
        stem = word[:3] if word[:3] in ("max", "min") else word[:4]
        if any(run.startswith(stem) for run in facts.letter_runs):
            return None  # "the maximum salary", "the latest logon" may be a column (max_salary)
        return Finding(f"the question asks for the {word}, the SQL takes no end")
    return None


@check("age_end", "sql", NO_AGGREGATE)
def age_end(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """The question asks for "the youngest" or "the oldest" and the SQL takes the end of a column that
    holds no age, birth date or year: the stated adjective decides the order and the SQL drops it.
    "The oldest id" names its column.

    Fails: "Who is the youngest member with a rating above 3?" against ``ORDER BY rating LIMIT 1``.
    Passes: the same question against ``ORDER BY age LIMIT 1``."""
    tpl = c.template
    m = YOUNGEST_OR_OLDEST.search(q.text)
    own_words = " ".join(p.text for p in tpl.phrasings) if tpl.phrasings else tpl.intent
    if m is None or YOUNGEST_OR_OLDEST.search(own_words):
        return None  # the template's own wording says it: its order is the age's
    cols = list(facts.end_columns)
    if not cols:
        return None
    words = {w for col in cols for w in name_words(col.strip('"'))}
    if any(w.startswith(a) or (len(w) >= 3 and a.startswith(w)) for w in words for a in AGE_COLUMN_STEMS):
        return None
    tables = {w for t in tpl.tables for w in name_words(t)}
    own = {w for w in words if not words_meet({w}, tables)}  # mem_rating of member: rating
    if m.group(1) and words_meet(set(content_tokens(m.group(1))), own):
        return None
    return Finding(
        f"the question asks for the {m.group(0).split()[0].lower()}, the SQL orders by {', '.join(cols)}"
    )
