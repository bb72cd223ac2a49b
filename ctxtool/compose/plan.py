"""Which edits a template's query needs to answer a question: the composition's plan.

For every typed mention of the question (:mod:`ctxtool.mentions`), the plan says whether the
template already covers it, which edit adds it, or why it cannot be used:

- a time: the template's own time condition is re-bound to the question's range (a typed slot;
  :class:`~ctxtool.compose.types.Retime`), or a range is added on the date column the question names
  or the only date column of the template's tables; a month of no year, a relative span without the
  data's latest date, or two date columns and no word choosing one cannot be used;
- a grouping: covered when the template groups by the column it names, else a grouping on that column
  (or on a date column's period for "per month");
- an order and limit: covered when the template orders and keeps as many rows, else an order by the
  measure (or the column named) and the new limit; a superlative of no direction keeps the template's;
- a measure: covered when the template computes that function, else the measure replaced when its
  words name a column;
- a number with a unit that names a column ("longer than 6 minutes" of a ``milliseconds`` column) a
  condition, converted to the column's unit.

Mentions not used are the answer's risk: the runtime declines or asks back naming them ("never
confidently wrong")."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from sqlglot import exp

from ctxtool.compose.columns import date_columns, is_date, lemmas, name_column
from ctxtool.compose.query import Query
from ctxtool.compose.retime import template_time
from ctxtool.compose.schema import SchemaGraph
from ctxtool.compose.shape import measure_of
from ctxtool.compose.types import (
    ColumnRef,
    ComposeError,
    Condition,
    Edit,
    Grouping,
    Limit,
    LinkedValue,
    OrderLimit,
    Retime,
    TimeRange,
)
from ctxtool.english.lexicon import DURATION_SECONDS
from ctxtool.english.tokens import stem
from ctxtool.identifiers import words_of
from ctxtool.mentions import (
    GroupingMention,
    MeasureMention,
    Mentions,
    NumberMention,
    OrderMention,
    TimeMention,
)

Mention = TimeMention | NumberMention | MeasureMention | GroupingMention | OrderMention | LinkedValue


@dataclass(frozen=True)
class TemplateShape:
    """What a template's SQL computes, read once (the runtime's template facts hold it)."""

    tables: tuple[str, ...]
    measure: str | None = None  # count | sum | avg | min | max
    measure_column: str | None = None
    groups: tuple[str, ...] = ()  # grouped column names, lower case
    descending: bool | None = None
    limit: int | None = None
    limit_slot: bool = False
    time: tuple[str, date | None, date | None] | None = None
    compared: frozenset[str] = frozenset()  # "table.column" (lower case) the WHERE compares
    order_key: str | None = None  # the first ORDER BY key's column name (lower case), if a column
    computed_where: bool = False  # the WHERE holds a subquery (its rows are chosen by a computation)
    reads: frozenset[str] = frozenset()  # every column name the query reads, as written
    self_join: bool = False  # a table read twice (``Movie AS T1 JOIN Movie AS T2``)

    @classmethod
    def read(cls, sql: str, params: Sequence[Any], dialect: str, schema: SchemaGraph) -> TemplateShape:
        q = Query(sql, params, dialect, schema)
        m = measure_of(q)
        agg = m.find(exp.AggFunc) if m is not None else None
        function = {"count": "count", "sum": "sum", "avg": "avg", "min": "min", "max": "max"}.get(
            agg.key.lower() if agg is not None else ""
        )
        col = agg.find(exp.Column) if agg is not None else None
        group = q.tree.args.get("group")
        groups = tuple(c.name.lower() for c in group.find_all(exp.Column)) if group is not None else ()
        order = q.tree.args.get("order")
        desc = (
            bool(order.expressions[0].args.get("desc")) if order is not None and order.expressions else None
        )
        lim = q.tree.args.get("limit")
        limit, slot = None, False
        if lim is not None:
            value = lim.expression
            if isinstance(value, exp.Literal) and value.this.isdigit():
                limit = int(value.this)
            else:
                slot = True
        return cls(
            tuple(q.tables()),
            function,
            col.name.lower() if col is not None else None,
            groups,
            desc,
            limit,
            slot,
            template_time(q),
            _compared(q),
            _order_key(order),
            q.tree.args.get("where") is not None and q.tree.args["where"].find(exp.Select) is not None,
            frozenset(
                _as_written(schema, c.name)
                for c in q.tree.find_all(exp.Column)
                if not c.name.startswith("__ctxp_")
            ),
            _self_join(q),
        )


def _self_join(q: Query) -> bool:
    names = [t.name.lower() for t in q.tree.find_all(exp.Table)]
    return len(names) != len(set(names))


def _as_written(schema: SchemaGraph, name: str) -> str:
    """A column name as the schema writes it (a MySQL tree may hold it in lower case)."""
    low = name.lower()
    return next((cols[low][0] for cols in schema.types.values() if low in cols), name)


def _order_key(order: exp.Order | None) -> str | None:
    if order is None or not order.expressions:
        return None
    key = order.expressions[0].this
    return key.name.lower() if isinstance(key, exp.Column) else None


def _compared(q: Query) -> frozenset[str]:
    """The columns the query's WHERE compares, as ``table.column`` in lower case."""
    where = q.tree.args.get("where")
    if where is None:
        return frozenset()
    alias_to_table = {alias.lower(): table for table, alias in q.tables().items()}
    only = next(iter(q.tables()), "") if len(q.tables()) == 1 else ""
    out = set()
    for col in where.find_all(exp.Column):
        if col.name.startswith("__ctxp_"):
            continue
        table = alias_to_table.get(col.table.lower(), col.table.lower()) if col.table else only
        out.add(f"{table}.{col.name.lower()}")
    return frozenset(out)


@dataclass
class Plan:
    """The edits to make, the mentions the answer uses, and those it cannot use with the reason."""

    edits: list[Edit] = field(default_factory=list)
    used: list[Mention] = field(default_factory=list)
    unused: list[tuple[Mention, str]] = field(default_factory=list)
    mismatch: list[str] = field(default_factory=list)  # what the template computes that is not asked
    covers: list[tuple[int, int]] = field(default_factory=list)  # the words the answer uses

    @property
    def complete(self) -> bool:
        return not self.unused and not self.mismatch

    def decisive(self, unexplained: Collection[str]) -> list[tuple[Mention, str]]:
        """The unused mentions that must stop an answer: every time, number and value (they carry
        meaning whatever the score), and a grouping, order or measure only when a word of it is
        among the ``unexplained`` words of the matcher (one the template's wording does not say)."""
        left = {w.lower() for w in unexplained}
        out = []
        for m, why in self.unused:
            words = {w.lower() for w in m.text.split()} | set(lemmas(m.text))
            words |= {stem(w) for w in words}
            always = isinstance(m, (TimeMention, NumberMention, LinkedValue))
            if always or (isinstance(m, MeasureMention) and m.function == "share") or words & left:
                out.append((m, why))
        return out

    def decline(self, closest: str) -> str:
        """What a decline or ask-back says: the words the answer could not use and why, the closest
        template, and what the set's author can add so that the question is answered."""
        parts = "; ".join([why for _m, why in self.unused] + self.mismatch)
        kinds = {type(m).__name__ for m, _why in self.unused}
        add = []
        if "TimeMention" in kinds:
            add.append("a template whose time is a parameter on its date column")
        if kinds & {"GroupingMention", "OrderMention", "MeasureMention"}:
            add.append("a template of that shape")
        if "NumberMention" in kinds:
            add.append("a facet for that condition")
        fix = f" Add {' or '.join(add)}." if add else ""
        return f"Not used: {parts}. The closest template: {closest!r}.{fix}"


def _time(
    m: TimeMention, shape: TemplateShape, schema: SchemaGraph, text: str, own: Sequence[TimeMention]
) -> Edit | str:
    if m.kind == "month_of_year":
        return f"'{m.text}' names a month of no year; say the year"
    if m.relative is not None:
        return f"'{m.text}' needs the data's latest date"
    if shape.time is not None:
        _col, start, end = shape.time
        if (start, end) == (m.start, m.end):
            return "covered"
        return Retime(m.start, m.end, start, end, said=m.text)
    if any(t.start == m.start and t.end == m.end for t in own):
        return "covered"
    dates = _entity_dates(schema, shape.tables)
    entity = {w for t in shape.tables for w in lemmas(words_of(schema.tables.get(t, t)))}
    # the words as written (name_column reads their lemmas: a lemma read again may be a stop word)
    words = " ".join(w for w in _words_before(text, m).split() if not set(lemmas(w)) & entity)
    words = words if lemmas(words) else ""
    named = name_column(words, schema, shape.tables, dates=True) if words else None
    if named is None and words:  # a date a schema keeps as text ("shipped_on")
        named = name_column(words, schema, shape.tables, dates=False)
        if named is not None and not any(k in schema.type_of(named) for k in ("char", "text", "string")):
            named = None
    if named is not None:
        return TimeRange(named, m.start, m.end, said=m.text)
    own_date = _own_date(schema, dates)
    if own_date is not None:
        return TimeRange(own_date, m.start, m.end, said=m.text)
    if not dates:
        return f"'{m.text}': the template's tables have no date column"
    return f"'{m.text}': which date, {' or '.join(str(d) for d in dates)}?"


def _own_date(schema: SchemaGraph, dates: Sequence[ColumnRef]) -> ColumnRef | None:
    """The date of the entity: the only date column, or the one its table's name names
    (``orders.order_date`` beside ``required_date`` and ``shipped_date``; ``invoice.invoice_date``)."""
    if len(dates) == 1:
        return dates[0]
    named = [d for d in dates if set(lemmas(words_of(d.table))) <= set(lemmas(words_of(d.column)))]
    return named[0] if len(named) == 1 else None


def _clause_before(text: str, m: Mention) -> tuple[int, int]:
    """The span of the (at most three) words before a time: the verb of the event it dates."""
    words = list(re.finditer(r"\S+", text[: m.span[0]]))[-3:]
    return (words[0].start(), m.span[0]) if words else m.span


def _entity_dates(schema: SchemaGraph, tables: Sequence[str]) -> list[ColumnRef]:
    """The date columns of the template's tables; when they have none, those of the tables they
    reference (an order line's date is its order's)."""
    own = date_columns(schema, tables)
    if own:
        return own
    parents = {s.target for t in tables for s in schema.steps.get(t.lower(), []) if s.to_one}
    return date_columns(schema, sorted(parents))


def _words_before(text: str, m: Mention) -> str:
    """The words of the clause before a time ("ordered in 2007", "hired since 2011"): they may name
    the date column."""
    return " ".join(text[: m.span[0]].split()[-3:])


def _grouping(m: GroupingMention, shape: TemplateShape, schema: SchemaGraph) -> Edit | str:
    if m.grain:
        dates = _entity_dates(schema, shape.tables)
        date = _own_date(schema, dates)
        if date is None:
            return (
                f"'{m.text}': which date to group by" if dates else f"'{m.text}': no date column to group by"
            )
        if date.column.lower() in shape.groups:
            return "covered"  # the template groups by a period of that date already
        return Grouping(date, m.grain, said=m.text)
    col = name_column(m.of, schema, shape.tables, dates=False)
    if col is None and shape.groups and _key_read(m.of, shape):
        return "covered"  # "each support rep" of a template grouped through support_rep_id
    if col is None:
        return f"'{m.text}': no column of the schema is named '{m.of}'"
    if col.column.lower() in shape.groups:
        return "covered"
    if shape.measure is None:
        return f"'{m.text}': the template lists rows; it computes nothing per group"
    return Grouping(col, said=m.text)


def _order(
    m: OrderMention, shape: TemplateShape, schema: SchemaGraph, own: Sequence[OrderMention]
) -> Edit | str:
    if m.direction is None and not any(_same_words(m.text, o.text) for o in own):
        # "the cheapest": which end of which column only the template's own words can confirm
        return f"'{m.text}': which end of the order it asks is not known"
    if shape.descending is not None:  # the template orders: the question may keep another count
        if m.direction is not None and (m.direction == "desc") != shape.descending:
            return f"'{m.text}': the template orders the other way"
        named = name_column(m.of, schema, shape.tables) if m.of else None
        if named is not None and shape.order_key and named.column.lower() != shape.order_key:
            return f"'{m.text}': the template orders by {shape.order_key}"
        if m.limit == shape.limit and not shape.limit_slot:
            return "covered"
        if m.limit is None:
            return f"'{m.text}': the template keeps {shape.limit or 'a number of'} rows"
        return Limit(m.limit, said=m.text)  # (a LIMIT slot is replaced by the count the question says)
    if shape.measure is not None or shape.groups:
        return f"'{m.text}': the template's rows have no order to keep the first of"
    descending = m.direction == "desc" if m.direction is not None else None
    if descending is None:
        return f"'{m.text}': the order's direction is not known"
    words = m.of or (m.rows if m.temporal else "")
    col = name_column(words, schema, shape.tables, dates=True if m.temporal else None) if words else None
    if col is None and m.temporal:
        dates = date_columns(schema, shape.tables)
        col = dates[0] if len(dates) == 1 else None
    if col is None:
        if shape.limit == m.limit and shape.descending == descending:
            return "covered"
        return f"'{m.text}': no column to order by"
    return OrderLimit(descending, m.limit, col, said=m.text)


def _same_words(a: str, b: str) -> bool:
    """Two order phrases that end the same way ("the 10 cheapest" / "the cheapest")."""

    def superlatives(text: str) -> set[str]:
        return {w for w in lemmas(text) if len(w) > 3}

    return bool(superlatives(a) & superlatives(b))


def _measure(m: MeasureMention, shape: TemplateShape, schema: SchemaGraph) -> Edit | str:
    if m.function == shape.measure:
        return "covered"
    if m.function == "share":
        return f"'{m.text}': a share of a total is not what the template computes"
    if shape.measure is None:
        return f"'{m.text}': the template computes no measure"
    # another measure is another question: a standalone question is never answered by replacing the
    # template's (a conversation's "and the average?" replaces it explicitly: replace_measure)
    return f"'{m.text}': the template computes {shape.measure}, not {m.function}"


def _number(m: NumberMention, shape: TemplateShape, schema: SchemaGraph) -> Edit | str | None:
    if m.comparison is None or m.unit is None:
        return None  # a number with no comparison and no unit is the runtime's (a slot's value)
    if m.seconds is not None:  # a duration: the column whose words are a unit of time
        for t in shape.tables:
            for name, kind in schema.types.get(t.lower(), {}).values():
                words = set(lemmas(words_of(name)))
                unit = next((u for u in DURATION_SECONDS if u in words), None)
                if unit is not None and not is_date(kind):
                    value = m.seconds / DURATION_SECONDS[unit]
                    value = int(value) if float(value).is_integer() else value
                    return Condition(
                        ColumnRef(schema.tables[t.lower()], name), m.comparison, value, said=m.text
                    )
        return f"'{m.text}': no column holds a duration"
    if m.unit == "$":
        return f"'{m.text}': which amount the sum of money is compared with"
    col = name_column(m.unit, schema, shape.tables, dates=False)
    if col is None:
        return f"'{m.text}': no column is named '{m.unit}'"
    return Condition(col, m.comparison, m.value, said=m.text)


def _mismatch(mentions: Mentions, shape: TemplateShape, own: Mentions | None) -> list[str]:
    """What the template computes that the question does not ask: groups nobody asked for, a
    measure where the question lists rows."""
    out = []
    if shape.self_join:
        out.append("the template reads one table twice; which of the two a condition is on is not known")
    asks_groups = mentions.groupings or mentions.orders
    if shape.groups and not asks_groups:
        out.append(f"the template answers per {', '.join(shape.groups)}; the question asks for no groups")
    asks_measure = mentions.measures or (own is not None and own.measures and _plain_question(mentions.text))
    if shape.measure and not shape.groups and not asks_measure and not asks_groups:
        out.append(f"the template computes a {shape.measure}; the question asks for rows")
    return out


def _plain_question(text: str) -> bool:
    """A question that does not begin by asking for a list ("List ...", "Show ...", "Which ...")."""
    first = text.strip().split()[:1]
    return not first or first[0].lower() not in ("list", "show", "which", "name", "give", "display", "find")


def _key_read(words: str, shape: TemplateShape) -> bool:
    """Whether ``words`` are the words of a key column the template reads ("support rep" of
    ``support_rep_id``): the template groups the rows of what that key names."""
    said = set(lemmas(words))
    for name in shape.reads:
        col = {w.lower() for w in lemmas(words_of(name))}
        if col & {"id", "key", "code"} and said and col - {"id", "key", "code"} == said:
            return True
    return False


def _said_by_template(m: Mention, own: Mentions | None) -> bool:
    """Whether the template's own wording states the same mention (a grouping, an order or a measure
    of the same words): the matcher already read those words as the template's."""
    if own is None:
        return False
    if isinstance(m, GroupingMention):
        return any(set(lemmas(g.of)) == set(lemmas(m.of)) for g in own.groupings)
    if isinstance(m, MeasureMention):
        return any(x.function == m.function and set(lemmas(x.of)) == set(lemmas(m.of)) for x in own.measures)
    return False


def plan(
    mentions: Mentions,
    shape: TemplateShape,
    schema: SchemaGraph,
    *,
    template_mentions: Mentions | None = None,
    values: Sequence[LinkedValue] = (),
) -> Plan:
    """The edits that make the template answer every mention, and the mentions it cannot use.

    ``values`` are the question's values linked in the data: one on a column the template does not
    compare becomes a condition (``column = value``); one on a column it compares is its slot's
    (bound by the runtime). Other mentions inside a value's words are the value's ("albums by led
    zeppelin" groups nothing)."""
    out = Plan()
    own = template_mentions.times if template_mentions is not None else []
    decided: list[tuple[Mention, Edit | str | None]] = []
    values = [v for v in values if not _overlaps(v.span, [t.span for t in mentions.times])]
    columns = [f"{v.column.table}.{v.column.column}".lower() for v in values]
    for v, key in zip(values, columns, strict=True):
        if key in shape.compared:
            decided.append((v, "covered"))
        elif columns.count(key) > 1:
            decided.append((v, f"'{v.text}': two values of {key}; one of them, or rows with both?"))
        elif shape.computed_where:
            decided.append((v, f"'{v.text}': the template's rows are chosen by a subquery"))
        elif not _joins_to_one(schema, shape.tables, v.column.table):
            decided.append(
                (v, f"'{v.text}': {key} is reached through rows the template counts several times")
            )
        else:
            decided.append((v, Condition(v.column, "eq", v.value, said=v.text)))
    inside = [v.span for v in values]
    mentions = Mentions(
        mentions.text,
        [m for m in mentions.times if not _within(m.span, inside)],
        [m for m in mentions.numbers if not _within(m.span, inside)],
        [m for m in mentions.measures if not _within(m.span, inside)],
        [m for m in mentions.groupings if not _overlaps(m.span, inside)],
        [m for m in mentions.orders if not _within(m.span, inside)],
    )
    decided += [(m, _time(m, shape, schema, mentions.text, own)) for m in mentions.times]
    decided += [(m, _grouping(m, shape, schema)) for m in mentions.groupings]
    own_orders = template_mentions.orders if template_mentions is not None else []
    decided += [(m, _order(m, shape, schema, own_orders)) for m in mentions.orders]
    decided += [(m, _measure(m, shape, schema)) for m in mentions.measures]
    decided += [(m, _number(m, shape, schema)) for m in mentions.numbers]
    out.mismatch = _mismatch(mentions, shape, template_mentions)
    for m, what in decided:
        if what is None:
            continue
        if isinstance(what, str) and what != "covered" and _said_by_template(m, template_mentions):
            what = "covered"
        if isinstance(what, str) and what != "covered":
            out.unused.append((m, what))
            continue
        out.used.append(m)
        out.covers.append(m.span)
        if isinstance(what, (TimeRange, Retime)) and isinstance(m, TimeMention):
            out.covers.append(_clause_before(mentions.text, m))  # "were issued in 2023": the event dated
        if not isinstance(what, str):
            out.edits.append(what)
    return out


def _joins_to_one(schema: SchemaGraph, tables: Sequence[str], target: str) -> bool:
    """Whether ``target`` is one of ``tables`` or reached from them by many-to-one steps only (a
    join that keeps each row of the template once)."""
    try:
        return all(step.to_one for step in schema.path(tables, target))
    except ComposeError:
        return False


def _within(span: tuple[int, int], spans: Sequence[tuple[int, int]]) -> bool:
    return any(a <= span[0] and span[1] <= b for a, b in spans)


def _overlaps(span: tuple[int, int], spans: Sequence[tuple[int, int]]) -> bool:
    return any(span[0] < b and a < span[1] for a, b in spans)
