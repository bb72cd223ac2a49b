"""Top N: "keep the top 5 and include a rank": order by the measure, keep the first N, optionally a
``RANK()`` column."""

from __future__ import annotations

from sqlglot import exp

from ctxtool.conversations.fschema import FollowupError
from ctxtool.conversations.rewrite.base import QueryRewriter


def top(rw: QueryRewriter, n: int, ascending: bool = False, rank: bool = False) -> None:
    m = rw.measure()
    if m is None:
        raise FollowupError(
            "the previous result has no measure to rank by; ask for a count or sum by something first"
        )
    rw.order_by_measure(descending=not ascending)
    if rank:
        add_rank(rw, ascending)
    rw.tree.set("limit", exp.Limit(expression=exp.Literal.number(n)))
    rw.explanation.append(f"kept the {'bottom' if ascending else 'top'} {n} by {m.alias}")


def add_rank(rw: QueryRewriter, ascending: bool = False) -> None:
    m = rw.measure()
    if m is None:
        raise FollowupError("the previous result has no measure to rank by")
    if any(p.alias_or_name.lower() == "rank" for p in rw.tree.expressions):
        return
    window = exp.Window(
        this=exp.Anonymous(this="RANK", expressions=[]),
        order=exp.Order(expressions=[exp.Ordered(this=m.this.copy(), desc=not ascending)]),
    )
    rw.tree.set("expressions", [*rw.tree.expressions, exp.alias_(window, "rank")])
    if not rw.tree.args.get("order"):
        rw.order_by_measure(descending=not ascending)
    rw.explanation.append("added a rank")
