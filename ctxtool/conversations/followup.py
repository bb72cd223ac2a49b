"""Follow-up questions without a model: rewrite the previous query through the schema, templates,
facets and linked values.

A follow-up is classified by what it asks of the previous query:

- ``breakdown``: "break out count of customers by region", "and per gender?" -> group by a column
  (joined through foreign keys when its table is not in the query yet);
- ``filter``: "what about Brno?", "only gold cards" -> a linked value (or facet) replaces the
  previous value on the same column, or is added as a new condition;
- ``topn``: "keep the top 5 and include a rank" -> order by the measure, limit, optional ``RANK()``;
- ``sort``: "sort by district name", "lowest first" -> change the ORDER BY;
- ``result``: "how many are there?", "which of these has the most?", "what is the total of those?"
  -> a query over the previous result.

Values never enter the SQL text: placeholders of the previous query are kept (as sentinels while
the tree is rewritten) and new values become new parameters.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from ctxtool.conversations.fschema import (
    DIM_STOP,
    WORD,
    Dimension,
    FollowupError,
    Schema,
    base_word,
    date_part,
)
from ctxtool.conversations.intent import Intent, classify
from ctxtool.dialects import normalize

# ---------------------------------------------------------------------------------------------------
# rewriting
# ---------------------------------------------------------------------------------------------------


@dataclass
class LinkedFilter:
    """A value to filter on: ``table.column = value`` (from value linking or a literal)."""

    column: str  # "table.column"
    value: Any
    phrase: str = ""
    concept_type: str = ""
    operator: str = "eq"
    part: str | None = None  # "year" for EXTRACT(YEAR FROM column)


@dataclass
class Rewrite:
    sql: str
    params: list[Any]
    kinds: list[str]
    explanation: list[str]


def _needs_quote(name: str) -> bool:
    return not re.fullmatch(r"[a-z_][a-z0-9_]*", name)


def _col(name: str, table: str | None) -> exp.Column:
    return exp.Column(
        this=exp.to_identifier(name, quoted=_needs_quote(name)),
        table=exp.to_identifier(table) if table else None,
    )


class QueryRewriter:
    """The previous query as a sqlglot tree with its parameters kept as sentinels."""

    def __init__(self, sql: str, params: Sequence[Any], dialect: str, schema: Schema | None = None) -> None:
        from ctxtool.runtime import sqlparts

        self._sp = sqlparts
        self.dialect = normalize(dialect)
        self.schema = schema or Schema()
        text, keys = sqlparts.to_sentinels(sql, self.dialect, "p")
        self.values: dict[str, Any] = {}
        for key in keys:
            suffix = key[1:]
            if suffix == "value":
                raise FollowupError("the previous query uses $value; it cannot be rewritten")
            n = int(suffix)
            if n - 1 >= len(params):
                raise FollowupError(
                    f"the previous query has more placeholders than parameters ({len(params)})"
                )
            self.values[key] = params[n - 1]
        # slot keys are "<letters><n>" for the n-th parameter; re-key them to this rewriter's "p<n>"
        self.slots = {
            "p" + re.sub(r"^[a-z_]+", "", key): slot
            for key, slot in sqlparts.slot_columns(sql, self.dialect).items()
        }
        tree = sqlparts.parse(text, self.dialect)
        if not isinstance(tree, exp.Select):
            tree = exp.select("*").from_(
                exp.Subquery(this=tree, alias=exp.TableAlias(this=exp.to_identifier("q")))
            )
        self.tree: exp.Select = tree
        self._new = 0
        self.explanation: list[str] = []
        self._name_projections()

    # -- helpers --------------------------------------------------------------------------------
    def _name_projections(self) -> None:
        names: set[str] = set()
        for i, proj in enumerate(self.tree.expressions):
            if isinstance(proj, exp.Alias) or isinstance(proj, exp.Column) or isinstance(proj, exp.Star):
                names.add(proj.alias_or_name.lower())
                continue
            agg = proj.find(exp.AggFunc)
            base = agg.key.lower() if agg is not None else f"col{i + 1}"
            name = base
            k = 2
            while name in names:
                name = f"{base}_{k}"
                k += 1
            names.add(name)
            proj.replace(exp.alias_(proj.copy(), name))

    def new_param(self, value: Any) -> exp.Column:
        self._new += 1
        key = f"n{self._new}"
        self.values[key] = value
        return exp.column(f"__ctxp_{key}__")

    def result(self) -> tuple[str, list[Any]]:
        text = self._sp.generate(self.tree, self.dialect)
        used = {k: v for k, v in self.values.items()}
        return self._sp.from_sentinels(text, self.dialect, used)

    def tables(self) -> dict[str, str]:
        """Real table (lower) -> alias used in the outer SELECT."""
        return self._sp.table_aliases(self.tree)

    _wrapped_measures: list[str] | None = None

    def measures(self) -> list[exp.Alias]:
        if self._wrapped_measures is not None:
            return [exp.alias_(exp.column(n), n) for n in self._wrapped_measures]
        return [p for p in self.tree.expressions if isinstance(p, exp.Alias) and p.find(exp.AggFunc)]

    def measure(self) -> exp.Alias | None:
        ms = [m for m in self.measures() if not m.find(exp.Window)]
        return ms[0] if ms else None

    def dimensions(self) -> list[exp.Expression]:
        if self._wrapped_measures is not None:
            return [
                p
                for p in self.tree.expressions
                if p.alias_or_name not in self._wrapped_measures and p.alias_or_name.lower() != "rank"
            ]
        return [p for p in self.tree.expressions if not p.find(exp.AggFunc) and not isinstance(p, exp.Star)]

    def ensure_table(self, table: str) -> str:
        """The alias of ``table`` in the outer SELECT, joining it through foreign keys if needed."""
        aliases = self.tables()
        if table.lower() in aliases:
            return aliases[table.lower()]
        if not aliases:
            raise FollowupError("the previous query reads no table directly; cannot join to it")
        path = self.schema.join_path(list(aliases), table)
        used = {a.lower() for a in self._sp.all_aliases(self.tree)}
        for frm, cols, to, ref_cols in path:
            frm_alias = self.tables().get(frm, frm)
            alias = to[0] if to[0] not in used else to[:2]
            k = 2
            while alias in used:
                alias = f"{to[0]}{k}"
                k += 1
            used.add(alias)
            cond = None
            for c, rc in zip(cols, ref_cols, strict=False):
                eq = exp.EQ(this=_col(rc, alias), expression=_col(c, frm_alias))
                cond = eq if cond is None else exp.and_(cond, eq)
            self.tree = self.tree.join(
                exp.Table(
                    this=exp.to_identifier(self.schema.names.get(to, to)),
                    alias=exp.TableAlias(this=exp.to_identifier(alias)),
                ),
                on=cond,
                join_type="inner",
                copy=False,
            )
            self.explanation.append(f"joined {to} through {', '.join(cols)}")
        return self.tables()[table.lower()]

    def _order_by_measure(self, descending: bool = True, with_labels: bool = True) -> None:
        m = self.measure()
        order: list[exp.Expression] = []
        if m is not None:
            order.append(exp.Ordered(this=exp.column(m.alias), desc=descending))
        if with_labels:
            for d in self.dimensions():
                name = d.alias_or_name
                if name and not d.find(exp.Window):
                    order.append(
                        exp.Ordered(
                            this=exp.column(name) if isinstance(d, exp.Alias) else d.copy(), desc=False
                        )
                    )
        self.tree.set("order", exp.Order(expressions=order) if order else None)

    # -- operations -----------------------------------------------------------------------------
    def breakdown(self, dim: Dimension, keep_existing: bool = False) -> None:
        alias = self.ensure_table(dim.table)
        col: exp.Expression = _col(dim.column, alias)
        if dim.part:
            col = date_part(col, dim.part)
        if self.measure() is None:
            # a list becomes a count per group
            self.tree.set("expressions", [exp.alias_(exp.Count(this=exp.Star()), "count")])
            self.tree.set("distinct", None)
            self.tree.set("limit", None)
            self.explanation.append("counted the rows per group")
        if not keep_existing:
            self.tree.set("expressions", [p for p in self.tree.expressions if p.find(exp.AggFunc)])
            self.tree.set("group", None)
        self.tree.set("expressions", [exp.alias_(col.copy(), dim.label), *self.tree.expressions])
        groups = list((self.tree.args.get("group") or exp.Group(expressions=[])).expressions)
        groups.append(col.copy())
        self.tree.set("group", exp.Group(expressions=groups))
        self._order_by_measure()
        self.explanation.append(f"broke the result out by {dim.table}.{dim.column}")

    def top(self, n: int, ascending: bool = False, rank: bool = False) -> None:
        m = self.measure()
        if m is None:
            raise FollowupError(
                "the previous result has no measure to rank by; ask for a count or sum by something first"
            )
        self._order_by_measure(descending=not ascending)
        if rank:
            self.add_rank(ascending)
        self.tree.set("limit", exp.Limit(expression=exp.Literal.number(n)))
        self.explanation.append(f"kept the {'bottom' if ascending else 'top'} {n} by {m.alias}")

    def add_rank(self, ascending: bool = False) -> None:
        m = self.measure()
        if m is None:
            raise FollowupError("the previous result has no measure to rank by")
        if any(p.alias_or_name.lower() == "rank" for p in self.tree.expressions):
            return
        window = exp.Window(
            this=exp.Anonymous(this="RANK", expressions=[]),
            order=exp.Order(expressions=[exp.Ordered(this=m.this.copy(), desc=not ascending)]),
        )
        self.tree.set("expressions", [*self.tree.expressions, exp.alias_(window, "rank")])
        if not self.tree.args.get("order"):
            self._order_by_measure(descending=not ascending)
        self.explanation.append("added a rank")

    def wrap(self) -> None:
        """Make the query a subquery ``prev_result`` of a plain SELECT of its columns (to re-sort a
        top-N without changing which rows it keeps)."""
        inner = self.tree
        measures = [m.alias for m in self.measures() if not m.find(exp.Window)]
        names = [p.alias_or_name for p in inner.expressions]
        sub = exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier("prev_result")))
        self.tree = exp.select(*[exp.column(n, table="prev_result") for n in names]).from_(sub)
        self._wrapped_measures = measures

    def sort(self, key: str | None, direction: str | None) -> None:
        order = self.tree.args.get("order")
        if direction == "reverse" and order is not None:
            flipped = [
                exp.Ordered(this=o.this.copy(), desc=not o.args.get("desc")) for o in order.expressions
            ]
            if self.tree.args.get("limit") is not None:  # keep the same rows, show them the other way round
                names = {p.alias_or_name.lower() for p in self.tree.expressions}
                self.wrap()
                flipped = [
                    exp.Ordered(this=exp.column(o.this.name), desc=o.args.get("desc"))
                    for o in flipped
                    if isinstance(o.this, exp.Column) and o.this.name.lower() in names
                ]
            self.tree.set("order", exp.Order(expressions=flipped) if flipped else None)
            self.explanation.append("reversed the order")
            return
        if self.tree.args.get("limit") is not None:
            self.wrap()
        target: exp.Expression | None = None
        if key and re.fullmatch(r"(?:the\s+)?(?:name|names|label|labels|title)", key.strip()):
            key = (
                "__label__"
                if not any("name" in p.alias_or_name.lower() for p in self.tree.expressions)
                else key
            )
        if key and key != "__label__":
            words = set(WORD.findall(key.lower())) - DIM_STOP
            words = {base_word(w) for w in words}
            for p in self.tree.expressions:
                name_words = set(WORD.findall(p.alias_or_name.lower().replace("_", " ")))
                if words & name_words:
                    target = exp.column(p.alias_or_name) if isinstance(p, exp.Alias) else p.copy()
                    break
            if target is None:
                dim = self.schema.find_dimension(key, list(self.tables()))
                if dim is not None:
                    alias = self.tables().get(dim.table.lower())
                    grouped = self.tree.args.get("group") is not None or self.measure() is not None
                    if alias is not None and not grouped:
                        target = _col(dim.column, alias)
                    elif alias is not None:
                        raise FollowupError(
                            f"{key!r} ({dim.table}.{dim.column}) is not a column of the result; "
                            "break it out by that first"
                        )
            if target is None:
                m = self.measure()
                if m is not None and re.search(
                    r"\b(count|number|total|sum|amount|average|value|size)\b", key
                ):
                    target = exp.column(m.alias)
            if target is None:
                raise FollowupError(f"cannot tell which column {key!r} is; name one of the result's columns")
        elif key == "__label__":
            dims = self.dimensions()
            if not dims:
                raise FollowupError("the previous result has no label column to sort alphabetically")
            d = dims[0]
            target = exp.column(d.alias_or_name) if isinstance(d, exp.Alias) else d.copy()
        else:
            m = self.measure()
            if m is None:
                raise FollowupError("say which column to sort by")
            target = exp.column(m.alias)
        if direction:
            desc = direction == "desc"
        else:  # a measure sorts highest first unless told otherwise; labels sort A to Z
            m = self.measure()
            desc = m is not None and target.sql() == exp.column(m.alias).sql()
        ordered = [exp.Ordered(this=target, desc=desc)]
        for d in self.dimensions():
            name = d.alias_or_name
            if name and name.lower() != target.alias_or_name.lower() and not d.find(exp.Window):
                ordered.append(
                    exp.Ordered(this=exp.column(name) if isinstance(d, exp.Alias) else d.copy(), desc=False)
                )
        self.tree.set("order", exp.Order(expressions=ordered))
        self.explanation.append(f"sorted by {target.sql()} {'descending' if desc else 'ascending'}")

    def filter(self, f: LinkedFilter, add: bool = False) -> None:
        table, _, column = f.column.rpartition(".")
        # replace the value of a slot on the same column
        if not add:
            for key, slot in self.slots.items():
                if (
                    slot.column == f.column.lower()
                    and slot.operator in ("eq", "like", None)
                    and key in self.values
                ):
                    old = self.values[key]
                    self.values[key] = f.value
                    self.explanation.append(f"replaced {old!r} by {f.value!r} on {f.column}")
                    return
            # a value of another column of the same table replaces that table's equality filter
            for key, slot in self.slots.items():
                if (
                    slot.column
                    and slot.operator == "eq"
                    and slot.column.split(".")[0] == table.lower()
                    and not slot.wrapped
                ):
                    if self._drop_condition(key):
                        self.explanation.append(f"dropped the filter on {slot.column}")
                        break
        if not table:
            raise FollowupError(f"linked value {f.value!r} has no table.column")
        real = next((n for n in self.schema.names.values() if n.lower() == table.lower()), table)
        alias = self.ensure_table(real)
        real_col = column
        for c in self.schema.columns.get(table.lower(), []):
            if c.name.lower() == column.lower():
                real_col = c.name
        col: exp.Expression = _col(real_col, alias)
        if f.part:
            col = exp.Extract(this=exp.var(f.part.upper()), expression=col)
        self.tree.where(exp.EQ(this=col, expression=self.new_param(f.value)), append=True, copy=False)
        self.explanation.append(f"added the filter {f.column} = {f.value!r}")

    def add_condition(self, snippet: str, params: Sequence[Any]) -> None:
        """AND a facet's parameterized condition into the query (joining its tables if needed)."""
        stext, skeys = self._sp.to_sentinels(snippet, self.dialect, "f")
        self._new += 1
        rename = {}
        for key in skeys:
            new_key = f"f{self._new}_{key[1:]}"
            rename[key] = new_key
            self.values[new_key] = params[int(key[1:]) - 1]
        for old, new in rename.items():
            stext = stext.replace(f"__ctxp_{old}__", f"__ctxp_{new}__")
        cond = self._sp.parse(f"SELECT 1 WHERE {stext}", self.dialect).args["where"].this
        for col in cond.find_all(exp.Column):
            if col.table:
                real = next(
                    (n for n in self.schema.names.values() if n.lower() == col.table.lower()), col.table
                )
                alias = (
                    self.ensure_table(real)
                    if self.schema.names
                    else self.tables().get(col.table.lower(), col.table)
                )
                col.set("table", exp.to_identifier(alias))
        self.tree.where(cond, append=True, copy=False)
        self.explanation.append(f"added the condition {snippet}")

    def _drop_condition(self, key: str) -> bool:
        where = self.tree.args.get("where")
        if where is None:
            return False
        for node in list(where.find_all(exp.EQ, exp.Like, exp.ILike)):
            if any(c.name == f"__ctxp_{key}__" for c in node.find_all(exp.Column)):
                parent = node.parent
                if isinstance(parent, exp.Where):
                    self.tree.set("where", None)
                elif isinstance(parent, exp.And):
                    other = parent.expression if parent.this is node else parent.this
                    parent.replace(other)
                else:
                    return False
                self.values.pop(key, None)
                return True
        return False

    def over_result(self, op: str) -> None:
        """Replace the query by one over its own result ("how many of them", "which has the most")."""
        inner = self.tree
        m = self.measure()
        dims = [d.alias_or_name for d in self.dimensions() if d.alias_or_name]
        sub = exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier("prev_result")))
        if op == "count":
            self.tree = exp.select(exp.alias_(exp.Count(this=exp.Star()), "count")).from_(sub)
            self.explanation.append("counted the rows of the previous result")
            return
        if m is None:
            raise FollowupError("the previous result has no measure to compare")
        measure = exp.column(m.alias, table="prev_result")
        if op in ("sum", "avg"):
            fn = exp.Sum(this=measure) if op == "sum" else exp.Avg(this=measure)
            self.tree = exp.select(exp.alias_(fn, f"{op}_{m.alias}")).from_(sub)
            self.explanation.append(f"took the {op} of {m.alias} over the previous result")
            return
        order = [exp.Ordered(this=measure, desc=op == "max")]
        order += [exp.Ordered(this=exp.column(d, table="prev_result"), desc=False) for d in dims]
        self.tree = exp.select(exp.Star()).from_(sub).order_by(*order).limit(1)
        self.explanation.append(f"picked the row with the {'highest' if op == 'max' else 'lowest'} {m.alias}")


def rewrite(
    question: str,
    previous_sql: str,
    previous_params: Sequence[Any],
    dialect: str,
    schema: Schema,
    *,
    link: Callable[[str], Sequence[LinkedFilter]] | None = None,
    facets: Callable[[str], Sequence[tuple[str, Sequence[Any], str]]] | None = None,
    intent: Intent | None = None,
) -> Rewrite:
    """Apply a follow-up to the previous query. Raises :class:`FollowupError` when it cannot."""
    intent = intent or classify(question)
    if not intent.kinds:
        raise FollowupError("not a follow-up")
    rw = QueryRewriter(previous_sql, previous_params, dialect, schema)
    if "result" in intent.kinds:
        rw.over_result(intent.result_op or "max")
        sql, params = rw.result()
        return Rewrite(sql, params, intent.kinds, rw.explanation)
    if "filter" in intent.kinds:
        applied = False
        text = intent.filter_text or question
        for f in link(text) if link else ():
            rw.filter(f, add=intent.add_filter)
            applied = True
        for snippet, params, _why in facets(text) if facets and not applied else ():
            rw.add_condition(snippet, params)
            applied = True
        if not applied and len(intent.kinds) == 1:
            raise FollowupError(f"found no value or condition in {text!r} to filter on")
    if "breakdown" in intent.kinds and intent.dimension:
        dim = schema.find_dimension(intent.dimension, list(rw.tables()))
        if dim is None:
            if "topn" not in intent.kinds:
                raise FollowupError(f"cannot tell which column {intent.dimension!r} is")
        else:
            rw.breakdown(dim, keep_existing=intent.add_dimension)
    if "topn" in intent.kinds and intent.top_n:
        if intent.topn_dimension:
            dim = schema.find_dimension(intent.topn_dimension, list(rw.tables()))
            grouped = {
                g.sql().lower() for g in (rw.tree.args.get("group") or exp.Group(expressions=[])).expressions
            }
            if dim is not None and rw.measure() is not None and rw.tree.args.get("group") is not None:
                alias = rw.tables().get(dim.table.lower())
                col = _col(dim.column, alias).sql().lower() if alias else None
                if col not in grouped:
                    rw.breakdown(dim)  # "top 5 districts" after a breakdown by region: regroup
        rw.top(intent.top_n, intent.ascending, intent.rank)
    elif intent.rank:
        rw.add_rank()
    if "sort" in intent.kinds:
        rw.sort(intent.sort_key, intent.sort_dir)
    sql, params = rw.result()
    return Rewrite(sql, params, intent.kinds, rw.explanation)
