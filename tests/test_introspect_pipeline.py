"""PostgreSQL introspection sends its catalog queries as one pipelined batch: one round trip,
the same snapshot whatever plan the server picks (column rows need not arrive sorted), and a
failing batch leaves a usable read-only session behind. The catalog-only libpq session that
`ctxtool introspect` uses (no psycopg) gives the same snapshot and the same errors."""

from __future__ import annotations

import json

import pytest

from ctxtool import snapshot
from ctxtool.connectors import connect, libpq, open_catalog, parse
from ctxtool.connectors.pgcatalog import PostgresCatalog
from ctxtool.errors import DatabaseError
from tests.backends import _pg_create, _pg_drop, unique_name
from tests.pgtrace import wire_round_trips

pytestmark = pytest.mark.postgres

_DDL = [
    "CREATE EXTENSION IF NOT EXISTS pg_stat_statements",  # its views are extension-owned: left out
    "CREATE SCHEMA other",
    "CREATE TABLE other.ref (a int, b int, dropped text, PRIMARY KEY (b, a))",
    "ALTER TABLE other.ref DROP COLUMN dropped",
    "CREATE TABLE parent (id int PRIMARY KEY, label text)",
    "CREATE TABLE child (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, parent_id int REFERENCES parent,"
    " a int, b int, t text DEFAULT 'x', g int GENERATED ALWAYS AS (a * 2) STORED, UNIQUE (a, b),"
    " FOREIGN KEY (b, a) REFERENCES other.ref (b, a) ON DELETE CASCADE)",
    "ALTER TABLE parent ADD COLUMN added_later date",  # stored after child's columns in pg_attribute
    # fill pg_attribute's pages, then update parent.id's row: its new version cannot stay on its
    # (full) page and lands after the others, so a plain scan meets parent's columns out of order
    *[f"CREATE TABLE filler_{i} ({', '.join(f'c{j} int' for j in range(20))})" for i in range(30)],
    "ALTER TABLE parent ALTER COLUMN id SET STATISTICS 200",
    "CREATE INDEX child_expr ON child (lower(t), a) INCLUDE (b) WHERE a > 0",
    "CREATE VIEW child_view AS SELECT id, t FROM child",
    "COMMENT ON COLUMN parent.label IS 'the label'",
    # what else a snapshot records: enum labels, a domain's base type, views of both kinds,
    # partitions (their parent only), comments with quotes and non-ASCII text, a schema whose
    # name needs quoting in an array literal
    "CREATE TYPE mood AS ENUM ('sad', 'ok, fine', 'très \"happy\"')",
    "CREATE DOMAIN posint AS integer CHECK (VALUE > 0)",
    "CREATE TABLE feelings (id posint PRIMARY KEY, m mood NOT NULL, at timestamptz DEFAULT now())",
    "COMMENT ON TABLE feelings IS 'how it''s going: ça va'",
    "CREATE MATERIALIZED VIEW mood_counts AS SELECT m, count(*) AS n FROM feelings GROUP BY m",
    "CREATE TABLE events (id int, day date NOT NULL) PARTITION BY RANGE (day)",
    "CREATE TABLE events_2024 PARTITION OF events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
    'CREATE SCHEMA "odd, \\ ""name"""',
    'CREATE TABLE "odd, \\ ""name""".t (x int UNIQUE)',
]


@pytest.fixture(scope="module")
def pg_db(_pg15_admin):
    import psycopg

    name = unique_name("ctx_pipe")
    dsn = _pg_create(_pg15_admin, name)
    try:
        with psycopg.connect(dsn, autocommit=True) as raw:
            for statement in _DDL:
                raw.execute(statement)
        yield dsn
    finally:
        _pg_drop(_pg15_admin, name)


def test_introspection_is_one_round_trip(pg_db):
    with connect(pg_db) as c:
        before = c.round_trips
        snaps = []
        wire = wire_round_trips(c, lambda: snaps.append(c.introspect()))
        assert wire == c.round_trips - before == 1
        assert c.query("SELECT 1").rows == [(1,)]  # the session is idle and usable afterwards
    tables = {t["name"] for s in snaps[0]["schemas"] for t in s["tables"]}
    assert {"parent", "child", "child_view", "ref"} <= tables
    assert not any(name.startswith("pg_stat_statements") for name in tables)


def test_same_snapshot_when_column_rows_come_unsorted(pg_db):
    with connect(pg_db) as c:
        expected = snapshot.dumps(snapshot.build(c))
    with connect(pg_db) as c:
        # plans without index scans return pg_attribute rows in heap order, not grouped by table
        c.conn.autocommit = True
        c.conn.execute("SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_mergejoin = off")
        heap_order = [
            n
            for (n,) in c.conn.execute(
                "SELECT attnum FROM pg_attribute WHERE attrelid = 'parent'::regclass AND attnum > 0"
            )
        ]
        assert heap_order != sorted(heap_order)  # so the rows do arrive out of order
        c.conn.autocommit = False
        got = snapshot.build(c)
    assert snapshot.dumps(got) == expected
    parent = next(t for s in got["schemas"] for t in s["tables"] if t["name"] == "parent")
    assert [col["name"] for col in parent["columns"]] == ["id", "label", "added_later"]
    child = next(t for s in got["schemas"] for t in s["tables"] if t["name"] == "child")
    fk = next(f for f in child["foreign_keys"] if f["ref_table"] == "ref")
    assert (fk["ref_schema"], fk["columns"], fk["ref_columns"]) == ("other", ["b", "a"], ["b", "a"])
    assert [c["name"] for c in child["columns"]] == ["id", "parent_id", "a", "b", "t", "g"]


def test_a_failed_batch_leaves_a_read_only_session(pg_db):
    with connect(pg_db, statement_timeout=0.001) as c:
        c.conn.autocommit = True
        c.conn.execute("SET statement_timeout = 1")  # 1 ms: some catalog query is cancelled
        c.conn.autocommit = False
        with pytest.raises(DatabaseError, match="reading the catalog failed"):
            for _ in range(20):  # a fast server may finish the batch in time now and then
                c.introspect()
        assert c.conn.autocommit is False
        c.conn.autocommit = True
        c.conn.execute("SET statement_timeout = 5000")
        c.conn.autocommit = False
        assert c.query("SELECT count(*) FROM parent").rows == [(0,)]
        with pytest.raises(DatabaseError, match="read-only"):
            c.query("CREATE TABLE ctx_not_allowed (i int)")


@pytest.mark.skipif(libpq.library() is None, reason="no libpq 14+ to load")
@pytest.mark.parametrize(
    "schemas", [None, ["public"], ['odd, \\ "name"', "other"]], ids=["all", "public", "quoted"]
)
def test_the_libpq_session_gives_the_same_snapshot(pg_db, schemas):
    """`ctxtool introspect`'s catalog-only session (libpq, no psycopg) and the psycopg connector read
    the same snapshot: every table, column, key, index, comment and enum label, the schema filter
    bound as a parameter (a name with a comma, a backslash and quotes)."""
    with connect(pg_db) as c:
        expected = snapshot.dumps(snapshot.build(c, schemas))
    with open_catalog(pg_db) as session:
        assert isinstance(session, PostgresCatalog)
        got = snapshot.dumps(snapshot.build(session, schemas))
    assert got == expected
    data = json.loads(got)
    names = {t["name"] for s in data["schemas"] for t in s["tables"]}
    if schemas is None:
        assert {"feelings", "mood_counts", "events", "t", "ref"} <= names and "events_2024" not in names
    elif schemas == ["public"]:
        assert "feelings" in names and "t" not in names
    else:
        assert names == {"t", "ref"}


@pytest.mark.skipif(libpq.library() is None, reason="no libpq 14+ to load")
def test_the_libpq_session_fails_as_the_psycopg_one(pg_db):
    """A wrong database, a dead port and a statement timeout read as the psycopg session's errors."""
    for dsn in (pg_db + "_missing", "postgresql://postgres:s3cret@127.0.0.1:1/x"):
        with pytest.raises(DatabaseError) as ours:
            PostgresCatalog(parse(dsn)).close()
        with pytest.raises(DatabaseError) as theirs:
            connect(dsn).close()
        assert str(ours.value) == str(theirs.value)
        assert "s3cret" not in str(ours.value)
    with open_catalog(pg_db, statement_timeout=0.001) as session:
        with pytest.raises(DatabaseError, match="reading the catalog failed: .*statement timeout"):
            for _ in range(20):  # a fast server may finish the batch in time now and then
                session.introspect()
    with open_catalog(pg_db) as session:  # control: the same session type reads it in time
        assert session.introspect()["schemas"]


@pytest.mark.skipif(libpq.library() is None, reason="no libpq 14+ to load")
@pytest.mark.parametrize(
    "text",
    [
        "postgresql://u:p%40ss@h1:5433,h2/db?sslmode=require&application_name=x",
        "host=/tmp port=5432 dbname='my db' options='-c search_path=a'",
        "",
    ],
)
def test_conninfo_is_read_as_psycopg_reads_it(text):
    import psycopg.conninfo

    theirs = {k: str(v) for k, v in psycopg.conninfo.conninfo_to_dict(text).items() if v is not None}
    assert libpq.parse_conninfo(text) == theirs


@pytest.mark.skipif(libpq.library() is None, reason="no libpq 14+ to load")
def test_a_bad_conninfo_is_libpqs_message():
    import psycopg

    with pytest.raises(libpq.LibpqError) as ours:
        libpq.parse_conninfo("host=a nonsense")
    with pytest.raises(psycopg.ProgrammingError) as theirs:
        psycopg.conninfo.conninfo_to_dict("host=a nonsense")
    assert str(ours.value) == str(theirs.value)
