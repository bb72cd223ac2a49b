"""The previous query as a sqlglot tree that follow-ups rewrite: its placeholders kept as sentinels
(values never enter the SQL text; new values become new parameters), its measures and dimensions,
and tables joined in through foreign keys when a follow-up needs them. Each follow-up pattern is its
own module of this package (breakdown, topn, sort, filter, result)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from ctxtool.conversations.fschema import FollowupError, Schema
from ctxtool.dialects import normalize
from ctxtool.runtime.templates import sqlparts


@dataclass
class LinkedFilter:
    """A value to filter on: ``table.column = value`` (from value linking or a literal)."""

    column: str  # "table.column"
    value: Any
    phrase: str = ""
    concept_type: str = ""
    operator: str = "eq"
    part: str | None = None  # "year" for EXTRACT(YEAR FROM column)


@dataclass
class Rewrite:
    sql: str
    params: list[Any]
    kinds: list[str]
    explanation: list[str]


def _needs_quote(name: str) -> bool:
    return not re.fullmatch(r"[a-z_][a-z0-9_]*", name)


def _col(name: str, table: str | None) -> exp.Column:
    return exp.Column(
        this=exp.to_identifier(name, quoted=_needs_quote(name)),
        table=exp.to_identifier(table) if table else None,
    )


class QueryRewriter:
    """The previous query as a sqlglot tree with its parameters kept as sentinels."""

    def __init__(self, sql: str, params: Sequence[Any], dialect: str, schema: Schema | None = None) -> None:
        self._sp = sqlparts
        self.dialect = normalize(dialect)
        self.schema = schema or Schema()
        text, keys = sqlparts.to_sentinels(sql, self.dialect, "p")
        self.values: dict[str, Any] = {}
        for key in keys:
            suffix = key[1:]
            if suffix == "value":
                raise FollowupError("the previous query uses $value; it cannot be rewritten")
            n = int(suffix)
            if n - 1 >= len(params):
                raise FollowupError(
                    f"the previous query has more placeholders than parameters ({len(params)})"
                )
            self.values[key] = params[n - 1]
        # slot keys are "<letters><n>" for the n-th parameter; re-key them to this rewriter's "p<n>"
        self.slots = {
            "p" + re.sub(r"^[a-z_]+", "", key): slot
            for key, slot in sqlparts.slot_columns(sql, self.dialect).items()
        }
        tree = sqlparts.parse(text, self.dialect)
        if not isinstance(tree, exp.Select):
            tree = exp.select("*").from_(
                exp.Subquery(this=tree, alias=exp.TableAlias(this=exp.to_identifier("q")))
            )
        self.tree: exp.Select = tree
        self._new = 0
        self.explanation: list[str] = []
        self._name_projections()

    # -- helpers --------------------------------------------------------------------------------
    def _name_projections(self) -> None:
        names: set[str] = set()
        for i, proj in enumerate(self.tree.expressions):
            if isinstance(proj, exp.Alias) or isinstance(proj, exp.Column) or isinstance(proj, exp.Star):
                names.add(proj.alias_or_name.lower())
                continue
            agg = proj.find(exp.AggFunc)
            base = agg.key.lower() if agg is not None else f"col{i + 1}"
            name = base
            k = 2
            while name in names:
                name = f"{base}_{k}"
                k += 1
            names.add(name)
            proj.replace(exp.alias_(proj.copy(), name))

    def new_param(self, value: Any) -> exp.Column:
        self._new += 1
        key = f"n{self._new}"
        self.values[key] = value
        return exp.column(f"__ctxp_{key}__")

    def result(self) -> tuple[str, list[Any]]:
        text = self._sp.generate(self.tree, self.dialect)
        used = {k: v for k, v in self.values.items()}
        return self._sp.from_sentinels(text, self.dialect, used)

    def tables(self) -> dict[str, str]:
        """Real table (lower) -> alias used in the outer SELECT."""
        return self._sp.table_aliases(self.tree)

    _wrapped_measures: list[str] | None = None

    def measures(self) -> list[exp.Alias]:
        if self._wrapped_measures is not None:
            return [exp.alias_(exp.column(n), n) for n in self._wrapped_measures]
        return [p for p in self.tree.expressions if isinstance(p, exp.Alias) and p.find(exp.AggFunc)]

    def measure(self) -> exp.Alias | None:
        ms = [m for m in self.measures() if not m.find(exp.Window)]
        return ms[0] if ms else None

    def aggregated(self) -> bool:
        """Whether the query computes one row of aggregates (no GROUP BY): a count, a total."""
        projections = self.tree.expressions
        return (
            bool(projections)
            and self.tree.args.get("group") is None
            and all(
                (p.this if isinstance(p, exp.Alias) else p).find(exp.AggFunc) is not None for p in projections
            )
        )

    def one_row(self) -> bool:
        """Whether the query returns at most one row (aggregates without a GROUP BY, or LIMIT 1)."""
        limit = self.tree.args.get("limit")
        one = isinstance(limit, exp.Limit) and limit.expression is not None and limit.expression.sql() == "1"
        return one or self.aggregated()

    def dimensions(self) -> list[exp.Expression]:
        if self._wrapped_measures is not None:
            return [
                p
                for p in self.tree.expressions
                if p.alias_or_name not in self._wrapped_measures and p.alias_or_name.lower() != "rank"
            ]
        return [p for p in self.tree.expressions if not p.find(exp.AggFunc) and not isinstance(p, exp.Star)]

    def ensure_table(self, table: str) -> str:
        """The alias of ``table`` in the outer SELECT, joining it through foreign keys if needed."""
        aliases = self.tables()
        if table.lower() in aliases:
            return aliases[table.lower()]
        if not aliases:
            raise FollowupError("the previous query reads no table directly; cannot join to it")
        path = self.schema.join_path(list(aliases), table)
        used = {a.lower() for a in self._sp.all_aliases(self.tree)}
        for frm, cols, to, ref_cols in path:
            frm_alias = self.tables().get(frm, frm)
            alias = to[0] if to[0] not in used else to[:2]
            k = 2
            while alias in used:
                alias = f"{to[0]}{k}"
                k += 1
            used.add(alias)
            cond = None
            for c, rc in zip(cols, ref_cols, strict=False):
                eq = exp.EQ(this=_col(rc, alias), expression=_col(c, frm_alias))
                cond = eq if cond is None else exp.and_(cond, eq)
            self.tree = self.tree.join(
                exp.Table(
                    this=exp.to_identifier(self.schema.names.get(to, to)),
                    alias=exp.TableAlias(this=exp.to_identifier(alias)),
                ),
                on=cond,
                join_type="inner",
                copy=False,
            )
            self.explanation.append(f"joined {to} through {', '.join(cols)}")
        return self.tables()[table.lower()]

    def order_by_measure(self, descending: bool = True, with_labels: bool = True) -> None:
        m = self.measure()
        order: list[exp.Expression] = []
        if m is not None:
            order.append(exp.Ordered(this=exp.column(m.alias), desc=descending))
        if with_labels:
            for d in self.dimensions():
                name = d.alias_or_name
                if name and not d.find(exp.Window):
                    order.append(
                        exp.Ordered(
                            this=exp.column(name) if isinstance(d, exp.Alias) else d.copy(), desc=False
                        )
                    )
        self.tree.set("order", exp.Order(expressions=order) if order else None)

    def wrap(self) -> None:
        """Make the query a subquery ``prev_result`` of a plain SELECT of its columns (to re-sort a
        top-N without changing which rows it keeps)."""
        inner = self.tree
        measures = [m.alias for m in self.measures() if not m.find(exp.Window)]
        names = [p.alias_or_name for p in inner.expressions]
        sub = exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier("prev_result")))
        self.tree = exp.select(*[exp.column(n, table="prev_result") for n in names]).from_(sub)
        self._wrapped_measures = measures
