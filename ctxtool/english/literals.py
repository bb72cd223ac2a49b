"""Entities written in the question: numbers (with what the words around them say), dates, quoted
strings and the letter a pattern is about."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from ctxtool.english.content import content_tokens
from ctxtool.english.lexicon import (
    BOUND_AFTER,
    DAY_MONTH_YEAR,
    DOWNWARD_WORDS,
    MONTH_DAY_YEAR,
    MONTHS,
    MORE_X_THAN,
    NUMBER_WORD,
    NUMBER_WORDS,
    ONE_AS_A_NUMBER,
    ORDINAL,
    ORDINAL_WORDS,
    PATTERN_ABOUT,
    RANK_BEFORE,
    SCALE_WORDS,
    TIME_PREPOSITION,
    TIMES,
    TIMES_WORD,
    UP_TO_WORDS,
)


@dataclass
class Literal:
    """A number, date or quoted string found in the question."""

    kind: str  # "number" | "date" | "quoted"
    text: str
    start: int
    end: int
    value: object  # int / float / date / str
    as_year: bool = False  # written as a point in time: "in 1997", "since 2001"
    rank: bool = False  # a count of rows to keep: "the top 3", "the 5 largest"
    capitals: bool = False  # words written in capitals ("OTHA MOYER"), quoted by their case alone
    bound: bool = False  # one end of a range: "2011 or later", "10 or more"
    # the comparison the words around the number state: 1 (more than, after, or later), -1 (below,
    # before, up to), 0 (none: "with 1 credit"), None (a comparison of unknown sense: "cheaper than")
    direction: int | None = 0

    @property
    def is_year(self) -> bool:
        return self.kind == "number" and isinstance(self.value, int) and 1800 <= self.value <= 2100


_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_SLASH = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")
# a number inside a code ("CIS-220", "ACCT-211", "220-B") is part of the code, not a number
_NUMBER = re.compile(
    r"(?<![\w.$])(?<![A-Za-z]-)-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])(?!-[A-Za-z])"
    r"|(?<![\w.$])(?<![A-Za-z]-)-?\d+(?:\.\d+)?(?![\w])(?!-[A-Za-z])"
)
QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|(?<![\w])'([^']+)'(?![\w])|‘([^’]+)’")
# two or more words in capitals in a sentence that has lower case: a name written in capitals
# ("taught by OTHA MOYER"); one capitalized word alone is an acronym more often than a value
_CAPITALS = re.compile(r"(?<![\w'\"])[A-Z][A-Z'-]+(?:\s+[A-Z][A-Z'-]+)+(?![\w'\"])")


_EXTREMES = frozenset({"__max", "__min", "__max_date", "__min_date", "__superlative"})


def _mark_number(lit: Literal, text: str) -> None:
    """Set what the words around a number say it is: a year, a count of rows, one end of a range."""
    before, after = text[: lit.start], text[lit.end :]
    lit.as_year = lit.is_year and bool(TIME_PREPOSITION.search(before))
    nxt = re.match(r"\s*(\w+)", after)
    # "the 5 largest" keeps five rows; "room 111 most recently" names room 111 (a noun before it)
    prev = before.split()[-1:]
    lit.rank = bool(RANK_BEFORE.search(before)) or bool(
        nxt and _EXTREMES & set(content_tokens(nxt.group(1))) and not (prev and content_tokens(prev[0]))
    )
    bound = BOUND_AFTER.match(after)
    lit.bound = bool(bound)
    if bound:
        lit.direction = -1 if bound.group(1).lower() in DOWNWARD_WORDS else 1
        return
    # "greater than or equal to 5": the whole phrase, not its last words ("to 5" is an upper end)
    words = (
        before.split()[-5:]
        if re.search(r"\bthan\s+or\s+equal\s+to\s*$", before, re.I)
        else before.split()[-3:]
    )
    said = set(content_tokens(" ".join(words)))
    low = [w.lower() for w in words]
    if said & {"__gt", "__gte", "__after"} and "__not" not in said or (low and low[-1] == "from"):
        lit.direction = 1
    elif said & {"__lt", "__lte", "__before"} or "__not" in said or (low and low[-1] in UP_TO_WORDS):
        lit.direction = -1
    elif "__comparative" in said or "between" in low:
        lit.direction = None
    elif MORE_X_THAN.search(before):  # "more expensive than 5000", "less costly than"
        lit.direction = -1 if MORE_X_THAN.search(before).group(1).lower() in DOWNWARD_WORDS else 1
    else:  # "at least a salary of 100000": the comparison a few words before, within the clause
        clause = re.split(r"\d|,|\b(?:and|or|but)\b", " ".join(before.split()[-_WIDE:]))[-1]
        wide = set(content_tokens(clause))
        if wide & {"__gt", "__gte", "__after"} and not wide & {"__lt", "__lte", "__before", "__not"}:
            lit.direction = 1
        elif wide & {"__lt", "__lte", "__before"} and not wide & {"__gt", "__gte", "__after", "__not"}:
            lit.direction = -1


_WIDE = 6


def _safe_date(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def find_literals(text: str) -> list[Literal]:
    """Quoted strings, dates (ISO, d/m/Y, "March 5, 1996", "5 March 1996") and numbers, without overlaps."""
    found: list[Literal] = []

    def free(a: int, b: int) -> bool:
        return all(b <= lit.start or a >= lit.end for lit in found)

    for m in QUOTED.finditer(text):
        inner = next(g for g in m.groups() if g is not None)
        found.append(Literal("quoted", inner, m.start(), m.end(), inner))
    if any(c.islower() for c in text):  # a name written in capitals reads as quoted
        for m in _CAPITALS.finditer(text):
            if free(m.start(), m.end()):
                found.append(Literal("quoted", m.group(), m.start(), m.end(), m.group(), capitals=True))
    for m in PATTERN_ABOUT.finditer(text):
        lone = m.group(1) in ("a", "i") and not re.search(r"letter|char", m.group(), re.I)
        if free(m.start(1), m.end(1)) and not lone:  # "starts with a vowel" is no pattern 'a'
            found.append(Literal("quoted", m.group(1), m.start(1), m.end(1), m.group(1)))
    for rx, order in ((_ISO, "ymd"), (_SLASH, "dmy"), (MONTH_DAY_YEAR, "Mdy"), (DAY_MONTH_YEAR, "dMy")):
        for m in rx.finditer(text):
            if not free(m.start(), m.end()):
                continue
            g = m.groups()
            if order == "ymd":
                d = _safe_date(int(g[0]), int(g[1]), int(g[2]))
            elif order == "dmy":
                d = _safe_date(int(g[2]), int(g[1]), int(g[0])) or _safe_date(int(g[2]), int(g[0]), int(g[1]))
            elif order == "Mdy":
                d = _safe_date(int(g[2]), MONTHS[g[0].lower()], int(g[1]))
            else:
                d = _safe_date(int(g[2]), MONTHS[g[1].lower()], int(g[0]))
            if d is not None:
                found.append(Literal("date", m.group(), m.start(), m.end(), d))
    for m in _NUMBER.finditer(text):
        if not free(m.start(), m.end()):
            continue
        raw = m.group().replace(",", "")
        value: int | float = float(raw) if "." in raw else int(raw)
        end = m.end()
        tail = re.match(r"\s*(thousand|million|k|m)\b", text[end:], re.I)
        if tail:
            value = value * SCALE_WORDS[tail.group(1).lower()]
            end += tail.end()
        if isinstance(value, float) and value.is_integer() and (tail or "." not in raw):
            value = int(value)
        lit = Literal("number", text[m.start() : end], m.start(), end, value)
        _mark_number(lit, text)
        found.append(lit)
    for m in NUMBER_WORD.finditer(text):
        if free(m.start(), m.end()):
            lit = Literal("number", m.group(), m.start(), m.end(), NUMBER_WORDS[m.group().lower()])
            _mark_number(lit, text)
            found.append(lit)
    for m in ORDINAL.finditer(text):
        named = m.group(1) and m.group(1)[0].isupper() and text[: m.start()].strip()
        if free(m.start(), m.end()) and not named:  # "the Third-rate ones": words of a name
            value = ORDINAL_WORDS[m.group(1).lower()] if m.group(1) else int(m.group(2))
            lit = Literal("number", m.group(), m.start(), m.end(), value)
            _mark_number(lit, text)
            found.append(lit)
    for m in TIMES_WORD.finditer(text):
        if free(m.start(), m.end()):
            lit = Literal("number", m.group(), m.start(), m.end(), TIMES[m.group().lower()])
            _mark_number(lit, text)
            found.append(lit)
    for m in ONE_AS_A_NUMBER.finditer(text):
        g = 1 if m.group(1) else 2
        if free(m.start(g), m.end(g)):
            lit = Literal("number", m.group(g), m.start(g), m.end(g), 1)
            _mark_number(lit, text)
            found.append(lit)
    found.sort(key=lambda lit: lit.start)
    return found
