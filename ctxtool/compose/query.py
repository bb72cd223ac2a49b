"""A template's query as a sqlglot tree that edits change: placeholders held as sentinels (values never
enter the SQL text; new values become new parameters), tables found or joined through the schema's
foreign keys under aliases no other table of the statement uses."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from sqlglot import exp

from ctxtool.compose.schema import SchemaGraph, Step
from ctxtool.compose.types import ColumnRef, ComposeError
from ctxtool.dialects import normalize
from ctxtool.runtime.templates.params import from_sentinels, to_sentinels
from ctxtool.runtime.templates.sqlparts import generate, parse
from ctxtool.runtime.templates.sqlread import all_aliases, table_aliases


def identifier(name: str) -> exp.Identifier:
    """A name quoted only when it must be (upper case, spaces, a leading digit)."""
    return exp.to_identifier(name, quoted=not re.fullmatch(r"[a-z_][a-z0-9_]*", name))


def column(name: str, table: str | None) -> exp.Column:
    return exp.Column(this=identifier(name), table=identifier(table) if table else None)


class Query:
    """One SELECT of a template, with its parameters by sentinel key."""

    def __init__(self, sql: str, params: Sequence[Any], dialect: str, schema: SchemaGraph) -> None:
        self.dialect = normalize(dialect)
        self.schema = schema
        text, keys = to_sentinels(sql, self.dialect, "t")
        self.values: dict[str, Any] = {}
        for key in keys:
            if key.endswith("value"):
                raise ComposeError(
                    "the query takes a $value placeholder; only a template's SQL can be composed"
                )
            n = int(key[1:])
            if n > len(params):
                raise ComposeError(f"the query has placeholder {n} but {len(params)} parameters")
            self.values[key] = params[n - 1]
        tree = parse(text, self.dialect)
        if not isinstance(tree, exp.Select):
            raise ComposeError(
                f"the query is a {tree.key.upper()}, not one SELECT; conditions cannot be added to it"
            )
        self.tree: exp.Select = tree
        self.explanation: list[str] = []
        self._new = 0

    def param(self, value: Any) -> exp.Column:
        """A new bound parameter holding ``value``."""
        self._new += 1
        key = f"n{self._new}"
        self.values[key] = value
        return exp.column(f"__ctxp_{key}__")

    def drop_params(self, node: exp.Expression) -> None:
        """Forget the values of the placeholders inside ``node`` (a LIMIT or a condition removed)."""
        for col in node.find_all(exp.Column):
            m = re.fullmatch(r"__ctxp_(\w+?)__", col.name)
            if m:
                self.values.pop(m.group(1), None)

    def render(self) -> tuple[str, list[Any]]:
        """The SQL in the query's dialect and its parameters in driver order."""
        return from_sentinels(generate(self.tree, self.dialect), self.dialect, self.values)

    def tables(self) -> dict[str, str]:
        """Real table (lower case) -> the alias its columns are qualified with in the outer SELECT."""
        return table_aliases(self.tree)

    def _new_alias(self, table: str, used: set[str]) -> str:
        base = re.sub(r"[^a-z0-9_]", "", table.lower())[:1] or "t"
        alias, k = base, 2
        while alias in used:
            alias, k = f"{base}{k}", k + 1
        used.add(alias)
        return alias

    def reach(self, ref: ColumnRef) -> tuple[exp.Column, exp.Select | None, list[Step]]:
        """The column ``ref`` qualified for the outer SELECT, joining many-to-one steps in; when the
        path crosses a one-to-many step, the column is qualified inside a correlated subquery
        (returned) that the caller wraps in ``EXISTS``, so no row of the query is repeated."""
        ref = self.schema.column(ref)
        here = self.tables()
        if ref.table.lower() in here:
            return column(ref.column, here[ref.table.lower()]), None, []
        if not here:
            raise ComposeError("the query reads no table directly; a condition cannot be joined to it")
        path = self.schema.path(list(here), ref.table)
        used = {a.lower() for a in all_aliases(self.tree)}
        sub: exp.Select | None = None
        alias_of = dict(here)
        for step in path:
            alias = self._new_alias(step.target, used)
            on = _on(step, alias_of[step.source.lower()], alias)
            table = exp.Table(
                this=identifier(step.target), alias=exp.TableAlias(this=exp.to_identifier(alias))
            )
            if sub is None and step.to_one:
                self.tree = self.tree.join(table, on=on, join_type="inner", copy=False)
                self.explanation.append(f"joined {step.target} through {', '.join(step.source_columns)}")
            elif sub is None:
                sub = exp.select(exp.Literal.number(1)).from_(table).where(on)
            else:
                sub = sub.join(table, on=on, join_type="inner", copy=False)
            alias_of[step.target.lower()] = alias
        return column(ref.column, alias_of[ref.table.lower()]), sub, path

    def restrict(self, ref: ColumnRef, build: Callable[[exp.Column], exp.Expression]) -> None:
        """AND the condition ``build`` makes of ``ref``'s qualified column into the query; inside
        ``EXISTS (SELECT 1 ...)`` when the column is reached through a one-to-many step."""
        col, sub, _path = self.reach(ref)
        condition = build(col)
        if sub is None:
            self.tree.where(condition, append=True, copy=False)
        else:
            sub.where(condition, append=True, copy=False)
            self.tree.where(exp.Exists(this=sub), append=True, copy=False)


def _on(step: Step, source_alias: str, target_alias: str) -> exp.Expression:
    cond: exp.Expression | None = None
    for a, b in zip(step.source_columns, step.target_columns, strict=True):
        eq = exp.EQ(this=column(b, target_alias), expression=column(a, source_alias))
        cond = eq if cond is None else exp.and_(cond, eq)
    assert cond is not None
    return cond
