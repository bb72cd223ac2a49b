"""The PostgreSQL connector on PostgreSQL 15 and the embedded PostgreSQL 18 (pgvector): read-only
sessions, timeouts, row caps, $n binding, plans, samples, and introspection with a fixed number of
catalog queries."""

from __future__ import annotations

import pytest

from ctxtool.connectors import connect
from ctxtool.connectors.pgcatalog import ALLOYDB_EXTENSIONS, flavour_from_extensions
from ctxtool.errors import DatabaseError, InputError
from tests.backends import _pg_create, _pg_drop, unique_name
from tests.connector_schemas import DISTRICTS, load_pg
from tests.pgtrace import wire_round_trips

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def pg_db(_pg15_admin):
    name = unique_name("ctx_conpg")
    dsn = _pg_create(_pg15_admin, name)
    try:
        load_pg(dsn)
        yield dsn
    finally:
        _pg_drop(_pg15_admin, name)


@pytest.fixture
def conn(pg_db):
    with connect(pg_db, statement_timeout=2, row_cap=25) as c:
        yield c


def _table(snap, name):
    return next(t for s in snap["schemas"] for t in s["tables"] if t["name"] == name)


def test_info(conn):
    info = conn.info()
    assert (info.engine, info.flavour, info.dialect) == ("postgres", "postgresql", "postgres")
    assert info.version.startswith("15.")
    assert "pg_trgm" in info.extensions


def test_alloydb_detected_from_extensions():
    assert flavour_from_extensions(["plpgsql"], []) == "postgresql"
    for ext in ALLOYDB_EXTENSIONS:
        assert flavour_from_extensions(["plpgsql", ext], []) == "alloydb"
    assert flavour_from_extensions([], ["google_ml_integration"]) == "alloydb"


def test_numbered_and_named_parameters_are_bound(conn):
    result = conn.query(
        'SELECT "A2" FROM district WHERE "A3" = $1 AND "A11" > $2 ORDER BY 1', ["south Moravia", 8600]
    )
    assert result.rows == [("Brno - mesto",), ("Brno - venkov",)]
    assert result.columns == ["A2"]
    named = conn.query('SELECT "A2" FROM district WHERE "A2" = $value', {"value": "Znojmo"})
    assert named.rows == [("Znojmo",)]
    injected = conn.query('SELECT count(*) FROM district WHERE "A2" = $1', ["x' OR '1'='1"])
    assert injected.rows == [(0,)]
    with pytest.raises(InputError, match="placeholders do not match"):
        conn.query('SELECT "A2" FROM district WHERE "A3" = $2', ["only one"])
    with pytest.raises(InputError, match="placeholders do not match"):
        conn.query('SELECT "A2" FROM district WHERE "A2" = $value', ["not a mapping"])


def test_row_cap_truncates(conn):
    result = conn.query("SELECT account_id FROM account ORDER BY account_id")
    assert len(result.rows) == 25 and result.truncated
    small = conn.query("SELECT account_id FROM account ORDER BY account_id", max_rows=100)
    assert len(small.rows) == 60 and not small.truncated


def test_writes_are_refused(conn, pg_db):
    for sql in ("DELETE FROM account", "CREATE TABLE ctx_nope (a int)", 'UPDATE district SET "A11" = 0'):
        with pytest.raises(DatabaseError, match="read-only"):
            conn.query(sql)
    assert conn.query("SELECT count(*) FROM account").rows == [(60,)]


def test_statement_timeout(pg_db):
    with connect(pg_db, statement_timeout=0.3) as quick:
        with pytest.raises(DatabaseError, match="statement timeout"):
            quick.query("SELECT pg_sleep(5)")
        assert quick.query("SELECT 1").rows == [(1,)]  # the session survives


def test_plan_with_and_without_values(conn):
    plan = conn.plan("SELECT * FROM account WHERE district_id = $1 AND frequency = $value")
    assert plan[0]["Plan"]["Node Type"]
    assert "account" in str(plan)
    bound = conn.plan("SELECT * FROM account WHERE district_id = $1", [3])
    assert "account" in str(bound)
    with pytest.raises(DatabaseError, match='relation "nope" does not exist'):
        conn.plan("SELECT * FROM nope")


def test_sample_column_most_common_first(conn):
    values = conn.sample_column("district", "A3", 10)
    assert values[0] == "south Moravia"
    assert set(values) == {d[2] for d in DISTRICTS}


def test_introspect_structure(conn):
    snap = conn.introspect()
    district = _table(snap, "district")
    assert district["comment"] == "Czech districts"
    assert [c["name"] for c in district["columns"]] == ["district_id", "A2", "A3", "A11"]
    a3 = district["columns"][2]
    assert (a3["type"], a3["nullable"], a3["comment"]) == ("text", True, "region")
    assert district["primary_key"] == ["district_id"]
    account = _table(snap, "account")
    assert account["columns"][2]["default"] == "'POPLATEK MESICNE'::text"
    (fk,) = account["foreign_keys"]
    assert (fk["columns"], fk["ref_table"], fk["ref_columns"], fk["on_delete"]) == (
        ["district_id"], "district", ["district_id"], "cascade",
    )  # fmt: skip
    assert account["unique"] == [["frequency", "account_id"]]
    trgm = next(i for i in account["indexes"] if i["name"] == "account_freq_trgm")
    assert (trgm["method"], trgm["opclasses"], trgm["columns"]) == ("gin", ["gin_trgm_ops"], ["frequency"])
    view = _table(snap, "prague_accounts")
    assert view["kind"] == "view" and [c["name"] for c in view["columns"]] == ["account_id", "date"]
    assert snap["database"] and snap["schemas"][0]["name"] == "public"


def test_introspect_schema_filter(conn):
    assert conn.introspect(["no_such_schema"])["schemas"] == []
    assert [s["name"] for s in conn.introspect(["public"])["schemas"]] == ["public"]


def test_profile_from_pg_stats_and_sample_fallback(conn):
    snap = conn.introspect(profile=True)
    a3 = _table(snap, "district")["columns"][2]["profile"]
    assert a3["distinct"] == 3
    assert a3["most_common"][0] == {"value": "south Moravia", "frequency": 0.6}
    account = {c["name"]: c["profile"] for c in _table(snap, "account")["columns"]}
    assert account["date"]["min"] == "1995-01-08" and account["date"]["max"] == "1996-02-25"
    assert account["account_id"]["min"] == 1 and account["account_id"]["max"] == 60
    assert account["account_id"]["null_fraction"] == 0.0
    # loan was never analyzed: its profile comes from a bounded sample
    loan = {c["name"]: c["profile"] for c in _table(snap, "loan")["columns"]}
    assert loan["status"]["distinct"] == 2
    assert loan["amount"]["min"] == 1000 and loan["amount"]["max"] == 20000
    assert "profile" not in _table(snap, "prague_accounts")["columns"][0]


def test_catalog_round_trips_do_not_depend_on_table_count(pg_db):
    import psycopg

    counts = []
    for extra in (0, 30):
        with psycopg.connect(pg_db, autocommit=True) as raw:
            for i in range(extra):
                raw.execute(
                    f"CREATE TABLE IF NOT EXISTS ctx_many_{i} (id int PRIMARY KEY, ref int REFERENCES district)"
                )
        with connect(pg_db) as c:
            before = c.round_trips
            snaps = []
            wire = wire_round_trips(c, lambda c=c, snaps=snaps: snaps.append(c.introspect()))
            counts.append((c.round_trips - before, wire))
            assert sum(len(s["tables"]) for s in snaps[0]["schemas"]) >= 4 + extra
    with psycopg.connect(pg_db, autocommit=True) as raw:
        for i in range(30):
            raw.execute(f"DROP TABLE ctx_many_{i}")
    assert counts[0] == counts[1]
    counted, wire = counts[0]
    assert counted == wire <= 12  # the connector's own count is the wire's


@pytest.mark.pg18
def test_pg18_pgvector_hnsw_and_trgm(pg18_dsn):
    import psycopg

    with psycopg.connect(pg18_dsn, autocommit=True) as raw:
        raw.execute("CREATE TABLE ctx_docs (id int PRIMARY KEY, body text, embedding vector(3))")
        raw.execute("CREATE INDEX ctx_docs_hnsw ON ctx_docs USING hnsw (embedding vector_cosine_ops)")
        raw.execute("CREATE INDEX ctx_docs_trgm ON ctx_docs USING gist (body gist_trgm_ops)")
        raw.execute("INSERT INTO ctx_docs VALUES (1, 'a', '[1,0,0]'), (2, 'b', '[0,1,0]')")
    try:
        with connect(pg18_dsn) as c:
            info = c.info()
            assert info.version.startswith("18") and {"vector", "pg_trgm"} <= set(info.extensions)
            docs = _table(c.introspect(), "ctx_docs")
            assert docs["columns"][2]["type"] == "vector(3)"
            methods = {i["name"]: (i["method"], i["opclasses"]) for i in docs["indexes"]}
            assert methods["ctx_docs_hnsw"] == ("hnsw", ["vector_cosine_ops"])
            assert methods["ctx_docs_trgm"] == ("gist", ["gist_trgm_ops"])
            # PostgreSQL 16+: generic plans of $n queries
            plan = c.plan("SELECT id FROM ctx_docs ORDER BY embedding <=> $1::vector LIMIT $2")
            assert "ctx_docs" in str(plan)
            near = c.query(
                "SELECT id FROM ctx_docs ORDER BY embedding <=> $1::vector LIMIT 1", ["[0.9,0.1,0]"]
            )
            assert near.rows == [(1,)]
    finally:
        with psycopg.connect(pg18_dsn, autocommit=True) as raw:
            raw.execute("DROP TABLE ctx_docs")


def test_generic_plan_errors_are_the_servers_own(conn):
    # PostgreSQL 15 plans $n queries through PREPARE + EXPLAIN EXECUTE: a failure must report the
    # real cause, and leave no prepared statement or aborted transaction behind
    with pytest.raises(DatabaseError, match='column "nope" does not exist'):
        conn.plan("SELECT nope FROM account WHERE district_id = $1")
    with pytest.raises(DatabaseError, match="operator does not exist: date > integer"):
        conn.plan("SELECT account_id FROM account WHERE date > 5 AND district_id = $1")
    assert conn.query("SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'ctxtool%'").rows == [(0,)]
    assert "account" in str(conn.plan("SELECT account_id FROM account WHERE frequency = $1"))


def test_a_query_is_one_round_trip_and_stays_read_only(conn):
    """An ordinary query costs one round trip on the wire (BEGIN READ ONLY, the statement and
    ROLLBACK travel together)."""
    conn.query("SELECT 1")  # warm up type caches
    assert wire_round_trips(conn, lambda: conn.query("SELECT $1::int AS x", [5])) == 1
    capped = conn.query("SELECT g FROM generate_series(1, 100000) AS g", max_rows=3)
    assert capped.rows == [(1,), (2,), (3,)] and capped.truncated
    assert conn.query("SELECT 2 AS y").rows == [(2,)]  # the cancelled stream left the session usable


def test_switching_read_only_off_does_not_outlive_the_statement(pg_db):
    """The gate refuses set_config; behind it (catalog_query skips the function allow-list) a
    statement that turns the session's read-only default off is rolled back with it."""
    sql = "SELECT set_config('default_transaction_read_only', 'off', false)"
    with connect(pg_db) as c:
        with pytest.raises(DatabaseError, match="set_config"):  # the gate refuses it first
            c.query(sql)
        c.catalog_query(sql)
        assert c.query("SELECT current_setting('default_transaction_read_only')").rows == [("on",)]
        with pytest.raises(DatabaseError, match="read-only transaction"):
            c.run_read_only("CREATE TABLE ctx_after_switch (a int)")
        assert not c.conn.closed and c.query("SELECT 1").rows == [(1,)]
