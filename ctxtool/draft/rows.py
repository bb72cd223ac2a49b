"""What a row is described and named by: its describing columns, the columns that name it.

Shared by the question families of :mod:`ctxtool.draft.questions` and :mod:`ctxtool.draft.related`
(and the top-N of :mod:`ctxtool.draft.templates`, which shows the names).
"""

from __future__ import annotations

from ctxtool.draft.model import Column, Table


def describing(t: Table) -> list[Column]:
    """The columns that describe a row (not keys, ids or bookkeeping), in table order."""
    return [
        c
        for c in t.columns
        if c.readable
        and not c.is_audit
        and c.category in ("text", "number", "date")
        and not c.is_flag  # a yes/no is counted ("How many are discontinued?"), not listed
        and (not c.id_like or natural_key(c))
    ]


def natural_key(c: Column) -> bool:
    """A key people read and type (a code, a name, a date), not a surrogate number or a reference."""
    return c.in_pk and not c.in_fk and c.category in ("text", "date") and len(c.table.primary_key) == 1


def has_duplicates(c: Column) -> bool:
    """Whether some value of the column comes back in more than one row (from the profile)."""
    d, rows = c.distinct, c.table.rows
    return bool(d) and bool(rows) and rows > 0 and d < rows  # (no values at all: nothing repeats)


def naming(t: Table) -> list[Column]:
    """The columns that name a row: first and last name together when the table has both, else the
    name column."""
    first = next((c for c in describing(t) if c.label.lower().endswith("first name")), None)
    last = next((c for c in describing(t) if c.label.lower().endswith("last name")), None)
    if first is not None and last is not None:
        return [first, last]
    named = [
        c for c in t.columns if c.readable and c.category == "text" and names_a_row(c) and not c.repeats
    ]  # a name that most rows share (the place name of a visit) does not name a row
    return named[:1]


def names_a_row(c: Column) -> bool:
    """A text column labelled as a name or title (a text key may be one: ``dept_name``)."""
    label = c.label.lower()
    return (label in ("name", "title") or label.endswith((" name", " title"))) and not c.in_fk
