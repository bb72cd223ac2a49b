"""The PostgreSQL connector's own guarantees, below any SQL check (issue 24, deliverable 2): text that
reached the server anyway runs as one statement (extended protocol), in a read-only transaction that
is rolled back, and nothing a statement leaves in its session (advisory lock, temporary table,
setting, LISTEN) reaches the next statement or the next user of a pooled connection. Each test shows
the effect did not happen on the server, with a control that the ordinary read goes through."""

from __future__ import annotations

import psycopg
import pytest

from ctxtool.connectors import connect
from ctxtool.connectors.pool import PooledConnector
from ctxtool.errors import DatabaseError
from tests.backends import _pg_create, _pg_drop, unique_name

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def pg_db(_pg15_admin):
    name = unique_name("ctx_rodb")
    dsn = _pg_create(_pg15_admin, name)
    try:
        with psycopg.connect(dsn, autocommit=True) as admin:
            admin.execute("CREATE TABLE kept (id int)")
            admin.execute("INSERT INTO kept VALUES (1), (2), (3)")
        yield dsn
    finally:
        _pg_drop(_pg15_admin, name)


@pytest.fixture
def admin(pg_db):
    with psycopg.connect(pg_db, autocommit=True) as a:
        yield a


def _exists(admin, table: str) -> bool:
    return admin.execute("SELECT to_regclass(%s) IS NOT NULL", [table]).fetchone()[0]


def test_several_statements_are_refused_by_the_protocol(pg_db, admin):
    with connect(pg_db) as c:
        for sql in (
            "SELECT 1; SELECT 2",
            "BEGIN READ WRITE; CREATE TABLE ctx_escaped (x int); COMMIT",
            "COMMIT; CREATE TABLE ctx_escaped (x int)",
        ):
            with pytest.raises(
                DatabaseError, match="cannot insert multiple commands into a prepared statement"
            ):
                c.run_read_only(sql)  # no parameters: psycopg alone would use the simple protocol
        assert not _exists(admin, "ctx_escaped")
        # control: one statement without parameters runs, and so does query()
        assert c.run_read_only("SELECT 2 AS two")[1] == [(2,)]
        assert c.query("SELECT count(*) FROM kept").rows == [(3,)]
        with pytest.raises(DatabaseError, match="read-only gate"):  # plan() passes the gate first
            c.plan("SELECT 1; CREATE TABLE ctx_escaped (x int)")
        assert not _exists(admin, "ctx_escaped")
        assert c.plan("SELECT id FROM kept")[0]["Plan"]["Node Type"] == "Seq Scan"


def test_a_write_that_reaches_the_server_is_refused_and_rolled_back(pg_db, admin):
    los = admin.execute("SELECT count(*) FROM pg_largeobject_metadata").fetchone()[0]
    with connect(pg_db) as c:
        for sql, error in (
            ("INSERT INTO kept VALUES (4)", "read-only transaction"),
            ("DELETE FROM kept", "read-only transaction"),
            ("CREATE TABLE ctx_made (x int)", "read-only transaction"),
            ("WITH d AS (DELETE FROM kept RETURNING 1) SELECT count(*) FROM d", "read-only transaction"),
        ):
            with pytest.raises(DatabaseError, match=error):
                c.run_read_only(sql)
        # what a read-only transaction lets through is rolled back: a large object, a setting
        try:
            c.run_read_only("SELECT lo_from_bytea(0, 'x'::bytea)")
        except DatabaseError as exc:  # refused outright on servers that check it
            assert "read-only" in str(exc)
        c.run_read_only("SELECT set_config('default_transaction_read_only', 'off', false)")
        c.run_read_only("SELECT set_config('statement_timeout', '0', false)")
        assert c.run_read_only("SHOW default_transaction_read_only")[1] == [("on",)]
        assert c.run_read_only("SHOW statement_timeout")[1] == [("5s",)]
        with pytest.raises(DatabaseError, match="read-only transaction"):
            c.run_read_only("INSERT INTO kept VALUES (5)")
        assert c.query("SELECT count(*) FROM kept").rows == [(3,)]  # control: reads still work
    assert admin.execute("SELECT count(*) FROM kept").fetchone()[0] == 3
    assert not _exists(admin, "ctx_made")
    assert admin.execute("SELECT count(*) FROM pg_largeobject_metadata").fetchone()[0] == los


def test_nothing_a_statement_leaves_in_its_session_outlives_it(pg_db, admin):
    with connect(pg_db) as c:
        pid = c.run_read_only("SELECT pg_backend_pid()")[1][0][0]
        c.run_read_only("SELECT pg_advisory_lock(24001)")
        try:
            c.run_read_only("SELECT pg_advisory_lock(24002), 1 / 0")  # taken, then the statement fails
        except DatabaseError as exc:
            assert "division by zero" in str(exc)
        held = admin.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = %s", [pid]
        ).fetchone()[0]
        assert held == 0
        try:
            c.run_read_only("CREATE TEMP TABLE ctx_tmp AS SELECT 1 AS x")
        except DatabaseError as exc:
            assert "read-only" in str(exc)
        assert c.query("SELECT to_regclass('pg_temp.ctx_tmp') IS NULL").rows == [(True,)]
        # control: the same session, still usable
        assert c.run_read_only("SELECT pg_backend_pid()")[1][0][0] == pid


def test_a_pooled_connection_comes_back_reset(pg_db, admin):
    pooled = PooledConnector(pg_db, size=1, statement_timeout=3)
    try:
        with pooled.session() as c:
            pid = c.run_read_only("SELECT pg_backend_pid()")[1][0][0]
            # state left on the session by whatever ran on it (here straight through the driver)
            c.conn.autocommit = True
            for sql in (
                "SET default_transaction_read_only = off",
                "SELECT pg_advisory_lock(24003)",
                "CREATE TEMP TABLE ctx_left (x int)",
                "SET statement_timeout = 0",
                "LISTEN ctx_channel",
            ):
                c.conn.execute(sql)
            c.conn.autocommit = False
        with pooled.session() as c:  # the one connection, back from its reset
            assert c.run_read_only("SELECT pg_backend_pid()")[1][0][0] == pid  # control: not a new one
            assert c.query("SELECT to_regclass('pg_temp.ctx_left') IS NULL").rows == [(True,)]
            assert c.run_read_only("SHOW statement_timeout")[1] == [("3s",)]
            assert c.run_read_only("SHOW default_transaction_read_only")[1] == [("on",)]
            assert c.run_read_only("SELECT count(*) FROM pg_listening_channels()")[1] == [(0,)]
            held = admin.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = %s", [pid]
            ).fetchone()[0]
            assert held == 0
            assert c.query("SELECT count(*) FROM kept").rows == [(3,)]
    finally:
        pooled.close()
