"""Whose rows a SELECT is about when its FROM table is not it: the table counted or measured over a
join, the table whose columns a list shows, a table holding one row per main row (a member of a
person: "the names of members")."""

from __future__ import annotations

from sqlglot import exp

from ctxtool.draft.describe.conditions import referenced
from ctxtool.draft.describe.scope import Scope, key_strength
from ctxtool.draft.model import Model, Table


def measured(scope: Scope, sel: exp.Select) -> Table | None:
    """The table whose rows a SELECT of aggregates only (no GROUP BY) counts or measures, when the
    FROM table is not it: ``SELECT COUNT(*) FROM category JOIN product ...`` counts products,
    ``SELECT AVG(product.price) FROM category JOIN product ...`` averages products' prices."""
    if sel.args.get("group") is not None or len(scope.order) < 2:
        return None
    tables = set()
    for p in sel.expressions:
        inner = p.this if isinstance(p, exp.Alias) else p
        if not isinstance(inner, exp.AggFunc):
            return None
        arg = inner.this
        if isinstance(arg, exp.Distinct):
            arg = arg.expressions[0] if arg.expressions else None
        if arg is None or isinstance(arg, exp.Star):
            bottom = scope.bottom()
            if bottom is None:
                return None
            parents = [j.parent for j in scope.joins if j.child is bottom]
            if len(set(parents)) >= 2 and scope.main in parents:
                return None  # "members (FROM) in the club ...": the FROM table names what is counted
            tables.add(bottom.name)
            found = bottom
        else:
            col = scope.column(arg)
            if col is None:
                return None
            tables.add(col.table.name)
            found = col.table
    return found if len(tables) == 1 else None


def listed_table(scope: Scope, sel: exp.Select) -> Table | None:
    """The table whose rows a plain list over a join shows, when the FROM table is not it: ``SELECT
    d.name FROM breed JOIN dog ... WHERE breed.name = 'Collie'`` lists dogs ("the names of dogs
    of the breed with name 'Collie'", as a person names the thing asked for first)."""
    if sel.args.get("group") is not None or not 2 <= len(scope.order) <= 3 or scope.main is None:
        return None  # (a longer path reads better from the table it starts at)
    tables = set()
    for p in sel.expressions:
        inner = p.this if isinstance(p, exp.Alias) else p
        col = scope.column(inner)
        if col is None:
            return None
        tables.add(col.table.name)
        found = col.table
        if col.label.lower() in (found.names.singular.lower(), found.names.plural.lower()):
            return None  # "the party of parties": the column is said by its table's name
    if len(tables) != 1 or found is scope.main:
        return None
    if key_strength(found.columns[0]) and all(
        scope.column(p.this if isinstance(p, exp.Alias) else p) in found.pk_columns for p in sel.expressions
    ):
        return None  # only the keys of another table: the ids of the FROM table's rows
    return found


def role_of(model: Model, scope: Scope) -> Table | None:
    """The other table of a two-table join that holds one row per row of the main table (its key
    references the main table's: a member is a person, an author is one): the rows people name
    ("the names of members"). None for any other query."""
    main = scope.main
    if main is None or len(scope.order) != 2:
        return None
    other = next(t for t in scope.order if t is not main)
    return other if one_to_one(model, scope, other, main) else None


def one_to_one(model: Model, scope: Scope, child: Table, parent: Table) -> bool:
    """``child`` holds at most one row per row of ``parent``: the key it references ``parent`` by
    is its own primary key (a member is a person; a column that only happens to hold distinct
    values, such as the shop of each order, is no such key)."""
    if child.is_link or len(parent.primary_key) > 1:
        return False
    if not any(e.child is child and e.parent is parent for e in scope.joins):
        return False
    for c in child.columns:
        if referenced(model, c) is not parent:
            continue
        if c.in_pk and len(child.primary_key) == 1:
            return True
    return False


def scope_tables(sel: exp.Select) -> set[str]:
    return {t.name.lower() for t in sel.find_all(exp.Table) if t.find_ancestor(exp.Select) is sel}
