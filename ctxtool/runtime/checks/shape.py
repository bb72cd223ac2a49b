"""The shape of the answer a candidate's SQL returns, against what the question asks for.

What comes back, not which rows: a count or the rows themselves, one number or one per group, the
columns (and how many) a question asks for, whose names or ids, what a ``COUNT(DISTINCT ...)``
counts. Apart from :mod:`ctxtool.runtime.checks.conditions` (which rows: values, operators, polarity) because
these checks read the outer SELECT and the column names, not the WHERE; both are run by
:func:`ctxtool.runtime.checks.sqlverify.review`. The words come from the schema's names and general English.
"""

from __future__ import annotations

import re
from typing import Any

from ctxtool.english.content import content_tokens
from ctxtool.english.reading import (
    asked_for,
    asked_items,
    counted_head,
    counted_measures,
    counted_words,
    words_meet,
)
from ctxtool.english.spelling import slipped
from ctxtool.runtime.templates.facts import name_words

# generic words of a column name: what remains says what the column holds
_GENERIC = frozenset({"id", "name", "code", "number", "no", "num", "nam", "cod"})
_NAMES = frozenset({"name", "nam", "title", "titl"})  # "the name of the movie" asks for its title
_ID_WORDS = frozenset({"id"})


def _counted_column_words(tpl: Any) -> set[str] | None:
    """The words naming what the template's ``COUNT(DISTINCT col)`` counts: the column's own words
    without the generic ones, or its table's words when the column is only a key or a name."""
    if not tpl.facts.count_distinct:
        return None
    own = set(name_words(tpl.facts.count_distinct[0])) - _GENERIC
    if own:
        return own
    words: set[str] = set()
    for t in sorted(tpl.tables):
        words |= set(name_words(t))
    return words or None


def counted_thing(question: str, tpl: Any) -> str | None:
    """A reason when the template counts distinct values of a column that is not what the question
    counts ("How many accounts?" against ``COUNT(DISTINCT customer_id)``), or the rows of a table whose
    head noun is not what the question counts ("how many widgets have parts" against the rows of
    ``widget_parts``). Applies only when the template's own wording counts what its column or table
    names (so a cryptic name decides nothing)."""
    asked = counted_words(question)
    if not asked:
        return None
    own = [w for w in (counted_words(p.text) for p in tpl.phrasings) if w]
    rows = set(tpl.facts.counted_rows)
    if rows and any(words_meet(w, rows) for w in own):
        # the thing the question counts is another of the template's tables ("how many widgets
        # have parts" of ``widget_parts``); a word the schema does not name may be a synonym
        head = counted_head(question)
        tables = {w for t in tpl.tables for w in name_words(t)}
        if head and not words_meet({head}, rows) and words_meet({head}, tables):
            return f"the question counts {head}, the template counts {'/'.join(sorted(rows))}"
    col_words = _counted_column_words(tpl)
    if not col_words:
        return None
    if not own or not any(words_meet(w, col_words) for w in own):
        return None
    if words_meet(asked, col_words) or any(asked <= w for w in own):
        return None
    return f"the question counts {'/'.join(sorted(asked))}, the template counts distinct {'/'.join(sorted(col_words))}"


def unasked_columns(q_tokens: set[str], cand: Any, entities: list[Any]) -> list[str]:
    """The columns the template returns that its own wording names and the question does not
    ("the names of wines" against "the names and scores of wines"): an answer with more columns than
    asked is another answer."""
    tpl = cand.template
    wording: set[str] = set()
    for p in tpl.phrasings:
        wording |= set(p.tokens)
    slot_cols = {s.column.split(".")[-1] for s in tpl.slots if s.column}
    said = set(q_tokens)
    bound = {i for i, _ in cand.bindings.values()}
    for i in bound:
        said |= entities[i].descriptors
    # a lower-case word a value search took for a value that fills no slot is still a word of the
    # question ("the forename and surname of", "surname" found as a stored value): it says what is asked
    for i, e in enumerate(entities):
        if i not in bound and e.kind == "linked" and " " not in e.text and e.text == e.text.lower():
            said |= set(content_tokens(e.text))
    out = []
    for col in sorted(tpl.facts.projected):
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
        if all_words & _GENERIC & said or (all_words & _NAMES and said & _NAMES):
            continue  # "the ids", "the full names": asked by the kind of column
        if not words_meet(said, words) and not _said_otherwise(said, name_words(name)):
            out.append(name)
    return out


def _said_otherwise(said: set[str], words: list[str]) -> bool:
    """The question names the column in one word ("classrooms" of ``class_room``) or with a letter
    slipped ("salaray" of ``salary``)."""
    joined = "".join(w for w in words if w not in _ID_WORDS)
    if len(words) > 1 and any(a.startswith(joined) for a in said):
        return True
    return any(slipped(a, b) for a in said for b in words)


def _column_kind(col: str) -> str | None:
    words = set(name_words(col.split(".")[-1]))
    if "id" in words:
        return "id"
    if words & _NAMES:
        return "name"
    return None


_IDS = re.compile(r"\bids\b", re.I)
_NAMED = re.compile(r"\b(?:names?|titles?)\b", re.I)


def asked_entity(question: str, cand: Any, entity_words: set[str]) -> str | None:
    """A reason when the question asks for the names (ids, titles) of one thing and the template's
    wording for those of another that its SQL reads ("the names of projects" against "the names of
    scientists who ..."), or when it asks for ids and the template returns names only (or the
    reverse). The thing must be one of the set's tables, so a word of no table decides nothing."""
    asked = asked_for(question)
    tpl = cand.template
    if asked is None and _IDS.search(question) and not _NAMED.search(question):
        asked = ("id", set())  # "... List the customer ids."
    if asked is None or not tpl.facts.projected:
        return None
    kind, of = asked
    kinds = {_column_kind(c) for c in tpl.facts.projected}
    if kind not in kinds:
        other = kinds - {None}
        if other and not re.search(
            r"\b(?:names?|titles?)\b" if kind == "id" else r"\bids?\b", question, re.I
        ):
            return f"the question asks for the {kind}s, the template returns {'/'.join(sorted(other))}s"  # type: ignore[arg-type]
        return None
    if not of & entity_words:
        return None
    read: set[str] = set()
    for t in tpl.tables:
        read |= set(name_words(t))
    for p in tpl.phrasings:
        own = asked_for(p.text)
        if own is None or own[0] != kind:
            continue
        if words_meet(of, own[1]):
            return None
        if of & read and not own[1] & read:
            return None  # the template's thing is none of its tables: "the names of people who ..."
    if not any(asked_for(p.text) for p in tpl.phrasings):
        return None
    return f"the question asks for the {kind}s of {'/'.join(sorted(of))}, the template for those of another"


_ONE_COUNT = re.compile(
    r"^\s*(?:(?:please\s+)?(?:tell\s+me\s+|show\s+|give\s+|find\s+|return\s+|list\s+|report\s+)?"
    r"(?:what\s+is\s+|what's\s+)?(?:the\s+)?(?:total\s+)?(?:how\s+many|number\s+of|count\b))",
    re.I,
)


# "each" and "every" read on the question as written: a value search may have taken them for a value
_GROUPING = re.compile(
    r"\b(?:by|each|every|per)\b|\b(?:for|in|across|among)\s+(?:the\s+)?(?:different|various|respective)\b",
    re.I,
)


def one_number(question: str, q_tokens: set[str], tpl: Any) -> str | None:
    """A reason when the question asks for one number ("How many distinct countries are there?") and
    the template returns one count per group (``SELECT country, COUNT(*) ... GROUP BY country``)."""
    if not tpl.facts.grouped or tpl.facts.value_only or not tpl.facts.projected:
        return None
    if "__each" in q_tokens or _GROUPING.search(question):
        return None
    if q_tokens & {"__max", "__min", "__superlative", "__gt", "__gte", "__lt", "__lte", "__comparative"}:
        return None
    facts = tpl.facts
    if not _ONE_COUNT.search(question) or "__count" not in facts.realizes or facts.limited:
        return None
    if facts.having:
        return None
    return "the question asks for one number, the template returns one per group"


def extra_measure(question: str, q_tokens: set[str], tpl: Any) -> str | None:
    """A reason when the question asks for a count besides the measure the template computes ("How
    many members live in each city and what are their average ages?" against the average alone);
    "the average number of X" is one measure, not two."""
    t_ops = tpl.token_set
    if "__count" not in q_tokens or "__count" in t_ops or not (t_ops & {"__avg", "__sum"}):
        return None
    if q_tokens & {"__max", "__min", "__superlative"}:
        return None
    if re.search(r"\b(?:average|mean|total|sum|avg)\s+(?:the\s+)?number\s+of\b", question, re.I):
        return None
    if not re.search(r"\bhow\s+many\b|\bnumber\s+of\b|\bcount\b", question, re.I):
        return None
    if counted_measures(question, tpl.column_heads):
        return None  # "how many hours on average": the hours are a column, averaged
    return "the question asks for a count the template does not compute"


# asking for a count, said plainly ("how many", "count the", "the number of"); not "the room count"
_ASKS_COUNT = re.compile(
    r"\bhow\s+many\b|^\s*count\b|\bcount\s+(?:the|of|all|how)\b|\b(?:the|total)\s+number\s+of\b", re.I
)
# words of a column that labels rows, never one that holds a count (as stemmed by name_words)
_LABEL_WORDS = frozenset(
    w for label in ("name", "title", "id", "code", "type", "description") for w in name_words(label)
)


def count_or_rows(question: str, q_tokens: set[str], tpl: Any, phrasing: str = "") -> str | None:
    """A reason when one side counts and the other does not: "how many X" answered by the X
    themselves (no aggregate in the SQL, no returned column that holds the count of X, as a
    ``staff`` column holds the number of staff, and no "how many" in the template's own words
    either), or "what are the X" answered by one count."""
    facts = tpl.facts
    if _ASKS_COUNT.search(question) and not facts.aggregate_call:
        if _ASKS_COUNT.search(phrasing):
            return None  # its author says this column is the count ("How many inhabitants ...": A4)
        said = counted_words(question)
        held = {
            w
            for col in tpl.facts.projected
            if not _LABEL_WORDS & set(words := name_words(col))
            for w in words
        }
        if said and words_meet(said, held):
            return None
        return "the question asks how many, the template returns rows"
    if "__count" in q_tokens or _ASKS_COUNT.search(question):
        return None
    if not tpl.facts.value_only or tpl.facts.projected:
        return None
    calls = facts.outer_aggregates
    if calls and all(c == "count" for c in calls):
        return "the template counts, the question asks for the rows"
    return None


_TWO_ASKED = re.compile(r"\b([a-z]\w+)\s*(?:,|\band\b)\s*(?:their\s+|its\s+|the\s+|also\s+)?([a-z]\w+)", re.I)


# every column of the rows ("all information regarding instructors")
_ALL_OF_IT = re.compile(
    r"^(?:all\s+)?(?:the\s+)?(?:information|info)(?:\s+(?:regarding|about|concerning|on)\b.*)?$", re.I
)
_KEY_ITEM = re.compile(r"\b(?:ids?|codes?)$", re.I)


def asks_for_two(question: str, tpl: Any) -> str | None:
    """A reason when the question asks for more things than the template returns columns ("the
    hobbies and their kinds", "the names and ages of ...", "the first name, rating and phone") or
    asks for ids or codes and the template returns names only ("List the count and the company id"): a
    thing asked would be missing from the answer. One aggregate alone answers "the count and ..."."""
    items = asked_items(question)
    n = tpl.facts.outer_width
    if not items or n is None:
        return None
    if len(items) > n and not (n == 1 and tpl.facts.outer_aggregate_first):
        return f"the question asks for {', '.join(items)}, the template returns {n} column{'s' * (n > 1)}"
    if n < 3 and any(_ALL_OF_IT.search(i) for i in items):
        return f"the question asks for all the information, the template returns {n} column{'s' * (n > 1)}"
    keys = [i for i in items if _KEY_ITEM.search(i)]
    if keys and tpl.facts.projected and all(_column_kind(c) == "name" for c in tpl.facts.projected):
        return f"the question asks for {keys[0]}, the template returns names"
    return None


_AVERAGE = re.compile(r"\baverage\b|\b(?:the|their|its)\s+mean\b", re.I)
_SUPERLATIVE = re.compile(
    r"\b(?:most|least|fewest|highest|lowest|largest|smallest|biggest|greatest|maximum|minimum|oldest"
    r"|youngest|earliest|latest|longest|shortest)\b",
    re.I,
)


def aggregate_unsaid(question: str, tpl: Any) -> str | None:
    """A reason when the question asks for an average and the SQL computes none (nor returns a
    column named so), or for the most / the highest ... and the SQL neither orders nor takes a
    maximum or minimum: "the average unit price" is not the list of prices, "the code with the most
    groups" not every code. "At least" and "at most" are comparisons, not ends; a template whose own
    wording says "average" (or "most") has a column that holds it."""
    facts = tpl.facts
    own_words = " ".join(p.text for p in tpl.phrasings) if tpl.phrasings else tpl.intent
    if _AVERAGE.search(question) and not facts.averages and not _AVERAGE.search(own_words):
        # the template's own wording saying "average" tells a column that holds one ("A11")
        return "the question asks for an average, the SQL computes none"
    said = _SUPERLATIVE.search(re.sub(r"\bat\s+(?:least|most)\b", " ", question, flags=re.I))
    if said and not facts.takes_end and not _SUPERLATIVE.search(own_words):
        word = said.group(0).lower()
        stem = word[:3] if word[:3] in ("max", "min") else word[:4]
        if any(run.startswith(stem) for run in facts.letter_runs):
            return None  # "the maximum salary", "the latest logon" may be a column (max_salary)
        return f"the question asks for the {word}, the SQL takes no end"
    return None


# "the youngest" / "the oldest" of people or things: an end of an age, a birth date, a year
_OF_AGE = re.compile(r"\b(?:youngest|oldest)\b(?:\s+(?:one\s+)?([a-z]\w*))?", re.I)
_AGE_WORDS = ("age", "birth", "born", "dob", "date", "year", "found", "establish", "creat", "start", "built",
              "old", "young", "since", "time", "day", "open")  # fmt: skip


def age_end(question: str, tpl: Any) -> str | None:
    """A reason when the question asks for "the youngest" or "the oldest" and the SQL takes the end
    of a column that holds no age, birth date or year ("the youngest member with a rating above 3"
    answered by the lowest rating): the stated adjective decides the order and the SQL drops it. "The
    oldest id" names its column."""
    m = _OF_AGE.search(question)
    own_words = " ".join(p.text for p in tpl.phrasings) if tpl.phrasings else tpl.intent
    if m is None or _OF_AGE.search(own_words):
        return None  # the template's own wording says it: its order is the age's
    cols = list(tpl.facts.end_columns)
    if not cols:
        return None
    words = {w for c in cols for w in name_words(c.strip('"'))}
    if any(w.startswith(a) or (len(w) >= 3 and a.startswith(w)) for w in words for a in _AGE_WORDS):
        return None
    tables = {w for t in tpl.tables for w in name_words(t)}
    own = {w for w in words if not words_meet({w}, tables)}  # mem_rating of member: rating
    if m.group(1) and words_meet(set(content_tokens(m.group(1))), own):
        return None
    return f"the question asks for the {m.group(0).split()[0].lower()}, the SQL orders by {', '.join(cols)}"


_WHICH_FIRST = re.compile(r"\s*(?:which|what)\b", re.I)
_NEXT_SENTENCE = re.compile(r"[.?!;]\s+\w")


def asked_not_returned(question: str, tpl: Any) -> str | None:
    """A reason when a thing the question asks for names a column the SQL reads but does not return
    ("the first name and rating of members whose rating is ..." answered with the names alone, "List the
    votes in descending order" answered with names ordered by votes): the SQL knows the column, the
    answer leaves it out. Keys and what the outer SELECT computes from a column (``AVG(rating)``) are
    not left out; one thing asked by "which" / "what", or named again in a second sentence, is the
    rows themselves."""
    items = asked_items(question)
    if not items or not tpl.facts.projected:
        return None
    if len(items) == 1 and (_WHICH_FIRST.match(question) or _NEXT_SENTENCE.search(question)):
        return None  # "Which physician ...? Give me the name.": the thing is the rows, named after
    tables = {w for t in tpl.tables for w in name_words(t)}
    returned = {c.split(".")[-1] for c in tpl.facts.projected}
    returned_words = {w for c in returned for w in name_words(c)}
    outer = tpl.facts.outer_columns
    for item in items:
        if re.match(r"(?:how|which|what)\b", item, re.I) or "(" in item:
            continue
        said = {t for t in content_tokens(item) if not t.startswith("__")} - _GENERIC
        if not said or words_meet(said, returned_words) or (len(items) == 1 and words_meet(said, tables)):
            continue  # one thing asked that is a table's: the rows themselves ("the attractions visited")
        for col in sorted(tpl.facts.columns):
            name = col.split(".")[-1]
            words = set(name_words(name))
            if name in returned or name in outer or "id" in words:
                continue
            if said & (words - _GENERIC):
                return f"the question asks for {item}, the SQL reads {name} but does not return it"
    return None


_ID_ITEM = re.compile(r"\bids?$", re.I)


def returned_unlisted(question: str, tpl: Any) -> str | None:
    """A reason when the question lists what it asks for, an id among them ("the id and name of the
    boat with the maximum length"), and the SQL returns no id but a column the question names
    in its conditions (``SELECT name, distance``): the answer swaps the id for another thing."""
    items = asked_items(question)
    if len(items) < 2 or not tpl.facts.projected or not any(_ID_ITEM.search(i) for i in items):
        return None
    if any(_column_kind(c) == "id" for c in tpl.facts.projected):
        return None
    listed = {t for i in items for t in content_tokens(i) if not t.startswith("__")}
    said = {t for t in content_tokens(question) if not t.startswith("__")} - listed
    tables = {w for t in tpl.tables for w in name_words(t)}
    for col in sorted(tpl.facts.projected):
        words = set(name_words(col.split(".")[-1])) - _GENERIC
        words = {w for w in words if not words_meet({w}, tables)}
        if not words or "id" in words or words_meet(words, listed):
            continue
        if words_meet(words, said):
            return f"the question asks for {', '.join(items)}, the template returns {col.split('.')[-1]}"
    return None
