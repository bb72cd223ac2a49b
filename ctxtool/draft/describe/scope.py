"""The tables of one SELECT and the literal values of its conditions, as the describer reads them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from sqlglot import exp

from ctxtool.draft.model import Column, Model, Table


@dataclass(frozen=True)
class Edge:
    child: Table
    parent: Table


def key_strength(col: Column) -> int:
    """How surely the column identifies its table's rows: 2 for its one-column primary key or (where
    none is declared) a column named ``id`` or after its table (``shelfid`` of ``shelf``), 1 for a
    first column named like an id (ids come first), else 0."""
    if col.table.primary_key:
        return 2 if col.in_pk and len(col.table.primary_key) == 1 else 0
    name = col.name.lower().replace("_", "")
    table = col.table.name.lower().replace("_", "")
    if name == "id" or name in (table + "id", table.rstrip("s") + "id"):
        return 2
    return 1 if col is col.table.columns[0] and name.endswith("id") else 0


_DATE_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?")


def dated(col: Column | None) -> bool:
    """A column of dates, declared so or a text column whose values are all ISO dates
    (``'2008-04-24 10:00'``): ordered and compared as points in time ("the latest", "after")."""
    if col is None:
        return False
    if col.category == "date":
        return True
    if col.category != "text":
        return False
    values = [v for v in col.common_values if v is not None]
    prof = col.profile or {}
    values += [v for v in (prof.get("min"), prof.get("max")) if v is not None]
    return bool(values) and all(isinstance(v, str) and _DATE_TEXT.fullmatch(v.strip()) for v in values)


def _is_key(col: Column) -> bool:
    return key_strength(col) > 0


class Scope:
    """The tables of one SELECT (aliases resolved) and how to find a column's table."""

    def __init__(self, model: Model, select: exp.Select) -> None:
        self.model = model
        self.select = select
        self.aliases: dict[str, Table] = {}
        self.order: list[Table] = []
        self.subject: Table | None = None  # the table whose rows are counted or measured, when not FROM's
        self.same_rows: set[Table] = (
            set()
        )  # joined tables with one row per main row: their columns are its own
        for t in select.find_all(exp.Table):
            if t.find_ancestor(exp.Select) is not select:
                continue
            table = model.table(t.name, t.db or None)
            if table is None:
                continue
            self.aliases[(t.alias_or_name).lower()] = table
            self.aliases.setdefault(t.name.lower(), table)
            if table not in self.order:
                self.order.append(table)

    @cached_property
    def joins(self) -> list[Edge]:
        """Child -> parent pairs among the query's tables: the model's foreign keys, and the joins the
        query writes itself (``a.x = b.id`` with ``b.id`` the primary key of ``b``: ``a`` references
        ``b``), since many databases declare none."""
        out = [
            Edge(j.child, j.parent)
            for j in self.model.joins
            if j.child in self.order and j.parent in self.order
        ]
        for eq in self.select.find_all(exp.EQ):
            if eq.find_ancestor(exp.Select) is not self.select:
                continue
            a, b = self.column(eq.this), self.column(eq.expression)
            if a is None or b is None or a.table is b.table:
                continue
            a_key, b_key = key_strength(a), key_strength(b)
            if a_key == b_key and not a.table.primary_key and not b.table.primary_key:
                a_key, b_key = int(a is a.table.columns[0]), int(b is b.table.columns[0])  # ids come first
            if a_key == b_key:
                continue
            a_key = a_key > b_key
            child, parent = (b.table, a.table) if a_key else (a.table, b.table)
            if not any(e.child is child and e.parent is parent for e in out):
                out.append(Edge(child, parent))
        return out

    @property
    def main(self) -> Table | None:
        if self.subject is not None:
            return self.subject
        from_ = self.select.args.get("from") or self.select.args.get("from_")
        if from_ is not None and isinstance(from_.this, exp.Table):
            t = self.aliases.get(from_.this.alias_or_name.lower())
            if t is not None:
                return t
        return self.order[0] if self.order else None

    def bottom(self) -> Table | None:
        """The one table of the join that references another of its tables and is referenced by none:
        the rows ``COUNT(*)`` counts when parents are joined to it (tracks joined to their genre)."""
        if len(self.order) < 2:
            return None
        joins = self.joins
        found = [
            t
            for t in self.order
            if any(j.child is t for j in joins) and not any(j.parent is t and j.child is not t for j in joins)
        ]
        return found[0] if len(found) == 1 else None

    def column(self, node: exp.Expression | None) -> Column | None:
        """The model column a (possibly wrapped) column expression refers to."""
        while isinstance(node, (exp.Cast, exp.Paren, exp.Lower, exp.Upper, exp.Trim)):
            node = node.this
        if not isinstance(node, exp.Column):
            return None
        name = node.name
        if node.table:
            t = self.aliases.get(node.table.lower())
            return t.column(name) if t else None
        for t in self.order:
            c = t.column(name)
            if c is not None:
                return c
        return None


def _value_text(node: exp.Expression, col: Column | None = None) -> str:
    """A literal as a question writes it: strings quoted, numbers and dates bare."""
    while isinstance(node, (exp.Paren,)):
        node = node.this
    if (
        col is not None
        and col.category in ("date", "number")
        and isinstance(node, exp.Literal)
        and node.is_string
    ):
        return node.this
    if isinstance(node, exp.Neg):
        return "-" + _value_text(node.this)
    if isinstance(node, (exp.Cast, exp.TsOrDsToDate, exp.StrToDate)) and isinstance(node.this, exp.Literal):
        return node.this.this
    if isinstance(node, exp.Literal):
        return node.this if not node.is_string else f"'{node.this}'"
    if isinstance(node, exp.Boolean):
        return "true" if node.this else "false"
    if isinstance(node, (exp.Placeholder, exp.Parameter)):
        return "a given value"
    return node.sql()


def _is_value(node: exp.Expression | None) -> bool:
    while isinstance(node, (exp.Paren, exp.Neg, exp.Cast, exp.TsOrDsToDate, exp.StrToDate)):
        node = node.this
    return isinstance(node, (exp.Literal, exp.Boolean, exp.Placeholder, exp.Parameter))


def _year_column(scope: Scope, node: exp.Expression) -> Column | None:
    if isinstance(node, exp.Extract) and node.this.name.lower() == "year":
        return scope.column(node.expression)
    if isinstance(node, exp.Year):
        return scope.column(node.this)
    if isinstance(node, exp.Anonymous) and node.name.lower() == "year" and node.expressions:
        return scope.column(node.expressions[0])
    return None
