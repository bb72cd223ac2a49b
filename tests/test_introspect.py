"""``ctxtool introspect`` and :mod:`ctxtool.snapshot`: snapshots that validate against the JSON Schema,
are byte-identical from run to run (they diff cleanly in git), and are written atomically."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtool import snapshot
from ctxtool.cli import cli
from ctxtool.errors import InputError
from tests.backends import _mysql_connect, _mysql_create, _mysql_drop, _pg_create, _pg_drop, unique_name
from tests.connector_schemas import load_mysql, load_pg


@pytest.fixture(scope="module")
def pg_db(_pg15_admin):
    name = unique_name("ctx_intpg")
    dsn = _pg_create(_pg15_admin, name)
    try:
        load_pg(dsn)
        yield dsn
    finally:
        _pg_drop(_pg15_admin, name)


@pytest.fixture(scope="module")
def my_db(_mariadb_available):
    name = unique_name("ctx_intmy")
    dsn = _mysql_create(name)
    conn = _mysql_connect(name)
    try:
        load_mysql(conn)
        conn.close()
        yield dsn
    finally:
        _mysql_drop(name)


def _run(*args: str):
    return CliRunner().invoke(cli, list(args))


@pytest.mark.postgres
def test_introspect_cli_writes_a_valid_deterministic_snapshot(pg_db, tmp_path):
    out1, out2 = tmp_path / "a.json", tmp_path / "b.json"
    r1 = _run("introspect", "--dsn", pg_db, "-o", str(out1))
    assert r1.exit_code == 0, r1.output
    assert "tables and views" in r1.output
    r2 = _run("introspect", "--dsn", pg_db, "-o", str(out2))
    assert r2.exit_code == 0
    assert out1.read_bytes() == out2.read_bytes()
    snap = snapshot.load(str(out1))  # validates against schemas/schema_snapshot.schema.json
    assert snap["snapshot_version"] == 1 and snap["engine"] == "postgres"
    names = [t["name"] for t in snap["schemas"][0]["tables"]]
    assert names == sorted(names, key=lambda n: (n.lower(), n))
    assert list(snap) == [
        "snapshot_version",
        "engine",
        "flavour",
        "version",
        "dialect",
        "extensions",
        "database",
        "schemas",
    ]
    assert [f for f in os.listdir(tmp_path) if f.endswith(".tmp")] == []


@pytest.mark.postgres
def test_introspect_to_stdout_with_profile_and_schema(pg_db):
    result = CliRunner().invoke(cli, ["introspect", "--dsn", pg_db, "--schema", "public", "--profile"])
    assert result.exit_code == 0
    text = result.stdout if hasattr(result, "stdout") else result.output
    snap = json.loads(text)
    snapshot.check(snap)
    district = snapshot.find_table(snap, "DISTRICT")
    assert district is not None and snapshot.find_column(district, "a3")["name"] == "A3"
    assert snapshot.find_column(district, "A3")["profile"]["distinct"] == 3


@pytest.mark.mariadb
def test_introspect_mariadb_snapshot_is_valid(my_db, tmp_path):
    out = tmp_path / "my.json"
    result = _run("introspect", "--dsn", my_db, "--profile", "-o", str(out))
    assert result.exit_code == 0, result.output
    snap = snapshot.load(str(out))
    assert snap["flavour"] == "mariadb"
    assert snapshot.find_table(snap, "account") is not None


def test_load_rejects_what_is_not_a_snapshot(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "snapshot_version": 1,\n  "engine": "oracle"\n}\n')
    with pytest.raises(InputError, match=r"bad\.json:\d+:\d+: not a ctxtool schema snapshot"):
        snapshot.load(str(bad))
    result = _run("validate", "--snapshot", str(bad), str(bad))
    assert result.exit_code == 2 and "not a ctxtool schema snapshot" in result.output


def _snap(tables, dialect="postgres", schema="public"):
    return snapshot.normalize(
        {
            "engine": "postgres",
            "flavour": "postgresql",
            "version": "15.20",
            "dialect": dialect,
            "extensions": ["pg_trgm"],
            "database": "db",
            "schemas": [{"name": schema, "tables": tables}],
        }
    )


def _tbl(name, *cols, **extra):
    return {
        "name": name,
        "kind": "table",
        "comment": None,
        "row_estimate": None,
        "columns": [
            {"name": c, "type": t, "nullable": True, "default": None, "comment": None} for c, t in cols
        ],
        "primary_key": [],
        "foreign_keys": [],
        "unique": [],
        "indexes": [],
        "interleave": None,
        **extra,
    }


def test_normalize_orders_everything():
    snap = _snap(
        [
            _tbl("zeta", ("b", "int"), ("a", "int"), indexes=[
                {"name": "z2", "columns": ["a"], "unique": False, "method": "btree", "opclasses": []},
                {"name": "z1", "columns": ["b"], "unique": False, "method": "btree", "opclasses": []},
            ]),
            _tbl("Alpha", ("x", "text")),
            _tbl("beta", ("y", "text")),
        ]
    )  # fmt: skip
    tables = snap["schemas"][0]["tables"]
    assert [t["name"] for t in tables] == ["Alpha", "beta", "zeta"]
    assert [c["name"] for c in tables[2]["columns"]] == ["b", "a"]  # table order kept
    assert [i["name"] for i in tables[2]["indexes"]] == ["z1", "z2"]
    snapshot.check(snap)


def test_case_insensitive_lookups_prefer_exact_and_default_schema():
    snap = snapshot.normalize(
        {
            "engine": "postgres", "flavour": "postgresql", "version": "15", "dialect": "postgres",
            "extensions": [], "database": "db",
            "schemas": [
                {"name": "public", "tables": [_tbl("Orders", ("Id", "int")), _tbl("orders", ("id", "int"))]},
                {"name": "sales", "tables": [_tbl("orders", ("sid", "int")), _tbl("only_here", ("x", "int"))]},
            ],
        }
    )  # fmt: skip
    cat = snapshot.catalog(snap)
    assert cat.table("Orders").table["columns"][0]["name"] == "Id"
    assert cat.table("orders").schema == "public" and cat.table("orders").name == "orders"
    assert cat.table("ORDERS").schema == "public"
    assert cat.table("orders", "sales").table["columns"][0]["name"] == "sid"
    assert cat.table("sales.orders").schema == "sales"
    assert cat.table("ONLY_HERE").schema == "sales"
    assert cat.table("nope") is None
    assert snapshot.find_column(cat.table("Orders").table, "ID")["name"] == "Id"


_names = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
_columns = st.lists(
    st.fixed_dictionaries(
        {
            "name": _names,
            "type": st.sampled_from(["integer", "text", "date", "numeric(12,2)", "jsonb"]),
            "nullable": st.booleans(),
            "default": st.none() | _names,
            "comment": st.none() | _names,
        }
    ),
    min_size=1,
    max_size=5,
)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_names, _columns), min_size=0, max_size=6, unique_by=lambda t: t[0]))
def test_normalize_is_idempotent_and_dumps_round_trips(tables):
    raw = {
        "engine": "postgres", "flavour": "postgresql", "version": "15", "dialect": "postgres",
        "extensions": ["vector", "pg_trgm"], "database": "db",
        "schemas": [{"name": "public", "tables": [_tbl(name) | {"columns": cols} for name, cols in tables]}],
    }  # fmt: skip
    snap = snapshot.normalize(raw)
    assert snapshot.normalize(json.loads(json.dumps(snap))) == snap
    text = snapshot.dumps(snap)
    assert json.loads(text) == snap
    assert snapshot.dumps(snapshot.normalize(json.loads(text))) == text  # byte-stable
    assert snapshot._conforms(snap) and not list(snapshot._validator().iter_errors(snap))


_MUTATIONS = [
    ("engine", "oracle"),
    ("snapshot_version", 2),
    ("extensions", ["a", "a"]),
    ("schemas", {}),
    ("schemas/0/extra", 1),
    ("schemas/0/tables/0/kind", "index"),
    ("schemas/0/tables/0/name", ""),
    ("schemas/0/tables/0/row_estimate", -1),
    ("schemas/0/tables/0/columns/0/nullable", "yes"),
    ("schemas/0/tables/0/columns/0/profile", {"distinct": 1, "null_fraction": 2, "most_common": []}),
    (
        "schemas/0/tables/0/columns/0/profile",
        {"distinct": 1, "null_fraction": 0, "most_common": [{"value": 1}]},
    ),
    (
        "schemas/0/tables/0/columns/0/profile",
        {"distinct": 3, "null_fraction": 0.5, "most_common": [], "min": 1},
    ),
    ("schemas/0/tables/0/interleave", {"parent": "x", "extra": 1}),
    ("schemas/0/tables/0/interleave", {"parent": "x", "on_delete": None}),
    ("schemas/0/tables/0/indexes", [{"name": "i", "columns": ["a"], "unique": "no", "method": "btree"}]),
    ("schemas/0/tables/0/foreign_keys", [{"columns": ["a"], "ref_table": "t", "ref_columns": [None]}]),
    ("schemas/0/tables/0/unique", [["a"], "b"]),
    ("schemas/0/tables/0/extra_field", {"anything": True}),
]


@pytest.mark.parametrize("where,value", _MUTATIONS)
def test_fast_check_agrees_with_the_json_schema(where, value):
    snap = json.loads(json.dumps(_snap([_tbl("t", ("a", "integer"))])))
    *parents, last = where.split("/")
    node = snap
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    node[last] = value
    schema_ok = not list(snapshot._validator().iter_errors(snap))
    if snapshot._conforms(snap):
        assert schema_ok  # the fast walk never accepts what the schema rejects
    if schema_ok:
        snapshot.check(snap)
    else:
        with pytest.raises(InputError, match="not a ctxtool schema snapshot"):
            snapshot.check(snap)
