"""The tables and columns a SQL statement, a facet snippet or a value-search query references.

Aliases and CTEs are resolved with sqlglot's scopes: ``a.account_id`` in ``FROM account a`` is
``account.account_id``; a column of a CTE or a derived table is followed into the query that
defines it; an unqualified column is attributed to the only table in its scope, or -- with a
snapshot -- to the one table that has it (looking outwards through correlated subqueries); ``JOIN
... USING (c)`` references ``c`` on both sides. Placeholders (``$1``, ``?``, ``$value``) are never
taken for columns. Shared by ``validate --snapshot``, ``schema-diff --context``, parameterize and the
runtime.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.scope import Scope, traverse_scope

from ctxtool.dialects import normalize, sqlglot_dialect
from ctxtool.errors import InputError


@dataclass(frozen=True)
class TableUse:
    """A table (or view) named in the SQL: ``schema`` as written (None when unqualified)."""

    name: str
    schema: str | None = None
    alias: str | None = None
    quoted: bool = False


@dataclass(frozen=True)
class ColumnUse:
    """A column of a real table. ``table`` is the table's name (aliases resolved)."""

    table: str
    column: str
    schema: str | None = None
    qualifier: str | None = None  # as written: alias, table name, or None when unqualified
    quoted: bool = False


@dataclass(frozen=True)
class Unresolved:
    """A column that could not be tied to one table; ``reason`` says why, for a message."""

    column: str
    qualifier: str | None
    reason: str  # "unknown-qualifier" | "not-found" | "ambiguous" | "cte-column"
    candidates: tuple[str, ...] = ()


@dataclass(frozen=True)
class Comparison:
    """A column compared with a literal: ``column op literal`` (``op`` like ``=``, ``>``, ``in``, ``like``)."""

    column: ColumnUse
    op: str
    literal: str
    is_string: bool


@dataclass
class Refs:
    tables: list[TableUse] = field(default_factory=list)
    columns: list[ColumnUse] = field(default_factory=list)
    unresolved: list[Unresolved] = field(default_factory=list)
    comparisons: list[Comparison] = field(default_factory=list)
    # projections aliased ``columns`` that are string literals (value searches): the text of each
    columns_literals: list[str] = field(default_factory=list)

    def table_names(self) -> set[str]:
        return {t.name for t in self.tables}

    def column_pairs(self) -> set[tuple[str, str]]:
        return {(c.table, c.column) for c in self.columns}


def _is_placeholder_name(name: str) -> bool:
    return name.startswith(("$", "@")) or name == "?"


def parse(sql: str, dialect: str) -> exp.Expression:
    """Parse one statement or condition; a syntax error raises :class:`InputError`."""
    try:
        trees = [t for t in sqlglot.parse(sql, read=sqlglot_dialect(normalize(dialect))) if t is not None]
    except sqlglot.errors.SqlglotError as exc:
        raise InputError(f"cannot parse the SQL: {str(exc).splitlines()[0]}") from None
    if len(trees) != 1:
        raise InputError("expected exactly one SQL statement or condition")
    return trees[0]


def references(sql: str | exp.Expression, dialect: str = "postgres", catalog: Any = None) -> Refs:
    """The tables, columns and column-literal comparisons of ``sql`` (text or a parsed tree).

    ``catalog`` (a :class:`ctxtool.snapshot.Catalog`) lets unqualified columns be attributed when a
    scope has several tables; without it they stay unresolved unless the scope has only one table.
    """
    tree = parse(sql, dialect) if isinstance(sql, str) else sql
    refs = Refs()
    if not isinstance(tree, exp.Query):
        # a facet: its own columns name real tables; a subquery inside it has its own FROM, and
        # may refer to the facet's tables by name (correlation)
        _condition_refs(tree, refs)
        resolver = _Resolver(refs, catalog, outer_tables=True)
        for query in tree.find_all(exp.Query):
            if query.parent is not None and _owning_query(query) is None:
                for scope in _scopes(query):
                    resolver.scope(scope)
        return refs
    scopes = _scopes(tree)
    if not scopes:
        _condition_refs(tree, refs)
        return refs
    resolver = _Resolver(refs, catalog)
    for scope in scopes:
        resolver.scope(scope)
    for select in tree.find_all(exp.Select):
        for projection in select.expressions:
            if (
                isinstance(projection, exp.Alias)
                and projection.alias.lower() == "columns"
                and isinstance(projection.this, exp.Literal)
                and projection.this.is_string
            ):
                refs.columns_literals.append(projection.this.this)
    return refs


def _scopes(tree: exp.Expression) -> list[Scope]:
    try:
        return traverse_scope(tree)
    except Exception:  # noqa: BLE001 - sqlglot cannot scope some exotic statements
        return []


def _condition_refs(tree: exp.Expression, refs: Refs) -> None:
    """A facet snippet: every column is written ``table.column`` with the real table name."""
    seen: set[str] = set()
    by_node: dict[int, ColumnUse] = {}
    for col in tree.find_all(exp.Column):
        if isinstance(col.this, exp.Star) or _is_placeholder_name(col.name):
            continue
        if _owning_query(col) is not None and not isinstance(tree, exp.Query):
            continue  # inside a subquery of the facet: resolved with that subquery's scope
        if not col.table:
            refs.unresolved.append(Unresolved(col.name, None, "not-found"))
            continue
        use = ColumnUse(col.table, col.name, col.db or None, col.table, _quoted(col))
        refs.columns.append(use)
        by_node[id(col)] = use
        if col.table not in seen:
            seen.add(col.table)
            table_ident = col.args.get("table")
            refs.tables.append(
                TableUse(col.table, col.db or None, None, bool(getattr(table_ident, "quoted", False)))
            )
    _comparisons(tree, by_node, refs)


def _quoted(col: exp.Column) -> bool:
    ident = col.this
    return bool(isinstance(ident, exp.Identifier) and ident.quoted)


class _Resolver:
    def __init__(self, refs: Refs, catalog: Any, *, outer_tables: bool = False) -> None:
        self.refs = refs
        self.catalog = catalog
        self.outer_tables = outer_tables  # a qualifier no scope knows is a real table (facets)
        self.by_node: dict[int, ColumnUse] = {}
        self._tables_seen: set[tuple[str | None, str, str | None]] = set()

    def scope(self, scope: Scope) -> None:
        for alias, source in scope.sources.items():
            if isinstance(source, exp.Table) and isinstance(source.this, exp.Identifier):
                key = (source.db or None, source.name, alias)
                if key not in self._tables_seen:
                    self._tables_seen.add(key)
                    self.refs.tables.append(
                        TableUse(
                            source.name,
                            source.db or None,
                            alias if alias != source.name else None,
                            source.this.quoted,
                        )
                    )
        for col in scope.columns:
            if isinstance(col.this, exp.Star) or _is_placeholder_name(col.name):
                continue
            if _owning_query(col) is not scope.expression:
                continue  # a correlated subquery's column: resolved in (and outwards from) its own scope
            self.column(col, scope)
        self._using(scope)
        _comparisons(scope.expression, self.by_node, self.refs, scope)

    def _table_has(self, table: exp.Table, column: str) -> bool | None:
        if self.catalog is None:
            return None
        ref = self.catalog.table(table.name, table.db or None)
        if ref is None:
            return None
        return ref.column(column) is not None

    def _record(
        self, col: exp.Column | None, table: exp.Table, name: str, qualifier: str | None, quoted: bool
    ) -> None:
        use = ColumnUse(table.name, name, table.db or None, qualifier, quoted)
        self.refs.columns.append(use)
        if col is not None:
            self.by_node[id(col)] = use

    def column(self, col: exp.Column, scope: Scope) -> None:
        name, qualifier = col.name, col.table or None
        if qualifier:
            current: Scope | None = scope
            while current is not None:
                source = current.sources.get(qualifier)
                if source is None:
                    # MySQL/Spanner allow db.table.column or the bare table name behind an alias-less source
                    source = next(
                        (
                            s
                            for s in current.sources.values()
                            if isinstance(s, exp.Table) and s.name.lower() == qualifier.lower()
                        ),
                        None,
                    )
                if source is not None:
                    self._from_source(col, source, name, qualifier)
                    return
                current = current.parent
            if self.outer_tables:
                table = exp.Table(
                    this=exp.to_identifier(qualifier), db=exp.to_identifier(col.db) if col.db else None
                )
                self._record(col, table, name, qualifier, _quoted(col))
                return
            self.refs.unresolved.append(Unresolved(name, qualifier, "unknown-qualifier"))
            return
        current = scope
        while current is not None:
            sources = current.selected_sources
            tables = {a: s for a, (_, s) in sources.items()}
            if self.catalog is None:
                if len(tables) == 1 and current is scope:
                    alias, source = next(iter(tables.items()))
                    self._from_source(col, source, name, None)
                else:
                    self.refs.unresolved.append(Unresolved(name, None, "ambiguous", tuple(sorted(tables))))
                return
            matches = [(a, s) for a, s in tables.items() if self._source_has(s, name)]
            if len(matches) == 1:
                self._from_source(col, matches[0][1], name, None)
                return
            if len(matches) > 1:
                self.refs.unresolved.append(
                    Unresolved(name, None, "ambiguous", tuple(sorted(a for a, _ in matches)))
                )
                return
            if current is scope and _in_output_clause(col) and name in _named_selects(current):
                return  # ORDER BY / GROUP BY / HAVING on an output alias
            current = current.parent
        self.refs.unresolved.append(
            Unresolved(name, None, "not-found", tuple(sorted(scope.selected_sources)))
        )

    def _source_has(self, source: Any, name: str) -> bool:
        if isinstance(source, exp.Table):
            if not isinstance(source.this, exp.Identifier):
                return False
            return bool(self._table_has(source, name))
        if isinstance(source, Scope):
            names = _named_selects(source)
            return name in names or name.lower() in {n.lower() for n in names}
        return False

    def _from_source(self, col: exp.Column | None, source: Any, name: str, qualifier: str | None) -> None:
        if isinstance(source, exp.Table):
            if isinstance(source.this, exp.Identifier):
                self._record(col, source, name, qualifier, bool(col is not None and _quoted(col)))
            return
        if isinstance(source, Scope):
            expression = source.expression
            if isinstance(expression, exp.Query) and not _has_star(expression):
                names = _named_selects(source)
                if names and name not in names and name.lower() not in {n.lower() for n in names}:
                    self.refs.unresolved.append(Unresolved(name, qualifier, "cte-column", tuple(names)))

    def _using(self, scope: Scope) -> None:
        select = scope.expression
        if not isinstance(select, exp.Select):
            return
        joins = select.args.get("joins") or []
        from_ = select.args.get("from_") or select.args.get("from")
        left: list[exp.Table] = []
        if from_ is not None and isinstance(from_.this, exp.Table):
            left.append(from_.this)
        for join in joins:
            right = join.this
            for ident in join.args.get("using") or []:
                name = ident.name if isinstance(ident, exp.Expression) else str(ident)
                for table in [*left, right] if isinstance(right, exp.Table) else left:
                    if not isinstance(table.this, exp.Identifier):
                        continue
                    has = self._table_has(table, name)
                    if has is False:
                        continue
                    self._record(None, table, name, table.alias_or_name, False)
            if isinstance(right, exp.Table):
                left.append(right)


def _in_output_clause(node: exp.Expression) -> bool:
    """Whether ``node`` sits in ORDER BY, GROUP BY or HAVING, where output aliases may be named."""
    parent = node.parent
    while parent is not None and not isinstance(parent, exp.Query):
        if isinstance(parent, (exp.Order, exp.Group, exp.Having)):
            return True
        parent = parent.parent
    return False


def _owning_query(node: exp.Expression) -> exp.Expression | None:
    parent = node.parent
    while parent is not None and not isinstance(parent, exp.Query):
        parent = parent.parent
    return parent


def _named_selects(scope: Scope) -> list[str]:
    expression = scope.expression
    try:
        return list(expression.named_selects) if isinstance(expression, exp.Query) else []
    except Exception:  # noqa: BLE001
        return []


def _has_star(query: exp.Query) -> bool:
    selects = [query] if isinstance(query, exp.Select) else list(query.find_all(exp.Select))
    return any(
        isinstance(p, exp.Star) or (isinstance(p, exp.Column) and isinstance(p.this, exp.Star))
        for s in selects
        for p in s.expressions
    )


_OPS: dict[type, str] = {
    exp.EQ: "=",
    exp.NEQ: "<>",
    exp.GT: ">",
    exp.GTE: ">=",
    exp.LT: "<",
    exp.LTE: "<=",
    exp.Like: "like",
    exp.ILike: "ilike",
}


def _literal(node: Any) -> exp.Literal | None:
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        return exp.Literal.number("-" + node.this.this)
    return node if isinstance(node, exp.Literal) else None


def _comparisons(
    root: exp.Expression, by_node: dict[int, ColumnUse], refs: Refs, scope: Scope | None = None
) -> None:
    def own(node: exp.Expression) -> bool:
        if scope is None:
            return True
        # only comparisons of this scope (not of nested subqueries, which have their own scope)
        parent = node.parent
        while parent is not None and parent is not root:
            if isinstance(parent, exp.Query):
                return False
            parent = parent.parent
        return True

    for node in _walk_predicates(root):
        if not own(node):
            continue
        if isinstance(node, tuple(_OPS)):
            pairs = [(node.this, node.expression), (node.expression, node.this)]
            for left, right in pairs:
                lit = _literal(right)
                if isinstance(left, exp.Column) and id(left) in by_node and lit is not None:
                    refs.comparisons.append(
                        Comparison(by_node[id(left)], _OPS[type(node)], lit.this, lit.is_string)
                    )
        elif isinstance(node, exp.In) and isinstance(node.this, exp.Column) and id(node.this) in by_node:
            for item in node.expressions:
                lit = _literal(item)
                if lit is not None:
                    refs.comparisons.append(Comparison(by_node[id(node.this)], "in", lit.this, lit.is_string))
        elif isinstance(node, exp.Between) and isinstance(node.this, exp.Column) and id(node.this) in by_node:
            for bound in (node.args.get("low"), node.args.get("high")):
                lit = _literal(bound)
                if lit is not None:
                    refs.comparisons.append(
                        Comparison(by_node[id(node.this)], "between", lit.this, lit.is_string)
                    )


def _walk_predicates(root: exp.Expression) -> Iterator[exp.Expression]:
    for node in root.walk():
        if isinstance(node, (*_OPS, exp.In, exp.Between)):
            yield node
