"""Order and limit: "top 5" (the 5 highest), "the 3 least", "the most", "the fewest", "the earliest"
(of a time), "the cheapest" (a superlative whose direction its column decides), "biggest first",
"in descending order", "sorted by X". A number is a limit only as a count of rows ("top 5", "which
10 actors ... the most"); a year is never one."""

from __future__ import annotations

import re

from ctxtool.english.lexicon import CANONICAL_WORDS, NUMBER_WORDS
from ctxtool.english.tokens import lemma
from ctxtool.mentions.phrases import phrase_after
from ctxtool.mentions.types import OrderMention

_N = r"\d{1,4}|" + "|".join(NUMBER_WORDS)
_DIRECTION = {"__max": "desc", "__min": "asc", "__max_date": "desc", "__min_date": "asc"}
_TOP = re.compile(rf"\b(?P<end>top|first|bottom|last)\s+(?P<n>{_N})\b", re.I)
_THE_N = re.compile(rf"\b(?:the|which|what)\s+(?P<n>{_N})\s+(?P<adj>(?:most|least)\s+recent|[a-z]+)", re.I)
_MOST = re.compile(
    r"\b(?:the\s+)?(?P<adj>most\s+recent(?:ly)?|most|least|fewest|highest|lowest|largest|smallest|biggest|"
    r"greatest|earliest|latest|oldest|newest|[a-z]+est)\b",
    re.I,
)
_FIRST = re.compile(
    r"\b(?P<adj>[a-z]+(?:est|er)?|most\s+recent|oldest|newest|latest|earliest)\s+first\b", re.I
)
_IN_ORDER = re.compile(
    r"\b(?:in\s+)?(?P<adj>descending|decreasing|ascending|increasing|(?:reverse\s+)?alphabetical)\s+order\b",
    re.I,
)
_SORTED = re.compile(
    r"\b(?:sorted|ordered|sort|order|ranked|rank)\s+(?:them\s+|the\s+results\s+)?by\s+", re.I
)
_TEMPORAL = frozenset({"__max_date", "__min_date"})


def _number(word: str) -> int:
    return int(word) if word.isdigit() else NUMBER_WORDS[word.lower()]


def _direction(adj: str) -> tuple[str | None, bool, bool]:
    """(direction, temporal, superlative) of an order word: "most" desc, "earliest" asc of a time,
    "cheapest" a superlative of no known direction."""
    low = re.sub(r"\s+", " ", adj.lower())
    if low.startswith("most recent"):
        return "desc", True, True
    if low in ("best", "top"):  # "the 5 best-selling products": the most sold
        return "desc", False, True
    if low in ("worst", "bottom"):
        return "asc", False, True
    canon = CANONICAL_WORDS.get(low)
    if canon in _DIRECTION:
        return _DIRECTION[canon], canon in _TEMPORAL, True
    base, degree = lemma(low)
    if degree == "superlative":
        return None, False, True
    return None, False, False


def find_orders(text: str) -> list[OrderMention]:
    """The orders and limits ``text`` states, in order."""
    out: list[OrderMention] = []
    taken: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= x or a >= y for x, y in taken)

    for m in _TOP.finditer(text):
        end = m.group("end").lower()
        direction = "asc" if end == "bottom" else "desc" if end == "top" else None
        rows, stop = phrase_after(text, m.end(), limit=3)
        n = _number(m.group("n"))
        out.append(OrderMention(text[m.start() : stop], (m.start(), stop), direction, n, rows=rows))
        taken.append((m.start(), m.end()))
    limit_n: tuple[int, tuple[int, int]] | None = None
    for m in _THE_N.finditer(text):
        if free(m.start(), m.end()):
            direction, temporal, superlative = _direction(m.group("adj"))
            if superlative:
                rows, stop = phrase_after(text, m.end(), limit=3)
                n, span = _number(m.group("n")), (m.start(), stop)
                out.append(OrderMention(text[span[0] : stop], span, direction, n, "", temporal, rows))
                taken.append(span)
            else:  # "which 10 actors appear in the most films": the count of rows for a later "most"
                limit_n = (_number(m.group("n")), (m.start(), m.end()))
    for m in _IN_ORDER.finditer(text):
        if free(m.start(), m.end()):
            adj = m.group("adj").lower()
            direction = "desc" if adj.startswith(("desc", "decr", "reverse")) else "asc"
            out.append(OrderMention(m.group(), (m.start(), m.end()), direction))
            taken.append((m.start(), m.end()))
    for m in _FIRST.finditer(text):
        direction, temporal, superlative = _direction(m.group("adj"))
        if free(m.start(), m.end()) and superlative or m.group("adj").lower() in ("higher", "lower"):
            if direction is None and m.group("adj").lower() in ("higher", "lower"):
                direction = "desc" if m.group("adj").lower() == "higher" else "asc"
            out.append(OrderMention(m.group(), (m.start(), m.end()), direction, None, "", temporal))
            taken.append((m.start(), m.end()))
    for m in _SORTED.finditer(text):
        of, stop = phrase_after(text, m.end(), limit=3)
        if of and free(m.start(), stop):
            tail = re.match(r"\s*(?:in\s+)?(descending|ascending|desc|asc)\b", text[stop:], re.I)
            direction = None
            if tail:
                direction = "desc" if tail.group(1).lower().startswith("desc") else "asc"
                stop += tail.end()
            out.append(OrderMention(text[m.start() : stop], (m.start(), stop), direction, None, of))
            taken.append((m.start(), stop))
    for m in _MOST.finditer(text):
        if not free(m.start(), m.end()):
            continue
        adj = m.group("adj")
        direction, temporal, superlative = _direction(adj)
        if not superlative:
            continue
        if not re.match(r"the\b", m.group(), re.I) and adj.lower() not in ("most", "least", "fewest"):
            continue  # "highest" with no article is a measure's word ("highest price ever")
        if re.search(r"\bat\s+$", text[: m.start()], re.I):
            continue  # "at least 3", "at most 5": a comparison
        of, stop = phrase_after(text, m.end(), limit=3)
        first = re.match(r"\s+first\b", text[stop:], re.I)
        limit = None if first else limit_n[0] if limit_n else 1
        stop += first.end() if first else 0
        start = min(m.start(), limit_n[1][0]) if limit_n else m.start()
        out.append(OrderMention(text[m.start() : stop], (m.start(), stop), direction, limit, of, temporal))
        taken.append((start, stop))
    return sorted(out, key=lambda o: o.span)
