"""``ctxtool schema-diff``: added, dropped and changed objects between two snapshots; exit 1 with
``--context`` when something a context set references was dropped or changed."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ctxtool import snapshot
from ctxtool.cli import cli
from tests.backends import _pg_create, _pg_drop, unique_name
from tests.connector_schemas import load_pg
from tests.test_introspect import _snap, _tbl


def _old():
    return _snap(
        [
            _tbl("district", ("district_id", "integer"), ("A2", "text"), ("A3", "text"), primary_key=["district_id"]),
            _tbl(
                "account", ("account_id", "integer"), ("district_id", "integer"), ("frequency", "text"),
                foreign_keys=[{"name": "account_district_fk", "columns": ["district_id"], "ref_schema": "public",
                               "ref_table": "district", "ref_columns": ["district_id"]}],
                indexes=[{"name": "account_freq", "columns": ["frequency"], "unique": False, "method": "btree",
                          "opclasses": []}],
            ),
            _tbl("legacy", ("x", "int")),
        ]
    )  # fmt: skip


def _new():
    snap = json.loads(json.dumps(_old()))
    tables = {t["name"]: t for t in snap["schemas"][0]["tables"]}
    tables["district"]["columns"] = [c for c in tables["district"]["columns"] if c["name"] != "A2"]
    tables["account"]["columns"][2]["type"] = "varchar(20)"
    tables["account"]["columns"].append(
        {"name": "opened", "type": "date", "nullable": True, "default": None, "comment": None}
    )
    tables["account"]["indexes"][0]["method"] = "gin"
    tables["account"]["indexes"][0]["opclasses"] = ["gin_trgm_ops"]
    snap["schemas"][0]["tables"] = [t for t in snap["schemas"][0]["tables"] if t["name"] != "legacy"]
    snap["schemas"][0]["tables"].append(_tbl("card", ("card_id", "int")))
    return snapshot.normalize(snap)


def test_diff_lists_added_dropped_changed():
    changes = snapshot.diff(_old(), _new())
    got = {(c.action, c.kind, c.name) for c in changes}
    assert ("dropped", "column", "public.district.A2") in got
    assert ("changed", "column", "public.account.frequency") in got
    assert ("added", "column", "public.account.opened") in got
    assert ("changed", "index", "public.account.account_freq") in got
    assert ("dropped", "table", "public.legacy") in got
    assert ("added", "table", "public.card") in got
    breaking = {c.name for c in changes if c.breaking}
    assert breaking == {"public.district.A2", "public.account.frequency", "public.legacy"}
    assert snapshot.diff(_old(), _old()) == []


def _write(tmp_path, name, data):
    path = tmp_path / name
    snapshot.save(str(path), data)
    return str(path)


CONTEXT = {
    "templates": [
        {
            "nl_query": "Districts of a region",
            "sql": 'SELECT d."A2" FROM district d WHERE d."A3" = \'Prague\'',
            "intent": "Districts of a region",
        },
        {
            "nl_query": "Accounts",
            "sql": "SELECT a.account_id FROM account AS a",
            "intent": "Accounts",
        },
    ]
}


def test_cli_exit_1_only_when_the_context_is_hit(tmp_path):
    old, new = _write(tmp_path, "old.json", _old()), _write(tmp_path, "new.json", _new())
    ctx = tmp_path / "ctx.json"
    ctx.write_text(json.dumps(CONTEXT, indent=2))
    plain = CliRunner().invoke(cli, ["schema-diff", old, new])
    assert plain.exit_code == 0, plain.output
    assert "- column public.district.A2" in plain.output
    hit = CliRunner().invoke(cli, ["schema-diff", old, new, "--context", str(ctx)])
    assert hit.exit_code == 1
    assert "used by" in hit.output and "template 1" in hit.output
    as_json = CliRunner().invoke(cli, ["schema-diff", old, new, "--context", str(ctx), "--format", "json"])
    data = json.loads(as_json.stdout)
    assert data["breaking_for_context"] == 1
    a2 = next(c for c in data["changes"] if c["name"] == "public.district.A2")
    assert a2["breaking"] and a2["affects"]
    # a context that only reads account.account_id is not broken by these changes
    safe = tmp_path / "safe.json"
    safe.write_text(json.dumps({"templates": [CONTEXT["templates"][1]]}))
    assert CliRunner().invoke(cli, ["schema-diff", old, new, "--context", str(safe)]).exit_code == 0


@pytest.mark.postgres
def test_diff_of_two_live_snapshots(_pg15_admin, tmp_path):
    import psycopg

    from ctxtool.connectors import connect

    name = unique_name("ctx_diffpg")
    dsn = _pg_create(_pg15_admin, name)
    try:
        load_pg(dsn)
        with connect(dsn) as c:
            before = snapshot.build(c)
        with psycopg.connect(dsn, autocommit=True) as raw:
            raw.execute("DROP VIEW prague_accounts")
            raw.execute('ALTER TABLE district DROP COLUMN "A11"')
            raw.execute("CREATE INDEX loan_status ON loan (status)")
        with connect(dsn) as c:
            after = snapshot.build(c)
    finally:
        _pg_drop(_pg15_admin, name)
    got = {(c.action, c.kind, c.name) for c in snapshot.diff(before, after)}
    assert got == {
        ("dropped", "table", "public.prague_accounts"),
        ("dropped", "column", "public.district.A11"),
        ("added", "index", "public.loan.loan_status"),
    }
