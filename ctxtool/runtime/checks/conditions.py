"""Which rows a candidate's SQL takes, against the question: its values, operators and polarity.

Which end an ``ORDER BY ... LIMIT`` takes, a negation said in a contracted form, two conditions
ANDed or ORed, a value compared both ways, a value found on another table or spelled otherwise, a
value the question states that the SQL cannot use. Apart from :mod:`ctxtool.runtime.checks.shape`
(what comes back) because these read the bindings and the conditions, not the outer SELECT; both
are run by :func:`ctxtool.runtime.checks.sqlverify.review`. No check names a word of any database.
"""

from __future__ import annotations

import os
import re
from collections.abc import Container
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Any

from ctxtool.english.content import content_tokens
from ctxtool.english.reading import CONTRACTED_NOT, words_meet
from ctxtool.runtime.checks.shape import name_words
from ctxtool.runtime.checks.verify import _AXES

LINK_SPELLING = 0.75  # the stored value must read like the words the question wrote


def extreme_direction(q_tokens: set[str], tpl: Any) -> str | None:
    """A reason when the question asks for one end ("the highest price") and the template's wording
    has a superlative of no known direction ("cheapest") while its SQL takes the other end."""
    q = {_AXES[t][1] for t in q_tokens if t in _AXES and _AXES[t][0] == "extreme"} - {0}
    t_ops = {t for t in tpl.token_set if t in _AXES and _AXES[t][0] == "extreme"}
    if len(q) != 1 or "__superlative" not in t_ops or t_ops & {"__max", "__min"}:
        return None
    d = tpl.facts.extreme
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
    return _says_not(text) or bool(CONTRACTED_NOT.search(text))


def contracted_negation(question: str, phrasing_text: str, q_tokens: set[str] | None = None) -> str | None:
    """A reason when one side says "don't" / "cannot" and the other has no negation at all (the word
    checks see "not" and "no", not the contracted forms)."""
    q_tok = "__not" in q_tokens if q_tokens is not None else _says_not(question)
    t_tok = _says_not(phrasing_text)
    if q_tok != t_tok:
        return None  # the word checks saw it already
    q = q_tok or bool(CONTRACTED_NOT.search(question))
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


_ALTERNATIVES = re.compile(r"\b(?:or|either|any\s+of|whichever)\b", re.I)


def conjunction(question: str, entities: list[Any], cand: Any) -> str | None:
    """A reason when the question joins two of its values with "or" and the SQL ANDs their conditions
    (or INTERSECTs), or joins values of two columns with "and" ("size A4 and speed below 5") or says
    "both" while the SQL ORs them."""
    tpl = cand.template
    if len(tpl.slots) < 2:
        return None
    between_slots = tpl.facts.between_slots
    placed = {k for pair in between_slots for k in pair}
    slots = sorted(tpl.slots, key=lambda s: entities[cand.bindings[s.key][0]].start)
    for a, b in zip(slots, slots[1:], strict=False):
        if a.key not in placed or b.key not in placed:
            continue
        ea, eb = entities[cand.bindings[a.key][0]], entities[cand.bindings[b.key][0]]
        said = _connective(question[ea.end : eb.start])
        # "the years shared by A or B" is often an INTERSECT: only conditions of one WHERE decide "or"
        sql_said, set_op = between_slots.get((a.key, b.key)) or between_slots[(b.key, a.key)]
        both = bool(re.search(r"\bboth\b", question[: ea.start + 1], re.I))
        if said == "or" and sql_said == "and" and set_op is None:
            return f"the question says '{ea.text}' or '{eb.text}', the template requires both"
        if said == "and" and "or" in (sql_said, set_op) and "and" not in (sql_said, set_op):
            if both or (a.column and b.column and a.column != b.column):
                return f"the question says '{ea.text}' and '{eb.text}', the template takes either"
        # "the Rock tracks stored on MPEG files": values a question states of one thing, with no
        # "or" anywhere, are all conditions on it, never alternatives
        if said is None and "or" in (sql_said, set_op) and "and" not in (sql_said, set_op):
            if not _ALTERNATIVES.search(question):
                return f"the question states '{ea.text}' and '{eb.text}' together, the template takes either"
    return None


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
        named = words_meet(q_tokens, theirs - own) and not words_meet(q_tokens, own - theirs)
        if lv.distance > 0 or named:
            return f"'{e.text}' is a value of {lv.column_key}, the template's slot is {slot_key}"
    return None


def compared_both_ways(entities: list[Any], cand: Any) -> str | None:
    """A reason when the template compares one value both ways (``x > $1 ... x < $1``) and the
    question states one direction for it ("more than 2 weeks")."""
    tpl = cand.template
    for slot in tpl.slots:
        senses = tpl.facts.slot_senses.get(slot.key, frozenset())
        lit = entities[cand.bindings[slot.key][0]].literal
        if len(senses) == 2 and lit is not None and lit.direction:
            return "the template compares the value both ways, the question one way"
    return None


def both_values_one_slot(question: str, entities: list[Any], cand: Any) -> str | None:
    """A reason when the question asks for "both A and B" and the template takes one value: the
    second one ("... both London Heathrow and Gatwick") would be dropped, silently."""
    tpl = cand.template
    if len(tpl.slots) >= 2 or "intersect" in tpl.facts.set_operations:
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
        return True  # "York" for 'New York City': the words the question wrote are the value's
    prefix = len(os.path.commonprefix([a, b]))
    return prefix >= 4 and prefix >= 0.7 * min(len(a), len(b))


def spelled_otherwise(cand: Any, entities: list[Any]) -> list[str]:
    """Bound values whose stored spelling reads unlike the words the question wrote ("DVD drives"
    bound as 'DVD burner', "each" as 'teach'): a value search that calls them close is wrong here.
    A transposed or missing letter, a plural, another case still read alike."""
    from ctxtool.runtime.matching.binding import own_table_value

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


# a number the words before it make one end of a range, the end included ("at least 25", "no more than 3")
_INCLUSIVE_BEFORE = re.compile(
    r"\b(?:(at\s+least|no\s+less\s+than|not\s+less\s+than|no\s+fewer\s+than|a\s+minimum\s+of)"
    r"|(at\s+most|no\s+more\s+than|not\s+more\s+than|a\s+maximum\s+of|up\s+to))\s*$",
    re.I,
)


def inclusive_bound(question: str, entities: list[Any], cand: Any) -> str | None:
    """A reason when the question states a number as an included end ("at least 25", "at most 3")
    and the template compares its slot strictly (``> $1``, ``< $1``): the rows equal to the number
    belong to the answer asked and not to the template's."""
    for slot in cand.template.slots:
        if slot.operator not in ("gt", "lt") or slot.key not in cand.bindings:
            continue
        e = entities[cand.bindings[slot.key][0]]
        m = _INCLUSIVE_BEFORE.search(question[max(0, e.start - 30) : e.start])
        if m is None:
            continue
        if (slot.operator == "gt") == bool(m.group(1)):
            return f"'{m.group(0).strip()} {e.text}' includes {e.text}, the template compares strictly"
    return None


# prefixes that make a word's opposite ("female" of "male", "inactive", "unpaid", "non-smoker"); the
# ones that also begin unrelated words ("in" of "install") only before a longer word
_OPPOSITE_PREFIXES = ("un", "non", "non-", "dis", "fe")
_OPPOSITE_PREFIXES_LONG = ("in", "im", "il", "ir")
_WORDS = re.compile(r"[a-z][a-z-]*", re.I)


def _opposite(a: str, b: str) -> bool:
    """``b`` is ``a`` with a prefix of the opposite ("male" / "female", "active" / "inactive")."""
    if len(a) < 4 or not b.endswith(a):
        return False
    head = b[: -len(a)]
    return head in _OPPOSITE_PREFIXES or (head in _OPPOSITE_PREFIXES_LONG and len(a) >= 5)


def prefixed_opposite(question: str, phrasing_text: str) -> str | None:
    """A reason when the question says a word whose opposite the template says and the template not
    the word itself ("the male members" against "the female members", "active" against "inactive"):
    the encoder rates the two sentences alike; the rows are others."""
    q_words = {w.lower() for w in _WORDS.findall(question)}
    t_words = {w.lower() for w in _WORDS.findall(phrasing_text)}
    for w in q_words - t_words:
        for v in t_words - {w}:
            if _opposite(w, v) or (_opposite(v, w) and v not in q_words):
                return f"the question says {w}, the template {v}"
    return None
