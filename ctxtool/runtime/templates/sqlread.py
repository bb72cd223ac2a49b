"""Reading a template's SQL, once, when the set is compiled: its facts (:class:`.facts.TemplateFacts`)
and its canonical form (:class:`.equivalence.Shape`), from one parse in the set's dialect.

This is the only part of the runtime that parses SQL; the checks, the matcher and the decision read
what it found. A set compiled before is read from the compiled-set cache without it
(:mod:`.cache`), so a question asked in a new process does not import the SQL parser at all.
"""

from __future__ import annotations

import re

from sqlglot import exp

from ctxtool.english.content import content_tokens
from ctxtool.identifiers import split_compound
from ctxtool.placeholders import find_sql_placeholders
from ctxtool.runtime.templates.equivalence import UNRESOLVED, Shape
from ctxtool.runtime.templates.facts import SENTINEL, Output, TemplateFacts, name_words

# -- the facts ------------------------------------------------------------------------------------
_AGGREGATE_TYPES = (exp.Count, exp.Sum, exp.Avg, exp.Min, exp.Max)


def _named(c: exp.Column) -> bool:
    return bool(c.name) and not c.name.startswith("__ctxp_")


def all_aliases(tree: exp.Expression) -> dict[str, str]:
    """Alias or name (lower case) -> real table name (lower case), over the whole statement."""
    out: dict[str, str] = {}
    for t in tree.find_all(exp.Table):
        out[t.alias_or_name.lower()] = t.name.lower()
        out.setdefault(t.name.lower(), t.name.lower())
    return out


def table_aliases(select: exp.Select) -> dict[str, str]:
    """Real table name (lower case) -> the name to qualify its columns with in ``select``'s scope."""
    out: dict[str, str] = {}
    sources = []
    from_ = select.args.get("from_") or select.args.get("from")
    if from_ is not None:
        sources.append(from_.this)
    for join in select.args.get("joins") or []:
        sources.append(join.this)
    for src in sources:
        if isinstance(src, exp.Table):
            out.setdefault(src.name.lower(), src.alias_or_name)
    return out


def _outermost(tree: exp.Expression) -> exp.Select | None:
    return tree if isinstance(tree, exp.Select) else None


def _projected(tree: exp.Expression) -> set[str]:
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    if select is None:
        return set()
    aliases = all_aliases(tree)
    real = set(table_aliases(select))
    out: set[str] = set()
    for e in select.expressions:
        col = e.this if isinstance(e, exp.Alias) else e
        if not isinstance(col, exp.Column) or not col.name:
            continue
        table = aliases.get(col.table.lower(), col.table.lower()) if col.table else ""
        if not table and len(real) == 1:
            table = next(iter(real))
        out.add(f"{table}.{col.name.lower()}" if table else col.name.lower())
    return out


def _value_only(tree: exp.Expression) -> bool:
    if not isinstance(tree, exp.Select) or tree.args.get("group") or not tree.expressions:
        return False
    return all(isinstance(e.this if isinstance(e, exp.Alias) else e, exp.AggFunc) for e in tree.expressions)


def _order(tree: exp.Expression) -> exp.Order | None:
    order = tree.args.get("order")
    return order if isinstance(order, exp.Order) and order.expressions else None


def _key_of(ordered: exp.Expression) -> exp.Expression:
    return ordered.this if isinstance(ordered, exp.Ordered) else ordered


def _output(tree: exp.Expression) -> Output:
    select = _outermost(tree)
    if select is None or not select.expressions:
        return Output()
    aggs: set[str] = set()
    cols: set[str] = set()
    counts: dict[str, int] = {}
    for e in select.expressions:
        for agg in e.find_all(exp.AggFunc):
            aggs.add(agg.key.lower())
            counts[agg.key.lower()] = counts.get(agg.key.lower(), 0) + 1
            cols |= {c.name.lower() for c in agg.find_all(exp.Column) if _named(c)}
    return Output(len(select.expressions), frozenset(aggs), frozenset(cols), counts)


def _group_key_words(tree: exp.Expression) -> frozenset[str]:
    group = tree.args.get("group") if isinstance(tree, exp.Select) else None
    if group is None:
        return frozenset()
    aliases = all_aliases(tree)
    tables = set(aliases.values())
    out: set[str] = set()
    for col in group.find_all(exp.Column):
        out.update(name_words(col.name))
        if col.table:
            out.update(name_words(aliases.get(col.table.lower(), col.table.lower())))
        elif len(tables) == 1:
            out.update(name_words(next(iter(tables))))
    # the name the SELECT gives a group column says what it is (``d."A3" AS region``)
    grouped = {c.sql().lower() for c in group.find_all(exp.Column)}
    for e in tree.expressions:
        if isinstance(e, exp.Alias) and isinstance(e.this, exp.Column) and e.this.sql().lower() in grouped:
            out.update(name_words(e.alias))
    return frozenset(out)


def _counted_rows(tree: exp.Expression) -> frozenset[str]:
    """The head noun of the one table whose rows a bare ``SELECT COUNT(*) FROM t [WHERE ...]``
    counts (``widget_parts`` counts parts), as content words."""
    if not isinstance(tree, exp.Select) or tree.args.get("joins") or tree.args.get("group"):
        return frozenset()
    if len(tree.expressions) != 1:
        return frozenset()
    count = tree.expressions[0].unalias()
    source = tree.args.get("from_") or tree.args.get("from")
    if not isinstance(count, exp.Count) or not isinstance(count.this, exp.Star) or source is None:
        return frozenset()
    if not isinstance(source.this, exp.Table):
        return frozenset()
    head = re.split(r"[_\W]+", source.this.name)[-1]
    return frozenset(content_tokens(split_compound(head)[-1]))


def _column_arg(node: exp.Expression) -> exp.Column | None:
    """The column a MIN / MAX / COUNT / SUM is of (``DISTINCT col`` too); None for anything else."""
    arg = node.this
    if isinstance(arg, exp.Distinct) and len(arg.expressions) == 1:
        arg = arg.expressions[0]
    return arg if isinstance(arg, exp.Column) and _named(arg) else None


def _ordered_selects(tree: exp.Expression) -> list[exp.Select]:
    return [s for s in tree.find_all(exp.Select) if _order(s) is not None]


def _limit(select: exp.Expression) -> bool:
    return select.args.get("limit") is not None


def _operators(tree: exp.Expression, selects: list[exp.Select]) -> frozenset[str]:
    out: set[str] = set()
    if tree.find(exp.Count):
        out.add("__count")
    if tree.find(exp.Avg):
        out.add("__avg")
    if tree.find(exp.Sum):
        out.add("__sum")
    limited = [s for s in selects if _limit(s)]
    keys = [[o for o in _order(s).expressions] for s in limited]  # type: ignore[union-attr]
    if tree.find(exp.Max) or any(
        k and isinstance(k[-1], exp.Ordered) and k[-1].args.get("desc") for k in keys
    ):
        out.add("__max")
    if tree.find(exp.Min) or any(
        k and not any(isinstance(o, exp.Ordered) and o.args.get("desc") for o in k) for k in keys
    ):
        out.add("__min")
    if tree.find(exp.Distinct):
        out.add("__distinct")
    if tree.find(exp.Group):
        out.add("__each")
    if tree.find(exp.Order):
        out.add("__order")
    if tree.find(exp.Not, exp.Except, exp.NEQ):
        out.add("__not")
    return frozenset(out)


def _having_counts(select: exp.Select) -> bool:
    having = select.args.get("having")
    node = having.this if having is not None else None
    while isinstance(node, exp.Binary) and not isinstance(node, exp.Count):
        node = node.left
    return isinstance(node, exp.Count)


def _realizes(tree: exp.Expression, selects: list[exp.Select]) -> frozenset[str]:
    out: set[str] = set()
    min_max = tree.find(exp.Min, exp.Max) is not None
    ordered = tree.find(exp.Order) is not None
    limited = any(_limit(s) for s in tree.find_all(exp.Select))
    if ordered or min_max:
        out.add("end")
    if (ordered and limited) or min_max:
        out.add("one end")  # an ORDER BY alone lists every row: no "the latest" one
    if tree.find(exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between):
        out.add("range")
    order = _order(tree)
    if order is not None and not limited:  # rows listed in an order: "from the most recent one"
        first = order.expressions[0]
        out.add("listed desc" if isinstance(first, exp.Ordered) and first.args.get("desc") else "listed asc")
    if tree.find(exp.Not, exp.Except, exp.NEQ):
        out.add("negation")
    if any(_having_counts(s) for s in tree.find_all(exp.Select)):
        out.add("counted")  # the groups' counts compared
    for node, tok in ((exp.Count, "__count"), (exp.Sum, "__sum"), (exp.Avg, "__avg")):
        if tree.find(node):
            out.add(tok)
    return frozenset(out)


def _ends(tree: exp.Expression, selects: list[exp.Select]) -> tuple[tuple[bool, tuple[str, ...]], ...]:
    out: list[tuple[bool, tuple[str, ...]]] = []
    for node in tree.find_all(exp.Max, exp.Min):
        col = _column_arg(node)
        if col is not None:
            out.append((isinstance(node, exp.Max), tuple(name_words(col.name))))
    for s in selects:
        order = _order(s)
        if order is None or not _limit(s) or len(order.expressions) != 1:
            continue
        key = _key_of(order.expressions[0])
        if isinstance(key, exp.Column) and _named(key):
            desc = isinstance(order.expressions[0], exp.Ordered) and bool(
                order.expressions[0].args.get("desc")
            )
            out.append((desc, tuple(name_words(key.name))))
    return tuple(out)


def _extreme(tree: exp.Expression, order: str | None, value_only: bool) -> int | None:
    limit = tree.args.get("limit")
    top = limit is not None and isinstance(limit.expression, exp.Literal) and not tree.args.get("offset")
    if order and top:
        return 1 if order == "desc" else -1
    if value_only:
        hi, lo = tree.find(exp.Max) is not None, tree.find(exp.Min) is not None
        if hi != lo:
            return 1 if hi else -1
    return None


def _end_columns(tree: exp.Expression) -> tuple[str, ...]:
    """The column each ORDER BY's first key is (or the column inside its function; the function's
    name for ``COUNT(*)``), and the column each MIN / MAX is of: the columns whose end is taken."""
    out: list[str] = []
    for order in tree.find_all(exp.Order, bfs=False):
        if not order.expressions:
            continue
        key = _key_of(order.expressions[0])
        col = key if isinstance(key, exp.Column) else key.find(exp.Column)
        if isinstance(col, exp.Column) and _named(col):
            out.append(col.name.lower())
        elif isinstance(key, exp.Func):
            out.append(key.key.lower())
    for node in tree.find_all(exp.Max, exp.Min, bfs=False):
        col = node.find(exp.Column)
        if col is not None and _named(col):
            out.append(col.name.lower())
    return tuple(out)


def _tallied(tree: exp.Expression, tables: set[str]) -> frozenset[str]:
    """The words of what the query's first count or sum of a column (or of ``*``) adds up: its
    column, or for ``COUNT(*)`` the words of its one table (empty when it adds up nothing or reads
    several tables)."""
    for node in tree.find_all(exp.Count, exp.Sum, bfs=False):
        arg = node.this
        if isinstance(arg, exp.Distinct) and len(arg.expressions) == 1:
            arg = arg.expressions[0]
        if isinstance(arg, exp.Star):
            return frozenset(name_words(next(iter(tables)))) if len(tables) == 1 else frozenset()
        if isinstance(arg, exp.Column) and _named(arg):
            return frozenset(name_words(arg.name)) - {"name", "id"}
    return frozenset()


def _constants(tree: exp.Expression) -> frozenset[float]:
    out: set[float] = set()
    for lit in tree.find_all(exp.Literal):
        if lit.is_string or lit.find_ancestor(exp.Limit, exp.Offset) is not None:
            continue
        try:
            out.add(float(lit.this))
        except ValueError:
            continue
    return frozenset(out)


def _group_keys(tree: exp.Expression) -> tuple[tuple[str, ...], ...]:
    out = []
    for group in tree.find_all(exp.Group):
        for key in group.expressions:
            col = key if isinstance(key, exp.Column) else None
            if col is not None and _named(col):
                out.append(tuple(name_words(col.name)))
    return tuple(out)


def _words(identifier: str) -> set[str]:
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", identifier).replace("_", " ")
    return set(content_tokens(spaced))


def _group_columns(tree: exp.Expression) -> frozenset[str]:
    group = next(tree.find_all(exp.Group, bfs=False), None)
    if group is None:
        return frozenset()
    aliases = all_aliases(tree)
    out: set[str] = set()
    for key in group.expressions:
        if not isinstance(key, exp.Column) or not _named(key):
            continue
        out |= _words(key.name)
        if key.table:
            out |= _words(aliases.get(key.table.lower(), key.table))
    return frozenset(out)


def _direction(tree: exp.Expression) -> str | None:
    lt = tree.find(exp.LT, exp.LTE) is not None
    gt = tree.find(exp.GT, exp.GTE) is not None
    return "<" if lt and not gt else ">" if gt and not lt else None


_WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


_STRINGS = re.compile(r"'(?:[^']|'')*'")


def _identifier_words(tree: exp.Expression) -> frozenset[str]:
    out: set[str] = set()
    for ident in tree.find_all(exp.Identifier):
        name = ident.name
        if SENTINEL.fullmatch(name):
            continue
        spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).replace("_", " ")
        out |= {w.lower() for w in spaced.split()}
    return frozenset(out)


_SENSE = {exp.GT: 1, exp.GTE: 1, exp.LT: -1, exp.LTE: -1}


def _slot_senses(tree: exp.Expression) -> dict[str, frozenset[int]]:
    """Slot key -> the senses its placeholder is compared in (``x > $1`` is 1; ``$1`` on the left of
    a comparison is read from its right side, as the column it is compared with)."""
    out: dict[str, set[int]] = {}
    for col in tree.find_all(exp.Column):
        m = re.fullmatch(r"__ctxp_s([a-z0-9_]+?)__", col.name)
        if not m:
            continue
        parent = col.parent
        sense = next((s for cls, s in _SENSE.items() if isinstance(parent, cls)), None)
        if sense is not None and parent.expression is col:
            out.setdefault(m.group(1), set()).add(sense)
    return {k: frozenset(v) for k, v in out.items()}


def _connective(text: str, words: tuple[str, str]) -> str | None:
    has_or = bool(re.search(rf"\b(?:{words[0]})\b", text, re.I))
    has_and = bool(re.search(rf"\b(?:{words[1]})\b", text, re.I))
    if has_or == has_and:
        return None
    return "or" if has_or else "and"


def _between_slots(sql: str, dialect: str) -> dict[tuple[str, str], tuple[str | None, str | None]]:
    """For each pair of slot keys, how the SQL text between their first placeholders joins them."""
    first: dict[str, int] = {}
    for n, ph in enumerate(find_sql_placeholders(sql, dialect)):
        key = ph.name if ph.kind == "numbered" else str(n + 1)
        first.setdefault(key, ph.start)
    out: dict[tuple[str, str], tuple[str | None, str | None]] = {}
    keys = sorted(first, key=first.__getitem__)
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            between = _STRINGS.sub("''", sql[first[a] : first[b]])
            out[(a, b)] = (_connective(between, ("or", "and")), _connective(between, ("union", "intersect")))
    return out


def _token_bag(sql: str) -> tuple[str, ...]:
    return tuple(sorted(re.findall(r"\w+|[^\s\w]", sql.lower())))


def _first_select(tree: exp.Expression) -> exp.Select | None:
    """The first SELECT of a query (the left one of a UNION, INTERSECT or EXCEPT)."""
    while isinstance(tree, exp.SetOperation):
        tree = tree.this
    return tree if isinstance(tree, exp.Select) else None


def read_facts(
    tree: exp.Expression | None, sql: str, dialect: str, snippet: bool, tables: set[str]
) -> TemplateFacts:
    """The facts of a statement (``snippet``: a facet's condition, wrapped in ``SELECT 1 WHERE``)
    from its tree (placeholders as sentinels, parsed in ``dialect``; None: it did not parse)."""
    if tree is None:
        return TemplateFacts(token_bag=_token_bag(sql))
    columns = {c.name.lower() for c in tree.find_all(exp.Column) if _named(c)}
    grouped = tree.find(exp.Group) is not None
    if snippet:
        return TemplateFacts(parsed=True, columns=columns, grouped=grouped)
    order = _order(tree)
    first = order.expressions[0] if order is not None else None
    direction = None
    if first is not None:
        direction = "desc" if isinstance(first, exp.Ordered) and first.args.get("desc") else "asc"
    first_key = _key_of(first) if first is not None else None
    value_only = _value_only(tree)
    selects = _ordered_selects(tree)
    select = _first_select(tree)
    outer = list(select.expressions) if select is not None else []
    outer_width = None if not outer or any(isinstance(e, exp.Star) for e in outer) else len(outer)
    count_distinct = tuple(
        col.name.lower()
        for c in tree.find_all(exp.Count, bfs=False)
        if isinstance(c.this, exp.Distinct) and (col := _column_arg(c)) is not None
    )
    return TemplateFacts(
        parsed=True,
        columns=columns,
        grouped=grouped,
        projected=_projected(tree),
        order=direction,
        order_key=first_key.name.lower() if isinstance(first_key, exp.Column) and first_key.name else "",
        order_keys=tuple(
            _key_of(o).name.lower() if isinstance(_key_of(o), exp.Column) else ""
            for o in (order.expressions if order is not None else [])
        ),
        value_only=value_only,
        output=_output(tree),
        operators=_operators(tree, selects),
        realizes=_realizes(tree, selects),
        ends=_ends(tree, selects),
        extreme=_extreme(tree, direction, value_only),
        end_columns=_end_columns(tree),
        group_key_words=_group_key_words(tree),
        group_keys=_group_keys(tree),
        group_columns=_group_columns(tree),
        distinct_rows=any(s.args.get("distinct") is not None for s in tree.find_all(exp.Select)),
        distinct=tree.find(exp.Distinct) is not None,
        count_distinct=count_distinct,
        counted_rows=_counted_rows(tree),
        tallied=_tallied(tree, tables),
        counts_rows=any(isinstance(c.this, exp.Star) for c in tree.find_all(exp.Count)),
        constants=_constants(tree),
        identifier_words=_identifier_words(tree),
        letter_runs=frozenset(re.findall(r"[a-z]+", sql.lower())),
        set_operations=frozenset(
            name
            for name, cls in (("union", exp.Union), ("intersect", exp.Intersect), ("except", exp.Except))
            if tree.find(cls) is not None or isinstance(tree, cls)
        ),
        ors=tree.find(exp.Or) is not None,
        direction=_direction(tree),
        having=any(s.args.get("having") is not None for s in tree.find_all(exp.Select)),
        limited=any(_limit(s) for s in tree.find_all(exp.Select)),
        aggregate_call=tree.find(*_AGGREGATE_TYPES) is not None,
        outer_aggregates=tuple(
            a.key.lower() for e in outer for a in e.find_all(*_AGGREGATE_TYPES, bfs=False)
        ),
        outer_width=outer_width,
        outer_aggregate_first=bool(outer) and isinstance(outer[0].unalias(), _AGGREGATE_TYPES),
        outer_columns=frozenset(c.name.lower() for e in outer for c in e.find_all(exp.Column) if _named(c)),
        averages=tree.find(exp.Avg) is not None
        or any(re.search(r"avg|average|mean", ident.name, re.I) for ident in tree.find_all(exp.Identifier)),
        takes_end=tree.find(exp.Order, exp.Max, exp.Min, exp.All, exp.Any) is not None,
        token_bag=_token_bag(sql),
        slot_senses=_slot_senses(tree),
        between_slots=_between_slots(sql, dialect),
    )


# -- the canonical form ---------------------------------------------------------------------------
def _not_placeholder(c: exp.Column) -> bool:
    return not SENTINEL.fullmatch(c.name or "")


def _tables(sel: exp.Select) -> dict[str, str] | None:
    """Alias (or name) -> table name of the query's FROM and inner JOINs; None when it is not a
    plain inner join of distinct tables."""
    out: dict[str, str] = {}
    from_ = sel.args.get("from_") or sel.args.get("from")
    sources = [from_.this] if from_ is not None else []
    for j in sel.args.get("joins") or []:
        if (j.args.get("side") or j.args.get("kind") or "").upper() not in ("", "INNER"):
            return None
        sources.append(j.this)
    names = []
    for t in sources:
        if not isinstance(t, exp.Table):
            return None
        name = t.name.lower()
        names.append(name)
        out[(t.alias or t.name).lower()] = name
        out[name] = name
    return out if len(set(names)) == len(names) else None


def _columns(sel: exp.Select) -> dict[str, frozenset[str]]:
    """Column name -> the tables the query qualifies it with (after resolving aliases)."""
    tables = _tables(sel) or {}
    out: dict[str, set[str]] = {}
    for c in sel.find_all(exp.Column):
        if c.table and _not_placeholder(c):
            out.setdefault(c.name.lower(), set()).add(tables.get(c.table.lower(), c.table.lower()))
    return {k: frozenset(v) for k, v in out.items()}


def _own_key(column: str, table: str) -> bool:
    """``tag_id`` of ``tags``: the column is the table's name and "id" (its key, one row each)."""
    words = name_words(column)
    return len(words) >= 2 and words[-1] == "id" and words[:-1] == name_words(table)


def _lookups_dropped(sel: exp.Select) -> exp.Select:
    """``sel`` without the inner joins that only look a key up: the joined table's one column read
    is its own key (:func:`_own_key`), named as the column it is joined with."""
    joins = list(sel.args.get("joins") or [])
    if not joins or any(not c.table for c in sel.find_all(exp.Column) if _not_placeholder(c)):
        return sel  # a column named without its table may be the joined table's
    kept = []
    for j in joins:
        alias = (j.this.alias or j.this.name).lower() if isinstance(j.this, exp.Table) else None
        on = j.args.get("on")
        sides = [on.left, on.right] if isinstance(on, exp.EQ) else []
        if (
            alias is None
            or (j.args.get("side") or j.args.get("kind") or "").upper() not in ("", "INNER")
            or len(sides) != 2
            or not all(isinstance(c, exp.Column) for c in sides)
            or sides[0].name.lower() != sides[1].name.lower()
            or not _own_key(sides[0].name, j.this.name)
            or [c.table.lower() == alias for c in sides].count(True) != 1
        ):
            kept.append(j)
            continue
        elsewhere = [c for c in sel.find_all(exp.Column) if c.table.lower() == alias and c.parent is not on]
        if elsewhere:
            kept.append(j)
    if len(kept) == len(joins):
        return sel
    sel = sel.copy()
    sel.set("joins", [j.copy() for j in kept])
    return sel


def shape_of(tree: exp.Expression | None) -> Shape | None:
    """The canonical form of a parsed query (placeholders as sentinels); None when it is no plain
    SELECT over inner joins of distinct tables (such queries are the same only as written)."""
    if not isinstance(tree, exp.Select):
        return None
    qualified = _columns(tree)
    sel = _lookups_dropped(tree)
    tables = _tables(sel)
    if tables is None or any(s is not sel for s in sel.find_all(exp.Select)) or sel.find(exp.Subquery):
        return None
    own = set(tables.values())
    sel = sel.copy()
    unresolved: set[str] = set()
    for c in sel.find_all(exp.Column):
        if not _not_placeholder(c):
            continue
        name = c.name.lower()
        if c.table:
            table = tables.get(c.table.lower(), c.table.lower())
        elif len(own) == 1:
            table = next(iter(own))
        else:
            table = UNRESOLVED
            unresolved.add(name)
        c.set("table", exp.to_identifier(table))
        c.set("this", exp.to_identifier(name))
    joins = set()
    for j in sel.args.get("joins") or []:
        on = j.args.get("on")
        conds = list(on.flatten()) if isinstance(on, exp.And) else ([on] if on is not None else [])
        for cond in conds:
            if not isinstance(cond, exp.EQ):
                return None
            joins.add(frozenset((cond.left.sql(), cond.right.sql())))
        j.set("on", None)
    sel.set("from_" if "from_" in sel.args else "from", None)
    sel.set("joins", None)
    return Shape(frozenset(own), frozenset(joins), sel.sql().lower(), frozenset(unresolved), qualified)
