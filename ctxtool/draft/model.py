"""What the schema says, in the terms drafting needs: roles of columns and the join paths.

A snapshot (``ctxtool.snapshot``) is read once into :class:`Model`: each column gets a *role*
(key, categorical, measure, name, date, flag) from its type, keys and profile, and each foreign key
or Spanner interleaving becomes a :class:`Join` with its column pairs, so every drafted join uses the
real keys. Its SQL text (identifier quoting and literals per dialect) comes from
:mod:`ctxtool.draft.sqltext`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxtool.connectors.profile import effective_type, type_category
from ctxtool.dialects import normalize
from ctxtool.draft.names import Namer, TableName
from ctxtool.draft.sqltext import (  # noqa: F401 (callers import these from here too)
    RESERVED,
    format_number,
    nice_number,
    quote_ident,
    sql_literal,
)
from ctxtool.sensitive import secret_column
from ctxtool.snapshot import schema_qualifier, unreadable

CATEGORICAL_MAX = 30  # a text column with at most this many values is a category
SMALL_NUMBER_MAX = 12  # a number column with at most this many values is also a category

_ID_NAME = re.compile(r"(?:^|_)(?:[iI][dD]|uuid|guid|UUID|GUID)$|[a-z0-9](?:Id|ID|Uuid|UUID|Guid|GUID)$")
_YEAR_NAME = re.compile(r"(?:^|_)year$|[a-z]Year$|^year_?(?:of|built|founded|opened)", re.IGNORECASE)
_AUDIT_NAME = re.compile(
    r"^(?:last_?(?:update|updated|modified|changed)|(?:date_?)?(?:created|updated|modified|changed|inserted|deleted)"
    r"(?:_?(?:at|on|date|time|ts|by|timestamp))?|row_?version|etl_\w+|record_\w+_(?:at|on|by))$",
    re.IGNORECASE,
)

_QUANTITY = re.compile(r"\b(?:quantity|quantities|qty|units|amounts?|number of|count)\b", re.IGNORECASE)


@dataclass(eq=False)
class Column:
    table: Table
    name: str
    type: str
    category: str  # number | date | text | bool | other
    label: str
    comment: str | None
    profile: dict[str, Any]
    nullable: bool = True
    in_pk: bool = False
    in_fk: bool = False
    readable: bool = True  # has a real name, a comment or a glossary entry
    names_a_key: bool = False  # run together as a table's name and "id" (``widgetid``)

    @property
    def distinct(self) -> int | None:
        d = self.profile.get("distinct") if self.profile else None
        if isinstance(d, (int, float)):
            if d < 0:  # PostgreSQL's negative fraction of rows
                rows = self.table.rows or 0
                return int(-d * rows) if rows else None
            return int(d)
        return None

    @property
    def id_like(self) -> bool:
        """Keys and surrogate ids (``id``, ``customer_id``, ``ArtistId``, ``uuid``): never a
        dimension or a measure."""
        return (
            (self.in_pk and self.category != "date")
            or self.in_fk
            or bool(_ID_NAME.search(self.name))
            or self.label.rsplit(" ", 1)[-1] == "ID"  # run-together ``amenid``: "amen ID"
            or self.names_a_key
        )

    @property
    def members(self) -> list[str]:
        """The members a MySQL ``SET(...)`` column may hold, in their order."""
        if self.category != "set":
            return []
        return [m.replace("''", "'") for m in re.findall(r"'((?:[^']|'')*)'", self.type)]

    @property
    def is_year(self) -> bool:
        """A number that counts years (``hired_year``, ``year``): a point in time, not an amount."""
        return self.category == "number" and (
            bool(_YEAR_NAME.search(self.name)) or self.type.lower().startswith("year")
        )

    @property
    def is_audit(self) -> bool:
        """Bookkeeping of the row, not of what it describes (``last_update``, ``created_at``,
        ``modified_by``): never a dimension or a measure."""
        return bool(_AUDIT_NAME.search(self.name))

    @property
    def common_values(self) -> list[Any]:
        mc = (self.profile or {}).get("most_common") or []
        return [m.get("value") for m in mc if isinstance(m, dict) and m.get("value") is not None]

    @property
    def is_flag(self) -> bool:
        """A boolean, or a whole number holding only 0 and 1 (``discontinued``): a yes/no
        predicate ("How many products are discontinued?"), never a dimension or a measure."""
        if self.category == "bool":
            return True
        if self.category != "number" or self.id_like or self.is_fractional:
            return False
        prof = self.profile or {}
        d = self.distinct
        return prof.get("min") == 0 and prof.get("max") == 1 and d is not None and d <= 2

    @property
    def is_categorical(self) -> bool:
        if self.id_like or self.is_audit or self.category not in ("text", "number", "bool"):
            return False
        d = self.distinct
        if d is None or d < 2:
            return False
        if self.is_flag:
            return False  # flags get questions of their own ("How many X are active?")
        if self.is_quantity:  # "for each units on order" groups by an amount, not a kind
            return False
        if not self.repeats:  # every row its own value: a name or a measure, not a dimension
            return False
        if self.category == "text":
            return d <= CATEGORICAL_MAX
        return d <= SMALL_NUMBER_MAX and not self.is_fractional

    @property
    def is_quantity(self) -> bool:
        """A column that says how many or how much (a quantity, units in stock, a number of
        seats): an amount to sum or compare, never a kind of row to break a table down by."""
        return bool(_QUANTITY.search(self.label) or _QUANTITY.search(self.name.replace("_", " ")))

    @property
    def repeats(self) -> bool:
        """Whether values come back row after row (at most ~60% as many values as rows)."""
        d, rows = self.distinct, self.table.rows
        return d is None or not rows or rows <= 0 or d <= max(2, 0.6 * rows)

    @property
    def is_fractional(self) -> bool:
        t = self.type.lower()
        return any(w in t for w in ("double", "float", "real", "numeric", "decimal", "money"))

    @property
    def is_measure(self) -> bool:
        if self.id_like or self.is_audit or self.category != "number" or self.is_year or self.is_flag:
            return False
        if re.search(r"(?:^|_)year(?:$|_)|^year", self.name, re.I):  # a year is a date, not an amount
            return False
        d = self.distinct
        return d is None or d >= 3

    @property
    def is_name(self) -> bool:
        """A text column that names things (a value a person would type: a city, a product)."""
        if self.id_like or self.category != "text" or self.is_categorical:
            return False
        avg = (self.profile or {}).get("avg_length")
        if isinstance(avg, (int, float)) and avg > 60:
            return False
        d = self.distinct
        return d is None or d > CATEGORICAL_MAX

    @property
    def is_date(self) -> bool:
        return self.category == "date" and not self.id_like and not self.is_audit

    @property
    def is_timestamp(self) -> bool:
        t = self.type.lower()
        return self.is_date and ("time" in t or "datetime" in t)


@dataclass(eq=False)
class Table:
    schema: str | None
    name: str
    names: TableName
    comment: str | None
    rows: float | None
    primary_key: list[str]
    columns: list[Column] = field(default_factory=list)
    kind: str = "table"
    is_link: bool = False  # a many-to-many link table: drafted as the relationship it holds
    secrets: list[tuple[str, str]] = field(default_factory=list)  # (column, why): never drafted

    def column(self, name: str) -> Column | None:
        low = name.lower()
        for c in self.columns:
            if c.name.lower() == low:
                return c
        return None

    @property
    def pk_columns(self) -> list[Column]:
        return [c for c in (self.column(n) for n in self.primary_key) if c is not None]

    @property
    def name_column(self) -> Column | None:
        """The column that best names a row (``name``, a commented "... name", the first name-like)."""
        names = [c for c in self.columns if c.is_name and c.readable]
        for c in names:
            if c.name.lower() in ("name", "title") or c.label.lower().endswith(" name") or c.label == "name":
                return c
        return names[0] if names else None


@dataclass(eq=False)
class Join:
    """``child`` references ``parent``: ``pairs`` are (child column, parent column)."""

    child: Table
    parent: Table
    pairs: list[tuple[Column, Column]]
    kind: str  # "fk" | "interleave"
    fk_name: str | None = None

    @property
    def one_per_parent(self) -> bool:
        """Whether the child's reference is its whole primary key: each parent has at most one (a
        subtype: each row of the child is one of the parent's), so "the most" per parent means nothing."""
        keys = {c.name.lower() for c in self.child.pk_columns}
        return bool(keys) and keys == {c.name.lower() for c, _ in self.pairs}

    @property
    def role(self) -> str | None:
        """When a child references the same parent twice (flights.origin_airport_id,
        flights.dest_airport_id), the words that tell them apart ("origin"), else None."""
        if len(self.pairs) != 1:
            return None
        col = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", self.pairs[0][0].name).lower()
        parent = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", self.parent.name).lower()
        base = re.sub(r"_?id$", "", col)
        for stem in (parent, self.parent.names.singular.lower().replace(" ", "_")):
            base = base.replace(stem, "").replace(singular_stem(stem), "")
        base = base.strip("_")
        if not base:
            return None
        from ctxtool.draft.names import words_of

        return words_of(base)


@dataclass(eq=False)
class Link:
    """A many-to-many relationship: ``table`` (a link table) joins ``a.parent`` and ``b.parent``."""

    table: Table
    a: Join
    b: Join


def singular_stem(word: str) -> str:
    return word[:-1] if word.endswith("s") else word


class Model:
    """The drafting view of a snapshot."""

    def __init__(
        self,
        snapshot: dict[str, Any],
        *,
        namer: Namer | None = None,
        tables: Sequence[str] | None = None,
        sampler: Callable[[Table, Column], list[Any]] | None = None,
        exclude: Sequence[str] = (),
        views: bool = True,
    ) -> None:
        """``tables``: only these; ``exclude``: leave out these tables and ``table.column`` columns
        (``schema.`` first accepted; a key column stays, joins need it); ``views``: draft views and
        materialized views too."""
        self.snapshot = snapshot
        self.dialect = normalize(snapshot.get("dialect") or snapshot.get("engine") or "postgres")
        self.namer = namer or Namer()
        self.sampler = sampler
        self._samples: dict[tuple[str, str], list[Any]] = {}
        wanted = {t.lower() for t in tables} if tables else None
        excluded = {e.strip().lower() for e in exclude if e.strip()}
        self._excluded_columns = excluded
        counts: dict[str, int] = {}
        for schema in snapshot.get("schemas") or []:
            for t in schema.get("tables") or []:
                counts[t["name"].lower()] = counts.get(t["name"].lower(), 0) + 1
        # a table name two schemas share: its columns and questions name the schema too
        self.shared_names = {name for name, n in counts.items() if n > 1}
        self.tables: list[Table] = []
        self.skipped_tables: list[tuple[str, str]] = []  # (schema.table, why): said in the report
        raw_tables: list[tuple[Table, dict[str, Any]]] = []
        for schema in snapshot.get("schemas") or []:
            for t in schema.get("tables") or []:
                if (
                    wanted is not None
                    and t["name"].lower() not in wanted
                    and (f"{schema.get('name')}.{t['name']}".lower() not in wanted)
                ):
                    continue
                qualified = f"{schema.get('name')}.{t['name']}".lower()
                if t["name"].lower() in excluded or qualified in excluded:
                    continue
                if not views and t.get("kind") in ("view", "materialized_view"):
                    continue
                why = unreadable(t)
                if why:
                    qualifier = schema_qualifier(snapshot, schema.get("name"))
                    self.skipped_tables.append((f"{qualifier}.{t['name']}" if qualifier else t["name"], why))
                    continue
                table = self._table(schema.get("name"), t)
                self.tables.append(table)
                raw_tables.append((table, t))
        if wanted:
            found = {t.name.lower() for t in self.tables} | {
                f"{t.schema}.{t.name}".lower() for t in self.tables
            }
            missing = sorted(w for w in wanted if w not in found)
            if missing:
                from ctxtool.errors import InputError

                known = ", ".join(
                    sorted(t["name"] for s in snapshot.get("schemas") or [] for t in s.get("tables") or [])
                )
                raise InputError(
                    f"--tables: no table named {', '.join(missing)} in the snapshot (tables: {known})"
                )
        if wanted is None:  # a view that restates one table would compete with it for every question
            restating = {id(t) for t in self.tables if self._restates_a_table(t)}
            self.tables = [t for t in self.tables if id(t) not in restating]
            raw_tables = [(t, r) for t, r in raw_tables if id(t) not in restating]
        mark_run_together_keys(self.tables)
        self.joins: list[Join] = []
        for table, raw in raw_tables:
            self._joins_of(table, raw)
        self.links: list[Link] = [link for t in self.tables if (link := self._link_of(t)) is not None]
        for link in self.links:
            link.table.is_link = True

    # -- building ---------------------------------------------------------------------------

    def _table(self, schema: str | None, raw: dict[str, Any]) -> Table:
        names = self.namer.table(raw)
        from ctxtool.snapshot import schema_qualifier

        if raw["name"].lower() in self.shared_names and schema_qualifier(self.snapshot, schema):
            from ctxtool.draft.names import words_of

            prefix = words_of(schema)
            names = TableName(f"{prefix} {names.singular}", f"{prefix} {names.plural}")
        table = Table(
            schema=schema,
            name=raw["name"],
            names=names,
            comment=raw.get("comment"),
            rows=_rows(raw),
            primary_key=list(raw.get("primary_key") or []),
            kind=raw.get("kind") or "table",
        )
        fk_cols = {c.lower() for fk in raw.get("foreign_keys") or [] for c in fk.get("columns") or []}
        pk = {c.lower() for c in table.primary_key}
        for rc in raw.get("columns") or []:
            secret = secret_column(rc)
            if secret and rc["name"].lower() not in pk | fk_cols:  # keys stay: joins need them
                table.secrets.append((rc["name"], secret))
                continue
            named = {f"{raw['name']}.{rc['name']}".lower(), f"{schema}.{raw['name']}.{rc['name']}".lower()}
            if named & self._excluded_columns and rc["name"].lower() not in pk | fk_cols:
                continue  # --exclude table.column
            ctype = effective_type(rc)
            category = column_category(ctype)
            col = Column(
                table=table,
                name=rc["name"],
                type=ctype,
                category=category,
                label=self.namer.column(raw, rc),
                comment=rc.get("comment"),
                profile=rc.get("profile") or {},
                nullable=bool(rc.get("nullable", True)),
                in_pk=rc["name"].lower() in pk,
                in_fk=rc["name"].lower() in fk_cols,
                readable=self.namer.has_real_name(raw, rc),
            )
            table.columns.append(col)
        if not self.namer.glossary.table(table.name):
            table.names = named_by_key(table)
        return table

    def _joins_of(self, table: Table, raw: dict[str, Any]) -> None:
        for fk in raw.get("foreign_keys") or []:
            parent = self.table(fk.get("ref_table"), fk.get("ref_schema"))
            if parent is None:
                continue
            pairs = []
            for c, p in zip(fk.get("columns") or [], fk.get("ref_columns") or [], strict=False):
                cc, pc = table.column(c), parent.column(p)
                if cc is None or pc is None:
                    break
                pairs.append((cc, pc))
            else:
                if pairs:
                    self.joins.append(Join(table, parent, pairs, "fk", fk.get("name")))
        inter = raw.get("interleave")
        if isinstance(inter, dict) and inter.get("parent"):
            parent = self.table(inter["parent"], table.schema)
            if parent is not None and not any(j.child is table and j.parent is parent for j in self.joins):
                pairs = []
                for pc in parent.pk_columns:
                    cc = table.column(pc.name)
                    if cc is None:
                        pairs = []
                        break
                    pairs.append((cc, pc))
                if pairs:
                    self.joins.append(Join(table, parent, pairs, "interleave"))

    def _restates_a_table(self, view: Table) -> bool:
        """A view (not materialized) whose every column is a column of one base table."""
        if view.kind != "view" or len(view.columns) < 2:
            return False
        names = {c.name.lower() for c in view.columns}
        return any(t.kind == "table" and names <= {c.name.lower() for c in t.columns} for t in self.tables)

    def _link_of(self, table: Table) -> Link | None:
        """The many-to-many relationship ``table`` holds: two foreign keys whose columns make up
        the table (its key), with nothing of its own beside them but bookkeeping columns."""
        joins = [j for j in self.joins if j.child is table and j.parent is not table]
        if len(joins) != 2 or joins[0].parent is joins[1].parent:
            return None
        fk_cols = {c.name.lower() for j in joins for c, _ in j.pairs}
        own = [c for c in table.columns if c.name.lower() not in fk_cols and not c.is_audit]
        if own and not all(c.in_pk and c.id_like for c in own):
            return None
        return Link(table, joins[0], joins[1])

    def skipped_columns(self) -> list[tuple[str, str]]:
        """``(table.column, why)`` for the columns no draft uses because of their type (documents,
        bytes, arrays, intervals, ids) or because they hold secrets: said in the report, never a
        traceback."""
        from ctxtool.snapshot import schema_qualifier

        out = []
        for t in self.tables:
            if t.is_link:
                continue
            for c in t.columns:
                if c.category == "other" and not (c.in_pk or c.in_fk):
                    schema = schema_qualifier(self.snapshot, t.schema)
                    label = f"{schema}.{t.name}.{c.name}" if schema else f"{t.name}.{c.name}"
                    out.append((label, f"type {c.type}: not a value, dimension or measure drafts can use"))
            for name, why in t.secrets:
                schema = schema_qualifier(self.snapshot, t.schema)
                out.append((f"{schema}.{t.name}.{name}" if schema else f"{t.name}.{name}", why))
        return out

    def labelled_snapshot(self) -> dict[str, Any]:
        """The snapshot with each column's comment replaced by its plain-English label, so that
        ``parameterize`` names values by what they are ("a given region", not "a given A3") and the
        glossary reaches the manifests."""
        import copy

        snap = copy.deepcopy(self.snapshot)
        labels = {(t.name, c.name): c.label for t in self.tables for c in t.columns}
        for schema in snap.get("schemas") or []:
            for t in schema.get("tables") or []:
                for c in t.get("columns") or []:
                    label = labels.get((t["name"], c["name"]))
                    if label:
                        c["comment"] = label
        return snap

    # -- lookups ----------------------------------------------------------------------------

    def table(self, name: str | None, schema: str | None = None) -> Table | None:
        if not name:
            return None
        low = name.lower()
        for t in self.tables:
            if t.name.lower() == low and (
                schema is None or t.schema is None or (t.schema or "").lower() == schema.lower()
            ):
                return t
        for t in self.tables:
            if t.name.lower() == low:
                return t
        return None

    def table_weights(self) -> dict[str, float]:
        """0..1 per table name: how central it is (rows, and the foreign keys that reach it), so
        drafts about the main entities rank before those about lookup and link tables."""
        import math

        raw: dict[str, float] = {}
        for t in self.tables:
            degree = sum(1 for j in self.joins if j.parent is t or j.child is t)
            raw[t.name] = math.log10(1 + max(t.rows or 0, 0)) + 0.5 * degree - (1.0 if t.is_link else 0.0)
        top = max(raw.values(), default=0.0) or 1.0
        return {k: max(v, 0.0) / top for k, v in raw.items()}

    def parents_of(self, table: Table) -> list[Join]:
        return [j for j in self.joins if j.child is table and j.parent is not table]

    def children_of(self, table: Table) -> list[Join]:
        return [j for j in self.joins if j.parent is table and j.child is not table]

    def values(self, col: Column, n: int = 5) -> list[Any]:
        """Concrete values of ``col``: the profile's most common ones, else a sample from the database."""
        vals = [v for v in col.common_values if _usable_value(v)]
        if vals:
            return vals[:n]
        key = (col.table.name, col.name)
        if key not in self._samples:
            sampled: list[Any] = []
            if self.sampler is not None:
                try:
                    sampled = [v for v in self.sampler(col.table, col) if _usable_value(v)]
                except Exception:  # a sample is a nicety: drafting goes on without it
                    sampled = []
            self._samples[key] = sampled
        return self._samples[key][:n]

    # -- SQL text ---------------------------------------------------------------------------

    def ident(self, name: str) -> str:
        return quote_ident(name, self.dialect)

    def table_sql(self, table: Table, alias: str | None = None) -> str:
        """The table as written in FROM: schema-qualified outside the default schema (PostgreSQL's
        ``public``, the MySQL connection's database, Spanner's unnamed one), with ``alias``."""
        from ctxtool.snapshot import schema_qualifier

        name = self.ident(table.name)
        schema = schema_qualifier(self.snapshot, table.schema)
        if schema:
            name = f"{self.ident(schema)}.{name}"
        return f"{name} AS {self.ident(alias)}" if alias else name

    def col(self, col: Column, alias: str | None = None) -> str:
        qualifier = self.ident(alias) if alias else self.ident(col.table.name)
        # (Spanner has no schema.table.column: there FROM's implicit alias, the table name, says it)
        if alias is None and col.table.name.lower() in self.shared_names and self.dialect != "spanner":
            from ctxtool.snapshot import schema_qualifier

            schema = schema_qualifier(self.snapshot, col.table.schema)
            if schema:  # which of the namesakes: schema.table.column
                qualifier = f"{self.ident(schema)}.{qualifier}"
        if col.type.lower() == "money" and self.dialect == "postgres":
            # money has no comparison with numbers nor an average: work with its numeric value
            return f"{qualifier}.{self.ident(col.name)}::numeric"
        return f"{qualifier}.{self.ident(col.name)}"

    def literal(self, value: Any, col: Column | None = None) -> str:
        return sql_literal(value, self.dialect, col)

    def flag_value(self, col: Column, on: bool = True) -> str:
        """The literal a flag is compared with: TRUE/FALSE, or 1/0 for a 0/1 number."""
        if col.category == "number":
            return "1" if on else "0"
        return "TRUE" if on else "FALSE"

    def join_on(self, join: Join, child_alias: str | None = None, parent_alias: str | None = None) -> str:
        return " AND ".join(
            f"{self.col(c, child_alias)} = {self.col(p, parent_alias)}" for c, p in join.pairs
        )


def named_by_key(table: Table) -> TableName:
    """A table named as a dimension of its own rows (``widget_kind``: a key ``widget`` and a column
    ``widget_kind`` that many rows share): its rows are what the key names ("widgets", counted "for
    each widget kind"), not "widget kinds" ("Which widget kind has the most widget kinds?")."""
    names = table.names
    keys = table.pk_columns
    if len(keys) != 1 or keys[0].category != "text" or keys[0].in_fk or not keys[0].readable:
        return names
    key = keys[0]
    own = {names.singular.lower(), names.plural.lower()}
    if key.label.lower() in own or re.search(r"\b(?:code|id|key|number|no)$", key.label, re.IGNORECASE):
        return names
    if not any(c is not key and c.label.lower() in own and c.is_categorical for c in table.columns):
        return names
    from ctxtool.draft.names import pluralize, singularize

    base = singularize(key.label)
    return TableName(base, pluralize(base))


def mark_run_together_keys(tables: Sequence[Table]) -> None:
    """Mark ``widgetid`` (of any table) as a key when some table's name begins with ``widget``: a
    reference written without a separator, which word splitting reads as other words."""
    stems = [re.sub(r"[^a-z0-9]", "", t.name.lower()) for t in tables]
    for t in tables:
        for c in t.columns:
            m = re.fullmatch(r"([a-z]{3,})id", c.name.lower())
            if m and any(s.startswith(m.group(1)) for s in stems):
                c.names_a_key = True


def _rows(raw: dict[str, Any]) -> float | None:
    """The table's row estimate; when the table was never analyzed (no estimate), the distinct
    count of a one-column primary key, which is its number of rows."""
    est = raw.get("row_estimate")
    if isinstance(est, (int, float)) and est > 0:
        return est
    pk = [c.lower() for c in raw.get("primary_key") or []]
    if len(pk) == 1:
        for c in raw.get("columns") or []:
            d = (c.get("profile") or {}).get("distinct")
            if c["name"].lower() == pk[0] and isinstance(d, (int, float)) and d > 0:
                return float(d)
    return _rows_of_sample(raw) or est


def _rows_of_sample(raw: dict[str, Any]) -> float | None:
    """The rows of a table the statistics never counted, from its profiles: each frequency (and
    null fraction) is a count over the rows read, rounded, so the smallest row count at least as
    large as every column's distinct values that turns every frequency back into a whole count.
    Without it every column "repeats" and a table of unique names has no name."""
    fractions: list[float] = []
    low = 0
    for c in raw.get("columns") or []:
        prof = c.get("profile") or {}
        d = prof.get("distinct")
        if isinstance(d, (int, float)) and d > 0:
            low = max(low, int(d))
        fractions += [
            float(f)
            for f in [
                prof.get("null_fraction"),
                *((m or {}).get("frequency") for m in prof.get("most_common") or []),
            ]
            if isinstance(f, (int, float)) and 0 < f <= 1
        ]
    if not low:
        return None
    for n in range(low, low * 50 + 1):
        if all(round(f * n) >= 1 and abs(f * n - round(f * n)) <= 0.00005 * n + 1e-6 for f in fractions):
            return float(n)
    return float(low)


def column_category(type_name: str) -> str:
    t = type_name.lower()
    if t.startswith("bool") or t in ("tinyint(1)", "bit(1)"):
        return "bool"
    if t.startswith("set("):
        return "set"  # several members per value: filtered by membership, not equality
    if "range" in t:
        return "other"  # int4range, tstzrange, multiranges: intervals of values, not values
    if t.startswith("time") and not t.startswith("timestamp"):
        return "other"  # a time of day: no year to count by, no date to compare with
    if t.startswith("year"):
        return "number"  # MySQL YEAR: a year number (compared with 1995, not '1995-01-01')
    if t == "money":
        return "number"  # compared and summed as numeric (Model.col casts it)
    if t == "uuid":
        return "other"  # ids, never names or categories
    return type_category(type_name)


def _usable_value(v: Any) -> bool:
    if v is None or isinstance(v, (dict, list)):
        return False
    if isinstance(v, str):
        return 0 < len(v) <= 80 and "\n" not in v and not v.startswith("base64:")
    return True
