"""The query's shape: its grouping, its order and limit, and its measure, each changed on the AST.

A grouping column (or period of a date column) is returned first and grouped by; an order sorts by
the measure or a column and keeps ``limit`` rows; a measure replaces the query's first aggregate
(and the ORDER BY that named it follows the new name)."""

from __future__ import annotations

from sqlglot import exp

from ctxtool.compose.query import Query
from ctxtool.compose.types import ComposeError, Grouping, Limit, Measure, OrderLimit

_FUNCTIONS: dict[str, type[exp.Expression]] = {
    "count": exp.Count,
    "sum": exp.Sum,
    "avg": exp.Avg,
    "min": exp.Min,
    "max": exp.Max,
}


def measure_of(q: Query) -> exp.Alias | None:
    """The first projection that aggregates (named: unnamed aggregates get a name first)."""
    for i, proj in enumerate(q.tree.expressions):
        if proj.find(exp.AggFunc) is None or proj.find(exp.Window) is not None:
            continue
        if not isinstance(proj, exp.Alias):
            agg = proj.find(exp.AggFunc)
            named = exp.alias_(proj.copy(), agg.key.lower() if agg is not None else f"col{i + 1}")
            proj.replace(named)
            return named
        return proj
    return None


def _period(col: exp.Expression, grain: str, kind: str, dialect: str) -> list[tuple[exp.Expression, str]]:
    """The expressions (and their names) of a date column's period: a year, a year and its quarter,
    a month ('YYYY-MM' text), a day."""
    value = col if ("date" in kind or "time" in kind) else exp.Cast(this=col, to=exp.DataType.build("date"))
    year = exp.Extract(this=exp.var("YEAR"), expression=value.copy())
    if grain == "year":
        return [(year, "year")]
    if grain == "quarter":
        return [(year, "year"), (exp.Extract(this=exp.var("QUARTER"), expression=value.copy()), "quarter")]
    if grain == "month":
        if dialect == "spanner" and "time" in kind:  # FORMAT_DATE takes no TIMESTAMP
            fmt = exp.Anonymous(
                this="FORMAT_TIMESTAMP", expressions=[exp.Literal.string("%Y-%m"), value.copy()]
            )
            return [(fmt, "month")]
        return [(exp.TimeToStr(this=value.copy(), format=exp.Literal.string("%Y-%m")), "month")]
    return [(exp.Cast(this=value.copy(), to=exp.DataType.build("date")), "day")]


def set_grouping(q: Query, g: Grouping) -> None:
    """Group by ``g.column`` (or its period), returning it first; a query without a measure counts
    its rows per group."""
    col, sub, _path = q.reach(g.column)
    if sub is not None:
        raise ComposeError(
            f"{g.column} is on the many side of the query's rows; a grouping by it would repeat them"
        )
    m = measure_of(q)
    if m is None:
        q.tree.set("expressions", [exp.alias_(exp.Count(this=exp.Star()), "count")])
        q.tree.set("distinct", None)
        q.explanation.append("counted the rows per group")
    if g.replace:
        q.tree.set("expressions", [p for p in q.tree.expressions if p.find(exp.AggFunc) is not None])
        q.tree.set("group", None)
        order = q.tree.args.get("order")
        if order is not None:
            kept = [o for o in order.expressions if o.find(exp.AggFunc) or _names_measure(q, o)]
            q.tree.set("order", exp.Order(expressions=kept) if kept else None)
    keys = (
        _period(col, g.grain, q.schema.type_of(g.column), q.dialect) if g.grain else [(col, g.column.column)]
    )
    names = {p.alias_or_name.lower() for p in q.tree.expressions}
    shown = []
    for expr, name in keys:
        label = name if name.lower() not in names else f"{g.column.table}_{name}".lower()
        shown.append(exp.alias_(expr.copy(), label) if g.grain or label != g.column.column else expr.copy())
    groups = list((q.tree.args.get("group") or exp.Group(expressions=[])).expressions)
    groups += [expr.copy() for expr, _ in keys]
    q.tree.set("expressions", [*shown, *q.tree.expressions])
    q.tree.set("group", exp.Group(expressions=groups))
    what = f"{g.grain} of {g.column}" if g.grain else str(g.column)
    q.explanation.append(f"grouped by {what}" + (f" (for {g.said!r})" if g.said else ""))


def _names_measure(q: Query, ordered: exp.Expression) -> bool:
    names = {p.alias_or_name.lower() for p in q.tree.expressions if p.find(exp.AggFunc)}
    return isinstance(ordered.this, exp.Column) and ordered.this.name.lower() in names


def set_order(q: Query, o: OrderLimit) -> None:
    """ORDER BY the key (the measure when none is named), then LIMIT; a placeholder the old LIMIT took
    is dropped with it."""
    if o.key is None:
        m = measure_of(q)
        if m is None:
            raise ComposeError("the query has no measure to order by; name the column to order by")
        key: exp.Expression = exp.column(m.alias)
        what = m.alias
    else:
        col, sub, _path = q.reach(o.key)
        if sub is not None:
            raise ComposeError(f"{o.key} is on the many side of the query's rows; it cannot order them")
        key, what = col, str(o.key)
    q.tree.set("order", exp.Order(expressions=[exp.Ordered(this=key, desc=o.descending)]))
    old = q.tree.args.get("limit")
    if old is not None:
        q.drop_params(old)
        q.tree.set("limit", None)
    if o.limit is not None:
        q.tree.set("limit", exp.Limit(expression=exp.Literal.number(o.limit)))
    how = "descending" if o.descending else "ascending"
    kept = f", kept {o.limit} row{'s' if o.limit != 1 else ''}" if o.limit is not None else ""
    q.explanation.append(f"ordered by {what} {how}{kept}" + (f" (for {o.said!r})" if o.said else ""))


def set_limit(q: Query, lim: Limit) -> None:
    """Keep ``lim.count`` rows of the query's own order (a LIMIT placeholder is dropped with it)."""
    if q.tree.args.get("order") is None:
        raise ComposeError("the query lists its rows in no order; the first rows of it mean nothing")
    old = q.tree.args.get("limit")
    if old is not None:
        q.drop_params(old)
    q.tree.set("limit", exp.Limit(expression=exp.Literal.number(lim.count)))
    q.explanation.append(
        f"kept {lim.count} row{'s' if lim.count != 1 else ''}" + (f" (for {lim.said!r})" if lim.said else "")
    )


def replace_measure(q: Query, m: Measure) -> None:
    """Replace the query's measure by ``m`` (a count of rows, or a function of a column)."""
    old = measure_of(q)
    if old is None:
        raise ComposeError("the query computes no measure to replace")
    if m.column is None:
        value: exp.Expression = exp.Count(this=exp.Star())
        name = "count"
    else:
        col, sub, _path = q.reach(m.column)
        if sub is not None:
            raise ComposeError(f"{m.column} is on the many side of the query's rows; it cannot be measured")
        inner: exp.Expression = exp.Distinct(expressions=[col]) if m.distinct else col
        value = _FUNCTIONS[m.function](this=inner)
        name = f"{m.function}_{m.column.column}".lower()
    before = old.alias
    old.replace(exp.alias_(value, name))
    for ref in (q.tree.args.get("order") or exp.Order(expressions=[])).find_all(exp.Column):
        if ref.name.lower() == before.lower() and not ref.table:
            ref.replace(exp.column(name))
    q.explanation.append(f"measured {name} instead of {before}" + (f" (for {m.said!r})" if m.said else ""))
