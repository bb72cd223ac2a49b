"""Schema snapshots: build one from a live database, load and check one from a file, look names up
case-insensitively, and diff two of them.

A snapshot is plain JSON (``schemas/schema_snapshot.schema.json``). Its order is deterministic --
schemas and tables sorted by name, columns in table order, constraints and indexes sorted by name --
so snapshots kept in git diff cleanly. Lookups follow SQL's rules loosely: an exact match wins,
otherwise names match case-insensitively (``District``, ``district`` and ``"district"`` all find
``district``), because context-set SQL rarely quotes identifiers.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxtool.errors import InputError
from ctxtool.jsondoc import load_json, write_text_atomic

SNAPSHOT_VERSION = 1
_SCHEMA_NAME = "schema_snapshot.schema.json"
_TOP_KEYS = (
    "snapshot_version",
    "engine",
    "flavour",
    "version",
    "dialect",
    "extensions",
    "database",
    "schemas",
)
_TABLE_KEYS = (
    "name", "kind", "comment", "row_estimate", "columns", "primary_key", "foreign_keys", "unique", "indexes",
    "interleave", "populated",
)  # fmt: skip
_COLUMN_KEYS = ("name", "type", "nullable", "default", "comment", "generated", "identity", "profile")
_FK_KEYS = ("name", "columns", "ref_schema", "ref_table", "ref_columns", "on_delete", "on_update")
_INDEX_KEYS = ("name", "columns", "unique", "primary", "method", "opclasses")


# ---------------------------------------------------------------------------------------- building


def build(
    connector: Any,
    schemas: Sequence[str] | None = None,
    *,
    profile: bool = False,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Introspect the database behind ``connector`` (an open :class:`~ctxtool.connectors.Connector`)
    and return the snapshot in its canonical order."""
    raw = connector.introspect(list(schemas) if schemas else None, profile=profile, progress=progress)
    return normalize(raw)


def normalize(raw: dict[str, Any]) -> dict[str, Any]:
    """``raw`` (what a connector's ``introspect`` returns) in canonical key and item order."""
    out: dict[str, Any] = {"snapshot_version": SNAPSHOT_VERSION}
    for key in _TOP_KEYS[1:]:
        if key == "schemas":
            out[key] = sorted((_schema(s) for s in raw.get("schemas", [])), key=lambda s: s["name"])
        elif key == "extensions":
            out[key] = sorted(raw.get(key) or [])
        else:
            out[key] = raw.get(key)
    return out


def _schema(schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": schema["name"],
        "tables": sorted(
            (_table(t) for t in schema.get("tables", [])), key=lambda t: (t["name"].lower(), t["name"])
        ),
    }


_canonical_orders: dict[tuple[tuple[str, ...], tuple[str, ...]], bool] = {}


def _ordered(item: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """``item`` with ``keys`` first (in that order), then any others sorted; the item itself when
    it is already in that order (connectors produce it so; checking is cheaper than rebuilding)."""
    cache_key = (tuple(item), keys)
    ok = _canonical_orders.get(cache_key)
    if ok is None:
        expected = [k for k in keys if k in item] + sorted(k for k in item if k not in keys)
        ok = _canonical_orders[cache_key] = list(item) == expected
    if ok:
        return item
    out = {k: item[k] for k in keys if k in item}
    out.update({k: v for k, v in sorted(item.items()) if k not in out})
    return out


def _ordered_all(items: list[dict[str, Any]], keys: tuple[str, ...]) -> list[dict[str, Any]]:
    """``_ordered`` over a list; an item with the same keys as the one before it (a table's columns,
    as a rule) takes its verdict without a cache look-up -- 20,000 columns make it count."""
    out = []
    last: tuple[str, ...] | None = None
    canonical = False
    for item in items:
        names = tuple(item)
        if names != last:
            last, canonical = names, _ordered(item, keys) is item
        out.append(item if canonical else _ordered(item, keys))
    return out


def _table(table: dict[str, Any]) -> dict[str, Any]:
    t = dict(table)
    t["columns"] = _ordered_all(t.get("columns", []), _COLUMN_KEYS)
    t["foreign_keys"] = sorted(
        (
            _ordered(fk, ("name", "columns", "ref_schema", "ref_table", "ref_columns"))
            for fk in t.get("foreign_keys", [])
        ),
        key=lambda fk: (str(fk.get("name")), fk["columns"]),
    )
    t["unique"] = sorted([list(u) for u in t.get("unique", [])])
    t["indexes"] = sorted(
        (
            _ordered(i, ("name", "columns", "unique", "primary", "method", "opclasses"))
            for i in t.get("indexes", [])
        ),
        key=lambda i: str(i.get("name")),
    )
    t.setdefault("primary_key", [])
    t.setdefault("interleave", None)
    return _ordered(t, _TABLE_KEYS)


# ---------------------------------------------------------------------------------------- files


def schema_path() -> Path:
    """The JSON Schema file: ``ctxtool/data`` in an installed package, ``schemas/`` in a checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "data" / _SCHEMA_NAME, here.parent / "schemas" / _SCHEMA_NAME):
        if candidate.is_file():
            return candidate
    raise InputError(f"{_SCHEMA_NAME} is missing from this installation; reinstall ctxtool")


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema

    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def check(data: Any, path: str = "<snapshot>", doc: Any = None) -> None:
    """Raise :class:`InputError` naming ``path:line:col`` when ``data`` is not a valid snapshot.

    A hand-written walk that accepts only what the JSON Schema accepts decides the common case in
    milliseconds (jsonschema takes about a second for 20,000 columns); jsonschema runs when the walk
    rejects, to name the offending node."""
    try:
        if _conforms(data):
            return
    except (TypeError, KeyError, AttributeError):
        pass
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    if not errors:
        return
    err = errors[0]
    pointer = "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in err.absolute_path)
    line, col = doc.position(pointer) if doc is not None else (1, 1)
    where = pointer or "/"
    raise InputError(
        f"{path}:{line}:{col}: not a ctxtool schema snapshot ({where}: {err.message.splitlines()[0]}); "
        "create one with `ctxtool introspect --dsn DSN -o FILE`"
    )


_ENGINES = {"postgres", "mysql", "spanner"}
_FLAVOURS = {"postgresql", "alloydb", "mysql", "mariadb", "spanner-googlesql", "spanner-postgresql"}
_KINDS = {"table", "view", "materialized_view", "foreign_table"}


def _str(v: Any) -> bool:
    return isinstance(v, str)


def _opt_str(v: Any) -> bool:
    return v is None or isinstance(v, str)


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _names(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def _conforms(d: Any) -> bool:
    """True only for data ``schemas/schema_snapshot.schema.json`` accepts (a strict subset check)."""
    if (
        not isinstance(d, dict)
        or d.get("snapshot_version") != 1
        or isinstance(d.get("snapshot_version"), bool)
    ):
        return False
    if not all(k in d for k in _TOP_KEYS):
        return False
    if d["engine"] not in _ENGINES or d["flavour"] not in _FLAVOURS or d["dialect"] not in _ENGINES:
        return False
    ext = d["extensions"]
    if not _str(d["version"]) or not _opt_str(d["database"]) or not _names(ext) or len(set(ext)) != len(ext):
        return False
    if not isinstance(d["schemas"], list):
        return False
    for schema in d["schemas"]:
        if not isinstance(schema, dict) or set(schema) != {"name", "tables"} or not _str(schema["name"]):
            return False
        if not isinstance(schema["tables"], list) or not all(_table_conforms(t) for t in schema["tables"]):
            return False
    return True


def _table_conforms(t: Any) -> bool:
    if not isinstance(t, dict) or not (_str(t.get("name")) and t["name"]) or t.get("kind") not in _KINDS:
        return False
    if "comment" in t and not _opt_str(t["comment"]):
        return False
    if "row_estimate" in t and not (
        t["row_estimate"] is None or (_int(t["row_estimate"]) and t["row_estimate"] >= 0)
    ):
        return False
    if not isinstance(t.get("columns"), list) or not all(_column_conforms(c) for c in t["columns"]):
        return False
    if "primary_key" in t and not _names(t["primary_key"]):
        return False
    if "unique" in t and not (isinstance(t["unique"], list) and all(_names(u) for u in t["unique"])):
        return False
    for fk in t.get("foreign_keys", []) if isinstance(t.get("foreign_keys", []), list) else [None]:
        if not isinstance(fk, dict) or not _names(fk.get("columns")) or not _str(fk.get("ref_table")):
            return False
        refs = fk.get("ref_columns")
        if not isinstance(refs, list) or not all(_opt_str(r) for r in refs):
            return False
        if not all(_opt_str(fk[k]) for k in ("name", "ref_schema", "on_delete", "on_update") if k in fk):
            return False
    for index in t.get("indexes", []) if isinstance(t.get("indexes", []), list) else [None]:
        if not isinstance(index, dict) or not _str(index.get("name")) or not _names(index.get("columns")):
            return False
        if not isinstance(index.get("unique"), bool) or not _str(index.get("method")):
            return False
        if "primary" in index and not isinstance(index["primary"], bool):
            return False
        if not all(_names(index[k]) for k in ("opclasses", "include", "storing") if k in index):
            return False
        if not all(_str(index[k]) for k in ("parser", "predicate") if k in index):
            return False
    if "populated" in t and not isinstance(t["populated"], bool):
        return False
    inter = t.get("interleave")
    if inter is not None:
        if (
            not isinstance(inter, dict)
            or not set(inter) <= {"parent", "on_delete"}
            or not _str(inter.get("parent"))
        ):
            return False
        if "on_delete" in inter and not _opt_str(inter["on_delete"]):
            return False
    return True


def _column_conforms(c: Any) -> bool:
    if not isinstance(c, dict) or not (_str(c.get("name")) and c["name"]) or not _str(c.get("type")):
        return False
    if not isinstance(c.get("nullable"), bool):
        return False
    if not all(_opt_str(c[k]) for k in ("default", "comment") if k in c):
        return False
    if not all(_str(c[k]) for k in ("generated", "identity") if k in c):
        return False
    p = c.get("profile")
    if p is None:
        return "profile" not in c
    if not isinstance(p, dict) or not (_int(p.get("distinct")) and p["distinct"] >= 0):
        return False
    if not (_num(p.get("null_fraction")) and 0 <= p["null_fraction"] <= 1):
        return False
    if "avg_length" in p and not (
        p["avg_length"] is None or (_num(p["avg_length"]) and p["avg_length"] >= 0)
    ):
        return False
    common = p.get("most_common")
    if not isinstance(common, list):
        return False
    for item in common:
        if not isinstance(item, dict) or set(item) != {"value", "frequency"}:
            return False
        if not (_num(item["frequency"]) and 0 <= item["frequency"] <= 1):
            return False
    return True


def load(path: str) -> dict[str, Any]:
    """Read and check a snapshot file; errors name the file, line and what to do."""
    doc = load_json(path)
    check(doc.data, doc.path, doc)
    return doc.data


def dumps(snapshot: dict[str, Any]) -> str:
    """The snapshot as text: indented down to tables, then one line per column, foreign key and
    index -- so a changed column is a one-line diff in git, and writing is fast (the C encoder)."""
    out: list[str] = []
    _write(snapshot, 0, out)
    return "".join(out) + "\n"


_LINE_LISTS = {"columns", "foreign_keys", "indexes"}


def _make_compact() -> Callable[[Any], str]:
    """One reusable C encoder (json.dumps builds a new one per call, which dominates for 20,000
    small column objects); falls back to json.dumps where the C accelerator is missing."""
    from json import encoder

    if encoder.c_make_encoder is None or encoder.c_encode_basestring is None:
        return lambda value: json.dumps(value, ensure_ascii=False)
    iterencode = encoder.c_make_encoder(
        None, None, encoder.c_encode_basestring, None, ": ", ", ", False, False, True
    )
    return lambda value: "".join(iterencode(value, 0))


_compact = _make_compact()
_keys: dict[str, str] = {}


def _key(key: str) -> str:
    text = _keys.get(key)
    if text is None:
        text = _keys[key] = _compact(key)
    return text


def _make_column_line() -> Callable[[dict[str, Any]], str]:
    """The JSON of a plain column (the five base keys; text, booleans, nulls) from one format string
    and the C string encoder -- most of a snapshot's lines; anything else goes through _compact."""
    from json import encoder

    quote = encoder.c_encode_basestring or encoder.py_encode_basestring
    base = ("name", "type", "nullable", "default", "comment")
    template = '{"name": %s, "type": %s, "nullable": %s, "default": %s, "comment": %s}'

    def text(v: Any) -> str:
        if v is None:
            return "null"
        if v.__class__ is str:
            return quote(v)
        raise TypeError

    def line(column: dict[str, Any]) -> str:
        if len(column) == 5 and tuple(column) == base and column["nullable"].__class__ is bool:
            try:
                return template % (
                    quote(column["name"]),
                    quote(column["type"]),
                    "true" if column["nullable"] else "false",
                    text(column["default"]),
                    text(column["comment"]),
                )
            except (TypeError, AttributeError):
                pass
        return _compact(column)

    return line


_column_line = _make_column_line()


def _write(obj: dict[str, Any], depth: int, out: list[str]) -> None:
    pad, inner = "  " * depth, "  " * (depth + 1)
    out.append("{")
    items = list(obj.items())
    for i, (key, value) in enumerate(items):
        out.append(f"\n{inner}{_key(key)}: ")
        if key in _LINE_LISTS and isinstance(value, list) and value:
            out.append("[")
            encode = _column_line if key == "columns" else _compact
            out.append(",".join(f"\n{inner}  {encode(v)}" for v in value))
            out.append(f"\n{inner}]")
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            out.append("[")
            for j, item in enumerate(value):
                out.append(f"\n{inner}  ")
                _write(item, depth + 2, out)
                if j < len(value) - 1:
                    out.append(",")
            out.append(f"\n{inner}]")
        else:
            out.append(_compact(value))
        if i < len(items) - 1:
            out.append(",")
    out.append(f"\n{pad}}}" if items else "}")


def save(path: str, snapshot: dict[str, Any]) -> None:
    """Write ``snapshot`` atomically in canonical form (see :func:`dumps`)."""
    write_text_atomic(path, dumps(snapshot))


# ---------------------------------------------------------------------------------------- lookups


@dataclass
class TableRef:
    """A table found in a snapshot, with the schema that holds it."""

    schema: str
    table: dict[str, Any]

    @property
    def name(self) -> str:
        return self.table["name"]

    @property
    def qualified(self) -> str:
        return f"{self.schema}.{self.name}" if self.schema else self.name

    def column(self, name: str) -> dict[str, Any] | None:
        return find_column(self.table, name)


@dataclass
class Catalog:
    """Name lookups over one snapshot: exact first, then case-insensitive."""

    snapshot: dict[str, Any]
    _tables: dict[str, list[TableRef]] = field(default_factory=dict)
    _default_schemas: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for schema in self.snapshot.get("schemas", []):
            for table in schema.get("tables", []):
                ref = TableRef(schema["name"], table)
                self._tables.setdefault(table["name"].lower(), []).append(ref)
        names = [s["name"] for s in self.snapshot.get("schemas", [])]
        defaults = [n for n in ("public", "", self.snapshot.get("database")) if n in names]
        self._default_schemas = tuple(defaults) or tuple(names[:1])

    def table(self, name: str, schema: str | None = None, columns: Sequence[str] = ()) -> TableRef | None:
        """The table ``name`` (``schema.table`` accepted) in ``schema`` or, without one, the one of
        its namesakes that has ``columns`` (a facet's ``table.column``), then the one in the default
        schema (``public``, Spanner's unnamed one, the MySQL database), else the only one."""
        if schema is None and "." in name and name.lower() not in self._tables:
            schema, name = name.rsplit(".", 1)
        candidates = self._tables.get(name.lower(), [])
        if schema is not None:
            candidates = [c for c in candidates if c.schema.lower() == schema.lower()]
        if not candidates:
            return None
        exact = [c for c in candidates if c.name == name]
        pool = exact or candidates
        if len(pool) > 1 and schema is None and columns:
            pool = [c for c in pool if all(c.column(col) for col in columns)] or pool
        if len(pool) > 1 and schema is None:
            preferred = [c for c in pool if c.schema in self._default_schemas]
            pool = preferred or pool
        return pool[0]

    def column(self, table: str, column: str, schema: str | None = None) -> dict[str, Any] | None:
        ref = self.table(table, schema)
        return ref.column(column) if ref else None

    def tables(self) -> list[TableRef]:
        return [ref for refs in self._tables.values() for ref in refs]

    def sqlglot_schema(self) -> dict[str, Any]:
        """``{schema: {table: {column: type}}}`` for sqlglot's ``qualify`` (default schema first)."""
        out: dict[str, Any] = {}
        for ref in self.tables():
            out.setdefault(ref.schema, {})[ref.name] = {
                c["name"]: str(c.get("type") or "text") for c in ref.table["columns"]
            }
        return out


def default_schema(snapshot: dict[str, Any]) -> str:
    """The schema unqualified names reach: ``public`` on PostgreSQL, the connection's database on
    MySQL, Spanner's unnamed one."""
    engine = str(snapshot.get("engine") or snapshot.get("dialect") or "postgres").lower()
    if engine in ("postgres", "postgresql", "alloydb"):
        return "public"
    if engine in ("mysql", "mariadb"):
        return str(snapshot.get("database") or "")
    return ""


def schema_qualifier(snapshot: dict[str, Any], schema: str | None) -> str | None:
    """``schema`` when SQL must name it to reach its tables, None for the default schema."""
    if not schema or schema == default_schema(snapshot):
        return None
    return schema


def unreadable(table: dict[str, Any]) -> str | None:
    """Why no statement can read ``table`` as it is (None when it can): a materialized view created
    ``WITH NO DATA`` fails every query until it is refreshed. Profiling and drafting skip such a
    relation and say so, instead of stopping at its first error."""
    if table.get("populated") is False:
        return "a materialized view with no data (WITH NO DATA): REFRESH MATERIALIZED VIEW, then introspect again"
    return None


def find_table(snapshot: dict[str, Any], name: str, schema: str | None = None) -> dict[str, Any] | None:
    """The table dict called ``name`` (case-insensitive; ``schema.table`` accepted), or None."""
    ref = catalog(snapshot).table(name, schema)
    return ref.table if ref else None


def find_column(table: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The column of ``table`` called ``name``: exact match first, then case-insensitive."""
    lowered = None
    for col in table.get("columns", []):
        if col["name"] == name:
            return col
        if lowered is None and col["name"].lower() == name.lower():
            lowered = col
    return lowered


_catalogs: dict[int, tuple[dict[str, Any], Catalog]] = {}


def catalog(snapshot: dict[str, Any]) -> Catalog:
    """The (cached) :class:`Catalog` of a snapshot object."""
    hit = _catalogs.get(id(snapshot))
    if hit is not None and hit[0] is snapshot:
        return hit[1]
    cat = Catalog(snapshot)
    if len(_catalogs) > 32:
        _catalogs.clear()
    _catalogs[id(snapshot)] = (snapshot, cat)
    return cat


# ---------------------------------------------------------------------------------------- diffs


@dataclass(frozen=True)
class Change:
    """One difference between two snapshots. ``breaking`` marks what can break SQL written against
    the old schema: something dropped, or a column whose type changed."""

    action: str  # "added" | "dropped" | "changed"
    kind: str  # "schema" | "table" | "column" | "primary_key" | "foreign_key" | "unique" | "index" | "interleave" | "extension" | "server"
    name: str  # dotted: schema.table.column (schema left out when empty)
    detail: str = ""
    schema: str | None = None
    table: str | None = None
    column: str | None = None

    @property
    def breaking(self) -> bool:
        if self.action == "dropped":
            return self.kind in ("schema", "table", "column", "extension")
        return self.action == "changed" and self.kind == "column" and self.detail.startswith("type")

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "kind": self.kind,
            "name": self.name,
            "detail": self.detail,
            "breaking": self.breaking,
        }


def _dotted(*parts: str | None) -> str:
    return ".".join(p for p in parts if p)


def diff(old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    """Every added, dropped and changed object from ``old`` to ``new``, in a stable order.
    Profiles and row estimates are statistics, not schema, and are ignored."""
    changes: list[Change] = []
    for key in ("engine", "flavour", "version", "dialect"):
        if old.get(key) != new.get(key):
            changes.append(Change("changed", "server", key, f"{key}: {old.get(key)} -> {new.get(key)}"))
    old_ext, new_ext = set(old.get("extensions") or []), set(new.get("extensions") or [])
    changes += [Change("dropped", "extension", e) for e in sorted(old_ext - new_ext)]
    changes += [Change("added", "extension", e) for e in sorted(new_ext - old_ext)]
    old_schemas = {s["name"]: s for s in old.get("schemas", [])}
    new_schemas = {s["name"]: s for s in new.get("schemas", [])}
    for name in sorted(old_schemas.keys() | new_schemas.keys()):
        if name not in new_schemas:
            changes.append(Change("dropped", "schema", name or "(default schema)", schema=name))
            changes += [
                Change("dropped", "table", _dotted(name, t["name"]), schema=name, table=t["name"])
                for t in old_schemas[name].get("tables", [])
            ]
            continue
        if name not in old_schemas:
            changes.append(Change("added", "schema", name or "(default schema)", schema=name))
            changes += [
                Change("added", "table", _dotted(name, t["name"]), schema=name, table=t["name"])
                for t in new_schemas[name].get("tables", [])
            ]
            continue
        changes += _diff_tables(name, old_schemas[name], new_schemas[name])
    return changes


def _diff_tables(schema: str, old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    out: list[Change] = []
    old_tables = {t["name"]: t for t in old.get("tables", [])}
    new_tables = {t["name"]: t for t in new.get("tables", [])}
    for name in sorted(old_tables.keys() | new_tables.keys()):
        dotted = _dotted(schema, name)
        if name not in new_tables:
            out.append(
                Change("dropped", "table", dotted, old_tables[name].get("kind", "table"), schema, name)
            )
            continue
        if name not in old_tables:
            out.append(Change("added", "table", dotted, new_tables[name].get("kind", "table"), schema, name))
            continue
        a, b = old_tables[name], new_tables[name]
        if a.get("kind") != b.get("kind"):
            out.append(
                Change("changed", "table", dotted, f"kind: {a.get('kind')} -> {b.get('kind')}", schema, name)
            )
        if (a.get("comment") or None) != (b.get("comment") or None):
            out.append(Change("changed", "table", dotted, "comment changed", schema, name))
        out += _diff_columns(schema, name, a, b)
        if a.get("primary_key") != b.get("primary_key"):
            out.append(
                Change(
                    "changed",
                    "primary_key",
                    dotted,
                    f"primary key: {a.get('primary_key')} -> {b.get('primary_key')}",
                    schema,
                    name,
                )  # fmt: skip
            )
        out += _diff_named(schema, name, "foreign_key", a.get("foreign_keys", []), b.get("foreign_keys", []))
        out += _diff_named(schema, name, "index", a.get("indexes", []), b.get("indexes", []))
        old_u = {tuple(u) for u in a.get("unique", [])}
        new_u = {tuple(u) for u in b.get("unique", [])}
        out += [
            Change("dropped", "unique", dotted, f"unique ({', '.join(u)})", schema, name)
            for u in sorted(old_u - new_u)
        ]
        out += [
            Change("added", "unique", dotted, f"unique ({', '.join(u)})", schema, name)
            for u in sorted(new_u - old_u)
        ]
        if a.get("interleave") != b.get("interleave"):
            out.append(
                Change(
                    "changed",
                    "interleave",
                    dotted,
                    f"interleave: {a.get('interleave')} -> {b.get('interleave')}",
                    schema,
                    name,
                )
            )
    return out


def _diff_columns(schema: str, table: str, a: dict[str, Any], b: dict[str, Any]) -> list[Change]:
    out: list[Change] = []
    old_cols = {c["name"]: c for c in a.get("columns", [])}
    new_cols = {c["name"]: c for c in b.get("columns", [])}
    for name in [c["name"] for c in a.get("columns", [])] + [
        c["name"] for c in b.get("columns", []) if c["name"] not in old_cols
    ]:
        dotted = _dotted(schema, table, name)
        if name not in new_cols:
            out.append(
                Change("dropped", "column", dotted, str(old_cols[name].get("type")), schema, table, name)
            )
            continue
        if name not in old_cols:
            out.append(
                Change("added", "column", dotted, str(new_cols[name].get("type")), schema, table, name)
            )
            continue
        x, y = old_cols[name], new_cols[name]
        if x.get("type") != y.get("type"):
            out.append(
                Change(
                    "changed",
                    "column",
                    dotted,
                    f"type: {x.get('type')} -> {y.get('type')}",
                    schema,
                    table,
                    name,
                )
            )
        if x.get("nullable") != y.get("nullable"):
            what = "nullable" if y.get("nullable") else "not null"
            out.append(Change("changed", "column", dotted, f"nullability: now {what}", schema, table, name))
        if x.get("default") != y.get("default"):
            out.append(
                Change(
                    "changed",
                    "column",
                    dotted,
                    f"default: {x.get('default')} -> {y.get('default')}",
                    schema,
                    table,
                    name,
                )
            )
        if (x.get("comment") or None) != (y.get("comment") or None):
            out.append(Change("changed", "column", dotted, "comment changed", schema, table, name))
    return out


def _diff_named(
    schema: str, table: str, kind: str, old: list[dict[str, Any]], new: list[dict[str, Any]]
) -> list[Change]:
    out: list[Change] = []
    a = {str(x.get("name")): x for x in old}
    b = {str(x.get("name")): x for x in new}
    for name in sorted(a.keys() | b.keys()):
        dotted = _dotted(schema, table, name)
        if name not in b:
            out.append(Change("dropped", kind, dotted, _describe(kind, a[name]), schema, table))
        elif name not in a:
            out.append(Change("added", kind, dotted, _describe(kind, b[name]), schema, table))
        elif _strip(a[name]) != _strip(b[name]):
            out.append(
                Change(
                    "changed",
                    kind,
                    dotted,
                    f"{_describe(kind, a[name])} -> {_describe(kind, b[name])}",
                    schema,
                    table,
                )
            )
    return out


def _strip(obj: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k != "name"}


def _describe(kind: str, obj: dict[str, Any]) -> str:
    cols = ", ".join(str(c) for c in obj.get("columns", []))
    if kind == "foreign_key":
        ref = ", ".join(str(c) for c in obj.get("ref_columns", []))
        return f"({cols}) -> {_dotted(obj.get('ref_schema'), obj.get('ref_table'))}({ref})"
    method = obj.get("method") or ""
    unique = "unique " if obj.get("unique") else ""
    ops = f" {' '.join(o for o in obj.get('opclasses', []) if o)}" if any(obj.get("opclasses", [])) else ""
    return f"{unique}{method} ({cols}){ops}"
