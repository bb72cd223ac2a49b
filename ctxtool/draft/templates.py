"""Templates along what the schema says: counts, breakdowns, top-N, sums and averages, lookups, joins.

Each family follows one rule of thumb about what people ask a database of this shape; questions are
written from the plain-English names of :mod:`ctxtool.draft.names` with concrete values taken from the
profile (or a sample), so that ``parameterize`` can turn them into placeholders.
"""

from __future__ import annotations

import re
from typing import Any

from ctxtool.draft.drafts import Draft, template
from ctxtool.draft.model import CATEGORICAL_MAX, Column, Join, Model, Table, nice_number
from ctxtool.draft.phrasing import extremes, plural_words
from ctxtool.draft.rows import has_duplicates, naming

TOP_N = 10
MAX_CATEGORIES = 3
MAX_MEASURES = 3
MAX_DATES = 2
_ADDITIVE = re.compile(
    r"amount|payment|price|cost|total|quantity|revenue|sales|distance|fee|value|sum|volume|"
    r"inhabitant|population|crime|count|number of",
    re.I,
)


def article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def say(value: Any, col: Column) -> str:
    """How a value is written in a question: strings quoted, numbers and dates as they are."""
    if col.category in ("number", "bool") and not isinstance(value, str):
        return str(value)
    if col.category == "date":
        return str(value)[:10] if not col.is_timestamp else str(value).replace("T", " ")
    return "'" + str(value) + "'"


def total_of(col: Column) -> str:
    """ "total amount", but "total" for a column already called total (not "total total")."""
    return col.label if col.label.lower().split()[:1] == ["total"] else f"total {col.label}"


def flag_words(col: Column) -> str:
    """A flag as the predicate it is: ``is_active`` -> "active" ("How many staff are active?")."""
    return re.sub(r"^(?:is|are)\s+", "", col.label, flags=re.IGNORECASE) or col.label


def flag_predicate(col: Column, negated: bool = False) -> str:
    """A flag said of many rows: "are active", "have wifi", "are not active", "do not have wifi"."""
    m = re.match(r"(?:has|have)\s+(.+)$", col.label, flags=re.IGNORECASE)
    if m:
        return f"do not have {m.group(1)}" if negated else f"have {m.group(1)}"
    return f"are not {flag_words(col)}" if negated else f"are {flag_words(col)}"


def snake(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "value"


def qualified_label(table: Table, col: Column) -> str:
    """``region`` of a city -> "city region" (unless the label already names the table)."""
    singular = table.names.singular
    head = singular.lower().split()[-1:] or [""]
    if singular.lower() in col.label.lower() or head[0] in col.label.lower().split():
        return col.label  # "item type code" of an "all item", not "all item item type code"
    return f"{singular} {col.label}"


def relationship(t: Table) -> bool:
    """A link table, or one named as a statement (``has_allergy``): not things to count."""
    from ctxtool.draft.names import names_a_relationship

    return t.is_link or names_a_relationship(t.name)


def said_by_value(c: Column) -> bool:
    """Whether people name rows by this column's values ("with status 'done'"); not by the number
    of a reference ("tracks with genre ID 1"): they say the genre's name."""
    return not (references(c) and c.category == "number")


def readable(cols: list[Column]) -> list[Column]:
    return [c for c in cols if c.readable]


MAX_REFERENCES = 2  # references ("role code", "statement ID") a table is also broken down by


def categories(table: Table, model: Model | None = None) -> list[Column]:
    """The table's dimensions: low-cardinality columns of its own, then the references to another
    table whose values repeat (``employees.role_code``): "How many employees are there for each role
    code?" is asked of the code itself, not of the name it stands for. With ``model``, not a
    reference to a table the table references twice ("destroyed by" / "authorised by" employee):
    one word tells those apart, and a wrong one answers wrong."""
    own = readable([c for c in table.columns if c.is_categorical and not identifying(c)])
    # the coarser dimensions first (a building of three values before a room of eighteen): those
    # are what people break a table down by
    own = sorted(own, key=lambda c: c.distinct or 0)[:MAX_CATEGORIES]
    keep = {id(c) for c in own}
    own = [c for c in table.columns if id(c) in keep]  # in table order
    refs = [c for c in table.columns if references(c)]
    if model is not None:
        parents = [j.parent for j in model.parents_of(table)]
        twice = [j for j in model.parents_of(table) if sum(p is j.parent for p in parents) > 1]
        refs = [c for c in refs if not any(c is col for j in twice for col, _ in j.pairs)]
    return own + readable(refs)[:MAX_REFERENCES]


def keyed_by(table: Table, model: Model) -> list[Column]:
    """The number keys of other tables that ``table``'s rows share ("How many documents are there
    for each project ID?"): a number, not a dimension, but the key a user reads off another listing;
    not one of two references to the same table (one word tells those apart), nor a reference named
    by a role (``contact_staff_id``: not the key as the parent's listing shows it, and "for each
    contact staff" means the staff by name)."""
    if table.is_link:
        return []
    joins = [j for j in model.parents_of(table) if len(j.pairs) == 1]
    out = []
    for j in joins:
        c = j.pairs[0][0]
        if sum(k.parent is j.parent for k in joins) > 1 or c.category != "number" or c.in_pk or j.role:
            continue
        if c.repeats and c.distinct is not None and c.distinct > 1:
            out.append(c)
    return out[:MAX_REFERENCES]


def references(c: Column) -> bool:
    """A text foreign key of a table that is not a link table, whose values repeat (a code many
    rows share: people type codes; surrogate numbers are never dimensions)."""
    # a part of a composite key may be one (``stays.place_code``), the whole key not
    whole_key = c.in_pk and len(c.table.primary_key) < 2
    if not c.in_fk or whole_key or c.is_audit or c.category != "text" or c.table.is_link:
        return False
    d = c.distinct
    return d is not None and 1 < d <= CATEGORICAL_MAX and c.repeats


# Numbers that identify rather than measure: a phone, a postal code, a room or flight number.
_IDENTIFYING = re.compile(
    r"phone|\bfax\b|\bzip\b|zip ?code|post ?code|postal|\bcode\b|\bssn\b|\bextension\b|"
    r"\bnumber$|\bno$",
    re.I,
)


_CONTACT = re.compile(r"phone|\bfax|e-?mail|\burls?\b|web ?site|web ?page|home ?page|\blink\b", re.I)


def identifying(col: Column) -> bool:
    """Whether a column names something rather than measuring or grouping it: a number such as a
    ``phone``, ``zip_code`` or ``room_number`` (its sum, average or "highest" means nothing), or a
    contact (phone, e-mail: no one counts rows per phone number)."""
    if col.category != "number":
        return bool(_CONTACT.search(col.label) or _CONTACT.search(col.name.replace("_", " ")))
    return bool(_IDENTIFYING.search(col.label) or _IDENTIFYING.search(col.name.replace("_", " ")))


def tally_column(table: Table) -> Column | None:
    """A measure named as its table (``staff.staff``, ``degrees.degrees``): each
    row stands for that many of the table's things, so "how many staff" sums it."""
    words = {table.names.singular.lower(), table.names.plural.lower()}
    for c in table.columns:
        if c.is_measure and c.label.lower() in words:
            return c
    return None


def tally(m: Model, table: Table) -> str:
    """How the rows of ``table`` are counted: ``COUNT(*)``, or the sum of its tally column."""
    c = tally_column(table)
    return f"SUM({m.col(c)})" if c is not None else "COUNT(*)"


# A position in an order (a rank, a place): "the highest rank" is number 1, the smallest value, and
# its average or total means nothing, so it is not a measure.
_ORDINAL = re.compile(r"\brank(?:ing)?\b|\bposition\b", re.I)


def measures(table: Table, ordinals: bool = False) -> list[Column]:
    """The table's measures; with ``ordinals``, positions too (a facet compares "rank above 3")."""
    return readable(
        [
            c
            for c in table.columns
            if c.is_measure
            and not identifying(c)
            and (ordinals or not (_ORDINAL.search(c.label) or _ORDINAL.search(c.name)))
        ]
    )[:MAX_MEASURES]


def dates(table: Table) -> list[Column]:
    return readable([c for c in table.columns if c.is_date])[:MAX_DATES]


_NOT_ADDITIVE = re.compile(
    r"ratio|rate|percent|average|avg|mean|latitude|longitude|altitude|elevation|\bage\b|"
    r"\bunit[ _]?price|\bper\b",  # a price per unit, a rate per thing: averaged, never summed
    re.I,
)


def is_additive(col: Column) -> bool:
    """Whether summing the column means something (amounts, counts), rather than averaging it."""
    if _NOT_ADDITIVE.search(col.label) or _NOT_ADDITIVE.search(col.name):
        return False
    return bool(_ADDITIVE.search(col.name) or _ADDITIVE.search(col.label))


def key_columns(table: Table) -> list[Column]:
    return table.pk_columns or table.columns[:1]


def named_columns(table: Table) -> list[Column]:
    """The columns a listing of rows shows when the question names no column: those that name a
    row (first and last name, a name or title), else the key."""
    return naming(table) or key_columns(table)


def year_range(col: Column) -> int | None:
    """A year inside the column's range (the middle one), from the profile."""
    prof = col.profile or {}
    lo, hi = prof.get("min"), prof.get("max")
    years = [int(str(v)[:4]) for v in (lo, hi) if isinstance(v, str) and re.match(r"\d{4}", str(v))]
    if len(years) == 2:
        return (years[0] + years[1]) // 2
    common = [v for v in col.common_values if isinstance(v, str) and re.match(r"\d{4}", v)]
    return int(common[0][:4]) if common else None


def threshold(col: Column) -> int | float | None:
    prof = col.profile or {}
    lo, hi = prof.get("min"), prof.get("max")
    if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and hi > lo:
        return nice_number(lo + (hi - lo) / 2)
    return None


def date_range_sql(m: Model, d: Column, year: int) -> tuple[str, str]:
    """A condition for "within ``year``" and how the question says it."""
    if d.is_timestamp:
        a, b = f"{year}-01-01 00:00:00", f"{year + 1}-01-01 00:00:00"
        return (f"{m.col(d)} >= {m.literal(a, d)} AND {m.col(d)} < {m.literal(b, d)}", f"in {year}")
    a, b = f"{year}-01-01", f"{year}-12-31"
    return f"{m.col(d)} BETWEEN {m.literal(a, d)} AND {m.literal(b, d)}", f"in {year}"


def date_phrase(d: Column, facet: bool = False) -> str:
    """How a question says "whose date column is ...": "are dated", "were issued", "have a birth date"."""
    label = d.label
    if label.lower() == "date":
        return "dated" if facet else "are dated"
    if re.fullmatch(r"[a-z]+ed", label):
        return label if facet else f"were {label}"
    return f"with {article(label)} {label}" if facet else f"have {article(label)} {label}"


def per_year_question(d: Column, plural: str) -> str:
    label = d.label
    if label.lower() == "date":
        return f"How many {plural} are there per year?"
    if re.fullmatch(r"[a-z]+ed", label):
        return f"How many {plural} were {label} per year?"
    return f"How many {plural} are there per year of {label}?"


def average_question(meas: Column, plural: str, by: str = "") -> str:
    if meas.label.lower().startswith(("average ", "mean ")):
        return f"What is the overall {meas.label} of {plural}{by}?"
    return f"What is the average {meas.label} of {plural}{by}?"


def owned_by(m: Model, t: Table) -> list[tuple[Table, Column]]:
    """The tables whose things ``t`` holds, by name: ``t`` is named after the other table
    (``customer_cards`` after ``customers``) and holds that table's one-column key (declared or
    not), several rows to one owner."""
    words = t.name.lower().replace("_", " ").split()
    out = []
    for o in m.tables:
        if o is t or len(o.pk_columns) != 1 or len(words) < 2:
            continue
        head = {o.name.lower().replace("_", " "), o.names.singular.lower(), o.names.plural.lower()}
        if not any(" ".join(words[:n]) in head for n in (1, 2) if n < len(words)):
            continue
        fk = t.column(o.pk_columns[0].name)
        if fk is not None and not fk.in_pk and has_duplicates(fk) and fk.category == o.pk_columns[0].category:
            out.append((o, fk))
    return out


class TemplateDrafter:
    def __init__(self, model: Model) -> None:
        self.m = model
        self.out: list[Draft] = []

    def add(self, question: str, sql: str, origin: str, *tables: Table, also: str | None = None) -> None:
        """One draft; ``also`` is the other way people often say it (its intent)."""
        d = template(question, sql, origin, [t.name for t in tables])
        if also and also != question:
            d.item["intent"] = also
        self.out.append(d)

    def run(self) -> list[Draft]:
        for table in self.m.tables:
            if not relationship(table):  # a link table is a relationship, not things to count
                self.table(table)
        for join in self.m.joins:
            if relationship(join.child):
                continue
            self.join(join)
            for grand in self.m.parents_of(join.parent):
                if grand.parent is not join.child:
                    self.two_hop(join, grand)
        for link in self.m.links:
            self.link(link.a, link.b)
            self.link(link.b, link.a, reverse=True)
        seen: set[str] = set()
        unique = []
        for d in self.out:
            key = d.text.lower()
            if key not in seen:
                seen.add(key)
                unique.append(d)
        return unique

    # -- one table ----------------------------------------------------------------------------

    def table(self, t: Table) -> None:
        m, p = self.m, t.names.plural
        src = m.table_sql(t)
        self.add(
            f"How many {p} are there?",
            f"SELECT {tally(m, t)} AS {snake(t.name)}_count FROM {src}",
            "schema:count",
            t,
            also=f"Count the number of {p}.",
        )
        cats = categories(t, m)
        for c in cats:
            cc = m.col(c)
            self.add(
                f"How many {p} are there for each {c.label}?",
                f"SELECT {cc}, {tally(m, t)} AS {snake(t.name)}_count FROM {src} GROUP BY {cc} "
                f"ORDER BY {snake(t.name)}_count DESC",
                "schema:breakdown",
                t,
                also=f"Show each {c.label} and the number of {p} with it.",
            )
            values = m.values(c, 1) if said_by_value(c) else []
            if values:
                v = values[0]
                self.add(
                    f"How many {p} have {c.label} {say(v, c)}?",
                    f"SELECT {tally(m, t)} AS {snake(t.name)}_count FROM {src} WHERE {cc} = {m.literal(v, c)}",
                    "schema:count-where",
                    t,
                )
        self.owners_per_category(t, cats)
        for c in keyed_by(t, m):
            cc = m.col(c)
            self.add(
                f"How many {p} are there for each {c.label}?",
                f"SELECT {cc}, {tally(m, t)} AS {snake(t.name)}_count FROM {src} GROUP BY {cc}",
                "schema:breakdown-key",
                t,
                also=f"Show each {c.label} and the number of {p} with it.",
            )
        keys = key_columns(t)
        for meas in measures(t):
            mc = m.col(meas)
            # the rows named, nothing more: what people read off a top-10 are the names
            shown = naming(t) or [meas]
            order_keys = ", ".join(m.col(k) for k in keys)
            # rows with no name show the values themselves: the question says so ("What are the 10
            # highest support rates of candidates?"), not "which candidates" (asked, it wants them named)
            values = plural_words(meas.label)
            (top, _), (bottom, _) = extremes(meas.label)
            self.add(
                f"Which {TOP_N} {p} have the {top} {meas.label}?"
                if naming(t)
                else f"What are the {TOP_N} {top} {values} of {p}?",
                f"SELECT {', '.join(m.col(c) for c in shown)} FROM {src} WHERE {mc} IS NOT NULL "
                f"ORDER BY {mc} DESC, {order_keys} LIMIT {TOP_N}",
                "schema:top-n",
                t,
            )
            if naming(t):  # (the lowest values alone, with no name beside them, answered a
                # question about the rows far more often than one about the values)
                self.add(
                    f"Which {TOP_N} {p} have the {bottom} {meas.label}?",
                    f"SELECT {', '.join(m.col(c) for c in shown)} FROM {src} WHERE {mc} IS NOT NULL "
                    f"ORDER BY {mc} ASC, {order_keys} LIMIT {TOP_N}",
                    "schema:bottom-n",
                    t,
                )
            agg, word = ("SUM", "total") if is_additive(meas) else ("AVG", "average")
            alias = f"{word}_{snake(meas.name)}"
            self.add(
                f"What is the {total_of(meas)} of all {p}?" if word == "total" else average_question(meas, p),
                f"SELECT {agg}({mc}) AS {alias} FROM {src}",
                f"schema:{word}",
                t,
            )
            if word == "total":  # an amount that adds up is asked about on average just as often
                self.add(
                    average_question(meas, p),
                    f"SELECT AVG({mc}) AS average_{snake(meas.name)} FROM {src}",
                    "schema:average",
                    t,
                )
            limit = threshold(meas)
            # counted only beside its listing ("the names of Ps with X greater than N", which needs
            # names): alone, it answered listings ("the numbers of Ps with X above N") with a count
            if limit is not None and naming(t):
                self.add(
                    f"How many {p} have {article(meas.label)} {meas.label} greater than {limit}?",
                    f"SELECT COUNT(*) AS {snake(t.name)}_count FROM {src} WHERE {mc} > {limit}",
                    "schema:threshold",
                    t,
                )
            for c in cats[:2]:
                if c is meas:
                    continue
                cc = m.col(c)
                self.add(
                    f"What is the {total_of(meas)} of {p} for each {c.label}?"
                    if word == "total"
                    else average_question(meas, p, f" for each {c.label}"),
                    f"SELECT {cc}, {agg}({mc}) AS {alias} FROM {src} GROUP BY {cc} ORDER BY {alias} DESC",
                    f"schema:{word}-by",
                    t,
                )
        for d in dates(t):
            dc = m.col(d)
            alias = f"{snake(d.name)}_year"
            self.add(
                per_year_question(d, p),
                f"SELECT EXTRACT(YEAR FROM {dc}) AS {alias}, {tally(m, t)} AS {snake(t.name)}_count FROM {src} "
                f"WHERE {dc} IS NOT NULL GROUP BY {alias} ORDER BY {alias}",
                "schema:per-year",
                t,
            )
            year = year_range(d)
            if year is not None:
                cond, words = date_range_sql(m, d, year)
                self.add(
                    f"How many {p} {date_phrase(d)} {words}?",
                    f"SELECT {tally(m, t)} AS {snake(t.name)}_count FROM {src} WHERE {cond}",
                    "schema:date-range",
                    t,
                )
        for f in [c for c in t.columns if c.is_flag and c.readable][:2]:
            self.add(
                f"How many {p} {flag_predicate(f)}?",
                f"SELECT {tally(m, t)} AS {snake(t.name)}_count FROM {src} WHERE {m.col(f)} = {m.flag_value(f)}",
                "schema:flag",
                t,
            )

    def owners_per_category(self, t: Table, cats: list[Column]) -> None:
        """ "How many different customers have customer cards for each card type?": a table named
        as its owner's things (``customer_cards`` holding ``customer_id``, the key of ``customers``)
        is asked how many owners hold each kind, each owner once (``COUNT(DISTINCT``); counting
        the things answers another question when an owner holds several."""
        m, p = self.m, t.names.plural
        for owner, fk in owned_by(m, t)[:1]:
            alias = f"{snake(owner.name)}_count"
            for c in [c for c in cats if c is not fk and not c.in_fk][:2]:
                cc = m.col(c)
                self.add(
                    f"How many different {owner.names.plural} have {p} for each {c.label}?",
                    f"SELECT {cc}, COUNT(DISTINCT {m.col(fk)}) AS {alias} FROM {m.table_sql(t)} GROUP BY {cc} "
                    f"ORDER BY {alias} DESC",
                    "schema:breakdown-owners",
                    t,
                    owner,
                    also=f"Show each {c.label} and the number of {owner.names.plural} with {p} of it.",
                )

    # -- along a foreign key ------------------------------------------------------------------

    def join(self, j: Join) -> None:
        m = self.m
        c, p = j.child, j.parent
        # a table joined to itself (an employee's manager), or to its namesake in another schema:
        # the parent side gets an alias of its own
        pa = None
        if c.name.lower() == p.name.lower():
            pa = snake(f"{j.role or 'parent'} {p.names.singular}")
        on = m.join_on(j, None, pa)
        src = f"{m.table_sql(c)} JOIN {m.table_sql(p, pa)} ON {on}"
        role = j.role if sum(1 for k in m.joins if k.child is c and k.parent is p) > 1 else None
        if c is p:
            role = j.role or "parent"
        pkeys = key_columns(p)
        pname = p.name_column
        group = [*pkeys, *(c for c in named_columns(p) if c not in pkeys)]
        gsql = ", ".join(m.col(k, pa) for k in group)
        alias = f"{snake(c.name)}_count"
        shown = ", ".join(m.col(k, pa) for k in named_columns(p))
        if c is p:
            top = (
                f"Which {TOP_N} {p.names.plural} have the most {c.names.plural} referring to them as {role}?"
            )
        elif role:
            top = f"Which {TOP_N} {p.names.plural} are the {role} of the most {c.names.plural}?"
        else:
            top = f"Which {TOP_N} {p.names.plural} have the most {c.names.plural}?"
        if j.one_per_parent:  # a subtype: one row per parent, never "the most"
            top = ""
        if top:
            self.add(
                top,
                f"SELECT {shown} FROM {src} GROUP BY {gsql} "
                f"ORDER BY {tally(m, c)} DESC, {', '.join(m.col(k, pa) for k in pkeys)} LIMIT {TOP_N}",
                "schema:join-top",
                c,
                p,
            )
        if pname is not None and (values := m.values(pname, 1)):
            v = values[0]
            self.add(
                f"How many {c.names.plural} have the {p.names.singular} with {pname.label} {say(v, pname)} as {role}?"
                if role
                else f"How many {c.names.plural} belong to the {p.names.singular} with {pname.label} {say(v, pname)}?",
                f"SELECT {tally(m, c)} AS {alias} FROM {src} WHERE {m.col(pname, pa)} = {m.literal(v, pname)}",
                "schema:join-lookup",
                c,
                p,
            )
        if len(pkeys) == 1 and not role:
            self.add(
                f"How many {p.names.plural} have at least one {c.names.singular}?",
                f"SELECT COUNT(DISTINCT {m.col(pkeys[0])}) AS {snake(p.name)}_count FROM {src}",
                "schema:join-exists",
                c,
                p,
            )
        if role or pa:
            return
        pcats = categories(p, m)
        for cat in pcats[:1]:
            label = qualified_label(p, cat)
            cc = m.col(cat)
            self.add(
                f"How many {c.names.plural} are there for each {label}?",
                f"SELECT {cc}, {tally(m, c)} AS {alias} FROM {src} GROUP BY {cc} ORDER BY {alias} DESC",
                "schema:join-breakdown",
                c,
                p,
            )
            for meas in measures(c)[:1]:
                agg, word = ("SUM", "total") if is_additive(meas) else ("AVG", "average")
                malias = f"{word}_{snake(meas.name)}"
                self.add(
                    f"What is the {total_of(meas)} of {c.names.plural} for each {label}?"
                    if word == "total"
                    else average_question(meas, c.names.plural, f" for each {label}"),
                    f"SELECT {cc}, {agg}({m.col(meas)}) AS {malias} FROM {src} GROUP BY {cc} "
                    f"ORDER BY {malias} DESC, {cc}",
                    f"schema:join-{word}-by",
                    c,
                    p,
                )

    def two_hop(self, j1: Join, j2: Join) -> None:
        """child -> parent -> grandparent (order -> member -> city)."""
        m = self.m
        c, p, g = j1.child, j1.parent, j2.parent
        if g is c or c is p or p is g or sum(1 for k in m.joins if k.child is c and k.parent is p) > 1:
            return
        if len({c.name.lower(), p.name.lower(), g.name.lower()}) < 3:  # namesakes need aliases
            return
        if sum(1 for k in m.joins if k.child is p and k.parent is g) > 1:
            return
        src = (
            f"{m.table_sql(c)} JOIN {m.table_sql(p)} ON {m.join_on(j1)} "
            f"JOIN {m.table_sql(g)} ON {m.join_on(j2)}"
        )
        alias = f"{snake(c.name)}_count"
        for cat in categories(g, m)[:1]:
            cc = m.col(cat)
            self.add(
                f"How many {c.names.plural} are there for each {qualified_label(g, cat)}?",
                f"SELECT {cc}, {tally(m, c)} AS {alias} FROM {src} GROUP BY {cc} ORDER BY {alias} DESC",
                "schema:two-hop-breakdown",
                c,
                p,
                g,
            )
        gname = g.name_column
        if gname is not None and (values := m.values(gname, 1)):
            v = values[0]
            self.add(
                f"How many {c.names.plural} have {article(p.names.singular)} {p.names.singular} in the "
                f"{g.names.singular} with {gname.label} {say(v, gname)}?",
                f"SELECT {tally(m, c)} AS {alias} FROM {src} WHERE {m.col(gname)} = {m.literal(v, gname)}",
                "schema:two-hop-lookup",
                c,
                p,
                g,
            )

    def link(self, own: Join, other: Join, reverse: bool = False) -> None:
        """A many-to-many relationship seen from ``own.parent``: "Which playlists have the most
        tracks?" (counted through the link table, without naming it); from the other side
        (``reverse``), "Which tracks belong to the most playlists?" -- other words, so that the two
        questions never read alike."""
        m = self.m
        link, a, b = own.child, own.parent, other.parent
        if a.name.lower() == b.name.lower() or link.name.lower() in (a.name.lower(), b.name.lower()):
            return
        src = f"{m.table_sql(link)} JOIN {m.table_sql(a)} ON {m.join_on(own)}"
        keys = key_columns(a)
        name = a.name_column
        group = [*keys, *(c for c in named_columns(a) if c not in keys)]
        gsql = ", ".join(m.col(k) for k in group)
        alias = f"{snake(b.name)}_count"
        self.add(
            f"Which {TOP_N} {a.names.plural} belong to the most {b.names.plural}?"
            if reverse
            else f"Which {TOP_N} {a.names.plural} have the most {b.names.plural}?",
            f"SELECT {', '.join(m.col(k) for k in named_columns(a))} FROM {src} GROUP BY {gsql} "
            f"ORDER BY COUNT(*) DESC, {', '.join(m.col(k) for k in keys)} LIMIT {TOP_N}",
            "schema:link-top",
            link,
            a,
        )
        if name is not None and (values := m.values(name, 1)):
            v = values[0]
            verb = "belong to" if reverse else "have"
            self.add(
                f"How many {b.names.plural} does the {a.names.singular} with {name.label} {say(v, name)} {verb}?",
                f"SELECT COUNT(*) AS {alias} FROM {src} WHERE {m.col(name)} = {m.literal(v, name)}",
                "schema:link-lookup",
                link,
                a,
            )


def draft_templates(model: Model) -> list[Draft]:
    """Template drafts for every table and join of ``model`` (not yet parameterized or checked):
    these families and those of :mod:`ctxtool.draft.questions`."""
    from ctxtool.draft.questions import draft_questions

    return TemplateDrafter(model).run() + draft_questions(model)
