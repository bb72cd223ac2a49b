"""Drafting value searches: which columns users name things by, what to call them, which recipe.

Users type names ("Heathrow"), codes ("LHR") and categories ("gold card"); they do not type ids,
hashes, timestamps or paragraphs. :func:`choose_columns` keeps text columns whose profile and name
say "name, code or category" (cardinality above one, short values, not keys, not hex/uuid-like,
not free text) and :func:`concept_type` names each one from its table and column
(``airports.name`` -> ``Airport Name``), using the column comment when the name is cryptic
(``district.A3`` with comment "region" -> ``District Region``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ctxtool.connectors.profile import effective_type
from ctxtool.errors import InputError
from ctxtool.sensitive import secret_column
from ctxtool.snapshot import schema_qualifier, unreadable
from ctxtool.values.fallback import basic
from ctxtool.values.recipes import (
    DEFAULT_LIMIT,
    Recipe,
    Server,
    Target,
    build,
    normalize_match,
    server_from_snapshot,
    supported_matches,
)

NAME_WORDS = {
    "name", "title", "label", "city", "country", "region", "state", "province", "county", "district",
    "town", "place", "brand", "company", "organization", "organisation", "airline", "airport", "station",
    "street", "team", "product", "category", "type", "kind", "status", "genre", "department", "segment",
    "class", "tier", "level", "group", "frequency", "operation", "symbol", "gender", "currency",
    "language", "nationality", "model", "make", "manufacturer", "vendor", "supplier", "customer",
    "author", "artist", "school", "university", "hospital", "continent", "zone", "area", "channel",
}  # fmt: skip
CODE_WORDS = {
    "code",
    "iata",
    "icao",
    "iso",
    "iso2",
    "iso3",
    "sku",
    "ticker",
    "abbr",
    "abbreviation",
    "symbol",
    "postcode",
    "zip",
}
EXCLUDE_WORDS = {
    "id", "uuid", "guid", "hash", "checksum", "md5", "sha", "sha1", "sha256", "token", "password", "secret",
    "salt", "url", "uri", "path", "json", "xml", "html", "description", "desc", "comment", "comments", "note",
    "notes", "body", "text", "content", "message", "summary", "details", "remarks", "bio",
    "email", "phone", "ip", "key", "signature", "embedding", "vector", "tokens", "soundex", "created",
    "updated", "modified", "timestamp", "date", "time",
}  # fmt: skip
ACRONYMS = {"iata", "icao", "iso", "sku", "id", "url", "vat", "iban", "bic", "swift", "zip", "uk", "us", "eu"}
_HEXLIKE = re.compile(
    r"^(?:[0-9a-fA-F]{16,}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$"
)
_NUMERIC_TEXT = re.compile(r"^[+-]?\d+(?:[.,:]\d+)*$")
FREE_TEXT_AVG_LENGTH = 60.0
CODE_MAX_AVG_LENGTH = 4.0
UNIQUE_LONG_AVG_LENGTH = 32.0


@dataclass
class Candidate:
    """A column chosen for a value search, and why."""

    target: Target
    kind: str  # "name" | "code" | "category"
    concept_type: str
    reason: str
    comment: str | None = None


def iter_columns(snapshot: dict) -> Iterator[tuple[str, dict, dict]]:
    """``(schema_name, table, column)`` for every column of every table and view in a snapshot."""
    for schema in snapshot.get("schemas") or ():
        for table in schema.get("tables") or ():
            for column in table.get("columns") or ():
                yield schema.get("name") or "", table, column


def _words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def _foreign_key_columns(table: dict) -> set[str]:
    keys: set[str] = set()
    for fk in table.get("foreign_keys") or ():
        keys.update(c.lower() for c in fk.get("columns") or ())
    return keys


def classify(table: dict, column: dict, keys: bool = False) -> tuple[str | None, str]:
    """``(kind, reason)``: kind is ``name``/``code``/``category``, or None with why it was skipped.

    A table's own key is searched when it is made of several text columns (the parts of a
    person's name that together identify a row), a one-column key only with ``keys`` (a
    database where nothing else looks like what users type); a foreign key never (the column
    it references gets the search)."""
    name = str(column.get("name", ""))
    secret = secret_column(column)
    if secret:
        return None, secret
    words = _words(name)
    ctype = effective_type(column)
    unsearchable = _unsearchable(ctype)
    if unsearchable:
        return None, unsearchable
    if not Target("t", name, type=ctype).is_text:
        return None, f"type {ctype or 'unknown'} is not text"
    if name.lower() in _foreign_key_columns(table):
        return None, "a key column (its values are searched where it points)"
    primary = [c.lower() for c in table.get("primary_key") or ()]
    if primary == [name.lower()] and not keys:
        return None, "a key column (ids are not typed by users)"
    if (
        words
        and (words[-1] in EXCLUDE_WORDS or words[0] in {"id", "uuid", "hash"} or _contact_address(words))
        and not set(words) & CODE_WORDS
    ):
        return None, f"the name says {words[-1]!r}, not a name, code or category"
    profile = column.get("profile") or {}
    distinct = profile.get("distinct")
    avg = profile.get("avg_length")
    common = [str(m.get("value")) for m in profile.get("most_common") or () if isinstance(m, dict)]
    if distinct is not None and 0 <= distinct <= 1:
        return None, "at most one distinct value"
    if avg is not None and avg > FREE_TEXT_AVG_LENGTH:
        return None, f"free text (average length {avg:.0f})"
    if common and sum(bool(_HEXLIKE.match(v)) for v in common) >= max(1, len(common) // 2):
        return None, "hash or uuid-like values"
    bounds = (profile.get("min"), profile.get("max"))
    seen = [v for v in [*common, *(str(b) for b in bounds if b is not None)] if v.strip()]
    if len(seen) >= 2 and all(_NUMERIC_TEXT.match(v) for v in seen) and not set(words) & CODE_WORDS:
        return None, "numbers stored as text (compare them as numbers; --column forces a search)"
    rows = table.get("row_estimate") or 0
    unique = distinct is not None and (distinct <= -0.9 or (rows >= 100 and distinct >= 0.9 * rows))
    if unique and avg is not None and avg >= UNIQUE_LONG_AVG_LENGTH:
        # md5 is 32 characters, a uuid 36: unique values that long are ids, hashes or sentences
        return None, f"long values unique per row (average length {avg:.0f}): ids, hashes or text"
    if set(words) & CODE_WORDS or (
        avg is not None and avg <= CODE_MAX_AVG_LENGTH and _looks_like_codes(common)
    ):
        if distinct is not None and 0 < distinct <= 20 and not set(words) & CODE_WORDS:
            return "category", f"{distinct} distinct short values"
        return "code", "short code values" if avg is not None else "a code column by its name"
    few = distinct is not None and (
        0 < distinct <= 200 or (-0.05 <= distinct < 0) or (rows and distinct <= rows * 0.05)
    )
    if few and not (set(words) & {"name", "title", "label"}):
        return (
            "category",
            f"{distinct} distinct values" if distinct and distinct > 0 else "few distinct values",
        )
    if set(words) & NAME_WORDS:
        return "name", "a name column by its name"
    if not profile:
        return None, "no profile and the name does not say name, code or category (use --column)"
    if avg is not None and avg <= 40:
        return "name", f"short text values (average length {avg:.0f})"
    return None, "not clearly a name, code or category (use --column to force it)"


def _contact_address(words: list[str]) -> bool:
    """An e-mail, web or network address: nobody asks for one by its spelling; a street address
    ("12 Mill Lane") is typed to find the place there."""
    return words[-1] == "address" and bool(set(words) & {"email", "mail", "web", "ip", "mac", "url"})


def _unsearchable(ctype: str) -> str | None:
    """Why a column of type ``ctype`` gets no value search (None when it may get one)."""
    t = ctype.strip().lower()
    if t.endswith("]") or t.startswith("array"):
        return f"an array ({ctype}): a value search compares single values (search its elements with your own query)"
    if t.startswith("set("):
        return "a SET column holds several values at once: filter it with a facet (FIND_IN_SET)"
    if t.startswith(("json", "bytea", "blob", "bytes", "binary", "varbinary", "tsvector", "xml")):
        return f"type {ctype} holds documents or bytes, not names users type"
    if t == "uuid":
        return "uuid values are ids, not names users type"
    return None


def _looks_like_codes(values: Sequence[str]) -> bool:
    return bool(values) and all(re.fullmatch(r"[A-Z0-9_-]{1,6}", v) for v in values)


# --------------------------------------------------------------------------- concept types

_IRREGULAR = {
    "people": "person", "children": "child", "men": "man", "women": "woman", "data": "data",
    "status": "status", "trans": "transaction", "news": "news", "series": "series", "species": "species",
    "disp": "disposition", "analysis": "analysis", "address": "address", "bus": "bus", "campus": "campus",
}  # fmt: skip


def singular(word: str) -> str:
    """English singular of a table name's last word (``airports`` -> ``airport``)."""
    low = word.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if len(low) <= 3 or low.endswith(("ss", "us", "is", "ics")):
        return low
    if low.endswith("ies"):
        return low[:-3] + "y"
    if low.endswith(("sses", "xes", "ches", "shes", "zes")):
        return low[:-2]
    if low.endswith("s"):
        return low[:-1]
    return low


def _title(word: str) -> str:
    return word.upper() if word.lower() in ACRONYMS else word[:1].upper() + word[1:]


def _is_cryptic(name: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z]{1,2}\d+|[A-Za-z]{1,2}", name))


def _comment_label(comment: str) -> str:
    text = re.split(r"[(,;:.]| - ", comment.strip(), maxsplit=1)[0].strip()
    return text if 0 < len(text.split()) <= 5 else ""


def concept_type(table: str, column: str, comment: str | None = None, kind: str | None = None) -> str:
    """A readable label for what the column's values are: ``airports.name`` -> ``Airport Name``."""
    table_words = _words(table)
    if table_words:
        table_words[-1] = singular(table_words[-1])
    col_words = _words(column)
    if comment and (_is_cryptic(column) or not col_words):
        label = _comment_label(comment)
        if label:
            col_words = _words(label)
    # "airport_name" on airports: the table is already in the column name
    if table_words and col_words[: len(table_words)] == table_words:
        words = col_words
    elif col_words and singular(col_words[0]) == (table_words[-1] if table_words else ""):
        words = col_words
    else:
        words = table_words + col_words
    if kind == "code" and "code" not in words and not (set(words) & {"symbol", "abbr"}):
        words.append("code")
    return " ".join(_title(w) for w in words)


# --------------------------------------------------------------------------- choosing and drafting


def choose_columns(snapshot: dict, columns: Iterable[str] = ()) -> tuple[list[Candidate], list[str]]:
    """The columns to draft value searches for, and a note per column skipped (for ``--verbose``).

    With ``columns`` (``table.column`` or ``schema.table.column``, case-insensitive), exactly those,
    whatever their profile; an unknown name raises :class:`InputError`.
    """
    wanted = [c.strip() for c in columns if c.strip()]
    out, skipped = _choose(snapshot, wanted, keys=False)
    if not out and not wanted:  # nothing else users type: the tables' own text keys are
        out, skipped = _choose(snapshot, wanted, keys=True)
    return out, skipped


def _choose(snapshot: dict, wanted: list[str], keys: bool) -> tuple[list[Candidate], list[str]]:
    """:func:`choose_columns` in one pass; ``keys``: one-column text keys too (see :func:`classify`)."""
    out: list[Candidate] = []
    skipped: list[str] = []
    found: set[str] = set()
    said: set[int] = set()
    for schema, table, column in iter_columns(snapshot):
        tname, cname = str(table.get("name")), str(column.get("name"))
        why = unreadable(table)
        if why:
            if id(table) not in said:
                said.add(id(table))
                qualifier = schema_qualifier(snapshot, schema)
                skipped.append(f"{qualifier + '.' if qualifier else ''}{tname}: {why}")
            continue
        names = {f"{tname}.{cname}".lower(), f"{schema}.{tname}.{cname}".lower()}
        comment = column.get("comment")
        qualifier = schema_qualifier(snapshot, schema)
        target = Target(
            tname, cname, qualifier, effective_type(column) or "text", virtual=bool(column.get("virtual"))
        )
        kind, reason = classify(table, column, keys)
        if wanted:
            hit = [w for w in wanted if w.lower() in names]
            if not hit:
                continue
            found.update(h.lower() for h in hit)
            secret = secret_column(column)
            if secret:  # not even when named: a search would serve the stored secrets
                skipped.append(f"{target.label}: {secret}")
                continue
            kind = kind or "name"
            reason = "named with --column"
        elif table.get("kind") == "view" or kind is None:
            if target.is_text or _unsearchable(target.type):  # numbers and dates: without a word
                skipped.append(f"{target.label}: {reason if kind is None else 'a view'}")
            continue
        out.append(Candidate(target, kind, concept_type(tname, cname, comment, kind), reason, comment))
    missing = [w for w in wanted if w.lower() not in found]
    if missing:
        raise InputError(f"--column {missing[0]}: no such column in the snapshot; name it as table.column")
    return out, skipped


def default_match(server: Server, kind: str) -> str:
    """Codes get exact matches (a misspelt code is another code); names and categories the
    engine's fuzzy search when it has one."""
    if kind == "code":
        return "exact"
    return "trigram" if "trigram" in supported_matches(server) else "exact"


def draft(
    snapshot: dict,
    *,
    server: Server | None = None,
    columns: Iterable[str] = (),
    match: str | None = None,
    connector: Any = None,
    as_is: bool = True,
    **recipe_options,
) -> tuple[list[Recipe], list[str]]:
    """Value searches for a snapshot's chosen columns: ``(recipes, notes)``.

    ``as_is``: a search must run on the database as the snapshot (and ``connector``, which plans
    each one) shows it. When the engine's better search needs DDL that is not in place (an
    extension, a FULLTEXT or search index, a helper column), the search that runs now is drafted
    and carries the better one's DDL as its upgrade (``--emit-ddl`` / ``--apply-ddl``). Without
    ``as_is`` (``--apply-ddl``) the better search is drafted, for its DDL to be applied.
    """
    server = server or server_from_snapshot(snapshot)
    forced = normalize_match(match) if match else None
    candidates, skipped = choose_columns(snapshot, columns)
    recipes: list[Recipe] = []
    notes = [f"skipped {s}" for s in skipped]
    limit = recipe_options.get("limit") or DEFAULT_LIMIT
    for cand in candidates:
        m = forced or default_match(server, cand.kind)
        best = build(server, cand.target, cand.concept_type, m, **recipe_options)
        recipe = best
        if (cand.target.virtual or cand.target.is_enum) and not forced:
            # computed when read, or an enum (no FULLTEXT, no immutable text to index, a short
            # list of labels): the search that needs no DDL is the best there is
            recipe = basic(replace(server, available=()), cand.target, cand.concept_type, limit)
            why = "a virtual generated column" if cand.target.virtual else "an enumerated type"
            recipe.notes.append(f"{why}: searched without an index (none would serve it)")
        elif as_is and not forced and not _in_place(best, snapshot, server):
            installed = replace(server, available=())  # what the server has, not what it could have
            now = default_match(installed, cand.kind)
            recipe = build(installed, cand.target, cand.concept_type, now, **recipe_options)
            fallback = not _in_place(recipe, snapshot, installed) or now != best.match
            if fallback:
                recipe = basic(installed, cand.target, cand.concept_type, limit)
            recipe.ddl = list(dict.fromkeys([*best.ddl, *recipe.ddl]))
            recipe.notes.append(_upgrade_note(recipe, best, server, fallback=fallback))
        elif as_is and forced and not _in_place(best, snapshot, server):
            # the match asked for may run with what is installed (pg_trgm without fuzzystrmatch:
            # trigram distance without its SOUNDEX part); the fuller search stays the upgrade
            installed = replace(server, available=())
            if forced in supported_matches(installed):
                now_recipe = build(installed, cand.target, cand.concept_type, forced, **recipe_options)
                if _in_place(now_recipe, snapshot, installed):
                    recipe = now_recipe
                    recipe.ddl = list(dict.fromkeys([*best.ddl, *recipe.ddl]))
                    recipe.notes.append(_upgrade_note(recipe, best, server, fallback=False))
        if connector is not None:
            problem = _plan_problem(connector, recipe.query)
            if problem and recipe is best and as_is and not forced:
                recipe = basic(server, cand.target, cand.concept_type, limit)
                recipe.ddl = list(best.ddl)
                problem = _plan_problem(connector, recipe.query)
            if problem and as_is:
                notes.append(f"skipped {cand.target.label}: the database rejects its search: {problem}")
                continue
        recipes.append(recipe)
    return recipes, notes


_ADD_COLUMN = re.compile(r"ADD COLUMN (?:IF NOT EXISTS )?([`\"])((?:(?!\1).)+)\1", re.IGNORECASE)
_EXTENSION = re.compile(r"CREATE EXTENSION IF NOT EXISTS (\w+)", re.IGNORECASE)


def _upgrade_note(recipe: Recipe, best: Recipe, server: Server, *, fallback: bool) -> str:
    """What the drafted search (``fallback``: the one that needs no extension or index) lacks next
    to ``best`` and how to get it, naming the extensions ``best``'s DDL would create."""
    missing = [m.group(1) for s in best.ddl if (m := _EXTENSION.search(s)) and not server.has(m.group(1))]
    needs = f" (with {', '.join(missing)})" if missing else ""
    if fallback:
        drafted, better = "a search that runs now without extensions or indexes", "a better"
    else:
        drafted, better = f"a {recipe.match} search that runs now", "a fuller"
    return f"drafted {drafted}; {better} {best.match} search{needs} needs DDL (--emit-ddl prints it, --apply-ddl applies it)"


def _in_place(recipe: Recipe, snapshot: dict, server: Server) -> bool:
    """Whether everything ``recipe``'s query needs to run exists: its extensions, the helper
    columns its DDL adds, and the FULLTEXT / search index MATCH and SEARCH_NGRAMS require."""
    if not recipe.ddl_required:
        return True
    from ctxtool.snapshot import find_column, find_table
    from ctxtool.values.testing import usable_indexes

    target = recipe.target
    table = find_table(snapshot, target.table, target.schema)
    for stmt in recipe.ddl:
        ext = _EXTENSION.search(stmt)
        if ext and not server.has(ext.group(1)):
            return False
        col = _ADD_COLUMN.search(stmt)
        if col and (table is None or find_column(table, col.group(2)) is None):
            return False
        for marker, kind in (("FULLTEXT", "fulltext"), ("SEARCH INDEX", "search")):
            if marker in stmt.upper() and (table is None or not usable_indexes(kind, table, target.column)):
                return False
    return True


def _plan_problem(connector: Any, sql: str) -> str | None:
    """The database's objection to ``sql`` (planned, not run), or None."""
    from ctxtool.errors import CtxtoolError

    try:
        connector.plan(sql, {"value": "x"})
    except CtxtoolError as exc:
        return str(exc).splitlines()[0]
    return None


def merge(existing: dict, recipes: Sequence[Recipe]) -> tuple[dict, int, int]:
    """Add drafted searches to a context set: replace a search on the same ``columns`` label and
    concept type, append the rest. Returns ``(data, added, replaced)``."""
    data = dict(existing)
    searches = list(data.get("value_searches") or [])
    added = replaced = 0
    for recipe in recipes:
        label = recipe.target.label.lower()
        for i, old in enumerate(searches):
            q = str(old.get("query", "")) if isinstance(old, dict) else ""
            same_label = f"'{label}' as columns" in re.sub(r"\s+", " ", q.lower())
            if same_label and old.get("concept_type") == recipe.concept_type:
                searches[i] = recipe.value_search()
                replaced += 1
                break
        else:
            searches.append(recipe.value_search())
            added += 1
    data["value_searches"] = searches
    return data, added, replaced


_SEARCH_EXTENSIONS = ("pg_trgm", "vector", "fuzzystrmatch", "google_ml_integration")


def server_from_connector(connector) -> Server:  # noqa: ANN001 - a Connector
    """The :class:`Server` of a live connection, with the search extensions it could create."""
    info = connector.info()
    available: tuple[str, ...] = ()
    if info.engine == "postgres":
        try:
            result = connector.query(
                "SELECT name FROM pg_available_extensions WHERE installed_version IS NULL AND name IN ("
                + ", ".join(f"'{e}'" for e in _SEARCH_EXTENSIONS)
                + ") ORDER BY name"
            )
            available = tuple(str(r[0]) for r in result.rows)
        except Exception:  # noqa: BLE001 - a server that hides the catalog: installed ones only
            available = ()
    return Server(info.engine, info.flavour, tuple(info.extensions), available)


def load_snapshot(path: str) -> dict:
    """A snapshot file as a dict (through :mod:`ctxtool.snapshot` when it is there)."""
    try:
        from ctxtool.snapshot import load as snapshot_load
    except ImportError:
        from ctxtool.jsondoc import load_json

        data = load_json(path).data
    else:
        data = snapshot_load(path)
    if not isinstance(data, dict) or "schemas" not in data:
        raise InputError(f'{path}: not a schema snapshot (no "schemas"); make one with `ctxtool introspect`')
    return data
