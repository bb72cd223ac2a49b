"""Verifying a candidate: the checks that similarity cannot make.

A sentence encoder rates "Which artist has the most albums?" and "... the fewest albums?" 0.92
alike; what tells them apart is the words that decide what a query computes (the canonical tokens
of :mod:`ctxtool.runtime.text`). They are compared by *axis*: an opposite on the same axis (most vs
fewest, above vs below, before vs after, a negation on one side only) is a different question; a
word on one side only (the question says "most", the template says nothing of an order) is weaker
evidence against; words of the same direction ("more than" / "at least") agree.
"""

from __future__ import annotations

import re
from functools import lru_cache

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
# the token of no known direction on each axis a SQL construct realizes (grounded_ops)
_NEUTRAL = {"extreme": "__superlative", "compare": "__comparative", "recency": "__recency", "time": "__timed"}
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


# -- what the SQL computes decides a word only one side states -------------------------------------
# axes one SQL construct realizes: an ORDER BY (with a LIMIT, or MIN/MAX) puts an end first, whether
# the words say "the highest", "the youngest" or "the first"; a comparison operator compares a number
# or a date
_FAMILY = {"extreme": "end", "recency": "end", "compare": "range", "time": "range"}
_STRINGS = re.compile(r"'(?:[^']|'')*'")
_ORDERED = re.compile(r"\border\s+by\b", re.I)
_LIMITED = re.compile(r"\blimit\s+(?:\d+|\$\d+|%s|\?)", re.I)
_MIN_MAX = re.compile(r"\b(?:min|max)\s*\(", re.I)
_COMPARE = re.compile(r"(?<![<>!=])(?:<=|>=|<|>)(?![<>=])|\bbetween\b", re.I)
_NEGATES = re.compile(r"\bnot\b|\bexcept\b|!=|<>", re.I)
_CALLS = {
    "__count": re.compile(r"\bcount\s*\(", re.I),
    "__sum": re.compile(r"\bsum\s*\(", re.I),
    "__avg": re.compile(r"\bavg\s*\(", re.I),
}


@lru_cache(maxsize=20_000)
def sql_realizes(sql: str) -> frozenset[str]:
    """The operator axes and aggregates a query computes (``end``, ``range``, ``negation``,
    ``__count``, ``__sum``, ``__avg``): the SQL, not the wording, says what a query does."""
    bare = _STRINGS.sub("''", sql)
    out: set[str] = set()
    if _ORDERED.search(bare) or _MIN_MAX.search(bare):
        out.add("end")
    if (_ORDERED.search(bare) and _LIMITED.search(bare)) or _MIN_MAX.search(bare):
        out.add("one end")  # an ORDER BY alone lists every row: no "the latest" one
    if _COMPARE.search(bare):
        out.add("range")
    if _NEGATES.search(bare):
        out.add("negation")
    out |= {tok for tok, call in _CALLS.items() if call.search(bare)}
    return frozenset(out)


def grounded_ops(
    question_ops: set[str],
    template_ops: set[str],
    realized: frozenset[str],
) -> tuple[set[str], set[str]]:
    """The operator words of both sides as the template's SQL reads them.

    A word of the template's wording that its SQL does not compute is no operator of it ("the phone
    number of", "the first name", "the policy under code X" compute no count, no end, no comparison);
    a word only the question states is answered when the SQL computes it in the wording's own terms
    ("aged 25 or older" is ``age >= 25``; "the youngest" is an ORDER BY ... LIMIT however it is said)."""

    def kept(tok: str) -> bool:
        if tok in _CALLS:
            return tok in realized
        axis = _AXES.get(tok, ("", 0))[0]
        return _FAMILY.get(axis) in realized if axis in _FAMILY else True

    q_axes = {_AXES[t][0] for t in question_ops if t in _AXES}
    # "the last names" against "the first names": words on one axis both sides state still differ
    t_ops = {t for t in template_ops if kept(t) or t in question_ops or _AXES.get(t, ("", 0))[0] in q_axes}
    q_ops = set(question_ops)
    q_families = {_FAMILY[_AXES[t][0]] for t in q_ops if t in _AXES and _AXES[t][0] in _FAMILY}
    for tok in question_ops - t_ops:
        if tok in _CALLS and tok in realized and not (template_ops & set(_CALLS)) - {tok}:
            t_ops.add(tok)  # "how many" said in other words ("the number of", "count")
            continue
        axis = _AXES.get(tok, ("", 0))[0]
        fam = _FAMILY.get(axis)
        wanted = "one end" if fam == "end" else fam
        if fam and wanted in realized and not any(_AXES.get(t, ("", 0))[0] == axis for t in t_ops):
            t_ops.add(_NEUTRAL[axis])  # said in words the canonical tokens do not know
    for tok in list(t_ops - question_ops):
        axis = _AXES.get(tok, ("", 0))[0]
        fam = _FAMILY.get(axis)
        if fam and fam in q_families and not any(_AXES.get(q, ("", 0))[0] == axis for q in q_ops):
            q_ops.add(_NEUTRAL[axis])  # "the youngest" against "the smallest age": one end, two axes
    return q_ops, t_ops
