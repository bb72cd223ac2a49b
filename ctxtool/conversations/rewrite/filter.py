"""Filter: "what about Brno?", "only gold cards": a linked value replaces the previous value on the same
column (or of the same table), or is added as a condition; a facet's condition is ANDed in."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlglot import exp

from ctxtool.conversations.fschema import FollowupError
from ctxtool.conversations.rewrite.base import LinkedFilter, QueryRewriter, _col


def filter_value(rw: QueryRewriter, f: LinkedFilter, add: bool = False) -> None:
    table, _, column = f.column.rpartition(".")
    # replace the value of a slot on the same column
    if not add:
        for key, slot in rw.slots.items():
            if slot.column == f.column.lower() and slot.operator in ("eq", "like", None) and key in rw.values:
                old = rw.values[key]
                rw.values[key] = f.value
                rw.explanation.append(f"replaced {old!r} by {f.value!r} on {f.column}")
                return
        # a value of another column of the same table replaces that table's equality filter
        for key, slot in rw.slots.items():
            if (
                slot.column
                and slot.operator == "eq"
                and slot.column.split(".")[0] == table.lower()
                and not slot.wrapped
            ):
                if _drop_condition(rw, key):
                    rw.explanation.append(f"dropped the filter on {slot.column}")
                    break
    if not table:
        raise FollowupError(f"linked value {f.value!r} has no table.column")
    real = next((n for n in rw.schema.names.values() if n.lower() == table.lower()), table)
    alias = rw.ensure_table(real)
    real_col = column
    for c in rw.schema.columns.get(table.lower(), []):
        if c.name.lower() == column.lower():
            real_col = c.name
    col: exp.Expression = _col(real_col, alias)
    if f.part:
        col = exp.Extract(this=exp.var(f.part.upper()), expression=col)
    rw.tree.where(exp.EQ(this=col, expression=rw.new_param(f.value)), append=True, copy=False)
    rw.explanation.append(f"added the filter {f.column} = {f.value!r}")


def add_condition(rw: QueryRewriter, snippet: str, params: Sequence[Any]) -> None:
    """AND a facet's parameterized condition into the query (joining its tables if needed)."""
    stext, skeys = rw._sp.to_sentinels(snippet, rw.dialect, "f")
    rw._new += 1
    rename = {}
    for key in skeys:
        new_key = f"f{rw._new}_{key[1:]}"
        rename[key] = new_key
        rw.values[new_key] = params[int(key[1:]) - 1]
    for old, new in rename.items():
        stext = stext.replace(f"__ctxp_{old}__", f"__ctxp_{new}__")
    cond = rw._sp.parse(f"SELECT 1 WHERE {stext}", rw.dialect).args["where"].this
    for col in cond.find_all(exp.Column):
        if col.table:
            real = next((n for n in rw.schema.names.values() if n.lower() == col.table.lower()), col.table)
            alias = (
                rw.ensure_table(real) if rw.schema.names else rw.tables().get(col.table.lower(), col.table)
            )
            col.set("table", exp.to_identifier(alias))
    rw.tree.where(cond, append=True, copy=False)
    rw.explanation.append(f"added the condition {snippet}")


def _drop_condition(rw: QueryRewriter, key: str) -> bool:
    where = rw.tree.args.get("where")
    if where is None:
        return False
    for node in list(where.find_all(exp.EQ, exp.Like, exp.ILike)):
        if any(c.name == f"__ctxp_{key}__" for c in node.find_all(exp.Column)):
            parent = node.parent
            if isinstance(parent, exp.Where):
                rw.tree.set("where", None)
            elif isinstance(parent, exp.And):
                other = parent.expression if parent.this is node else parent.this
                parent.replace(other)
            else:
                return False
            rw.values.pop(key, None)
            return True
    return False
