"""Whether "for each X" in a question asks for groups the template must make.

"the average price for each year" asks one row per year: a template that does not group does not
answer it. But "each" does not always ask for groups: "the total stock for each shop" of a
template that reads the shop table alone already has one row per shop (its rows are the groups),
and "older than every widget of the batch" is a quantifier ("than all"), no grouping at all. (The
matcher asks this only of a template that computes or sorts something: a bare listing answers no
"total" or "count" per row, and keeps the check.)
Measured on the Spider train kit (``bench/spider.py``): +5 covered, no wrong answer more.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Set

from ctxtool.english.content import content_tokens
from ctxtool.english.lexicon import EACH_OF_A_THING, EVERY_THING, KEY_WORDS, OF_EACH_AT_THE_END
from ctxtool.runtime.checks.operators import named_measures
from ctxtool.runtime.checks.registry import check
from ctxtool.runtime.matching.candidate import Candidate, Finding
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.templates.facts import TemplateFacts

__all__ = ["grouped_otherwise", "groups_asked", "lists_each"]

# words every key has: "each widget id" names the widget
_GENERIC = frozenset(content_tokens(KEY_WORDS))


def _head(table: str) -> set[str]:
    """The content words of a table name's last word (``widget_parts``: part)."""
    return set(content_tokens(re.split(r"[_\W]+", table.split(".")[-1].lower())[-1]))


def groups_asked(question: str, tables: Set[str], table_words: Set[str]) -> bool:
    """Whether some "each X" / "every X" / "per X" of ``question`` asks for groups of a template
    reading ``tables`` (whose names' words are ``table_words``): not when X names the one table it
    reads (its rows are one per X: X is its head noun), nor after "than" (a quantifier)."""
    found = False
    for m in EACH_OF_A_THING.finditer(question):
        found = True
        if m.group(1):
            continue
        words = set(content_tokens(m.group(2) or ""))
        if len(tables) == 1 and words and words <= table_words and words & _head(next(iter(tables))):
            continue  # (the table's head noun: each widget of ``widget_parts`` is no row of it)
        return True
    return not found


def grouped_otherwise(question: str, facts: TemplateFacts, named: Set[frozenset[str]]) -> bool:
    """The question asks per X ("for each order id") where X names a column or table of the set
    (``named``: each name's words), and the template groups by something else (the products of the
    orders): one row per another thing is another answer."""
    keys = facts.group_key_words
    if not keys:
        return False
    for m in EACH_OF_A_THING.finditer(question):
        if m.group(1) or not m.group(2):
            continue
        rest = re.findall(r"[A-Za-z0-9]+", question[m.end(2) :])
        words = set(content_tokens(" ".join([m.group(2), *rest[:1]])))
        said = next((n for n in named if n and n <= words), None) or next(
            (n for n in named if n and set(content_tokens(m.group(2))) == n), None
        )
        if said is None or not said - _GENERIC:
            continue
        # (the head may come later: "each grade 3 classroom" groups by the classroom)
        near = set(content_tokens(" ".join([m.group(2), *rest[:3]]))) - _GENERIC
        if not near & keys:
            return True
    return False


def lists_each(question: str, cand: Candidate, table_words: Mapping[str, set[str]]) -> bool:
    """ "the score of every player whose score is lower than average", "the access counts of each
    document": "each X" of a template that returns rows of X (one per X already) with every aggregate
    the question says computed or stated by the template too lists the X, it asks for no groups.
    A bare "of each" at the end of a phrase is the thing named before it, and an aggregate word that
    names a column ("the total horses" of a total_horses column) is no aggregate (on the kit: 3 more
    covered, no wrong answer more)."""
    tpl = cand.template
    if tpl.facts.value_only or tpl.facts.grouped:
        return False
    named = [set(content_tokens(w)) for w in EVERY_THING.findall(question)]
    own: set[str] = set().union(*(table_words.get(t, set()) for t in tpl.tables)) if tpl.tables else set()
    back = None if named else OF_EACH_AT_THE_END.search(question)
    if back:  # "the names of the documents and the access counts of each": the thing named before
        named = [own & set(content_tokens(question[: back.start()]))]
    if not named:
        return False
    if not all(n and n <= own for n in named):
        return False
    q_aggs = set(content_tokens(question)) & {"__count", "__avg", "__sum", "__max", "__min"}
    # "the total horses" of a total_horses column, "the number of sales" of a sales column
    q_aggs -= named_measures(question, tpl.facts, q_aggs, tpl.column_heads)
    said = set(tpl.token_set) | set(tpl.facts.realizes)
    if "one end" in said or "end" in said:
        said |= {"__max", "__min"}
    return q_aggs <= said


UNGROUPED = 0.6
_AGGREGATES = frozenset({"__count", "__avg", "__sum", "__max", "__min"})


@check("grouping", "words", UNGROUPED)
def grouping(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """ "For each X" with a measure asks for one row per X: a template that does not group does not
    answer it (unless its rows are the X already, one each), nor one that groups by another thing.

    Fails: "What is the average price for each year?" against "What is the average price?".
    Passes: "What is the total stock of each shop?" against a template listing the shops' stock."""
    voc = q.vocabulary
    tpl = c.template
    output = facts.output
    tpl_words = voc.words_of_tables(tpl.tables) if voc is not None else set()
    if (
        "__each" in q.word_set
        and q.word_set & _AGGREGATES
        and "__each" not in c.wording_words
        and not facts.grouped
        and "__each" not in c.facet_words
        and (
            not (output.aggregates or facts.order)  # a bare listing computes nothing asked
            or groups_asked(q.text, tpl.tables, tpl_words)
        )
    ):
        if lists_each(q.text, c, voc.table_words if voc is not None else {}):
            return None  # "the score of every player": one row each already
        return Finding("the question asks per group, the template does not group")
    if facts.grouped and voc is not None and grouped_otherwise(q.text, facts, voc.column_token_sets):
        return Finding("the question asks per group of another thing than the template")
    return None
