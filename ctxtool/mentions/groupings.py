"""Groupings: one answer per value of something. "per genre", "by country", "for each customer",
"in each city", "broken down by year", "grouped by", and a period's adjective ("monthly sales": per
month). "by" followed by a name ("books by Jorge Luis Borges") states a value, not a grouping, and
"ordered by" / "sorted by" an order."""

from __future__ import annotations

import re

from ctxtool.english.lexicon import PERIOD_ADJECTIVES, TIME_UNITS
from ctxtool.english.tokens import lemma
from ctxtool.mentions.phrases import phrase_after
from ctxtool.mentions.types import GroupingMention

_GROUPING = re.compile(
    r"\b(?:per|for\s+(?:each|every)|in\s+each|(?<!for )(?<!in )each|(?:broken|break(?:ing)?|split)\s+(?:down|out)\s+by|"
    r"(?:grouped|group)\s+by|by)\s+",
    re.I,
)
_ORDERED = re.compile(r"\b(?:order|ordered|ordering|sort|sorted|sorting|rank|ranked|ranking)\s*$", re.I)
_BY_MEASURE = re.compile(
    r"(?:the\s+)?(?:total\s+)?(?:number|count|sum|total|average|amount)\s+(?:of\b|sold\b|spent\b)|"
    r"(?:the\s+)?(?:total|average|revenue|sales)\b(?!\s+\w+\s+of)",
    re.I,
)
_PERIOD = re.compile(r"\b(" + "|".join(PERIOD_ADJECTIVES) + r")\b", re.I)


def find_groupings(text: str) -> list[GroupingMention]:
    """The groupings ``text`` asks for, in order."""
    out: list[GroupingMention] = []
    for m in _GROUPING.finditer(text):
        word = m.group().split()[0].lower()
        if word == "by":
            if _ORDERED.search(text[: m.start()]):
                continue
            nxt = re.match(r"(?:the\s+)?(\S)", text[m.end() :])
            if nxt and (nxt.group(1).isupper() or nxt.group(1).isdigit() or nxt.group(1) in "'\"$"):
                continue  # "by Borges", "by 2005", "by 'X'": a value or a time
            if _BY_MEASURE.match(text, m.end()):
                continue  # "the top 5 genres by number of tracks": the order's key
        of, end = phrase_after(text, m.end(), limit=3)
        if not of:
            continue
        head = lemma(of.split()[-1].lower())[0]
        grain = head if head in TIME_UNITS else None
        out.append(GroupingMention(text[m.start() : end], (m.start(), end), of, grain))
    for m in _PERIOD.finditer(text):
        unit = PERIOD_ADJECTIVES[m.group(1).lower()]
        out.append(GroupingMention(m.group(), (m.start(), m.end()), unit, unit))
    return sorted(out, key=lambda g: g.span)
