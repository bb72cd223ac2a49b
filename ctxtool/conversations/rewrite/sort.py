"""Sort: "sort by city name", "lowest first", "reverse the order": change the ORDER BY (a top-N is
wrapped first, so re-sorting keeps the same rows)."""

from __future__ import annotations

import re

from sqlglot import exp

from ctxtool.conversations.fschema import DIM_STOP, WORD, FollowupError, base_word
from ctxtool.conversations.rewrite.base import QueryRewriter, _col


def sort(rw: QueryRewriter, key: str | None, direction: str | None) -> None:
    order = rw.tree.args.get("order")
    if direction == "reverse" and order is not None:
        flipped = [exp.Ordered(this=o.this.copy(), desc=not o.args.get("desc")) for o in order.expressions]
        if rw.tree.args.get("limit") is not None:  # keep the same rows, show them the other way round
            names = {p.alias_or_name.lower() for p in rw.tree.expressions}
            rw.wrap()
            flipped = [
                exp.Ordered(this=exp.column(o.this.name), desc=o.args.get("desc"))
                for o in flipped
                if isinstance(o.this, exp.Column) and o.this.name.lower() in names
            ]
        rw.tree.set("order", exp.Order(expressions=flipped) if flipped else None)
        rw.explanation.append("reversed the order")
        return
    if rw.tree.args.get("limit") is not None:
        rw.wrap()
    target: exp.Expression | None = None
    if key and re.fullmatch(r"(?:the\s+)?(?:name|names|label|labels|title)", key.strip()):
        key = "__label__" if not any("name" in p.alias_or_name.lower() for p in rw.tree.expressions) else key
    if key and key != "__label__":
        words = set(WORD.findall(key.lower())) - DIM_STOP
        words = {base_word(w) for w in words}
        for p in rw.tree.expressions:
            name_words = set(WORD.findall(p.alias_or_name.lower().replace("_", " ")))
            if words & name_words:
                target = exp.column(p.alias_or_name) if isinstance(p, exp.Alias) else p.copy()
                break
        if target is None:
            dim = rw.schema.find_dimension(key, list(rw.tables()))
            if dim is not None:
                alias = rw.tables().get(dim.table.lower())
                grouped = rw.tree.args.get("group") is not None or rw.measure() is not None
                if alias is not None and not grouped:
                    target = _col(dim.column, alias)
                elif alias is not None:
                    raise FollowupError(
                        f"{key!r} ({dim.table}.{dim.column}) is not a column of the result; "
                        "break it out by that first"
                    )
        if target is None:
            m = rw.measure()
            if m is not None and re.search(r"\b(count|number|total|sum|amount|average|value|size)\b", key):
                target = exp.column(m.alias)
        if target is None:
            raise FollowupError(f"cannot tell which column {key!r} is; name one of the result's columns")
    elif key == "__label__":
        dims = rw.dimensions()
        if not dims:
            raise FollowupError("the previous result has no label column to sort alphabetically")
        d = dims[0]
        target = exp.column(d.alias_or_name) if isinstance(d, exp.Alias) else d.copy()
    else:
        m = rw.measure()
        if m is None:
            raise FollowupError("say which column to sort by")
        target = exp.column(m.alias)
    if direction:
        desc = direction == "desc"
    else:  # a measure sorts highest first unless told otherwise; labels sort A to Z
        m = rw.measure()
        desc = m is not None and target.sql() == exp.column(m.alias).sql()
    ordered = [exp.Ordered(this=target, desc=desc)]
    for d in rw.dimensions():
        name = d.alias_or_name
        if name and name.lower() != target.alias_or_name.lower() and not d.find(exp.Window):
            ordered.append(
                exp.Ordered(this=exp.column(name) if isinstance(d, exp.Alias) else d.copy(), desc=False)
            )
    rw.tree.set("order", exp.Order(expressions=ordered))
    rw.explanation.append(f"sorted by {target.sql()} {'descending' if desc else 'ascending'}")
