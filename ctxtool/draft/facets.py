"""Facets (reusable filter conditions) from the schema and profile.

Ranges on numeric columns with bounds inside the profiled min/max, equality on low-cardinality
columns with a common value, date ranges inside the profiled dates, and boolean flags. Not equality on
the column that names a row: any value a question holds would bind to it ("the highest salary of
Smith's department" filtered to an instructor named so); lookups by name are templates of their
own. Every column is written ``table.column`` (no aliases), because a facet is injected into
queries that alias tables their own way.
"""

from __future__ import annotations

from ctxtool.draft.drafts import Draft, facet
from ctxtool.draft.model import Model, Table, nice_number
from ctxtool.draft.templates import (
    article,
    categories,
    date_phrase,
    date_range_sql,
    dates,
    flag_predicate,
    measures,
    said_by_value,
    say,
    year_range,
)


def draft_facets(model: Model) -> list[Draft]:
    out: list[Draft] = []
    for t in model.tables:
        if t.is_link:
            continue
        drafts = _table_facets(model, t)
        for d in drafts:
            d.from_sql = model.table_sql(t)  # schema-qualified: to execute the facet on its table
        out.extend(drafts)
    seen: set[str] = set()
    unique = []
    for d in out:
        if d.sql not in seen:
            seen.add(d.sql)
            unique.append(d)
    return unique


def _table_facets(m: Model, t: Table) -> list[Draft]:
    out: list[Draft] = []
    p = t.names.plural
    for meas in measures(t, ordinals=True):
        prof = meas.profile or {}
        lo, hi = prof.get("min"), prof.get("max")
        if not (isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and hi > lo):
            continue
        a, b = nice_number(lo + (hi - lo) / 4), nice_number(lo + 3 * (hi - lo) / 4)
        mid = nice_number(lo + (hi - lo) / 2)
        mc = m.col(meas)
        if a < b:
            out.append(
                facet(
                    f"{p} with {article(meas.label)} {meas.label} between {a} and {b}",
                    f"{mc} BETWEEN {a} AND {b}",
                    "schema:range",
                    t.name,
                )
            )
        out.append(
            facet(
                f"{p} with {article(meas.label)} {meas.label} above {mid}",
                f"{mc} > {mid}",
                "schema:above",
                t.name,
            )
        )
        out.append(
            facet(
                f"{p} with {article(meas.label)} {meas.label} below {mid}",
                f"{mc} < {mid}",
                "schema:below",
                t.name,
            )
        )
    for c in [c for c in categories(t, m) if said_by_value(c)]:
        values = m.values(c, 2)
        for v in values[:1]:
            out.append(
                facet(
                    f"{p} with {c.label} {say(v, c)}",
                    f"{m.col(c)} = {m.literal(v, c)}",
                    "schema:equals",
                    t.name,
                )
            )
    for y in [c for c in t.columns if c.is_year and c.readable][:2]:
        # a year held as a number: "shops opened after 1990", "before 2000"
        prof = y.profile or {}
        lo, hi = prof.get("min"), prof.get("max")
        if not (isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and hi > lo):
            continue
        mid = int(lo + (hi - lo) / 2)
        for word, op in (("after", ">"), ("before", "<")):
            out.append(
                facet(
                    f"{p} with {y.label} {word} {mid}",
                    f"{m.col(y)} {op} {mid}",
                    f"schema:year-{word}",
                    t.name,
                )
            )
    for d in dates(t):
        year = year_range(d)
        if year is None:
            continue
        cond, words = date_range_sql(m, d, year)
        phrase = date_phrase(d, facet=True)
        out.append(facet(f"{p} {phrase} {words}", cond, "schema:date-range", t.name))
        start = f"{year}-01-01" if not d.is_timestamp else f"{year}-01-01 00:00:00"
        out.append(
            facet(
                f"{p} {phrase} on or after {start}",
                f"{m.col(d)} >= {m.literal(start, d)}",
                "schema:date-from",
                t.name,
            )
        )
    for f in [c for c in t.columns if c.is_flag and c.readable][:3]:
        on, off = m.flag_value(f), m.flag_value(f, False)
        out.append(facet(f"{p} that {flag_predicate(f)}", f"{m.col(f)} = {on}", "schema:flag", t.name))
        out.append(facet(f"{p} that {flag_predicate(f, True)}", f"{m.col(f)} = {off}", "schema:flag", t.name))
    for s in [c for c in t.columns if c.category == "set" and c.readable][:2]:
        for member in s.members[:1]:
            out.append(
                facet(
                    f"{p} with {s.label} including {say(member, s)}",
                    f"FIND_IN_SET({m.literal(member)}, {m.col(s)}) > 0",
                    "schema:set-member",
                    t.name,
                )
            )
    return out
