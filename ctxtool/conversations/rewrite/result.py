"""Over the result: "how many are there?", "which of these has the most?", "the total of those": a query over the
previous result."""

from __future__ import annotations

from sqlglot import exp

from ctxtool.conversations.fschema import FollowupError
from ctxtool.conversations.rewrite.base import QueryRewriter


def over_result(rw: QueryRewriter, op: str) -> None:
    """Replace the query by one over its own result ("how many of them", "which has the most")."""
    if rw.aggregated() or (op != "count" and rw.one_row()):
        # "which of those ..." after a count: a one-row result has no row to pick
        raise FollowupError("the previous result is one row: there is nothing to pick from")
    inner = rw.tree
    m = rw.measure()
    dims = [d.alias_or_name for d in rw.dimensions() if d.alias_or_name]
    sub = exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier("prev_result")))
    if op == "count":
        rw.tree = exp.select(exp.alias_(exp.Count(this=exp.Star()), "count")).from_(sub)
        rw.explanation.append("counted the rows of the previous result")
        return
    if m is None:
        raise FollowupError("the previous result has no measure to compare")
    measure = exp.column(m.alias, table="prev_result")
    if op in ("sum", "avg"):
        fn = exp.Sum(this=measure) if op == "sum" else exp.Avg(this=measure)
        rw.tree = exp.select(exp.alias_(fn, f"{op}_{m.alias}")).from_(sub)
        rw.explanation.append(f"took the {op} of {m.alias} over the previous result")
        return
    order = [exp.Ordered(this=measure, desc=op == "max")]
    order += [exp.Ordered(this=exp.column(d, table="prev_result"), desc=False) for d in dims]
    rw.tree = exp.select(exp.Star()).from_(sub).order_by(*order).limit(1)
    rw.explanation.append(f"picked the row with the {'highest' if op == 'max' else 'lowest'} {m.alias}")
