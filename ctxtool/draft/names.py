"""Plain-English names for tables and columns, so drafted questions read like a person wrote them.

A name comes from, in order: the user's glossary file (``--glossary``), the column or table comment
(``"A3"`` commented "region" reads "region"), and the identifier split into words with a few common
abbreviations spelled out (``p_code`` -> "p code", ``cat`` -> "category"). The glossary is a
small JSON file people keep next to their set::

    {"tables": {"ord": "order", "cat": {"singular": "category", "plural": "categories"}},
     "columns": {"city.C2": "city name", "C11": "average income", "ord.p_code": "payment type"}}

Column keys are ``table.column`` or a bare ``column`` (any table); matching ignores case.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxtool.errors import InputError
from ctxtool.identifiers import ABBREVIATIONS, split_compound, words_of  # noqa: F401 - names of drafting
from ctxtool.jsondoc import load_json

_IRREGULAR_PLURALS = {
    "person": "people",
    "child": "children",
    "man": "men",
    "woman": "women",
    "status": "statuses",
    "data": "data",
    "series": "series",
    "news": "news",
}
_IRREGULAR_SINGULARS = {v: k for k, v in _IRREGULAR_PLURALS.items()}


# Nouns that do not take an -s: the plural is the word itself ("staff", not "staffs").
UNCOUNTABLE = frozenset(
    """staff personnel equipment information furniture aircraft data feedback software hardware
    luggage baggage news series species sheep fish deer offspring media evidence research advice
    mail music traffic""".split()
)


def _inflect() -> Any:
    """The ``inflect`` engine (irregular English plurals), made once.

    inflect checks its arguments with typeguard's ``@typechecked``, which recompiles inflect's whole
    module for each of the 23 methods it decorates, as inflect is imported: about 2 s of CPU in every
    process that drafts, more than drafting a small schema. inflect is imported with the decorator as
    it is under ``python -O`` (it returns what it decorates): the words passed here are non-empty
    strings, what those checks enforce, and the answers are the same."""
    global _ENGINE
    if _ENGINE is None:
        import typeguard

        checked = typeguard.typechecked
        typeguard.typechecked = _unchecked
        try:
            import inflect
        finally:
            typeguard.typechecked = checked
        _ENGINE = inflect.engine()
    return _ENGINE


def _unchecked(target: Any = None, **_options: Any) -> Any:
    """``typeguard.typechecked`` as it is under ``python -O``."""
    return target if target is not None else _unchecked


_ENGINE: Any = None


def pluralize(noun: str) -> str:
    """``order`` -> ``orders``, ``category`` -> ``categories``, ``city name`` -> ``city names``,
    ``criterion`` -> ``criteria``, ``staff`` -> ``staff``."""
    head, _, last = noun.rpartition(" ")
    prefix = head + " " if head else ""
    low = last.lower()
    if low in _IRREGULAR_PLURALS:
        return prefix + _IRREGULAR_PLURALS[low]
    if low in UNCOUNTABLE or not low.isalpha() or (low.endswith("ics") and len(low) > 5):
        return noun  # (demographics, statistics: the same for one and many)
    if last.isupper():
        return prefix + last + "s"  # an abbreviation: IDs, URLs
    plural = _inflect().plural_noun(low)
    if isinstance(plural, str) and plural.isalpha() and plural[:1] == low[:1]:
        return prefix + (plural if last.islower() else last[0] + plural[1:])  # man -> men, leaf -> leaves
    if re.search(r"[^aeiou]y$", low):
        return prefix + last[:-1] + "ies"
    if re.search(r"(s|x|z|ch|sh)$", low):
        return prefix + last + "es"
    return prefix + last + "s"


def singularize(noun: str) -> str:
    """``airports`` -> ``airport``, ``categories`` -> ``category``, ``addresses`` -> ``address``."""
    head, _, last = noun.rpartition(" ")
    prefix = head + " " if head else ""
    low = last.lower()
    if low in _IRREGULAR_SINGULARS:
        return prefix + _IRREGULAR_SINGULARS[low]
    if low in UNCOUNTABLE or re.search(r"(ss|us|is|ics)$", low) or len(low) <= 3:
        return noun
    if low.isalpha():  # criteria, men, leaves, analyses, buses: what inflect pluralizes back
        single = _inflect().singular_noun(low)
        if isinstance(single, str) and single.isalpha() and pluralize(single).lower() == low:
            return prefix + (single if last.islower() else last[0] + single[1:])
        if not low.endswith("s"):
            return noun
    if low.endswith("ies") and len(low) > 4:
        return prefix + last[:-3] + "y"
    if re.search(r"(ss|us|is|ics)$", low) or len(low) <= 3:
        return noun
    if re.search(r"(sses|xes|zes|ches|shes)$", low):
        return prefix + last[:-2]
    if low.endswith("s"):
        return prefix + last[:-1]
    return noun


_SENTENCE = re.compile(r"\b(was|were|is|are|has|have|had|will|when|which|that)\b", re.I)
_TAIL = re.compile(r"\s(in|on|per|after|before|for|of the|at the)\s.*$", re.I)


def comment_label(comment: str | None, limit: int = 6, values: Sequence[Any] = ()) -> str | None:
    """A short label from a comment: its first clause, when it reads as a name.

    Comments that describe the values (``"A finished OK, B finished unpaid"``, ``"M or F"``) or read as
    a sentence (``"date the order was placed"``) give no label: the column name is used instead.
    """
    if not comment or not comment.strip():
        return None
    text = comment.strip()
    text = re.split(r"[.;:\n(]|\s[-–]\s", text, maxsplit=1)[0].strip()
    if re.search(r"\bor\b", text) or _SENTENCE.search(text):
        return None
    words = set(re.findall(r"[\w.]+", text))
    if any(str(v) in words for v in values if v is not None):
        return None
    text = text.split(",", 1)[0].strip()
    text = _TAIL.sub("", text).strip()
    if not text or len(text.split()) > limit:
        return None
    if len(text) > 1 and text[0].isupper() and not text[1].isupper():
        text = text[0].lower() + text[1:]
    return text


@dataclass
class TableName:
    singular: str
    plural: str


@dataclass
class Glossary:
    """Names chosen by the user: ``tables`` (name -> TableName), ``columns`` (key -> label)."""

    tables: dict[str, TableName] = field(default_factory=dict)
    columns: dict[str, str] = field(default_factory=dict)
    path: str | None = None

    def table(self, name: str) -> TableName | None:
        return self.tables.get(name.lower())

    def column(self, table: str, column: str) -> str | None:
        return self.columns.get(f"{table}.{column}".lower()) or self.columns.get(column.lower())


def load_glossary(path: str) -> Glossary:
    """Read a glossary file; an entry of the wrong shape is an error naming its line."""
    doc = load_json(path)
    data = doc.data
    if not isinstance(data, dict):
        raise InputError(f'{path}:1:1: a glossary is a JSON object with "tables" and "columns"')
    out = Glossary(path=path)
    for key in data:
        if key not in ("tables", "columns"):
            line, col = doc.position(f"/{key}")
            raise InputError(f'{path}:{line}:{col}: unknown glossary key "{key}"; use "tables" and "columns"')
    tables = data.get("tables") or {}
    columns = data.get("columns") or {}
    for section, value in (("tables", tables), ("columns", columns)):
        if not isinstance(value, dict):
            line, col = doc.position(f"/{section}")
            raise InputError(f'{path}:{line}:{col}: "{section}" must be an object of name -> label')
    for name, value in tables.items():
        if isinstance(value, str) and value.strip():
            singular = value.strip()
            out.tables[name.lower()] = TableName(singular, pluralize(singular))
        elif isinstance(value, dict) and isinstance(value.get("singular"), str):
            singular = value["singular"].strip()
            plural = value.get("plural") if isinstance(value.get("plural"), str) else pluralize(singular)
            out.tables[name.lower()] = TableName(singular, plural)
        else:
            line, col = doc.position(f"/tables/{name}")
            raise InputError(
                f'{path}:{line}:{col}: table "{name}": give a label ("transaction") or '
                '{"singular": ..., "plural": ...}'
            )
    for name, value in columns.items():
        if not isinstance(value, str) or not value.strip():
            line, col = doc.position(f"/columns/{name}")
            raise InputError(f'{path}:{line}:{col}: column "{name}": give a non-empty label')
        out.columns[name.lower()] = value.strip()
    return out


def identifier_is_readable(name: str) -> bool:
    """Whether an identifier reads as words (``birth_date``, ``disp``), not a code (``A3``, ``t01``)."""
    parts = [p for p in re.split(r"[_\W]+", re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)) if p]
    return (
        bool(parts)
        and all(
            p.lower() in ABBREVIATIONS or (re.fullmatch(r"[A-Za-z]{3,}", p) is not None) or p.isdigit()
            for p in parts
        )
        and any(not p.isdigit() for p in parts)
    )


class Namer:
    """Labels for the tables and columns of one snapshot."""

    def __init__(self, glossary: Glossary | None = None) -> None:
        self.glossary = glossary or Glossary()

    def table(self, table: dict[str, Any]) -> TableName:
        name = table["name"]
        chosen = self.glossary.table(name)
        if chosen:
            return chosen
        # A readable table name beats its comment ("account", not "bank account"); a cryptic one
        # (``t01``, ``XK``) is named by its comment where there is one.
        label = None if identifier_is_readable(name) else comment_label(table.get("comment"), limit=3)
        base = singularize(label) if label else singularize(words_of(name))
        base = _after_parent_names(_head_of_relation(without_kind_prefix(base), table), table)
        return TableName(base, pluralize(base))

    def column(self, table: dict[str, Any], column: dict[str, Any]) -> str:
        chosen = self.glossary.column(table["name"], column["name"])
        if chosen:
            return chosen
        label = comment_label(column.get("comment"), values=_common(column))
        if label:
            return label
        name = self.table(table)
        words = without_table_prefix(words_of(column["name"]), name.singular)
        if initial_name(words, name.singular):
            return "name"
        if words.lower() in (name.singular.lower(), name.plural.lower()) and _names_each_row(table, column):
            return "name"  # aircraft.aircraft, city.city: the name of each row ("the names of all cities")
        return unit_label(words)

    def has_real_name(self, table: dict[str, Any], column: dict[str, Any]) -> bool:
        """False for cryptic names (``A3``) with no comment or glossary entry: questions using them
        would not read well."""
        if self.glossary.column(table["name"], column["name"]) or comment_label(
            column.get("comment"), values=_common(column)
        ):
            return True
        return bool(re.search(r"[a-z]{3,}", column["name"].lower())) and not re.fullmatch(
            r"[a-z]{1,2}\d+", column["name"].lower()
        )


# A column named by its unit alone measures the quantity the unit is of ("milliseconds": how long).
_UNIT_QUANTITY = {
    **dict.fromkeys("milliseconds millisecond ms seconds secs minutes mins hours hrs".split(), "duration"),
    **dict.fromkeys("bytes kilobytes megabytes gigabytes kb mb gb".split(), "size"),
    **dict.fromkeys("kilograms kilogram kg grams gram pounds lbs".split(), "weight"),
}


def unit_label(words: str) -> str:
    """A label that is only a unit, said as the quantity it measures: "milliseconds" -> "duration in
    milliseconds", "bytes" -> "size in bytes" ("the average milliseconds" is not what people say)."""
    quantity = _UNIT_QUANTITY.get(words.lower())
    return f"{quantity} in {words}" if quantity else words


# Prefixes that say what kind of table it is, not what its rows are (``ref_locations``,
# ``tbl_orders``, ``lkp_status``): people say "locations".
_KIND_PREFIXES = frozenset("ref tbl lkp lu lookup dim".split())


def without_kind_prefix(base: str) -> str:
    """``ref location`` -> "location", ``tbl order`` -> "order" (a one-word name is kept)."""
    first, _, rest = base.partition(" ")
    return rest if rest and first.lower() in _KIND_PREFIXES else base


def _head_of_relation(base: str, table: dict[str, Any]) -> str:
    """``member_of_club`` (referencing ``club``) -> "member": a row is a member of a club, and
    "the club with the most members" reads as people say it ("the most member of clubs" does not)."""
    m = re.fullmatch(r"(\w+(?: \w+)?) (?:of|in|for|at) (.+)", base)
    if not m:
        return base
    rest = m.group(2).lower()
    for fk in table.get("foreign_keys") or []:
        ref = words_of(str(fk.get("ref_table") or "")).lower()
        if rest in (ref, singularize(ref).lower()):
            return m.group(1)
    return base


def _after_parent_names(base: str, table: dict[str, Any]) -> str:
    """``widget_bin_placement`` (referencing ``widget`` and ``bin``) -> "placement": a table named
    after the two tables it joins and its own noun holds that noun's rows, and questions say "the
    placements of a widget"; the parents' names in front read as the parents themselves ("How many
    widgets ..." would be answered by counting placements). One parent's name stays ("order item")."""
    refs = set()
    for fk in table.get("foreign_keys") or []:
        ref = words_of(str(fk.get("ref_table") or "")).lower()
        if ref and ref != words_of(table["name"]).lower():
            refs |= {ref, singularize(ref).lower()}
    words = base.split()
    i, parents = 0, 0
    while i < len(words) - 1:
        step = next(
            (n for n in (3, 2, 1) if i + n < len(words) and " ".join(words[i : i + n]).lower() in refs), 0
        )
        if not step:
            break
        i, parents = i + step, parents + 1
    return " ".join(words[i:]) if parents >= 2 else base


_RELATION_VERBS = frozenset("has have had is are was were".split())


def names_a_relationship(table_name: str) -> bool:
    """A table named as a statement (``has_allergy``, ``is_member``): its rows are facts relating
    other things, not things to count or list ("How many has allergies are there?")."""
    words = words_of(table_name).split()
    return len(words) > 1 and words[0].lower() in _RELATION_VERBS


def without_table_prefix(label: str, singular: str) -> str:
    """``club name`` of a club -> "name", ``document date`` of a document -> "date": the table is
    said by the question already (keys, ``club ID``, keep their table)."""
    head = singular.lower() + " "
    rest = label[len(head) :] if label.lower().startswith(head) else ""
    if not rest:
        # a short form of the table's name as the prefix: ``cust_score`` of a customer -> "score"
        first, _, tail = label.partition(" ")
        word = singular.lower().split()[0] if singular.split() else ""
        if (
            tail
            and 2 <= len(first) <= 4
            and first.isalpha()
            and word.startswith(first.lower())
            and first.lower() != word
        ):
            rest = tail
    if not rest or rest.lower() in ("id", "ids", "key", "code", "number", "no"):
        return label
    return rest


def initial_name(label: str, singular: str) -> bool:
    """``pname`` of a product, ``sname`` of a shop: the table's initial before "name", the
    row's name (one-letter prefixes that say which name, ``fname``, are split before)."""
    low = label.lower()
    return len(low) == 5 and low.endswith("name") and singular[:1].lower() == low[0]


def _names_each_row(table: dict[str, Any], column: dict[str, Any]) -> bool:
    """A text column whose every row has its own value (PostgreSQL's -1, or as many values as rows)."""
    from ctxtool.connectors.profile import effective_type, type_category

    if type_category(effective_type(column)) != "text":
        return False
    d = (column.get("profile") or {}).get("distinct")
    rows = table.get("row_estimate")
    return isinstance(d, (int, float)) and (d == -1 or (bool(rows) and d >= rows > 0))


def _common(column: dict[str, Any]) -> list[Any]:
    mc = (column.get("profile") or {}).get("most_common") or []
    return [m.get("value") for m in mc if isinstance(m, dict)]


def starter_glossary(snapshot: dict[str, Any], namer: Namer | None = None) -> dict[str, Any]:
    """A glossary holding the names drafting would use now, for every table and non-key column, so
    a person can correct them (cryptic columns without a comment read as their bare identifier)."""
    namer = namer or Namer()
    tables: dict[str, Any] = {}
    columns: dict[str, str] = {}
    for schema in snapshot.get("schemas") or []:
        for t in schema.get("tables") or []:
            name = namer.table(t)
            tables[t["name"]] = {"singular": name.singular, "plural": name.plural}
            keys = {c.lower() for c in t.get("primary_key") or []}
            keys |= {c.lower() for fk in t.get("foreign_keys") or [] for c in fk.get("columns") or []}
            for c in t.get("columns") or []:
                if c["name"].lower() not in keys:
                    columns[f"{t['name']}.{c['name']}"] = namer.column(t, c)
    return {"tables": tables, "columns": columns}
