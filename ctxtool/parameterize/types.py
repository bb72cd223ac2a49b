"""The type named in a manifest (``a given <type>``) for a value.

In order of preference: the concept type of a value search that covers the compared column; what
the snapshot says about the column (a date/time/number/currency type, or a name or comment such as
city, country, region, email); the entity types of the reference (from the column's name or the value
itself); ``value`` as the last resort.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import sqlglot
from sqlglot import exp

from ctxtool.dialects import sqlglot_dialect
from ctxtool.parameterize.align import iso_date_of
from ctxtool.parameterize.extract import ISO_DATE, ISO_TIME, ISO_TIMESTAMP, SqlValue
from ctxtool.placeholders import find_sql_placeholders

# column-name words -> the reference's entity types
_NAME_WORDS: list[tuple[tuple[str, ...], str]] = [
    (("city", "town"), "city"),
    (("country", "nation"), "country"),
    (("region", "state", "province", "county"), "region"),
    (("email", "mail"), "email address"),
    (("language", "lang"), "language"),
    (("currency",), "currency"),
    (("person", "surname", "firstname", "lastname", "fullname", "author", "employee"), "person"),
    (("company", "organization", "organisation", "employer"), "organization"),
    (("product",), "product"),
    (("sport", "activity"), "sport or activity"),
    (("law",), "law"),
]
_PERSON_PAIRS = {("first", "name"), ("last", "name"), ("full", "name"), ("given", "name"), ("family", "name")}

_NUMBER_TYPES = ("int", "numeric", "decimal", "float", "double", "real", "serial", "number")


def _words(name: str) -> list[str]:
    name = re.sub(r"([a-z])([A-Z])", r"\1_\2", name)
    return [w for w in re.split(r"[^A-Za-z0-9]+", name.lower()) if w]


def entity_from_name(name: str) -> str | None:
    """The entity type a column name (or a comment) suggests: ``origin_city`` -> city."""
    words = _words(name)
    for a, b in zip(words, words[1:], strict=False):
        if (a, b) in _PERSON_PAIRS:
            return "person"
    for keys, label in _NAME_WORDS:
        if any(w in keys for w in words):
            return label
    return None


def value_search_columns(value_searches: Iterable[Mapping[str, Any]], dialect: str) -> dict[str, str]:
    """``table.column`` (lower case) -> concept type, from the ``columns`` each value search projects."""
    out: dict[str, str] = {}
    for vs in value_searches:
        if not isinstance(vs, Mapping):
            continue
        concept = vs.get("concept_type")
        query = vs.get("query")
        if not isinstance(concept, str) or not concept.strip() or not isinstance(query, str):
            continue
        for col in _projected_columns(query, dialect):
            out.setdefault(col.lower(), concept.strip())
    return out


def _projected_columns(query: str, dialect: str) -> list[str]:
    # $value is not SQL any parser knows: put NULL in its place (found by the placeholder lexer)
    parts, last = [], 0
    for ph in find_sql_placeholders(query, dialect):
        if ph.kind == "named":
            parts.append(query[last : ph.start])
            parts.append("NULL")
            last = ph.end
    parts.append(query[last:])
    try:
        tree = sqlglot.parse_one("".join(parts), read=sqlglot_dialect(dialect))
    except Exception:  # noqa: BLE001 - an unparsable value search simply gives no type
        return []
    found: list[str] = []
    for alias in tree.find_all(exp.Alias):
        if alias.alias.lower() == "columns" and isinstance(alias.this, exp.Literal) and alias.this.is_string:
            found.extend(c.strip() for c in alias.this.this.split(",") if c.strip())
    return found


def snapshot_column(snapshot: Mapping[str, Any] | None, table: str | None, column: str) -> dict | None:
    """The snapshot's description of ``table.column`` (case-insensitive); any table when ``table`` is
    unknown and exactly one table has the column."""
    if not snapshot:
        return None
    matches = []
    for schema in snapshot.get("schemas") or []:
        for t in schema.get("tables") or []:
            if table is not None and str(t.get("name", "")).lower() != table.lower():
                continue
            for c in t.get("columns") or []:
                if str(c.get("name", "")).lower() == column.lower():
                    matches.append(c)
    return matches[0] if len(matches) == 1 or (matches and table is not None) else None


def _value_shape(v: SqlValue) -> str | None:
    if v.year or (v.kind == "number" and v.column and "year" in _words(v.column)):
        return "year"
    if v.kind == "number":
        return "number"
    text = v.phrase
    if ISO_DATE.match(text):
        return "date"
    if ISO_TIMESTAMP.match(text):
        return "date" if iso_date_of(text) else "date and time"
    if ISO_TIME.match(text):
        return "time"
    if re.fullmatch(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}", text):
        return "email address"
    return None


def _from_snapshot(col: Mapping[str, Any], v: SqlValue) -> str | None:
    ctype = str(col.get("base_type") or col.get("type") or "").lower()
    if v.year:
        return "year"
    if "timestamp" in ctype or "datetime" in ctype:
        return "date" if iso_date_of(v.phrase) else "date and time"
    if ctype.startswith("date"):
        return "date"
    if ctype.startswith("time"):
        return "time"
    if "money" in ctype:
        return "currency"
    if v.kind == "number":
        if "year" in _words(str(col.get("name") or "")):
            return "year"
        return "number" if any(t in ctype for t in _NUMBER_TYPES) else None
    named = entity_from_name(str(col.get("name") or ""))
    if named:
        return named
    comment = col.get("comment")
    if isinstance(comment, str) and comment.strip():
        named = entity_from_name(comment)
        if named:
            return named
        # a short comment names the column's meaning: "city name", "ISBN code"
        words = comment.strip().rstrip(".").split()
        if len(words) <= 3 and all(re.fullmatch(r"[A-Za-z][A-Za-z-]*", w) for w in words):
            first = words[0]
            if first[:1].isupper() and not first.isupper():
                words[0] = first[0].lower() + first[1:]
            return " ".join(words)
    return None


def manifest_type(
    values: list[SqlValue],
    phrase: str,
    snapshot: Mapping[str, Any] | None,
    vs_columns: Mapping[str, str],
) -> str:
    """The type for one parameter (all its SQL occurrences, and how the intent writes it)."""
    # 1. a value search covering the compared column
    for v in values:
        if v.column:
            if v.table and f"{v.table}.{v.column}".lower() in vs_columns:
                return vs_columns[f"{v.table}.{v.column}".lower()]
            if not v.table:
                hits = {t for k, t in vs_columns.items() if k.rsplit(".", 1)[-1] == v.column.lower()}
                if len(hits) == 1:
                    return hits.pop()
    stripped = phrase.strip("'\"`“”‘’«»")
    if stripped[:1] in "$€£¥" and values[0].kind == "number":
        return "currency"
    # 2. the snapshot
    for v in values:
        if v.column:
            col = snapshot_column(snapshot, v.table, v.column)
            if col is not None:
                found = _from_snapshot(col, v)
                if found:
                    return found
    # 3. entity types from the column's name, then from the value's shape
    for v in values:
        if v.column:
            named = entity_from_name(v.column)
            if named and not (v.kind == "number" and named not in ("currency",)):
                return named
    for v in values:
        shape = _value_shape(v)
        if shape:
            return shape
    return "value"
