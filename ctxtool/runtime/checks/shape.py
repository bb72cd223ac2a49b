"""The columns a candidate returns against what the question asks for: how many things it asks for,
whose names or ids, a column the wording names that the question does not ask, a column the SQL
reads but leaves out of the answer, an id swapped for another column, a facet's column returned as
well. The words come from general English (:mod:`ctxtool.english.reading`) and the schema's names;
what the SQL returns from its facts.
"""

from __future__ import annotations

import re

from ctxtool.english.content import content_tokens
from ctxtool.english.lexicon import (
    ALL_INFORMATION,
    ID_ASKED,
    IDS_SAID,
    KEY_ASKED,
    NAME_STEMS,
    NAMES_SAID,
    WHICH_FIRST,
)
from ctxtool.english.lexicon import GENERIC_COLUMN_WORDS as _GENERIC
from ctxtool.english.reading import words_meet
from ctxtool.english.spelling import slipped
from ctxtool.runtime.checks.registry import check
from ctxtool.runtime.matching.candidate import Candidate, Finding
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.templates.facts import TemplateFacts, name_words

UNASKED_COLUMN = 0.5  # a facet's column the listing returns beside what was asked
COLUMN_UNASKED = 0.6  # the template returns a column the question does not ask for
OTHER_ENTITY = 0.4  # "the names of projects" answered with the names of scientists
ASKED_TWO = 0.5  # "the hobbies and their kinds" answered with the kinds alone

_ID_WORDS = frozenset({"id"})


def _column_kind(col: str) -> str | None:
    words = set(name_words(col.split(".")[-1]))
    if "id" in words:
        return "id"
    if words & NAME_STEMS:
        return "name"
    return None


@check("facet_returned", "words", UNASKED_COLUMN)
def facet_returned(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """A facet's condition on a column the template returns beside others, when the question names
    that column once (for the condition): the listing would return a column no one asked for.

    Fails: "What are the names of members ranked above 3?" against "List the names and ranks of the
    members" plus a rank facet. Passes: "What are the names and ranks of members ranked above 3?"."""
    output = facts.output
    if output.width < 2:
        return None
    returned = {col.split(".")[-1] for col in facts.projected} | output.aggregated
    for fu in c.facets:
        for slot in fu.facet.slots:
            column = (slot.column or "").split(".")[-1]
            if column not in returned:
                continue
            words = content_tokens(column.replace("_", " "))
            if words and max(q.words.count(w) for w in words) <= 1:
                return Finding(
                    "a facet's column is returned as well, the question names it only as a condition"
                )
    return None


def _said_otherwise(said: set[str], words: list[str]) -> bool:
    """The question names the column in one word ("classrooms" of ``class_room``) or with a letter
    slipped ("salaray" of ``salary``)."""
    joined = "".join(w for w in words if w not in _ID_WORDS)
    if len(words) > 1 and any(a.startswith(joined) for a in said):
        return True
    return any(slipped(a, b) for a in said for b in words)


@check("unasked_columns", "sql", COLUMN_UNASKED)
def unasked_columns(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """The template returns columns its own wording names and the question does not: an answer with
    more columns than asked is another answer (0.6 each).

    Fails: "What are the names of the wines?" against "What are the names and scores of the wines?".
    Passes: "What are the names and scores of the wines?"."""
    tpl = c.template
    entities = q.values
    wording: set[str] = set()
    for p in tpl.phrasings:
        wording |= set(p.tokens)
    slot_cols = {s.column.split(".")[-1] for s in tpl.slots if s.column}
    said = set(q.word_set)
    bound = {i for i, _ in c.bindings.values()}
    for i in bound:
        said |= entities[i].descriptors
    # a lower-case word a value search took for a value that fills no slot is still a word of the
    # question ("the forename and surname of", "surname" found as a stored value): it says what is asked
    for i, e in enumerate(entities):
        if i not in bound and e.kind == "linked" and " " not in e.text and e.text == e.text.lower():
            said |= set(content_tokens(e.text))
    out = []
    for col in sorted(facts.projected):
        name = col.split(".")[-1]
        if name in slot_cols:
            continue
        all_words = set(name_words(name))
        # "project_details" of table projects holds details: the table's words say nothing
        words = all_words - _GENERIC - (set(name_words(col.split(".")[0])) if "." in col else set())
        if not words and all_words & wording & _ID_WORDS and not all_words & said & _ID_WORDS:
            out.append(name)  # "the type and id of the organisation" asked as "the type of ..."
            continue
        if not words or not (words & wording):
            continue  # a cryptic column, or one the template's wording does not name either
        if all_words & _GENERIC & said or (all_words & NAME_STEMS and said & NAME_STEMS):
            continue  # "the ids", "the full names": asked by the kind of column
        if not words_meet(said, words) and not _said_otherwise(said, name_words(name)):
            out.append(name)
    if not out:
        return None
    return Finding(
        "the template also returns what the question does not ask: " + ", ".join(out),
        COLUMN_UNASKED ** len(out),
    )


@check("other_entity", "sql", OTHER_ENTITY)
def other_entity(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """The question asks for the names (ids, titles) of one thing and the template's wording for those
    of another that its SQL reads, or it asks for ids and the template returns names only (or the
    reverse). The thing must be one of the set's tables, so a word of no table decides nothing.

    Fails: "What are the names of the projects?" against "What are the names of the scientists who
    work on a project?". Passes: "What are the names of the scientists?"."""
    asked = q.asked
    tpl = c.template
    if asked is None and IDS_SAID.search(q.text) and not NAMES_SAID.search(q.text):
        asked = ("id", set())  # "... List the customer ids."
    if asked is None or not facts.projected:
        return None
    kind, of = asked
    kinds = {_column_kind(col) for col in facts.projected}
    if kind not in kinds:
        other = {k for k in kinds if k is not None}
        if other and not re.search(r"\b(?:names?|titles?)\b" if kind == "id" else r"\bids?\b", q.text, re.I):
            return Finding(
                f"the question asks for the {kind}s, the template returns {'/'.join(sorted(other))}s"
            )
        return None
    entity_words = q.vocabulary.entity_words if q.vocabulary is not None else set()
    if not of & entity_words:
        return None
    read: set[str] = set()
    for t in tpl.tables:
        read |= set(name_words(t))
    for p in tpl.phrasings:
        own = p.asked
        if own is None or own[0] != kind:
            continue
        if words_meet(of, own[1]):
            return None
        if of & read and not own[1] & read:
            return None  # the template's thing is none of its tables: "the names of people who ..."
    if not any(p.asked for p in tpl.phrasings):
        return None
    return Finding(
        f"the question asks for the {kind}s of {'/'.join(sorted(of))}, the template for those of another"
    )


@check("asks_for_two", "sql", ASKED_TWO)
def asks_for_two(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """The question asks for more things than the template returns columns, or asks for ids or codes
    and the template returns names only: a thing asked would be missing from the answer. One
    aggregate alone answers "the count and ...".

    Fails: "What are the hobbies and their kinds?" against ``SELECT kind ...``.
    Passes: the same question against ``SELECT hobby, kind ...``."""
    items = q.asked_items
    n = facts.outer_width
    if not items or n is None:
        return None
    if len(items) > n and not (n == 1 and facts.outer_aggregate_first):
        return Finding(
            f"the question asks for {', '.join(items)}, the template returns {n} column{'s' * (n > 1)}"
        )
    if n < 3 and any(ALL_INFORMATION.search(i) for i in items):
        return Finding(
            f"the question asks for all the information, the template returns {n} column{'s' * (n > 1)}"
        )
    keys = [i for i in items if KEY_ASKED.search(i)]
    if keys and facts.projected and all(_column_kind(col) == "name" for col in facts.projected):
        return Finding(f"the question asks for {keys[0]}, the template returns names")
    return None


_NEXT_SENTENCE = re.compile(r"[.?!;]\s+\w")


@check("not_returned", "sql", ASKED_TWO)
def not_returned(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """A thing the question asks for names a column the SQL reads but does not return: the SQL knows
    the column, the answer leaves it out. Keys and what the outer SELECT computes from a column are
    not left out; one thing asked by "which" / "what", or named again in a second sentence, is the
    rows themselves.

    Fails: "List the first name and rating of members whose rating is above 3" against ``SELECT
    first_name ... WHERE rating > $1``. Passes: the same question against ``SELECT first_name,
    rating ...``."""
    items = q.asked_items
    tpl = c.template
    if not items or not facts.projected:
        return None
    if len(items) == 1 and (WHICH_FIRST.match(q.text) or _NEXT_SENTENCE.search(q.text)):
        return None  # "Which physician ...? Give me the name.": the thing is the rows, named after
    tables = {w for t in tpl.tables for w in name_words(t)}
    returned = {col.split(".")[-1] for col in facts.projected}
    returned_words = {w for col in returned for w in name_words(col)}
    outer = facts.outer_columns
    for item in items:
        if re.match(r"(?:how|which|what)\b", item, re.I) or "(" in item:
            continue
        said = {t for t in content_tokens(item) if not t.startswith("__")} - _GENERIC
        if not said or words_meet(said, returned_words) or (len(items) == 1 and words_meet(said, tables)):
            continue  # one thing asked that is a table's: the rows themselves ("the attractions visited")
        for col in sorted(facts.columns):
            name = col.split(".")[-1]
            words = set(name_words(name))
            if name in returned or name in outer or "id" in words:
                continue
            if said & (words - _GENERIC):
                return Finding(f"the question asks for {item}, the SQL reads {name} but does not return it")
    return None


@check("returned_unlisted", "sql", ASKED_TWO)
def returned_unlisted(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """The question lists what it asks for, an id among them, and the SQL returns no id but a column
    the question names in its conditions: the answer swaps the id for another thing.

    Fails: "What are the id and name of the boat with the maximum length?" against ``SELECT name,
    length ...``. Passes: the same question against ``SELECT id, name ...``."""
    items = q.asked_items
    if len(items) < 2 or not facts.projected or not any(ID_ASKED.search(i) for i in items):
        return None
    if any(_column_kind(col) == "id" for col in facts.projected):
        return None
    listed = {t for i in items for t in content_tokens(i) if not t.startswith("__")}
    said = {t for t in q.all_words if not t.startswith("__")} - listed
    tables = {w for t in c.template.tables for w in name_words(t)}
    for col in sorted(facts.projected):
        words = set(name_words(col.split(".")[-1])) - _GENERIC
        words = {w for w in words if not words_meet({w}, tables)}
        if not words or "id" in words or words_meet(words, listed):
            continue
        if words_meet(words, said):
            return Finding(
                f"the question asks for {', '.join(items)}, the template returns {col.split('.')[-1]}"
            )
    return None
