"""Verifying a candidate's SQL against the question: what the similarity of wordings cannot see.

The checks read the template's SQL and its bindings: what a ``COUNT(DISTINCT ...)`` counts, which
end an ``ORDER BY ... LIMIT`` takes, whether two conditions are ANDed or ORed, which columns come
back and of which table, whether a bound value was found on the slot's own table. Each lowers a
candidate whose SQL computes something else than the question asks (a wrong answer is worse than
none: the runtime then asks back or declines). No check names a word of any database: the words
come from the schema's names, the set's wordings and general English.
"""

from __future__ import annotations

import os
import re
from collections.abc import Container
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Any

from ctxtool.runtime.alignment import realign
from ctxtool.runtime.grounding import _CONTRACTED_NOT, regrounded
from ctxtool.runtime.text import content_tokens
from ctxtool.runtime.verify import _AXES, NEGATION, OPPOSITE

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
LINK_SPELLING = 0.75
ASKED_TWO = 0.5  # "the allergies and their types" answered with the types alone  # the stored value must read like the words the question wrote
# generic words of a column name: what remains says what the column holds
_GENERIC = frozenset({"id", "name", "code", "number", "no", "num", "nam", "cod"})
_NAMES = frozenset({"name", "nam", "title", "titl"})  # "the name of the movie" asks for its title
_COUNT_PHRASE = re.compile(
    r"\b(?:how\s+many|(?:total\s+)?number\s+of|count\s+of|count(?:\s+the)?(?:\s+number\s+of)?)\s+"
    r"(?:the\s+|all\s+(?:the\s+)?)?(?:different\s+|distinct\s+|unique\s+|kinds?\s+of\s+|types?\s+of\s+)?"
    r"([a-z][\w-]*)(?:\s+([a-z][\w-]*))?",
    re.I,
)
_COUNT_DISTINCT = re.compile(r"\bcount\s*\(\s*distinct\s+(?:\w+\.)?\"?(\w+)\"?\s*\)", re.I)
_SQL_LIMIT = re.compile(r"\blimit\s+\d+\s*;?\s*$", re.I)


@lru_cache(maxsize=20_000)
def name_words(name: str) -> list[str]:
    """The content words of an identifier (``destroyed_by_employee_id`` -> destroy, employee, id;
    ``roomName`` -> room, name; ``stuid`` -> stu, id)."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name.split(".")[-1]).replace("_", " ")
    out: list[str] = []
    for w in content_tokens(spaced):
        if len(w) > 4 and w.endswith("id") and w not in ("paid", "valid", "liquid"):
            out += [w[:-2], "id"]  # "stuid", "custid": a key written in one word
        else:
            out.append(w)
    return out


def _words_meet(said: set[str], words: set[str]) -> bool:
    """A word of ``said`` is one of ``words``, or one is the other's abbreviation (stu / student)."""
    for a in said:
        for b in words:
            if a == b or (min(len(a), len(b)) >= 3 and (a.startswith(b) or b.startswith(a))):
                return True
    return False


@lru_cache(maxsize=20_000)
def counted_words(text: str) -> set[str] | None:
    """What "how many X" / "the number of distinct X" counts: the content words of X (None when the
    text counts nothing)."""
    m = _COUNT_PHRASE.search(text)
    if m is None:
        return None
    words = {t for g in m.groups() if g for t in content_tokens(g) if not t.startswith("__")}
    return words or None


def _counted_column_words(tpl: Any) -> set[str] | None:
    return _counted_words_of(tpl.sql, tuple(sorted(tpl.tables)))


@lru_cache(maxsize=20_000)
def _counted_words_of(sql: str, tables: tuple[str, ...]) -> set[str] | None:
    """The words naming what the template's ``COUNT(DISTINCT col)`` counts: the column's own words
    without the generic ones, or its table's words when the column is only a key or a name."""
    m = _COUNT_DISTINCT.search(sql)
    if m is None:
        return None
    col = m.group(1).lower()
    own = set(name_words(col)) - _GENERIC
    if own:
        return own
    words: set[str] = set()
    for t in tables:
        words |= set(name_words(t))
    return words or None


def counted_thing(question: str, tpl: Any) -> str | None:
    """A reason when the template counts distinct values of a column that is not what the question
    counts ("How many accounts?" against ``COUNT(DISTINCT customer_id)``). Applies only when the
    template's own wording counts what its column names (so a cryptic column decides nothing)."""
    col_words = _counted_column_words(tpl)
    if not col_words:
        return None
    asked = counted_words(question)
    if not asked:
        return None
    own = [w for w in (counted_words(p.text) for p in tpl.phrasings) if w]
    if not own or not any(_words_meet(w, col_words) for w in own):
        return None
    if _words_meet(asked, col_words) or any(asked <= w for w in own):
        return None
    return f"the question counts {'/'.join(sorted(asked))}, the template counts distinct {'/'.join(sorted(col_words))}"


def sql_extreme(tpl: Any) -> int | None:
    """Which end the template's SQL takes: 1 (``ORDER BY ... DESC LIMIT``, ``MAX(...)`` alone), -1
    (``ASC LIMIT``, ``MIN``), None (neither, or both)."""
    sql = tpl.sql.strip()
    if tpl.reads.order and _SQL_LIMIT.search(sql):
        return 1 if tpl.reads.order == "desc" else -1
    if tpl.reads.value_only:
        hi, lo = bool(re.search(r"\bmax\s*\(", sql, re.I)), bool(re.search(r"\bmin\s*\(", sql, re.I))
        if hi != lo:
            return 1 if hi else -1
    return None


def extreme_direction(q_tokens: set[str], tpl: Any) -> str | None:
    """A reason when the question asks for one end ("the highest price") and the template's wording
    has a superlative of no known direction ("cheapest") while its SQL takes the other end."""
    q = {_AXES[t][1] for t in q_tokens if t in _AXES and _AXES[t][0] == "extreme"} - {0}
    t_ops = {t for t in tpl.token_set if t in _AXES and _AXES[t][0] == "extreme"}
    if len(q) != 1 or "__superlative" not in t_ops or t_ops & {"__max", "__min"}:
        return None
    d = sql_extreme(tpl)
    if d is None or d in q:
        return None
    return (
        "the question asks for the "
        + ("highest" if 1 in q else "lowest")
        + ", the template's SQL takes the other end"
    )


@lru_cache(maxsize=20_000)
def _says_not(text: str) -> bool:
    return "__not" in content_tokens(text)


def _negated(text: str) -> bool:
    return _says_not(text) or bool(_CONTRACTED_NOT.search(text))


def contracted_negation(question: str, phrasing_text: str, q_tokens: set[str] | None = None) -> str | None:
    """A reason when one side says "don't" / "cannot" and the other has no negation at all (the word
    checks see "not" and "no", not the contracted forms)."""
    q_tok = "__not" in q_tokens if q_tokens is not None else _says_not(question)
    t_tok = _says_not(phrasing_text)
    if q_tok != t_tok:
        return None  # the word checks saw it already
    q = q_tok or bool(_CONTRACTED_NOT.search(question))
    t = _negated(phrasing_text)
    if q == t:
        return None
    return "negation (" + ("the question" if q else "the template") + " says not)"


def _connective(text: str, words: tuple[str, str] = ("or", "and|also")) -> str | None:
    """``"or"`` or ``"and"`` when ``text`` joins by one of ``words`` only (None: neither, or both)."""
    has_or = bool(re.search(rf"\b(?:{words[0]})\b", text, re.I))
    has_and = bool(re.search(rf"\b(?:{words[1]})\b", text, re.I))
    if has_or == has_and:
        return None
    return "or" if has_or else "and"


def conjunction(question: str, entities: list[Any], cand: Any, dialect: str) -> str | None:
    """A reason when the question joins two of its values with "or" and the SQL ANDs their conditions
    (or INTERSECTs), or joins values of two columns with "and" ("size A4 and speed below 5") or says
    "both" while the SQL ORs them."""
    from ctxtool.placeholders import find_sql_placeholders

    tpl = cand.template
    if len(tpl.slots) < 2:
        return None
    places = find_sql_placeholders(tpl.sql, dialect)
    by_key: dict[str, int] = {}
    for n, ph in enumerate(places):
        key = ph.name if ph.kind == "numbered" else str(n + 1)
        by_key.setdefault(key, ph.start)
    slots = sorted(tpl.slots, key=lambda s: entities[cand.bindings[s.key][0]].start)
    for a, b in zip(slots, slots[1:], strict=False):
        if a.key not in by_key or b.key not in by_key:
            continue
        ea, eb = entities[cand.bindings[a.key][0]], entities[cand.bindings[b.key][0]]
        said = _connective(question[ea.end : eb.start])
        lo, hi = sorted((by_key[a.key], by_key[b.key]))
        between = re.sub(r"'(?:[^']|'')*'", "''", tpl.sql[lo:hi])
        # "the years shared by A or B" is often an INTERSECT: only conditions of one WHERE decide "or"
        sql_said = _connective(between, ("or", "and"))
        set_op = _connective(between, ("union", "intersect"))
        both = bool(re.search(r"\bboth\b", question[: ea.start + 1], re.I))
        if said == "or" and sql_said == "and" and set_op is None:
            return f"the question says '{ea.text}' or '{eb.text}', the template requires both"
        if said == "and" and "or" in (sql_said, set_op) and "and" not in (sql_said, set_op):
            if both or (a.column and b.column and a.column != b.column):
                return f"the question says '{ea.text}' and '{eb.text}', the template takes either"
    return None


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
    for i, _ in cand.bindings.values():
        said |= entities[i].descriptors
    out = []
    for col in sorted(tpl.reads.projected):
        name = col.split(".")[-1]
        if name in slot_cols:
            continue
        all_words = set(name_words(name))
        # "project_details" of table projects holds details: the table's words say nothing
        words = all_words - _GENERIC - (set(name_words(col.split(".")[0])) if "." in col else set())
        if not words or not (words & wording):
            continue  # a cryptic column, or one the template's wording does not name either
        if all_words & _GENERIC & said or (all_words & _NAMES and said & _NAMES):
            continue  # "the ids", "the full names": asked by the kind of column
        if not _words_meet(said, words):
            out.append(name)
    return out


def value_of_other_table(q_tokens: set[str], cand: Any, entities: list[Any]) -> str | None:
    """A reason when a slot holds a value found on a column of the same name in another table (a
    customer's first name for ``staff.first_name``) and nothing says it belongs to the slot's table:
    the value was only approximately found, or the question names the value's table and not the
    slot's."""
    for slot in cand.template.slots:
        e = entities[cand.bindings[slot.key][0]]
        lv = e.link
        if lv is None or not slot.column or "." not in slot.column:
            continue
        slot_key = ".".join(slot.column.lower().split(".")[-2:])
        if lv.column_key == slot_key or any(a.column_key == slot_key for a in lv.alternatives):
            continue
        own, theirs = set(name_words(slot_key.split(".")[0])), set(name_words(lv.column_key.split(".")[0]))
        named = _words_meet(q_tokens, theirs - own) and not _words_meet(q_tokens, own - theirs)
        if lv.distance > 0 or named:
            return f"'{e.text}' is a value of {lv.column_key}, the template's slot is {slot_key}"
    return None


_ASKED = re.compile(
    r"(?:\b([a-z]+)\s+)?\b(names?|ids?|titles?)\s+(?:of|for)\s+"
    r"(?:the\s+|all\s+(?:the\s+)?|each\s+|every\s+|any\s+)?([a-z][\w-]*(?:\s+[a-z][\w-]*){0,2})",
    re.I,
)
_NOT_A_THING = frozenset(
    {"the", "all", "first", "last", "full", "their", "its", "his", "her", "and", "distinct"}
)
_KIND = {"name": "name", "names": "name", "title": "name", "titles": "name", "id": "id", "ids": "id"}


def _column_kind(col: str) -> str | None:
    words = set(name_words(col.split(".")[-1]))
    if "id" in words:
        return "id"
    if words & _NAMES:
        return "name"
    return None


_IDS = re.compile(r"\bids\b", re.I)
_NAMED = re.compile(r"\b(?:names?|titles?)\b", re.I)


@lru_cache(maxsize=20_000)
def _asked(text: str) -> tuple[str, set[str]] | None:
    """What a text asks for: ("name" | "id", the words of the thing) of "the names of X" (up to
    three words after "of") or "the X name of ..." (the word before)."""
    m = _ASKED.search(text)
    if m is None:
        return None
    before = m.group(1)
    words = before if before and before.lower() not in _NOT_A_THING else m.group(3)
    thing = {t for t in content_tokens(words) if not t.startswith("__")}
    return (_KIND[m.group(2).lower()], thing) if thing else None


def asked_entity(question: str, cand: Any, entity_words: set[str]) -> str | None:
    """A reason when the question asks for the names (ids, titles) of one thing and the template's
    wording for those of another that its SQL reads ("the names of projects" against "the names of
    scientists who ..."), or when it asks for ids and the template returns names only (or the
    reverse). The thing must be one of the set's tables, so a word of no table decides nothing."""
    asked = _asked(question)
    tpl = cand.template
    if asked is None and _IDS.search(question) and not _NAMED.search(question):
        asked = ("id", set())  # "... List the customer ids."
    if asked is None or not tpl.reads.projected:
        return None
    kind, of = asked
    kinds = {_column_kind(c) for c in tpl.reads.projected}
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
        own = _asked(p.text)
        if own is None or own[0] != kind:
            continue
        if _words_meet(of, own[1]):
            return None
        if of & read and not own[1] & read:
            return None  # the template's thing is none of its tables: "the names of people who ..."
    if not any(_asked(p.text) for p in tpl.phrasings):
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
    if not tpl.reads.grouped or tpl.reads.value_only or not tpl.reads.projected:
        return None
    if "__each" in q_tokens or _GROUPING.search(question):
        return None
    if q_tokens & {"__max", "__min", "__superlative", "__gt", "__gte", "__lt", "__lte", "__comparative"}:
        return None
    sql = tpl.sql.lower()
    if not _ONE_COUNT.search(question) or "count(" not in sql.replace(" ", "") or " limit " in f" {sql} ":
        return None
    if re.search(r"\bhaving\b", sql):
        return None
    return "the question asks for one number, the template returns one per group"


def compared_both_ways(entities: list[Any], cand: Any, dialect: str) -> str | None:
    """A reason when the template compares one value both ways (``x > $1 ... x < $1``) and the
    question states one direction for it ("more than 2 weeks")."""
    from ctxtool.placeholders import find_sql_placeholders

    tpl = cand.template
    sql = tpl.sql
    for slot in tpl.slots:
        senses = set()
        for n, ph in enumerate(find_sql_placeholders(sql, dialect)):
            key = ph.name if ph.kind == "numbered" else str(n + 1)
            if key != slot.key:
                continue
            op = re.search(r"(<=|>=|<|>)\s*$", sql[: ph.start])
            if op:
                senses.add(1 if ">" in op.group(1) else -1)
        lit = entities[cand.bindings[slot.key][0]].literal
        if len(senses) == 2 and lit is not None and lit.direction:
            return "the template compares the value both ways, the question one way"
    return None


def both_values_one_slot(question: str, entities: list[Any], cand: Any) -> str | None:
    """A reason when the question asks for "both A and B" and the template takes one value: the
    second one ("... both London Heathrow and Gatwick") would be dropped, silently."""
    tpl = cand.template
    if len(tpl.slots) >= 2 or re.search(r"\bintersect\b", tpl.sql, re.I):
        return None
    m = re.search(r"\bboth\b(.{1,80}?)\band\b", question, re.I)
    if m is None:
        return None
    if not any(m.start(1) <= e.start < m.end(1) or m.end() <= e.start <= m.end() + 1 for e in entities):
        return None
    return "the question asks for both of two values, the template takes one"


_CODE = re.compile(r"(?<![\w'\"])([A-Z]{2,}\d*|[A-Z]+\d+[A-Z\d]*)(?![\w'\"])")


def unlinked_codes(question: str, entities: list[Any], cand: Any, vocabulary: Container[str]) -> list[str]:
    """Codes the question writes in capitals ("the budget type with code ORG") that no value search
    linked, that no wording of the set uses and that the template does not state: a value the SQL
    would not use."""
    out = []
    words: set[str] = set()
    for p in cand.template.phrasings:
        words |= {w.lower() for w in re.findall(r"\w+", p.text)}
    for m in _CODE.finditer(question):
        if any(e.start <= m.start() < e.end for e in entities):
            continue
        code = m.group(1)
        if (
            code.lower() in words
            or code.lower() in vocabulary
            or any(t in vocabulary for t in content_tokens(code))
        ):
            continue
        if code.lower() in ("id", "ids", "i"):
            continue
        out.append(code)
    return out


def _squash_value(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def _read_alike(a: str, b: str) -> bool:
    """Two spellings of one value: mostly the same letters, the same words in part, or the same stem
    ("nomination" / "nominated")."""
    if SequenceMatcher(None, a, b).ratio() >= LINK_SPELLING:
        return True
    wa, wb = set(a.split()), set(b.split())
    if wa <= wb or wb <= wa:
        return True  # "Praha" for 'Hl.m. Praha': the words the question wrote are the value's
    prefix = len(os.path.commonprefix([a, b]))
    return prefix >= 4 and prefix >= 0.7 * min(len(a), len(b))


def spelled_otherwise(cand: Any, entities: list[Any]) -> list[str]:
    """Bound values whose stored spelling reads unlike the words the question wrote ("DVD drives"
    bound as 'DVD burner', "each" as 'teach'): a value search that calls them close is wrong here.
    A transposed or missing letter, a plural, another case still read alike."""
    from ctxtool.runtime.bind import own_table_value

    out = []
    for slot in cand.template.slots:
        e = entities[cand.bindings[slot.key][0]]
        if e.link is None or e.link.distance <= 0:
            continue
        value = own_table_value(e, slot)
        a, b = _squash_value(e.text), _squash_value(str(value).strip("%"))
        if not a or not b or a == b:
            continue
        operator_word = all(t.startswith("__") for t in content_tokens(e.text))
        if operator_word or not _read_alike(a, b):
            out.append(f"'{e.text}' -> {value!r}")
    return out


def extra_measure(question: str, q_tokens: set[str], tpl: Any) -> str | None:
    """A reason when the question asks for a count besides the measure the template computes ("How
    many students live in each city and what are their average ages?" against the average alone);
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
    return "the question asks for a count the template does not compute"


# asking for a count, said plainly ("how many", "count the", "the number of"); not "the room count"
_ASKS_COUNT = re.compile(
    r"\bhow\s+many\b|^\s*count\b|\bcount\s+(?:the|of|all|how)\b|\b(?:the|total)\s+number\s+of\b", re.I
)
# words of a column that labels rows, never one that holds a count (as stemmed by name_words)
_LABEL_WORDS = frozenset(
    w for label in ("name", "title", "id", "code", "type", "description") for w in name_words(label)
)
_AGGREGATE_CALL = re.compile(r"\b(?:count|sum|avg|min|max)\s*\(", re.I)


def count_or_rows(question: str, q_tokens: set[str], tpl: Any, phrasing: str = "") -> str | None:
    """A reason when one side counts and the other does not: "how many X" answered by the X
    themselves (no aggregate in the SQL, no returned column that holds the count of X, as a
    ``faculty`` column holds the number of faculty, and no "how many" in the template's own words
    either), or "what are the X" answered by one count."""
    sql = tpl.sql
    if _ASKS_COUNT.search(question) and not _AGGREGATE_CALL.search(sql):
        if _ASKS_COUNT.search(phrasing):
            return None  # its author says this column is the count ("How many inhabitants ...": A4)
        said = counted_words(question)
        held = {
            w
            for col in tpl.reads.projected
            if not _LABEL_WORDS & set(words := name_words(col))
            for w in words
        }
        if said and _words_meet(said, held):
            return None
        return "the question asks how many, the template returns rows"
    if "__count" in q_tokens or _ASKS_COUNT.search(question):
        return None
    if not tpl.reads.value_only or tpl.reads.projected:
        return None
    outer = re.split(r"\bfrom\b", sql, maxsplit=1, flags=re.I)[0]
    calls = re.findall(r"\b(count|sum|avg|min|max)\s*\(", outer, re.I)
    if calls and all(c.lower() == "count" for c in calls):
        return "the template counts, the question asks for the rows"
    return None


# what a question asks for comes first ("What are the X and their Y ..."), before the words that
# say of which rows (a relative word, a preposition, a verb)
_ASK_HEAD = re.compile(
    r"^\s*(?:what\s+(?:are|is|were|was)|which|show|list|find|give(?:\s+me)?|return|tell\s+me|report|display"
    r"|get)\b\s*(?:the\s+|all\s+(?:the\s+)?|me\s+)?",
    re.I,
)
_ASK_END = re.compile(
    r"\b(?:who|that|which|whose|where|whom|when|with|in|from|for|by|of|on|at|than|to|under|over|if|are|is"
    r"|was|were|has|have|do|does|did|ordered|sorted|order|sort)\b",
    re.I,
)
_TWO_ASKED = re.compile(r"\b([a-z]\w+)\s*(?:,|\band\b)\s*(?:their\s+|its\s+|the\s+|also\s+)?([a-z]\w+)", re.I)
_OUTER_SELECT = re.compile(r"\s*select\s+(?:distinct\s+)?(.*?)\s+from\b", re.I | re.S)
_AGGREGATE_FIRST = re.compile(r"\s*(?:count|sum|avg|min|max)\s*\(", re.I)


def _outer_columns(sql: str) -> int | None:
    """How many expressions the outermost SELECT returns (None: ``*`` or unreadable)."""
    m = _OUTER_SELECT.match(sql)
    if m is None or m.group(1).strip() == "*":
        return None
    depth, n = 0, 1
    for ch in m.group(1):
        depth += ch == "("
        depth -= ch == ")"
        n += ch == "," and depth == 0
    return n


def asks_for_two(question: str, tpl: Any) -> str | None:
    """A reason when the question asks for two things ("the allergies and their types", "the names
    and ages of ...") and the template returns one column that is no aggregate: one of them would be
    missing from the answer."""
    head = _ASK_HEAD.match(question)
    if head is None:
        return None
    rest = question[head.end() :]
    end = _ASK_END.search(rest)
    pair = _TWO_ASKED.search(rest[: end.start()] if end else rest)
    if pair is None or _outer_columns(tpl.sql) != 1:
        return None
    m = _OUTER_SELECT.match(tpl.sql)
    if m is None or _AGGREGATE_FIRST.match(m.group(1)):
        return None
    return f"the question asks for {pair.group(1)} and {pair.group(2)}, the template returns one column"


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
        ("conjunction", CONJUNCTION_CLASH, conjunction(question, entities, cand, dialect)),
        ("other_entity", OTHER_ENTITY, asked_entity(question, cand, entity_words)),
        ("one_number", ONE_NUMBER, one_number(question, q_set, tpl)),
        ("both_ways", BOTH_WAYS, compared_both_ways(entities, cand, dialect)),
        ("both_values", UNUSED_VALUE, both_values_one_slot(question, entities, cand)),
        ("extra_measure", EXTRA_MEASURE, extra_measure(question, q_set, tpl)),
        ("count_or_rows", COUNT_OR_ROWS, count_or_rows(question, q_set, tpl, phrasing)),
        ("asks_for_two", ASKED_TWO, asks_for_two(question, tpl)),
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
        # which it needs passed (ctxtool.runtime.alignment)
        realign(c, q_tokens, matcher, question)
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
