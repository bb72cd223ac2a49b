"""Content tokens: a question's words rewritten by phrase rules into what matching compares.

Lower-cased, lemmatized and lightly stemmed words without stop words, where phrases that decide what
a query computes become canonical tokens (:mod:`ctxtool.english.lexicon`): "don't" is "do not", "the
phone number of" is no count, "first name" is no first in time, "which" inside a clause asks nothing.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ctxtool.english.lexicon import (
    AGGREGATES,
    AMOUNT_OF_UNITS,
    CANONICAL_PHRASES,
    CANONICAL_WORDS,
    DIMENSIONS,
    FROM_END_TO_END,
    MORE_OF_X_THAN,
    MORE_OPERATORS,
    NAME_WORDS,
    NOT_A_NOUN_BEFORE_NUMBER_OF,
    NOT_CONTRACTED,
    NOUN_NUMBER_OF,
    ORDERED_IN_A_DIRECTION,
    PERSON_NAME_PHRASES,
    PERSON_NAMES_SAID,
    PLACE_NOT_AMOUNT,
    STOPWORDS,
    WHERE_IS,
    WHICH,
    YEARS_OLD,
)
from ctxtool.english.tokens import lemma, stem, tokenize
from ctxtool.identifiers import name_shorthand

_SENTENCE_END = re.compile(r"(?:^|[.?!:;])\s*(?:\S+\s+)?$")


def _relative_which(text: str) -> str:
    """ "which" asks a question only at the start of a sentence ("Which member has ...", "In which
    year ..."); inside one it only joins a clause ("the buildings which have rooms")."""
    if "which" not in text.lower():
        return text
    return WHICH.sub(lambda m: m.group() if _SENTENCE_END.search(text[: m.start()]) else " ", text)


_SYMBOL_WORDS = {">": "__gt", ">=": "__gte", "<": "__lt", "<=": "__lte", "=": "equal"}
_SYMBOLS = re.compile(r"(?<![<>=!])\s(>=|<=|>|<)\s")


def _counting(before: str) -> bool:
    """ "<before> number of" is a count unless ``before`` is a noun ("phone number of"): after a
    function word ("the", "corresponding"), an operator word ("most") or a measure word."""
    return before in NOT_A_NOUN_BEFORE_NUMBER_OF or before in STOPWORDS or before in CANONICAL_WORDS


# "first names,last names": a list written without its space
_JOINED_LIST = re.compile(r"(?<=[a-z]),(?=[a-z])", re.I)


def _canonical_text(text: str) -> str:
    text = WHERE_IS.sub("location", _relative_which(text))
    text = _JOINED_LIST.sub(", ", text)
    low = " " + re.sub(r"[?!.,;:]+(?=\s|$)", " ", re.sub(r"\s+", " ", text.lower())) + " "
    low = re.sub(r"\s+", " ", low)
    low = NOT_CONTRACTED.sub(
        lambda m: ("can" if m.group(1) == "ca" else "will" if m.group(1) == "wo" else m.group(1)) + " not",
        low,
    )
    low = low.replace(" cannot ", " can not ")
    for rx, words in PERSON_NAME_PHRASES:
        low = rx.sub(words, low)
    low = PLACE_NOT_AMOUNT.sub(" ", low)
    low = YEARS_OLD.sub(" old ", low)  # "20 years old" says an age, not a year
    low = AMOUNT_OF_UNITS.sub(r" \1 ", low)  # "the number of hours" is an amount of time, no count
    low = ORDERED_IN_A_DIRECTION.sub("__order", low)
    low = FROM_END_TO_END.sub(lambda m: " __desc __order " if m.group(1) else " __asc __order ", low)
    low = MORE_OF_X_THAN.sub(lambda m: f" {m.group(2)} {MORE_OPERATORS[m.group(1)]} ", low)
    low = _SYMBOLS.sub(lambda m: f" {_SYMBOL_WORDS[m.group(1)]} ", low)
    low = NOUN_NUMBER_OF.sub(
        lambda m: m.group(0) if _counting(m.group(1)) else f"{m.group(1)} numeral{m.group(2)} ", low
    )
    for phrase, canon in CANONICAL_PHRASES:
        low = low.replace(f" {phrase} ", f" {canon} ")
    return low


_OPERATOR_PHRASES = re.compile(
    r"\b(?:"
    + "|".join(re.escape(p).replace("\\ ", r"\s+") for p, c in CANONICAL_PHRASES if " " in p and c.strip())
    + r")\b",
    re.I,
)


def operator_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` says a word of counting or comparing in several words ("greater than", "at
    least", "number of") or a person's names ("the full names"): their words are never values to
    look up."""
    found = [(m.start(), m.end()) for m in _OPERATOR_PHRASES.finditer(text)]
    return found + [(m.start(), m.end()) for m in PERSON_NAMES_SAID.finditer(text)]


def content_tokens(text: str) -> list[str]:
    """The normalized content tokens of a piece of text (placeholders and punctuation dropped).
    Remembered per text: wordings, column names and question parts are read over and over."""
    return list(_content_tokens(text))


@lru_cache(maxsize=65_536)
def _content_tokens(text: str) -> tuple[str, ...]:
    """(See :func:`content_tokens`.)

    An adjective's superlative or comparative degree ("cheapest", "cheaper than") adds
    ``__superlative`` / ``__comparative``: an order or comparison whose direction the words alone do
    not fix, which agrees with either direction in the verification."""
    out: list[str] = []
    toks = tokenize(_canonical_text(text))
    for k, tok in enumerate(toks):
        w = tok.lower
        if not any(c.isalnum() for c in w) or w.startswith("$") or w == "?":
            continue
        w = w.strip("'\"")
        if w in ("numeral", "numerals"):
            w = "number"  # "phone number of": the word, not a count
        w = NAME_WORDS.get(w) or name_shorthand(w) or w
        w = CANONICAL_WORDS.get(w, w)
        if w in STOPWORDS:
            continue
        base, degree = lemma(w)
        if base in DIMENSIONS:  # "the tallest", "older than 30", "how old": the measure
            noun, most, more = DIMENSIONS[base]
            than = any(t.lower == "than" for t in toks[k + 1 : k + 4])
            op = most if degree == "superlative" else more if degree == "comparative" and than else None
            if op is not None or degree != "superlative":
                out.extend([op, noun] if op else [noun])
                continue
        if degree == "superlative":
            out.append("__superlative")
        elif degree == "comparative" and any(t.lower == "than" for t in toks[k + 1 : k + 4]):
            out.append("__comparative")  # "cheaper than", "a higher salary than"
        base = CANONICAL_WORDS.get(base, base)
        if base.startswith("__"):
            out.append(base)
            continue
        s = stem(base)
        if s in STOPWORDS:
            continue
        s = CANONICAL_WORDS.get(s, s)
        out.append(s)
    if "__each" in out and not AGGREGATES & set(out):
        # "the name of each pilot" lists them all; only a measure makes "each" a grouping
        out = [t for t in out if t != "__each"]
    return tuple(out)
