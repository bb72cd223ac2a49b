"""Breakdown: "by region", "break it out by gender", "and per year": group by a column (joined through
foreign keys when its table is not in the query yet); a list becomes a count per group."""

from __future__ import annotations

from sqlglot import exp

from ctxtool.conversations.fschema import Dimension, date_part
from ctxtool.conversations.rewrite.base import QueryRewriter, _col


def breakdown(rw: QueryRewriter, dim: Dimension, keep_existing: bool = False) -> None:
    alias = rw.ensure_table(dim.table)
    col: exp.Expression = _col(dim.column, alias)
    if dim.part:
        col = date_part(col, dim.part)
    if rw.measure() is None:
        # a list becomes a count per group
        rw.tree.set("expressions", [exp.alias_(exp.Count(this=exp.Star()), "count")])
        rw.tree.set("distinct", None)
        rw.tree.set("limit", None)
        rw.explanation.append("counted the rows per group")
    if not keep_existing:
        rw.tree.set("expressions", [p for p in rw.tree.expressions if p.find(exp.AggFunc)])
        rw.tree.set("group", None)
    rw.tree.set("expressions", [exp.alias_(col.copy(), dim.label), *rw.tree.expressions])
    groups = list((rw.tree.args.get("group") or exp.Group(expressions=[])).expressions)
    groups.append(col.copy())
    rw.tree.set("group", exp.Group(expressions=groups))
    rw.order_by_measure()
    rw.explanation.append(f"broke the result out by {dim.table}.{dim.column}")
