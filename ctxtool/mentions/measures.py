"""Measures: what a question computes. "how many", "the number of", "count of" are a count; "total",
"sum of" a sum ("the total number of" is a count); "average", "mean" an average; "maximum",
"minimum" and a superlative said of a quantity ("the highest price") its maximum or minimum, unless
the superlative picks rows ("the customer with the highest total") which is an order."""

from __future__ import annotations

import re

from ctxtool.mentions.phrases import phrase_after
from ctxtool.mentions.types import MeasureMention

_MEASURE = re.compile(
    r"\b(?P<share>percentage|percent|share|proportion|fraction)\s+of\b"
    r"|\b(?P<sum_much>how\s+much)\b"
    r"|\b(?P<count_noun>count)\b(?!\s+(?:of|the)\b)"
    r"|\b(?P<count>how\s+many|(?:the\s+)?(?:total\s+)?(?:number|count)\s+of|count\s+(?=the\b))"
    r"|\b(?P<sum>total|sum\s+of|summed)\b(?!\s+(?:number|count)\s+of)(?!\s+of\s+(?:the\s+)?(?:number|count)\b)"
    r"|\b(?P<avg>average|mean|avg)\b"
    r"|\b(?P<max>maximum|max|highest|largest|biggest|greatest)\b(?!\s+(?:number|count)\s+of)"
    r"|\b(?P<min>minimum|min|lowest|smallest)\b(?!\s+(?:number|count)\s+of)",
    re.I,
)
# "with the highest", "has the most": the superlative picks rows, an order (see orders.py)
# a word before "number of" that makes it a compound noun ("the phone number of X"), not a count
_COUNTING_BEFORE = frozenset(
    "the a an total average and or of by in with for per what which whose their its our your how".split()
)
_PICKS = re.compile(r"\b(?:with|has|have|had|having|gets?|got|by|of)\s+the\s*$", re.I)
_IN_TOTAL = re.compile(r"\bin\s+$", re.I)


def find_measures(text: str) -> list[MeasureMention]:
    """The measures ``text`` asks for, in order."""
    out: list[MeasureMention] = []
    for m in _MEASURE.finditer(text):
        function = m.lastgroup or ""
        before = text[: m.start()]
        if function == "count_noun":  # "customer count": the count of the noun before it
            prev = re.search(r"([A-Za-z]+)\s+$", before)
            if prev is None or prev.group(1).lower() in _COUNTING_BEFORE:
                continue
            out.append(MeasureMention(m.group(), (m.start(), m.end()), "count", prev.group(1)))
            continue
        if function == "sum_much":  # "how much ... in total": an amount summed
            out.append(MeasureMention(m.group(), (m.start(), m.end()), "sum", ""))
            continue
        if function == "count" and re.match(r"(?:number|count)", m.group(), re.I):
            prev = re.search(r"([A-Za-z]+)\s+$", before)
            if prev is not None and prev.group(1).lower() not in _COUNTING_BEFORE:
                continue  # "the phone number of X" names a column, not a count
        if out and m.start() < out[-1].span[1]:  # "the average invoice total": one measure
            continue
        if function == "sum" and _IN_TOTAL.search(before):  # "how many ... in total"
            continue
        if function in ("max", "min") and _PICKS.search(before):
            continue
        of, end = phrase_after(text, m.end(), join_of=function != "count")
        if function in ("max", "min") and (not of or re.match(r"\s+first\b", text[end:], re.I)):
            continue  # "the biggest orders first" is an order
        if function == "count" and m.group().lower().startswith("count") and not of:
            continue
        out.append(MeasureMention(text[m.start() : end].strip(), (m.start(), end), function, of))
    return out
