"""Verifying a candidate: the checks that similarity cannot make.

A sentence encoder rates "Which artist has the most albums?" and "... the fewest albums?" 0.92
alike; what tells them apart is the words that decide what a query computes (the canonical tokens
of :mod:`ctxtool.english.content`). They are compared by *axis*: an opposite on the same axis (most vs
fewest, above vs below, before vs after, a negation on one side only) is a different question; a
word on one side only (the question says "most", the template says nothing of an order) is weaker
evidence against; words of the same direction ("more than" / "at least") agree.
"""

from __future__ import annotations

# canonical token -> (axis, direction)
_AXES: dict[str, tuple[str, int]] = {
    "__max": ("extreme", 1),
    "__min": ("extreme", -1),
    "__max_date": ("recency", 1),
    "__min_date": ("recency", -1),
    "__gt": ("compare", 1),
    "__gte": ("compare", 1),
    "__lt": ("compare", -1),
    "__lte": ("compare", -1),
    "__after": ("time", 1),
    "__before": ("time", -1),
    "__not": ("negation", 1),
    "__desc": ("order", 1),  # descending vs ascending (alphabetical): stated or not, never opposite
    "__asc": ("order", -1),
    "__both": ("conjunction", 1),  # both A and B (an intersection) against either A or B (a union)
    "__either": ("conjunction", -1),
    # an adjective's degree without a known direction ("cheapest", "cheaper than"): either way
    "__superlative": ("extreme", 0),
    "__comparative": ("compare", 0),
    "__recency": ("recency", 0),  # an end of a date, direction unknown (only as grounded_ops adds it)
    "__timed": ("time", 0),  # a point in time compared, direction unknown (idem)
}
_AGGREGATES = frozenset({"__count", "__avg", "__sum"})

OPPOSITE = 0.3  # most vs fewest: another question
NEGATION = 0.4  # "do not have" vs "have"
ONE_SIDED = 0.75  # an order or comparison only one side states
AGGREGATE_CLASH = 0.6  # average vs total
AGGREGATE_ONE_SIDED = 0.9  # "number of" is often only how people say it ("the most number of songs")
AGGREGATE_UNSAID = 0.75  # "how many campuses" is not "which campuses"; "crimes in 1995" may be short for it


def _label(token: str) -> str:
    return token.strip("_").replace("_", " ")


def operator_agreement(question_ops: set[str], template_ops: set[str]) -> tuple[float, list[str]]:
    """A factor in (0, 1] and the disagreements found, for the operator words of both sides."""
    factor = 1.0
    found: list[str] = []
    q_axes: dict[str, set[int]] = {}
    t_axes: dict[str, set[int]] = {}
    for tok in question_ops:
        if tok in _AXES:
            axis, d = _AXES[tok]
            q_axes.setdefault(axis, set()).add(d)
    for tok in template_ops:
        if tok in _AXES:
            axis, d = _AXES[tok]
            t_axes.setdefault(axis, set()).add(d)
    for axis in set(q_axes) | set(t_axes):
        q, t = q_axes.get(axis, set()), t_axes.get(axis, set())
        if q == t or (q and t and (0 in q or 0 in t)):
            continue
        if axis in ("conjunction", "order") and not (q and t):
            continue  # "or" alone is how people list things
        if axis == "negation":
            factor *= NEGATION
            found.append("negation (" + ("the question" if q else "the template") + " says not)")
        elif q and t and not (q & t):
            factor *= OPPOSITE
            found.append(f"opposite {axis}")
        elif q and t:
            continue  # "the largest and the smallest" against "the largest": the template covers a part
        else:
            factor *= ONE_SIDED
            found.append(f"{axis} stated by the {'question' if q else 'template'} only")
    qa, ta = question_ops & _AGGREGATES, template_ops & _AGGREGATES
    if qa and ta and not (qa & ta):
        factor *= AGGREGATE_CLASH
        found.append(f"{'/'.join(sorted(map(_label, qa)))} vs {'/'.join(sorted(map(_label, ta)))}")
    else:
        for side, ops, alone in (("question", question_ops, qa - ta), ("template", template_ops, ta - qa)):
            if not alone:
                continue
            if "extreme" in {_AXES[t][0] for t in ops if t in _AXES}:
                factor *= AGGREGATE_ONE_SIDED  # "the most number of songs": an order, said twice
            else:
                factor *= AGGREGATE_UNSAID ** len(alone)
                found.append(f"{'/'.join(sorted(map(_label, alone)))} asked by the {side} only")
    return factor, found
