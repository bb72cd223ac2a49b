"""Checks on a template and its facets read as one query: conditions the matcher would AND that
the question joins otherwise ("A or B"), or that no row can meet together (the question then asks
for rows of either kind, or for things with rows of both kinds)."""

from __future__ import annotations

import re

from ctxtool.runtime.question.values import Entity
from ctxtool.runtime.templates.compiled import Compiled

_LOWER = frozenset({"gt", "gte"})  # slot operators that bound a column from below / above
_UPPER = frozenset({"lt", "lte"})
_UNION = re.compile(r"\b(?:OR|INTERSECT|UNION|EXCEPT)\b", re.I)


def or_between(
    question: str, entities: list[Entity], before: list[int], fb: dict[str, tuple[int, float]]
) -> bool:
    """The question joins a value already used (the template's, an earlier facet's) and one of this
    facet's with "or" ("height over 5000 or prominence over 1000"): a union, which an ANDed facet
    would turn into an intersection."""
    if not question or not before or not fb:
        return False
    spans = sorted(
        (entities[i].start, entities[i].end, i in before) for i in [*before, *(i for i, _ in fb.values())]
    )
    for (_, a_end, a_old), (b_start, _, b_old) in zip(spans, spans[1:], strict=False):
        if a_old != b_old and re.search(r"\bor\b", question[a_end:b_start], re.I):
            return True
    return False


def empty_range(uses: list[tuple[Compiled, dict[str, tuple[int, float]]]], entities: list[Entity]) -> bool:
    """The conditions ANDed hold one column above a bound and below a smaller one ("requested more
    than 140000" and "less than 120000"): no row passes both, so the question means rows of either
    kind, or things that have rows of both kinds, not this intersection."""
    low: dict[str, float] = {}
    high: dict[str, float] = {}
    if len(uses) < 2:
        return False  # a template alone is as curated: its own OR or INTERSECT holds its bounds
    if _UNION.search(uses[0][0].sql):
        uses = uses[1:]
    for item, bindings in uses:
        for slot in item.slots:
            if not slot.column or slot.operator not in _LOWER | _UPPER or slot.key not in bindings:
                continue
            try:
                v = float(entities[bindings[slot.key][0]].value)
            except (TypeError, ValueError):
                continue
            if slot.operator in _LOWER:
                low[slot.column] = max(v, low.get(slot.column, v))
            else:
                high[slot.column] = min(v, high.get(slot.column, v))
    return any(c in high and low[c] >= high[c] for c in low)
