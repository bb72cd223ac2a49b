"""Duplicate layer: the same question twice, the same SQL twice (compared as sqlglot trees, so
spacing, keyword case and redundant parentheses do not hide a duplicate), the same value search twice."""

from __future__ import annotations

import re

from ctxtool.validate.context import Context, text

_SPACE = re.compile(r"\s+")


def _question_key(q: str) -> str:
    return _SPACE.sub(" ", q).strip().rstrip("?.! ").casefold()


def _sql_key(ctx: Context, sql: str) -> object:
    tree = ctx.parse(sql).single
    if tree is None:
        return ("text", _SPACE.sub(" ", sql).strip())
    return _TreeKey(hash(tree), tree)


def check(ctx: Context) -> None:
    seen_q: dict[str, str] = {}
    for item in ctx.items("templates"):
        q = text(item.data, "nl_query")
        if q is None:
            continue
        key = _question_key(q)
        if key in seen_q:
            ctx.report("CTX701", item.field_pointer("nl_query"), f"the same question as {seen_q[key]}")
        else:
            seen_q[key] = item.source_pointer

    for kind, field, code, what in (
        ("templates", "sql", "CTX702", "the same SQL as"),
        ("facets", "sql_snippet", "CTX702", "the same SQL snippet as"),
        ("value_searches", "query", "CTX703", "the same query as"),
    ):
        seen: dict[object, str] = {}
        for item in ctx.items(kind):
            sql = text(item.data, field)
            if sql is None:
                continue
            key = _sql_key(ctx, sql)
            if key in seen:
                ctx.report(code, item.field_pointer(field), f"{what} {seen[key]}")
            else:
                seen[key] = item.source_pointer


class _TreeKey:
    """A dictionary key comparing sqlglot trees structurally (hash first, then equality)."""

    __slots__ = ("h", "tree")

    def __init__(self, h: int, tree: object) -> None:
        self.h, self.tree = h, tree

    def __hash__(self) -> int:
        return self.h

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _TreeKey) and self.h == other.h and self.tree == other.tree
