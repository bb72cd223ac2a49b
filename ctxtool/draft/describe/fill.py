"""Concrete values for the placeholders of workload digests, from the profile of the column each
placeholder is compared with (so a digest drafts a template that can be executed and checked)."""

from __future__ import annotations

from sqlglot import exp

from ctxtool.draft.describe.scope import Scope
from ctxtool.draft.model import Column, Model, format_number
from ctxtool.draft.workload import parse


def instantiate(sql: str, model: Model, variant: int = 0) -> str | None:
    """``sql`` (a digest with ``?``/``$n`` placeholders) with a concrete value for each placeholder,
    taken from the profile (or a sample) of the column it is compared with; ``variant`` picks other
    values, so a value that finds nothing can be replaced. None when a placeholder has no column."""
    tree = parse(sql, model.dialect)
    if tree is None:
        return None
    failed = False

    def fill(node: exp.Expression) -> exp.Expression:
        nonlocal failed
        if not isinstance(node, (exp.Placeholder, exp.Parameter)):
            return node
        parent = node.parent
        if isinstance(parent, (exp.Limit, exp.Offset)) or (
            parent is not None and isinstance(parent.parent, exp.Limit)
        ):
            return exp.Literal.number(
                10 if isinstance(parent, exp.Limit) or isinstance(parent.parent, exp.Limit) else 0
            )
        sel = node.find_ancestor(exp.Select)
        cmp = parent
        while isinstance(cmp, (exp.Cast, exp.Paren, exp.Neg, exp.Tuple)):
            cmp = cmp.parent
        if isinstance(cmp, exp.In):
            other = cmp.this
        elif isinstance(cmp, exp.Between):
            other = cmp.this
        elif isinstance(cmp, exp.Binary):
            other = cmp.expression if cmp.this is node or node in cmp.this.find_all(type(node)) else cmp.this
        else:
            failed = True
            return node
        if sel is None:
            failed = True
            return node
        scope = Scope(model, sel)
        col = scope.column(other)
        if col is None:
            failed = True
            return node
        value = _pick_value(model, col, cmp, node, variant)
        if value is None:
            failed = True
            return node
        return value

    filled = tree.transform(fill)
    if failed:
        return None
    from ctxtool.dialects import sqlglot_dialect

    return filled.sql(dialect=sqlglot_dialect(model.dialect))


def _pick_value(
    model: Model, col: Column, cmp: exp.Expression, node: exp.Expression, variant: int = 0
) -> exp.Expression | None:
    if col.category == "number" and (prof := col.profile or {}) and isinstance(prof.get("min"), (int, float)):
        lo, hi = prof["min"], prof["max"]
        if isinstance(cmp, exp.Between):
            first = cmp.args.get("low") is node
            return exp.Literal.number(format_number(lo + (hi - lo) / 4 if first else lo + 3 * (hi - lo) / 4))
        if isinstance(cmp, (exp.GT, exp.GTE, exp.LT, exp.LTE)):
            from ctxtool.draft.model import nice_number

            return exp.Literal.number(format_number(nice_number(lo + (hi - lo) / 2)))
    values = model.values(col, 10)
    if not values:
        return None
    v = values[variant % len(values)]
    if col.category == "date":
        prof = col.profile or {}
        if isinstance(cmp, exp.Between) and prof.get("min") and prof.get("max"):
            v = prof["min"] if cmp.args.get("low") is node else prof["max"]
        elif isinstance(cmp, (exp.GT, exp.GTE, exp.LT, exp.LTE)) and prof.get("min") and prof.get("max"):
            # a range of a digest (`date >= ? AND date < ?`): the profiled bounds, not one value twice
            lower = isinstance(cmp, (exp.GT, exp.GTE)) == (cmp.this is not node)
            bounds = (prof["min"], prof["max"]) if variant % 2 == 0 else (v, prof["max"])
            v = bounds[0] if lower else bounds[1]
        text = str(v)[:10] if not col.is_timestamp else str(v).replace("T", " ")
        return exp.Literal.string(text)  # a plain string, as drafted SQL writes dates
    if col.category == "number" and not isinstance(v, str):
        return exp.Literal.number(format_number(v))
    if isinstance(v, bool):
        return exp.Boolean(this=v)
    return exp.Literal.string(str(v))
