"""The Spanner connector on the emulator, GoogleSQL and PostgreSQL dialect: dialect detection,
read-only snapshots, ?/$value -> @p1/@value binding, the query planner, interleaving, TOKENLIST
search indexes, and introspection with a fixed number of queries."""

from __future__ import annotations

import pytest

from ctxtool.connectors import connect
from ctxtool.errors import DatabaseError
from tests.backends import unique_name
from tests.connector_schemas import SPANNER_DDL, SPANNER_PG_DDL, load_spanner

pytestmark = pytest.mark.spanner


def _database(instance_id: str, dialect: str, ddl: list[str]):
    from ctxtool import spanner_emulator

    client = spanner_emulator.client()
    name = unique_name("ctx_consp")
    database = spanner_emulator.create_database(client, instance_id, name, dialect=dialect, ddl=ddl)
    load_spanner(database, pg=dialect == "postgresql")
    return client, name, spanner_emulator.dsn(instance_id, name)


@pytest.fixture(scope="module")
def sp_db(spanner_emulator_host, spanner_instance):
    from ctxtool import spanner_emulator

    client, name, dsn = _database(spanner_instance, "googlesql", SPANNER_DDL)
    yield dsn
    spanner_emulator.drop_database(client, spanner_instance, name)


@pytest.fixture(scope="module")
def sp_pg_db(spanner_emulator_host, spanner_instance):
    from ctxtool import spanner_emulator

    client, name, dsn = _database(spanner_instance, "postgresql", SPANNER_PG_DDL)
    yield dsn
    spanner_emulator.drop_database(client, spanner_instance, name)


def _table(snap, name):
    return next(t for s in snap["schemas"] for t in s["tables"] if t["name"] == name)


def test_googlesql_detected_and_queried(sp_db):
    with connect(sp_db, row_cap=25) as c:
        info = c.info()
        assert (info.engine, info.flavour, info.dialect) == ("spanner", "spanner-googlesql", "spanner")
        rows = c.query(
            "SELECT A2 FROM district WHERE A3 = ? AND A11 > ? ORDER BY A2", ["south Moravia", 8600]
        ).rows
        assert rows == [("Brno - mesto",), ("Brno - venkov",)]
        assert c.query("SELECT A2 FROM district WHERE A2 = $value", {"value": "Znojmo"}).rows == [("Znojmo",)]
        capped = c.query("SELECT account_id FROM account ORDER BY account_id")
        assert len(capped.rows) == 25 and capped.truncated
        assert capped.column_types == ["INT64"]


def test_snapshot_is_read_only(sp_db):
    """The connector runs every statement in a read-only snapshot and has no SQL check of its own:
    whatever reaches the emulator, a write is refused there and one statement runs per call."""
    with connect(sp_db) as c:
        for sql, refusal in (
            ("DELETE FROM loan WHERE TRUE", "DML statements may not be performed"),
            ("INSERT INTO district (district_id, A2) VALUES (999, 'x') THEN RETURN district_id", "DML"),
            ("UPDATE district SET A11 = 0 WHERE TRUE", "DML statements may not be performed"),
            ("SELECT 1; DELETE FROM loan WHERE TRUE", "Syntax error"),
            ("CREATE TABLE ctx_made (x INT64) PRIMARY KEY (x)", "not supported"),
        ):
            with pytest.raises(DatabaseError, match=refusal):
                c.query(sql)
    with connect(sp_db) as c:  # control: the ordinary read, and nothing changed
        assert c.query("SELECT COUNT(*) FROM loan").rows == [(20,)]
        assert c.query("SELECT COUNT(*) FROM district WHERE district_id = 999 OR A11 = 0").rows == [(0,)]
        names = c.query("SELECT table_name FROM information_schema.tables WHERE table_name = 'ctx_made'")
        assert names.rows == []


def test_plan_reports_server_errors(sp_db):
    with connect(sp_db) as c:
        plan = c.plan("SELECT account_id FROM account WHERE district_id = ? AND frequency = $value")
        assert [col["name"] for col in plan["columns"]] == ["account_id"]
        with pytest.raises(DatabaseError, match="Unrecognized name: nosuch"):
            c.plan("SELECT nosuch FROM district")


def test_search_ngrams_value_search(sp_db):
    with connect(sp_db) as c:
        rows = c.query(
            "SELECT DISTINCT frequency FROM account WHERE SEARCH_NGRAMS(frequency_tokens, $value)",
            {"value": "TYDNE"},
        ).rows
        assert ("POPLATEK TYDNE",) in rows and ("POPLATEK PO OBRATU",) not in rows


def test_introspect_googlesql(sp_db):
    with connect(sp_db) as c:
        snap = c.introspect()
    assert [s["name"] for s in snap["schemas"]] == [""]
    account = _table(snap, "account")
    assert account["interleave"] == {"parent": "district", "on_delete": "cascade"}
    assert account["primary_key"] == ["district_id", "account_id"]
    tokens = {col["name"]: col for col in account["columns"]}["frequency_tokens"]
    assert tokens["type"] == "TOKENLIST" and tokens["generated"] == "TOKENIZE_NGRAMS(frequency)"
    search = next(i for i in account["indexes"] if i["name"] == "account_freq_search")
    assert (search["method"], search["columns"]) == ("search", ["frequency_tokens"])
    loan = _table(snap, "loan")
    (fk,) = loan["foreign_keys"]
    assert (fk["columns"], fk["ref_table"], fk["ref_columns"]) == (
        ["district_id", "account_id"], "account", ["district_id", "account_id"],
    )  # fmt: skip
    by_account = next(i for i in loan["indexes"] if i["name"] == "loan_by_account")
    assert by_account["unique"] and by_account["storing"] == ["amount"]
    assert ["account_id", "loan_id"] in loan["unique"]
    # the index Spanner made for the foreign key is left out (generated name)
    assert all(not i["name"].startswith("IDX_") for i in loan["indexes"])
    assert _table(snap, "prague_accounts")["kind"] == "view"
    district = _table(snap, "district")
    assert {c["name"]: c["type"] for c in district["columns"]} == {
        "district_id": "INT64", "A2": "STRING(MAX)", "A3": "STRING(100)", "A11": "INT64",
    }  # fmt: skip


def test_profile_googlesql(sp_db):
    with connect(sp_db) as c:
        snap = c.introspect(profile=True)
    a3 = {col["name"]: col for col in _table(snap, "district")["columns"]}["A3"]["profile"]
    assert a3["most_common"][0] == {"value": "south Moravia", "frequency": 0.6}
    account = {col["name"]: col for col in _table(snap, "account")["columns"]}
    assert "profile" not in account["frequency_tokens"]
    assert account["date"]["profile"]["min"] == "1995-01-08"


def test_round_trips_constant(sp_db):
    with connect(sp_db) as c:
        before = c.round_trips
        c.introspect()
        assert c.round_trips - before == 7


def test_postgresql_dialect(sp_pg_db):
    with connect(sp_pg_db) as c:
        info = c.info()
        assert (info.flavour, info.dialect) == ("spanner-postgresql", "postgres")
        rows = c.query('SELECT "A2" FROM district WHERE "A3" = $1 ORDER BY "A2"', ["south Moravia"]).rows
        assert rows == [("Brno - mesto",), ("Brno - venkov",), ("Znojmo",)]
        assert c.query('SELECT "A2" FROM district WHERE "A2" = $value', {"value": "Znojmo"}).rows == [
            ("Znojmo",)
        ]
        snap = c.introspect()
        with pytest.raises(DatabaseError):
            c.plan("SELECT nosuch FROM district")
    assert [s["name"] for s in snap["schemas"]] == ["public"]
    account = _table(snap, "account")
    assert account["interleave"] == {"parent": "district", "on_delete": "cascade"}
    cols = {col["name"]: col["type"] for col in _table(snap, "district")["columns"]}
    assert cols == {
        "district_id": "bigint",
        "A2": "character varying",
        "A3": "character varying(100)",
        "A11": "bigint",
    }


def test_missing_database_is_a_database_error(spanner_emulator_host, spanner_instance):
    with pytest.raises(DatabaseError, match="does not exist"):
        connect(f"spanner://projects/test-project/instances/{spanner_instance}/databases/ctx_nope_db")
