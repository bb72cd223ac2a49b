"""Which of the question's values a reading uses: a value the template's own wording states, a
value said twice, words of comparing that only look like values, and how much a value nothing
uses counts against a reading (silently dropping a condition is how wrong answers happen).
"""

from __future__ import annotations

import re

from ctxtool.english.content import content_tokens
from ctxtool.runtime.question.literals import NUMBER_WORDS, ORDINAL_WORDS
from ctxtool.runtime.question.values import Entity

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
