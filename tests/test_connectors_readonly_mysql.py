"""The MySQL connector's own guarantees on MariaDB, below any SQL check (issue 24, deliverable 2): the
server reads one statement per call (multi-statements off), a write that reaches it is refused inside
the read-only transaction, and a pooled session comes back reset (named lock, user variable,
temporary table, settings). Each test shows the effect did not happen, with a control that the
ordinary read goes through."""

from __future__ import annotations

import pytest

from ctxtool.connectors import connect
from ctxtool.connectors.pool import PooledConnector
from ctxtool.errors import DatabaseError
from tests.backends import _mysql_connect, _mysql_create, _mysql_drop, unique_name

pytestmark = pytest.mark.mariadb


@pytest.fixture(scope="module")
def my_db(_mariadb_available):
    name = unique_name("ctx_romy")
    dsn = _mysql_create(name)
    conn = _mysql_connect(name)
    try:
        cur = conn.cursor()
        cur.execute("CREATE TABLE kept (id INT)")
        cur.execute("INSERT INTO kept VALUES (1), (2), (3)")
        conn.commit()
        conn.close()
        yield name, dsn
    finally:
        _mysql_drop(name)


def _admin_scalar(name: str, sql: str):
    conn = _mysql_connect(name)
    try:
        cur = conn.cursor()
        cur.execute(sql)
        return cur.fetchall()[0][0]
    finally:
        conn.close()


def test_the_server_reads_one_statement_per_call(my_db):
    name, dsn = my_db
    with connect(dsn) as c:
        raw = c.conn.cursor()  # even the driver's plain text path: the session has no multi-statements
        with pytest.raises(Exception, match="SQL syntax"):
            raw.execute("SELECT 1; CREATE TABLE ctx_escaped (x INT)")
        raw.close()
        with pytest.raises(DatabaseError, match="SQL syntax"):
            c.run_read_only("SELECT 1; CREATE TABLE ctx_escaped (x INT)")
        assert c.run_read_only("SELECT 2").rows == [(2,)]  # control
        assert c.query("SELECT COUNT(*) FROM kept").rows == [(3,)]
    assert _admin_scalar(name, f"SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = '{name}' "
                         "AND TABLE_NAME = 'ctx_escaped'") == 0  # fmt: skip


def test_a_write_that_reaches_the_server_is_refused(my_db):
    name, dsn = my_db
    with connect(dsn) as c:
        for sql in ("INSERT INTO kept VALUES (4)", "DELETE FROM kept", "UPDATE kept SET id = 0"):
            with pytest.raises(DatabaseError, match="READ ONLY transaction"):
                c.run_read_only(sql)  # below the connector's own SELECT check
        assert c.query("SELECT COUNT(*) FROM kept").rows == [(3,)]  # control
    assert _admin_scalar(name, "SELECT COUNT(*) FROM kept") == 3
    assert _admin_scalar(name, "SELECT SUM(id) FROM kept") == 6


def test_a_pooled_session_comes_back_reset(my_db):
    name, dsn = my_db
    pooled = PooledConnector(dsn, size=1, statement_timeout=2.5)
    try:
        with pooled.session() as c:
            session_id = c.query("SELECT CONNECTION_ID()").rows[0][0]
            assert c.run_read_only("SELECT GET_LOCK('ctx_issue24', 0)").rows == [(1,)]
            c.run_read_only("SELECT @ctx_left := 42")
            raw = c.conn.cursor()  # state left by whatever ran on the session
            raw.execute("SET SESSION TRANSACTION READ WRITE")
            raw.execute("SET SESSION max_statement_time = 0")
            raw.execute("CREATE TEMPORARY TABLE ctx_left (x INT)")
            raw.close()
        assert _admin_scalar(name, "SELECT IS_USED_LOCK('ctx_issue24')") is None
        with pooled.session() as c:
            assert c.query("SELECT CONNECTION_ID()").rows == [(session_id,)]  # control: the same session
            assert c.run_read_only("SELECT @ctx_left").rows == [(None,)]
            assert c.run_read_only("SELECT @@session.max_statement_time").rows[0][0] == pytest.approx(2.5)
            assert c.run_read_only("SELECT @@session.tx_read_only").rows == [(1,)]
            with pytest.raises(DatabaseError, match="doesn't exist"):
                c.query("SELECT * FROM ctx_left")
            with pytest.raises(DatabaseError, match="READ ONLY transaction"):
                c.run_read_only("INSERT INTO kept VALUES (9)")
            assert c.query("SELECT COUNT(*) FROM kept").rows == [(3,)]
    finally:
        pooled.close()
