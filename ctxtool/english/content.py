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
    CANONICAL_PHRASES,
    CANONICAL_WORDS,
    DIMENSIONS,
    NAME_WORDS,
    STOPWORDS,
)
from ctxtool.english.tokens import lemma, stem, tokenize

# words before "number of" that make it a compound noun ("the phone number of", "room number of"),
# not a count: a count is "the number of", "a number of", "total number of", "how many"...
_COUNT_BEFORE = frozenset(
    "the a an total average mean largest smallest highest lowest greatest biggest maximum minimum "
    "max min same different distinct and or of by in with for per what which whose their its his her "
    "descending ascending decreasing increasing".split()
)
_COMPOUND_NUMBER = re.compile(r"(?<= )([a-z]+) number(s?) of ")
# English contractions of "not": "don't" says "do not"
_NOT = re.compile(r"\b(ca|wo|do|does|did|is|are|was|were|has|have|had|could|would|should|must|need)n[’']t\b")
# a person's names ("first name" is no "first" in time; a full name is the first and last name)
_NAMES = (
    (re.compile(r"\bfull names?\b"), "firstname lastname"),
    # "first and last names", "first, middle and last name": the first name, not the first in time
    (
        re.compile(r"\bfirst (?:and |or |& )?middle (?:and |or |& )?(?:last|family|sur) ?names?\b"),
        "firstname middlename lastname",
    ),
    (re.compile(r"\bfirst (?:and|or|&) (?:last|family|sur) ?names?\b"), "firstname lastname"),
    (re.compile(r"\bfirst names?\b"), "firstname"),
    (re.compile(r"\bmiddle names?\b"), "middlename"),
    (re.compile(r"\b(?:last|family|sur) ?names?\b"), "lastname"),
    (re.compile(r"\bnot only\b"), " "),  # "not only A but also B" asks for both
)


_WHICH = re.compile(r"\bwhich\b", re.I)
_SENTENCE_END = re.compile(r"(?:^|[.?!:;])\s*(?:\S+\s+)?$")


def _relative_which(text: str) -> str:
    """ "which" asks a question only at the start of a sentence ("Which member has ...", "In which
    year ..."); inside one it only joins a clause ("the buildings which have rooms")."""
    if "which" not in text.lower():
        return text
    return _WHICH.sub(lambda m: m.group() if _SENTENCE_END.search(text[: m.start()]) else " ", text)


# "under the category", "over its entire existence": a place or a span of time, no comparison
_PLACE_NOT_AMOUNT = re.compile(
    r"\bunder(?= (?:the|a|an|its|their|his|her|this|that|these|those) )"
    r"|\bover(?= (?:its|their|the) (?:entire|whole|years|past|last|course|period|time)\b)"
)
_YEARS_OLD = re.compile(r" years? old ")
# units of time, money and distance: "how many hours", "the number of days" measure, they count nothing
_AMOUNT_OF_UNITS = re.compile(
    r" (?:how many|(?:total )?numbers? of) (hours|minutes|seconds|days|weeks|months|years|dollars|euros|"
    r"milliseconds|miles|kilometers|kilometres|meters|metres) "
)
_SYMBOL_WORDS = {">": "__gt", ">=": "__gte", "<": "__lt", "<=": "__lte", "=": "equal"}
_SYMBOLS = re.compile(r"(?<![<>=!])\s(>=|<=|>|<)\s")


def _counting(before: str) -> bool:
    """ "<before> number of" is a count unless ``before`` is a noun ("phone number of"): after a
    function word ("the", "corresponding"), an operator word ("most") or a measure word."""
    return before in _COUNT_BEFORE or before in STOPWORDS or before in CANONICAL_WORDS


# "Where is the club located?" asks for its location
_WHERE = re.compile(r"(?:^|(?<=[.?!]\s))where\b(?=\s+(?:is|are|was|were|do|does|did)\b)", re.I)


# "ordered alphabetically", "sorted by age in descending order": the verb of an order followed by its
# direction is the order itself (alone, "ordered" may be a purchase: "the customers who ordered")
_ORDERED = re.compile(
    r"\b(?:ordered|sorted|arranged)\b(?=\s+(?:\w+\s+){0,3}?(?:alphabetically|descending|ascending|"
    r"decreasing|increasing)\b)"
)


# "more expensive than", "more students than": a comparison said around its measure (as "more than")
# "from the most recent to the oldest", "from least to greatest": both ends of one order are a
# listing in that order, never its first row; the first end says the direction
_UP_END = "most recent|newest|latest|highest|largest|biggest|greatest|most"
_DOWN_END = "earliest|lowest|smallest|least|fewest"
_FROM_END_TO_END = re.compile(
    rf" from (?:the )?(?:({_UP_END})|({_DOWN_END}))(?: [a-z]+)?(?: one)? to (?:the )?"
    rf"(?:{_UP_END}|{_DOWN_END}|oldest|youngest)(?: one)? "
)
_MORE_X_THAN = re.compile(r" (more|less|fewer) (?!(?:or|and|of|than|the|a|an) )([a-z]+) than ")
_MORE_OP = {"more": "__gt", "less": "__lt", "fewer": "__lt"}


# "first names,last names": a list written without its space
_JOINED_LIST = re.compile(r"(?<=[a-z]),(?=[a-z])", re.I)


def _canonical_text(text: str) -> str:
    text = _WHERE.sub("location", _relative_which(text))
    text = _JOINED_LIST.sub(", ", text)
    low = " " + re.sub(r"[?!.,;:]+(?=\s|$)", " ", re.sub(r"\s+", " ", text.lower())) + " "
    low = re.sub(r"\s+", " ", low)
    low = _NOT.sub(
        lambda m: ("can" if m.group(1) == "ca" else "will" if m.group(1) == "wo" else m.group(1)) + " not",
        low,
    )
    low = low.replace(" cannot ", " can not ")
    for rx, words in _NAMES:
        low = rx.sub(words, low)
    low = _PLACE_NOT_AMOUNT.sub(" ", low)
    low = _YEARS_OLD.sub(" old ", low)  # "20 years old" says an age, not a year
    low = _AMOUNT_OF_UNITS.sub(r" \1 ", low)  # "the number of hours" is an amount of time, no count
    low = _ORDERED.sub("__order", low)
    low = _FROM_END_TO_END.sub(lambda m: " __desc __order " if m.group(1) else " __asc __order ", low)
    low = _MORE_X_THAN.sub(lambda m: f" {m.group(2)} {_MORE_OP[m.group(1)]} ", low)
    low = _SYMBOLS.sub(lambda m: f" {_SYMBOL_WORDS[m.group(1)]} ", low)
    low = _COMPOUND_NUMBER.sub(
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


_NAME_PHRASES = re.compile(
    r"\b(?:full|first|last|middle|family|given) names?\b"
    r"|\bfirst\W+(?:(?:and|or|&)\W+)?(?:middle\W+(?:(?:and|or|&)\W+)?)?(?:last|family|sur) ?names?\b",
    re.I,
)


def operator_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` says a word of counting or comparing in several words ("greater than", "at
    least", "number of") or a person's names ("the full names"): their words are never values to
    look up."""
    found = [(m.start(), m.end()) for m in _OPERATOR_PHRASES.finditer(text)]
    return found + [(m.start(), m.end()) for m in _NAME_PHRASES.finditer(text)]


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
        w = NAME_WORDS.get(w, w)
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
