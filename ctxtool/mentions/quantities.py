"""Numbers with their unit and comparison: "longer than 6 minutes" (gt 6 minute, 360 s), "more than
$40" (gt 40 $), "over 11 tracks" (gt 11 track), "at least 3" (gte 3), "10 or more" (gte 10).

The numbers are the question's literals (digits, number words, "twice", scales such as "5k"); the
comparison is the canonical operator the words before or after them state, read through the
lexicon's phrases; the unit is the noun that follows (its lemma) or a currency sign before it. Years
that are times, dates, and the count of a "top 5" are other mentions and are left out here.
"""

from __future__ import annotations

import re

from ctxtool.english.content import content_tokens
from ctxtool.english.lexicon import DURATION_SECONDS, STOPWORDS
from ctxtool.english.literals import find_literals
from ctxtool.english.tokens import lemma
from ctxtool.mentions.types import NumberMention, Span

_CURRENCY = re.compile(r"([$€£¥])\s*$")
_CURRENCY_WORDS = frozenset({"dollar", "euro", "pound", "yen", "cent", "usd", "eur", "gbp"})
_OPS = {"__gt": "gt", "__gte": "gte", "__lt": "lt", "__lte": "lte", "__after": "gt", "__before": "lt"}
_EXACTLY = re.compile(r"\b(?:exactly|equal\s+to|equals?|just|only)\s+\$?\s*$", re.I)
_UNIT = re.compile(r"^\s*([A-Za-z]+)")
_COMPARATIVE_THAN = re.compile(r"\b([a-z]+er|more\s+[a-z]+|less\s+[a-z]+)\s+than\s+\$?\s*$", re.I)
_NEGATED = {"gt": "lte", "gte": "lt", "lt": "gte", "lte": "gt"}
_MONEY = re.compile(r"[$€£¥]\s?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)")
_LONGER = {"long": "gt", "short": "lt", "old": "gt", "young": "lt", "cheap": "lt", "expensive": "gt"}


def find_numbers(text: str, taken: list[Span] = ()) -> list[NumberMention]:  # type: ignore[assignment]
    """The numbers of ``text`` outside the spans ``taken`` by other mentions (times, limits)."""
    out: list[NumberMention] = []
    numbers = [(lit.start, lit.end, lit.value) for lit in find_literals(text) if lit.kind == "number"]
    for m in _MONEY.finditer(text):  # "$40": a sum of money (the literals leave signed amounts out)
        raw = m.group(1).replace(",", "")
        numbers.append((m.start(1), m.end(1), float(raw) if "." in raw else int(raw)))
    for start, end, value in sorted(numbers, key=lambda n: n[0]):
        if any(a < end and start < b for a, b in taken) or not isinstance(value, (int, float)):
            continue
        before, after = text[:start], text[end:]
        bound = re.match(
            r"\s*(?:or|and)\s+(?:more|less|fewer|greater|higher|lower|above|below|over|under)\b", after
        )
        unit: str | None = "$" if _CURRENCY.search(before) else None
        span_start, span_end = start, end
        if unit:
            span_start = _CURRENCY.search(before).start()  # type: ignore[union-attr]
        skip = bound.end() if bound else 0
        m = _UNIT.match(after[skip:])
        if m and unit is None:
            word = m.group(1).lower()
            base = lemma(word)[0]
            if word not in STOPWORDS and base not in STOPWORDS and not content_tokens(word)[:1] == ["__gte"]:
                if not base.startswith("__") and not any(t.startswith("__") for t in content_tokens(word)):
                    unit = "$" if base in _CURRENCY_WORDS else base
                    span_end = end + skip + m.end()
        comparison, span_start = _comparison(text, before, after, span_start)
        seconds = value * DURATION_SECONDS[unit] if unit in DURATION_SECONDS else None
        out.append(
            NumberMention(text[span_start:span_end], (span_start, span_end), value, unit, comparison, seconds)
        )
    return out


def _comparison(text: str, before: str, after: str, start: int) -> tuple[str | None, int]:
    """The comparison stated around a number and where its words begin."""
    bound = re.match(r"\s*(?:or|and)\s+([a-z]+)\b(?!\s+than)", after, re.I)
    if bound:
        said = content_tokens(f"or {bound.group(1)}")
        for token in said:
            if token in ("__gte", "__lte"):
                return _OPS[token], start
    if _EXACTLY.search(before):
        return "eq", _EXACTLY.search(before).start()  # type: ignore[union-attr]
    words = list(re.finditer(r"\S+", before))[-5:]
    for k in reversed(range(len(words))):
        phrase = before[words[k].start() :]
        said = [t for t in content_tokens(phrase) if t in _OPS]
        if said:
            op = _OPS[said[-1]]
            if k and words[k - 1].group().lower() in ("not", "no"):  # "not more than 5"
                return _NEGATED[op], words[k - 1].start()
            return op, words[k].start()
    than = _COMPARATIVE_THAN.search(before)
    if than:
        word = than.group(1).lower().split()
        if word[0] in ("more", "less"):
            return ("gt" if word[0] == "more" else "lt"), than.start()
        base = lemma(word[0])[0]
        if base in _LONGER:
            return _LONGER[base], than.start()
        return None, than.start()
    return None, start
