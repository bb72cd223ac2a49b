"""Value-search layer: the query uses ``$value`` and returns exactly ``value``, ``columns``,
``concept_type``, ``distance`` and ``context`` (``SELECT *`` over a subquery or CTE resolved), with a
``concept_type`` literal that agrees with the item's."""

from __future__ import annotations

import json
import re

from sqlglot import exp

from ctxtool.validate.context import Context, text

EXPECTED = ("value", "columns", "concept_type", "distance", "context")
_COLUMNS_LITERAL = re.compile(r"[\w$]+(\.[\w$]+)+(\s*,\s*[\w$]+(\.[\w$]+)+)*")


class Unresolved(Exception):
    """A ``SELECT *`` whose columns cannot be known without the database."""


def _ctes(node: exp.Expr) -> dict[str, exp.Expr]:
    """CTEs visible from ``node`` (its own WITH and those of enclosing queries)."""
    out: dict[str, exp.Expr] = {}
    while node is not None:
        with_ = node.args.get("with_") or node.args.get("with") if isinstance(node, exp.Query) else None
        if isinstance(with_, exp.With):
            for cte in with_.expressions:
                out.setdefault(cte.alias_or_name.lower(), cte.this)
        node = node.parent  # type: ignore[assignment]
    return out


def _source_columns(source: exp.Expr, scope: exp.Expr) -> list[tuple[str, exp.Expr]]:
    if isinstance(source, exp.Subquery):
        return output_columns(source.this)
    if isinstance(source, exp.Table) and not source.db:
        cte = _ctes(scope).get(source.name.lower())
        if cte is not None:
            return output_columns(cte)
        raise Unresolved(f"SELECT * over the table {source.name}")
    raise Unresolved(f"SELECT * over {source.sql()[:40]}")


def output_columns(query: exp.Expr) -> list[tuple[str, exp.Expr]]:
    """``[(name, expression)]`` of what ``query`` returns, in order (name '' when unnamed)."""
    if isinstance(query, exp.Subquery):
        return output_columns(query.this)
    if isinstance(query, exp.SetOperation):
        return output_columns(query.left)
    if not isinstance(query, exp.Select):
        raise Unresolved(f"a {query.key.upper()} statement")
    out: list[tuple[str, exp.Expr]] = []
    for projection in query.expressions:
        star = isinstance(projection, exp.Star) or (
            isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star)
        )
        if not star:
            name = projection.alias_or_name if isinstance(projection, (exp.Alias, exp.Column)) else ""
            inner = projection.this if isinstance(projection, exp.Alias) else projection
            out.append((name, inner))
            continue
        from_ = query.args.get("from_") or query.args.get("from")
        sources = [from_.this] if isinstance(from_, exp.From) else []
        sources += [join.this for join in query.args.get("joins") or []]
        qualifier = projection.table if isinstance(projection, exp.Column) else ""
        if qualifier:
            sources = [s for s in sources if s.alias_or_name.lower() == qualifier.lower()]
        if not sources:
            raise Unresolved("SELECT * without a FROM")
        for source in sources:
            out.extend(_source_columns(source, query))
    return out


def check(ctx: Context) -> None:
    for item in ctx.items("value_searches"):
        query = text(item.data, "query")
        if query is None:
            continue
        ptr = item.field_pointer("query")
        if "$value" not in query or not any(p.kind == "named" for p in ctx.sql_placeholders(query)):
            ctx.report("CTX601", ptr, "the query never uses $value, so it cannot search for the phrase")
        tree = ctx.parse(query).single
        if tree is None or not isinstance(tree, exp.Query):
            continue  # reported by the SQL layer
        try:
            columns = output_columns(tree)
        except Unresolved as exc:
            ctx.report("CTX602", ptr, f"cannot tell the result columns ({exc}); name the five columns")
            continue
        names = [name.lower() for name, _ in columns]
        missing = [c for c in EXPECTED if c not in names]
        extra = [name or "<unnamed expression>" for name in names if name not in EXPECTED]
        repeated = sorted({n for n in names if n and names.count(n) > 1})
        if missing or extra or repeated:
            problems = []
            if missing:
                problems.append("missing " + ", ".join(missing))
            if extra:
                problems.append("unexpected " + ", ".join(extra))
            if repeated:
                problems.append("repeated " + ", ".join(repeated))
            ctx.report(
                "CTX602",
                ptr,
                f"the query returns {', '.join(n or '?' for n in names)}: {'; '.join(problems)} "
                f"(expected exactly {', '.join(EXPECTED)})",
            )
        by_name = {name.lower(): expr for name, expr in columns}
        concept = text(item.data, "concept_type")
        literal = by_name.get("concept_type")
        if concept is not None and isinstance(literal, exp.Literal) and literal.is_string:
            if literal.this != concept:
                ctx.report(
                    "CTX603",
                    ptr,
                    f"the query returns concept_type {literal.this!r} but the item says {concept!r}",
                )
        where = by_name.get("columns")
        if isinstance(where, exp.Literal) and where.is_string and not _COLUMNS_LITERAL.fullmatch(where.this):
            ctx.report(
                "CTX604",
                ptr,
                f"the columns literal {where.this!r} should name table.column, e.g. 'airports.name'",
            )
        _check_distance_and_context(ctx, ptr, by_name)


def _literal(node: exp.Expr | None) -> exp.Expr | None:
    """The literal under casts and JSON constructors (``'{}'::text``, ``JSON '{}'``), or the node."""
    while isinstance(node, (exp.Cast, exp.ParseJSON, exp.Paren)):
        node = node.this
    return node


def _check_distance_and_context(ctx: Context, ptr: str, by_name: dict[str, exp.Expr]) -> None:
    distance = _literal(by_name.get("distance"))
    number: float | None = None
    if isinstance(distance, exp.Literal) and not distance.is_string:
        number = float(distance.this)
    elif (
        isinstance(distance, exp.Neg)
        and isinstance(distance.this, exp.Literal)
        and not distance.this.is_string
    ):
        number = -float(distance.this.this)
    if number is not None and not 0 <= number <= 1:
        ctx.report("CTX605", ptr, f"the distance is {number:g}; it must lie between 0 (exact) and 1")
    context = _literal(by_name.get("context"))
    if isinstance(context, exp.Literal) and context.is_string and context.this.strip():
        try:
            json.loads(context.this)
        except ValueError:
            ctx.report(
                "CTX606",
                ptr,
                f"the context literal {context.this[:40]!r} is not JSON; use '{{}}' or a JSON object",
            )
