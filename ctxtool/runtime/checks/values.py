"""The question's values against a candidate: which ones it uses (a value the template's own wording
states, a value said twice, words of comparing that only look like values), how much a value nothing
uses counts against it (silently dropping a condition is how wrong answers happen), how well the
values fit their slots, whether a stored value was found on the slot's own table and reads like
the words written, and codes in capitals no value search found.
"""

from __future__ import annotations

import math
import os
import re
from difflib import SequenceMatcher
from typing import Any

from ctxtool.english.content import content_tokens
from ctxtool.english.lexicon import ID_WORDS, NUMBER_WORDS, ORDINAL_WORDS
from ctxtool.english.reading import words_meet
from ctxtool.runtime.checks.operators import said_ends
from ctxtool.runtime.checks.registry import check
from ctxtool.runtime.matching.binding import overlapping, own_table_value
from ctxtool.runtime.matching.candidate import Candidate, Finding
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.question.values import Entity
from ctxtool.runtime.templates.facts import TemplateFacts, name_words

# a value the question states that nothing uses: another question (a condition would be dropped)...
UNUSED_VALUE = 0.45
# ...unless it is an everyday lower-case word that only resembles a stored value ("number" ~ "Numeric",
# "greater" inside a name): the value searches find something for most words of a question
UNUSED_LOOKALIKE = 0.9
_QUOTES = "\"'“‘«"


def _written_in(phrase: str, text: str) -> bool:
    """A value the template's own wording states (``in 1996`` of a fixed-year template) is explained."""
    return bool(re.search(r"(?<![\w.])" + re.escape(phrase) + r"(?![\w])", text, re.I))


def _words_in(value: object, text: str) -> bool:
    """The words of a stored text value appear one after another in ``text``, case and the
    spaces and punctuation between them aside."""
    words = re.findall(r"\w+", value.casefold()) if isinstance(value, str) else []
    return len("".join(words)) >= 3 and bool(
        re.search(r"(?<!\w)" + r"\W*".join(re.escape(w) for w in words) + r"(?!\w)", text.casefold())
    )


def stated_by(entity: Entity, text: str) -> bool:
    """The template's own wording states this value ("in 1996", "the ten districts")."""
    if _written_in(entity.text, text):
        return True
    if entity.kind == "number" and isinstance(entity.value, int):
        words = [w for w, n in NUMBER_WORDS.items() if n == entity.value] + [str(entity.value)]
        words += [w for w, n in ORDINAL_WORDS.items() if n == entity.value]
        words += ["one"] if entity.value == 1 else []
        return any(_written_in(w, text) for w in words)
    if entity.kind == "linked" and _words_in(entity.value, text):
        return True  # the stored value, spaced or punctuated otherwise ("Tokyo , Japan", "Tokyo,Japan")
    exact = entity.kind == "linked" and entity.link is not None and entity.link.distance == 0
    if entity.kind in ("stated", "quoted") or exact:  # "male" in "all males": the same words, inflected
        mine = content_tokens(entity.text)
        return bool(mine) and set(mine) <= set(content_tokens(text))
    return False


def said_again(entities: list[Entity], i: int, used: set[int]) -> bool:
    """Entity ``i`` repeats a text or date value the reading already uses ("female guests (gender
    code 'Female')", "after 1986-11-13 ... after 1986-11-13"): one condition, said twice. Numbers
    are not: "above 20 ... and 20 hours" may be two conditions."""
    e = entities[i]
    if e.kind == "number":
        return False
    mine = str(e.value).casefold()
    return any(entities[j].kind != "number" and str(entities[j].value).casefold() == mine for j in used)


def _comparison_words(entity: Entity, question: str) -> bool:
    """The value's words are words of counting or comparing, alone or with the word before or after
    them ("more than", "the number of", "3 or more")."""
    before = question[: entity.start].split()[-1:]
    after = question[entity.end :].split()[:1]
    for words in ([entity.text], [*before, entity.text], [entity.text, *after]):
        tokens = content_tokens(" ".join(words))
        if tokens and all(t.startswith("__") for t in tokens):
            return True
    return False


def unused_weight(entity: Entity, question: str) -> float:
    """How much a value the question states but no template or facet uses counts against a reading:
    a number, date, quoted string, name or exact stored value is a condition that would be dropped;
    an ordinary lower-case word linked only approximately is most likely just a word; comparison
    words ("more than") are never values."""
    if entity.literal is not None and entity.literal.text.lower() == "one":
        return 1.0  # "more than one": a number only for a template that compares a count with it
    if entity.kind != "linked" or entity.link is None:
        return UNUSED_VALUE
    first = question[entity.start : entity.start + 1]
    if first and first in _QUOTES:
        return UNUSED_VALUE
    if _comparison_words(entity, question):
        return 1.0
    if entity.link.distance > 0 and not any(c.isupper() for c in entity.text):
        return UNUSED_LOOKALIKE
    return UNUSED_VALUE


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def unused_values(q: Question, c: Candidate) -> list[int]:
    """The values (indexes) the question states that neither the template (its slots, the values its
    own wording states) nor its facets use."""
    wording = c.wording.text if c.wording is not None else ""
    used = c.used_values
    entities = list(q.values)
    return [
        i
        for i in range(len(entities))
        if i not in used
        and not entities[i].part  # a quoted name counts once, whole
        and not (overlapping(entities, i) & used)
        and not stated_by(entities[i], wording)
        and not said_again(entities, i, used)
    ]


def value_weight(e: Entity, q: Question, facts: TemplateFacts) -> float:
    """How much the unused value ``e`` counts against a candidate: a value the searches found for the
    verb a sentence of the question begins with ("Report the number...") is the instruction, one
    found for an end the SQL takes ("the shortest") is that end, and a number the SQL compares with
    as written ("in two or more" of ``HAVING count(*) >= 2``) is used: none counts; any other as
    :func:`unused_weight` says."""
    first = q.text[: e.start].rstrip()
    starts = not first or first[-1] in ".?!;:"
    words = set(content_tokens(e.text))
    if e.kind == "linked" and starts and " " not in e.text and words <= q.imperatives:
        return 1.0
    if e.kind == "linked" and " " not in e.text and words and words <= said_ends(q.all_words, facts)[0]:
        return 1.0  # "the shortest" of the lowest duration is the end the SQL takes, no value
    lit = e.literal
    if lit is not None and lit.kind == "number" and not lit.rank and _number(lit.value) in facts.constants:
        return 1.0  # "in two or more products" of a template comparing with its own 2
    return unused_weight(e, q.text)


@check("unused", "words", UNUSED_VALUE)
def unused(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """Every value the question states is used by the template or a facet: a value nothing uses is
    a condition silently dropped (an everyday word that only resembles a stored value counts little).

    Fails: "How many accounts are in Pisek and were opened in 1995?" against "How many accounts are
    in $1?". Passes: "How many accounts are in Pisek?" against the same template."""
    entities = list(q.values)
    found = [i for i in unused_values(q, c)]
    factor = math.prod(value_weight(entities[i], q, facts) for i in found)
    if factor >= 0.999:
        return None
    return Finding(
        "the question states values nothing uses: " + ", ".join(entities[i].text for i in found), factor
    )


@check("links", "words", 1.0)
def links(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """A stored value found only approximately ("Prauge" for 'Prague') weighs the candidate by its
    distance (1 - distance / 2).

    Fails (0.92): "accounts in Prauge" bound as 'Prague' at distance 0.17. Passes: "accounts in Prague"."""
    entities = q.values
    found = [entities[i].link for i in c.used_values if entities[i].link]
    if not found:
        return None
    worst = max(lv.distance for lv in found if lv)
    if worst <= 0:
        return None
    return Finding(f"closest stored value at distance {worst:.2f}", 1 - 0.5 * worst)


@check("fit", "words", 1.0)
def fit(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """A value that only loosely fits its slot's kind (a quoted string in a slot of a column no value
    search covers, a year in a number slot) weighs the candidate by its fit (0.85 + 0.15 x fit).

    Fails (0.925): a quoted name bound at fit 0.5. Passes: a value found on the slot's own column."""
    fits = [f for _, f in c.bindings.values()]
    if fits and min(fits) < 1:
        return Finding("", 0.85 + 0.15 * min(fits))
    return None


@check("facets", "words", 0.97)
def facets(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """Each facet added weighs the candidate a little (0.97 each), so that on a tie the template
    alone, as curated, comes first.

    Fails (0.97): a template plus one facet. Passes: the template alone."""
    return Finding("", 0.97 ** len(c.facets)) if c.facets else None


OTHER_TABLE = 0.3  # a customer's first name in a slot for a staff member's first name
SPELLED_OTHER = 0.5  # "DVD drives" bound as 'DVD burner'
LINK_SPELLING = 0.75  # the stored value must read like the words the question wrote


@check("other_table", "sql", OTHER_TABLE)
def other_table(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """A slot holds a value found on a column of the same name in another table (a customer's first
    name for ``staff.first_name``) and nothing says it belongs to the slot's table: the value was only
    approximately found, or the question names the value's table and not the slot's.

    Fails: "How many orders did the staff member Carole take?" with 'Carole' found on
    ``customer.first_name`` only. Passes: 'Janessa', found on ``staff.first_name``."""
    for slot in c.template.slots:
        e = q.values[c.bindings[slot.key][0]]
        lv = e.link
        if lv is None or not slot.column or "." not in slot.column:
            continue
        slot_key = ".".join(slot.column.lower().split(".")[-2:])
        if lv.column_key == slot_key or any(a.column_key == slot_key for a in lv.alternatives):
            continue
        own, theirs = set(name_words(slot_key.split(".")[0])), set(name_words(lv.column_key.split(".")[0]))
        named = words_meet(q.word_set, theirs - own) and not words_meet(q.word_set, own - theirs)
        if lv.distance > 0 or named:
            return Finding(f"'{e.text}' is a value of {lv.column_key}, the template's slot is {slot_key}")
    return None


_CODE = re.compile(r"(?<![\w'\"])([A-Z]{2,}\d*|[A-Z]+\d+[A-Z\d]*)(?![\w'\"])")


@check("unlinked_codes", "sql", UNUSED_VALUE)
def unlinked_codes(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """Codes the question writes in capitals ("the budget type with code ORG") that no value search
    linked, that no wording of the set uses and that the template does not state: a value the SQL
    would not use (0.45 each).

    Fails: "What is the budget type with code ORG?" against "What are the budget types?".
    Passes: the same question against "What is the budget type with code $1?" (the code bound)."""
    vocabulary = q.vocabulary.wording_words if q.vocabulary is not None else frozenset()
    words: set[str] = set()
    for p in c.template.phrasings:
        words |= p.words
    out = []
    for m in _CODE.finditer(q.text):
        if any(e.start <= m.start() < e.end for e in q.values):
            continue
        code = m.group(1)
        if (
            code.lower() in words
            or code.lower() in vocabulary
            or any(t in vocabulary for t in content_tokens(code))
        ):
            continue
        if code.lower() in ID_WORDS:
            continue
        out.append(code)
    if not out:
        return None
    return Finding("the question states values nothing uses: " + ", ".join(out), UNUSED_VALUE ** len(out))


def _squash_value(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def read_alike(a: str, b: str) -> bool:
    """Two spellings of one value: mostly the same letters, the same words in part, or the same stem
    ("nomination" / "nominated")."""
    if SequenceMatcher(None, a, b).ratio() >= LINK_SPELLING:
        return True
    wa, wb = set(a.split()), set(b.split())
    if wa <= wb or wb <= wa:
        return True  # "York" for 'New York City': the words the question wrote are the value's
    prefix = len(os.path.commonprefix([a, b]))
    return prefix >= 4 and prefix >= 0.7 * min(len(a), len(b))


@check("spelled_otherwise", "sql", SPELLED_OTHER)
def spelled_otherwise(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """A bound value's stored spelling reads unlike the words the question wrote ("DVD drives" bound as
    'DVD burner', "each" as 'teach'): a value search that calls them close is wrong here (0.5 each).
    A transposed or missing letter, a plural, another case still read alike.

    Fails: "How many DVD drives are in stock?" bound as 'DVD burner'. Passes: "DVD burners"."""
    out = []
    for slot in c.template.slots:
        e = q.values[c.bindings[slot.key][0]]
        if e.link is None or e.link.distance <= 0:
            continue
        value = own_table_value(e, slot)
        a, b = _squash_value(e.text), _squash_value(str(value).strip("%"))
        if not a or not b or a == b:
            continue
        operator_word = all(t.startswith("__") for t in content_tokens(e.text))
        if operator_word or not read_alike(a, b):
            out.append(f"'{e.text}' -> {value!r}")
    if not out:
        return None
    return Finding("the stored value reads otherwise: " + ", ".join(out), SPELLED_OTHER ** len(out))
