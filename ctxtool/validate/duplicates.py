"""Duplicate layer: the same question twice, the same SQL twice (compared as sqlglot trees, so
spacing, keyword case and redundant parentheses do not hide a duplicate), the same value search twice.

What it has seen is kept in ``ctx.state`` as small keys, not trees, so that a large set can be
checked chunk by chunk while the trees of earlier chunks are freed."""

from __future__ import annotations

import re

from ctxtool.validate.context import Context, text

_SPACE = re.compile(r"\s+")

_FIELDS = (
    ("templates", "sql", "CTX702", "the same SQL as"),
    ("facets", "sql_snippet", "CTX702", "the same SQL snippet as"),
    ("value_searches", "query", "CTX703", "the same query as"),
)


def _question_key(q: str) -> str:
    return _SPACE.sub(" ", q).strip().rstrip("?.! ").casefold()


def _sql_key(ctx: Context, sql: str) -> tuple[object, ...]:
    """Equal keys exactly when sqlglot calls the trees equal: its ``Expression.__eq__`` is "the same
    node type and the same structural hash", so the type and the hash are all a key needs to keep."""
    tree = ctx.parse(sql).single
    if tree is None:
        return ("text", _SPACE.sub(" ", sql).strip())
    return ("tree", type(tree), hash(tree))


def check(ctx: Context) -> None:
    seen_q: dict[str, str] = ctx.state.setdefault("duplicates.questions", {})
    for item in ctx.items("templates"):
        q = text(item.data, "nl_query")
        if q is None:
            continue
        key = _question_key(q)
        if key in seen_q:
            ctx.report("CTX701", item.field_pointer("nl_query"), f"the same question as {seen_q[key]}")
        else:
            seen_q[key] = item.source_pointer

    for kind, field, code, what in _FIELDS:
        seen: dict[object, str] = ctx.state.setdefault(f"duplicates.{kind}", {})
        for item in ctx.items(kind):
            sql = text(item.data, field)
            if sql is None:
                continue
            key = _sql_key(ctx, sql)
            if key in seen:
                ctx.report(code, item.field_pointer(field), f"{what} {seen[key]}")
            else:
                seen[key] = item.source_pointer
