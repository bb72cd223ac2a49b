"""Follow-ups as edits of the previous answer's query on its AST (:mod:`ctxtool.compose`), from the
typed parts of the question (:mod:`ctxtool.mentions`) and the schema's foreign keys:

- a time ("and in 2024?", "just for 2022", "which of those ordered something in 1998?"): the previous
  query's own time re-bound (``Retime``), else a half-open range on the date column of the event the
  words name (a table whose words the clause says: "ordered" dates by the orders' date), else the
  date of the query's entity; reached through many-to-one joins, or inside ``EXISTS`` across a
  one-to-many step, so no row of the previous answer is repeated;
- more columns ("list them with their city"): a count becomes the rows it counted, named by the
  entity's name columns (the first column whose words say name or title; with a first name, the
  last name too) and the columns the question names; a listing gets the named columns added;
- another measure beside the previous one ("and what's the average freight for each?") or instead
  of it ("and the average?"): ``AVG(column)`` of the column the words name, reached many-to-one.

Each returns a :class:`ctxtool.compose.Composition` whose explanation says which edit was made, or
raises :class:`ctxtool.compose.ComposeError` saying why it cannot.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from sqlglot import exp

from ctxtool.compose import (
    ColumnRef,
    ComposeError,
    Composition,
    Query,
    Retime,
    SchemaGraph,
    TimeRange,
    compose,
    measure_of,
)
from ctxtool.compose.columns import date_columns, lemmas, name_column
from ctxtool.compose.plan import TemplateShape
from ctxtool.compose.query import column
from ctxtool.identifiers import words_of
from ctxtool.mentions import read_mentions

_NAME_WORDS = frozenset({"name", "title"})
_WITH = re.compile(
    r"\b(?:with|and|plus|including|include|add)\s+(?:their|its|the|his|her)\s+(?P<cols>[a-z][a-z ,]*)", re.I
)
_ALONGSIDE = re.compile(r"\b(?:for each|each|too|as well|also|add|alongside|beside)\b", re.I)


def retime_or_range(
    question: str, sql: str, params: Sequence[Any], dialect: str, graph: SchemaGraph
) -> Composition:
    """The previous query restricted to the one time the question states."""
    mentions = read_mentions(question)
    times = [t for t in mentions.times if t.resolved and t.kind != "month_of_year"]
    if len(times) != 1:
        raise ComposeError("the question states no single time of a known year")
    t = times[0]
    shape = TemplateShape.read(sql, params, dialect, graph)
    edit: Retime | TimeRange
    if shape.time is not None:
        _col, start, end = shape.time
        edit = Retime(t.start, t.end, start, end, said=t.text)
    else:
        edit = TimeRange(_event_date(question[: t.span[0]], shape.tables, graph), t.start, t.end, said=t.text)
    return compose(sql, params, dialect, graph, [edit])


def _event_date(before: str, tables: Sequence[str], graph: SchemaGraph) -> ColumnRef:
    """The date column a time dates: of a table the clause before it names ("ordered something"),
    reachable from the query's tables; else the only date of the query's tables or of those they
    reference (an order line's date is its order's)."""
    said = set(lemmas(" ".join(before.split()[-3:])))
    entity = {w for t in tables for w in lemmas(words_of(graph.tables.get(t, t)))}
    named = []
    for table_l, table in graph.tables.items():
        if set(lemmas(words_of(table))) & (said - entity):
            try:
                graph.path(tables, table_l)
            except ComposeError:
                continue
            named.append(table_l)
    for group in (named, list(tables)):
        found = _own_date(date_columns(graph, group), graph)
        if found is not None:
            return found
    parents = sorted({s.target for t in tables for s in graph.steps.get(t.lower(), []) if s.to_one})
    found = _own_date(date_columns(graph, parents), graph)
    if found is None:
        raise ComposeError("which date the time is of is not clear: name it ('ordered in 1998')")
    return found


def _own_date(dates: Sequence[ColumnRef], graph: SchemaGraph) -> ColumnRef | None:
    if len(dates) == 1:
        return dates[0]
    named = [d for d in dates if set(lemmas(words_of(d.table))) <= set(lemmas(words_of(d.column)))]
    return named[0] if len(named) == 1 else None


def project(question: str, sql: str, params: Sequence[Any], dialect: str, graph: SchemaGraph) -> Composition:
    """The previous rows with the columns the question names ("list them with their city")."""
    m = _WITH.search(question)
    if m is None:
        raise ComposeError("the question names no column to add ('with their city')")
    phrases = [p.strip() for p in re.split(r",|\band\b", m.group("cols")) if p.strip()]
    q = Query(sql, params, dialect, graph)
    tables = list(q.tables())
    if not tables:
        raise ComposeError("the previous query reads no table directly")
    main = _main_table(q)
    wanted: list[ColumnRef] = []
    for phrase in phrases:
        ref = name_column(phrase, graph, [main])
        if ref is None:
            raise ComposeError(f"which column {phrase!r} is, is not clear")
        if any(s.to_one is False for s in graph.path([main], ref.table)):
            raise ComposeError(f"{ref} has several rows for each row of the answer")
        wanted.append(ref)
    listing = measure_of(q) is not None and q.tree.args.get("group") is None
    if listing:  # a count of the entity: its rows, by name
        names = _name_columns(graph, main)
        if not names:
            raise ComposeError(f"{graph.tables[main.lower()]} has no name column to list its rows by")
        keep = [column(n.column, q.tables()[main.lower()]) for n in names]
        q.tree.set("expressions", keep)
        for node in ("order", "limit", "group", "having"):
            q.tree.set(node, None)
        q.explanation.append(f"listed the rows counted by {', '.join(n.column for n in names)}")
    elif q.tree.args.get("group") is not None:
        raise ComposeError("the previous answer is grouped; its groups have no single value of a column")
    for ref in wanted:
        col, sub, _ = q.reach(ref)
        if sub is not None:
            raise ComposeError(f"{ref} has several rows for each row of the answer")
        if not any(
            isinstance(p, exp.Column) and p.name.lower() == ref.column.lower() for p in q.tree.expressions
        ):
            q.tree.expressions.append(col)
            q.explanation.append(f"added the column {ref}")
    out, bound = q.render()
    return Composition(out, bound, q.dialect, None, [], q.explanation)


def _main_table(q: Query) -> str:
    from_ = q.tree.args.get("from_") or q.tree.args.get("from")
    table = from_.this if from_ is not None else None
    if not isinstance(table, exp.Table):
        raise ComposeError("the previous query reads no table first")
    return table.name


def _name_columns(graph: SchemaGraph, table: str) -> list[ColumnRef]:
    """The columns that name a row of ``table``: the first whose words say name or title; a first
    name comes with the last name."""
    cols = [name for name, _kind in graph.types.get(table.lower(), {}).values()]
    named = [c for c in cols if set(lemmas(words_of(c))) & _NAME_WORDS]
    if not named:
        return []
    first = named[0]
    out = [first]
    if "first" in lemmas(words_of(first)):
        out += [c for c in named if "last" in lemmas(words_of(c))][:1]
    return [ColumnRef(graph.tables[table.lower()], c) for c in out]


def add_measure(
    question: str, sql: str, params: Sequence[Any], dialect: str, graph: SchemaGraph
) -> Composition:
    """The measure the question asks computed beside the previous one per group ("and the average
    freight for each?"), or instead of it."""
    mentions = read_mentions(question)
    measures = [m for m in mentions.measures if m.function in ("sum", "avg", "min", "max")]
    if len(measures) != 1 or not measures[0].of.strip():
        raise ComposeError("the question states no single measure of a column")
    m = measures[0]
    q = Query(sql, params, dialect, graph)
    old = measure_of(q)
    if old is None or q.tree.args.get("group") is None:
        raise ComposeError("the previous answer has no groups to measure")
    ref = name_column(m.of, graph, list(q.tables()), dates=False)
    if ref is None:
        raise ComposeError(f"which column {m.of!r} is, is not clear")
    col, sub, _ = q.reach(ref)
    if sub is not None:
        raise ComposeError(f"{ref} is on the many side of the answer's rows")
    fn = {"sum": exp.Sum, "avg": exp.Avg, "min": exp.Min, "max": exp.Max}[m.function]
    name = f"{m.function}_{ref.column}".lower()
    value = exp.alias_(fn(this=col), name)
    if _ALONGSIDE.search(question):
        q.tree.expressions.append(value)
        q.explanation.append(f"added the measure {name} beside {old.alias_or_name}")
    else:
        old.replace(value)
        q.explanation.append(f"measured {name} instead of {old.alias_or_name}")
    out, bound = q.render()
    return Composition(out, bound, q.dialect, None, [], q.explanation)
