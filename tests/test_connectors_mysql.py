"""The MySQL connector on MariaDB 10.11 (written to hold on MySQL 8 too): flavour detection, read-only
transactions, max_statement_time, row caps via sql_select_limit, ? binding, EXPLAIN, and
introspection that spells types the MySQL 8 way."""

from __future__ import annotations

import pytest

from ctxtool.connectors import connect
from ctxtool.connectors.mysql import normalize_column_type
from ctxtool.errors import DatabaseError
from tests.backends import _mysql_connect, _mysql_create, _mysql_drop, unique_name
from tests.connector_schemas import load_mysql

pytestmark = pytest.mark.mariadb


@pytest.fixture(scope="module")
def my_db(_mariadb_available):
    name = unique_name("ctx_conmy")
    dsn = _mysql_create(name)
    conn = _mysql_connect(name)
    try:
        load_mysql(conn)
        conn.close()
        yield dsn
    finally:
        _mysql_drop(name)


@pytest.fixture
def conn(my_db):
    with connect(my_db, statement_timeout=1.5, row_cap=25) as c:
        yield c


def _table(snap, name):
    return next(t for s in snap["schemas"] for t in s["tables"] if t["name"] == name)


def test_flavour_and_version(conn):
    info = conn.info()
    assert (info.engine, info.flavour, info.dialect) == ("mysql", "mariadb", "mysql")
    assert info.version.startswith("10.") and "MariaDB" not in info.version


def test_qmark_and_value_binding(conn):
    rows = conn.query(
        "SELECT A2 FROM district WHERE A3 = ? AND A11 > ? ORDER BY A2", ["south Moravia", 8600]
    ).rows
    assert rows == [("Brno - mesto",), ("Brno - venkov",)]
    assert conn.query("SELECT A2 FROM district WHERE A2 = $value", {"value": "Znojmo"}).rows == [("Znojmo",)]
    assert conn.query("SELECT COUNT(*) FROM district WHERE A2 = ?", ["x' OR '1'='1"]).rows == [(0,)]


def test_row_cap(conn):
    capped = conn.query("SELECT account_id FROM account ORDER BY account_id")
    assert len(capped.rows) == 25 and capped.truncated
    whole = conn.query("SELECT account_id FROM account ORDER BY account_id", max_rows=100)
    assert len(whole.rows) == 60 and not whole.truncated
    again = conn.query("SELECT account_id FROM account ORDER BY account_id")  # the cap is restored
    assert len(again.rows) == 25


def test_read_only(conn, my_db):
    for sql in (
        "DELETE FROM account",
        "DROP TABLE loan",
        "INSERT INTO district (district_id, A2) VALUES (9, 'x')",
    ):
        with pytest.raises(DatabaseError):
            conn.query(sql)
    assert conn.query("SELECT COUNT(*) FROM account").rows == [(60,)]


def test_read_only_transaction_is_enforced_by_the_server(conn):
    # the gate refuses SELECT ... FOR UPDATE; behind it (catalog_query skips only the function
    # allow-list, not the statement-kind check) the READ ONLY transaction refuses it too
    with pytest.raises(DatabaseError, match="FOR UPDATE"):
        conn.query("SELECT * FROM district FOR UPDATE")
    with pytest.raises(DatabaseError, match="READ ONLY"):
        conn.catalog_query("SELECT * FROM district FOR UPDATE")
    # a second statement smuggled after a SELECT never runs (prepared statements hold one statement)
    with pytest.raises(DatabaseError):
        conn.query("SELECT 1; DELETE FROM account")
    assert conn.query("SELECT COUNT(*) FROM account").rows == [(60,)]


def test_statement_timeout(my_db):
    with connect(my_db, statement_timeout=0.3) as quick:
        with pytest.raises(DatabaseError, match="max_statement_time"):
            quick.query("SELECT SLEEP(4)")
        assert quick.query("SELECT 1").rows == [(1,)]


def test_plan(conn):
    plan = conn.plan("SELECT * FROM account WHERE district_id = ? AND frequency = $value LIMIT ?")
    assert plan["query_block"]["select_id"] == 1
    with pytest.raises(DatabaseError, match="nosuch"):
        conn.plan("SELECT nosuch FROM district")


def test_sample_column(conn):
    assert conn.sample_column("district", "A3", 10)[0] == "south Moravia"


def test_type_spelling_like_mysql8():
    assert normalize_column_type("int(11)", mariadb=True) == "int"
    assert normalize_column_type("bigint(20) unsigned", mariadb=True) == "bigint unsigned"
    assert normalize_column_type("tinyint(1)", mariadb=True) == "tinyint(1)"
    assert normalize_column_type("int(5) unsigned zerofill", mariadb=True) == "int(5) unsigned zerofill"
    assert normalize_column_type("varchar(40)", mariadb=False) == "varchar(40)"


def test_introspect(conn):
    snap = conn.introspect()
    assert (snap["engine"], snap["flavour"], snap["dialect"]) == ("mysql", "mariadb", "mysql")
    district = _table(snap, "district")
    assert district["comment"] == "Czech districts"
    cols = {c["name"]: c for c in district["columns"]}
    assert cols["district_id"]["type"] == "int"  # not int(11)
    assert cols["info"]["type"] == "json"  # LONGTEXT + json_valid CHECK on MariaDB
    assert (cols["A3"]["comment"], cols["A2"]["nullable"], cols["A3"]["nullable"]) == ("region", False, True)
    assert cols["A11"]["default"] is None
    account = _table(snap, "account")
    assert {c["name"]: c for c in account["columns"]}["frequency"]["default"] == "'POPLATEK MESICNE'"
    assert account["primary_key"] == ["account_id"]
    assert account["unique"] == [["frequency", "account_id"]]
    fk = next(f for f in account["foreign_keys"] if f["name"] == "acc_district")
    assert (fk["columns"], fk["ref_table"], fk["ref_columns"], fk["on_delete"]) == (
        ["district_id"], "district", ["district_id"], "cascade",
    )  # fmt: skip
    ft = next(i for i in account["indexes"] if i["name"] == "acc_ft")
    assert ft["method"] == "fulltext" and ft["columns"] == ["frequency"]
    assert _table(snap, "prague_accounts")["kind"] == "view"
    assert [s["name"] for s in snap["schemas"]] == [snap["database"]]


def test_profile_from_sample(conn):
    snap = conn.introspect(profile=True)
    a3 = {c["name"]: c for c in _table(snap, "district")["columns"]}["A3"]["profile"]
    assert a3["distinct"] == 3 and a3["most_common"][0] == {"value": "south Moravia", "frequency": 0.6}
    info = {c["name"]: c for c in _table(snap, "district")["columns"]}["info"]["profile"]
    assert info["null_fraction"] == 0.8
    loan = {c["name"]: c["profile"] for c in _table(snap, "loan")["columns"]}
    assert (loan["amount"]["min"], loan["amount"]["max"]) == (1000, 20000)


def test_round_trips_constant(my_db):
    conn = _mysql_connect(my_db.rsplit("/", 1)[1])
    counts = []
    try:
        for extra in (0, 25):
            cur = conn.cursor()
            for i in range(extra):
                cur.execute(
                    f"CREATE TABLE IF NOT EXISTS ctx_many_{i} (id INT PRIMARY KEY, d INT, "
                    f"FOREIGN KEY (d) REFERENCES district (district_id))"
                )
            with connect(my_db) as c:
                before = c.round_trips
                status = c.conn.cursor()
                status.execute("SHOW SESSION STATUS LIKE 'Questions'")
                asked = int(status.fetchone()[1])
                c.introspect()
                status.execute("SHOW SESSION STATUS LIKE 'Questions'")
                seen = int(status.fetchone()[1]) - asked - 1  # the server's own count of statements
                counts.append((c.round_trips - before, seen))
        cur = conn.cursor()
        for i in range(25):
            cur.execute(f"DROP TABLE ctx_many_{i}")
    finally:
        conn.close()
    # one extra SHOW CREATE TABLE for the one table with a FULLTEXT index, whatever the table count
    assert counts[0] == counts[1]
    assert counts[0][0] <= 14 and counts[0][1] <= 15


def test_max_rows_below_the_statements_own_limit_does_not_hang(conn):
    """A LIMIT in the SQL overrides sql_select_limit; the unread rows must not block the rollback."""
    import threading

    out: dict = {}

    def run():
        out["first"] = conn.query("SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 LIMIT 3", max_rows=1)
        out["next"] = conn.query("SELECT 7")

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(20)
    assert not worker.is_alive(), "query() hung after a capped read"
    assert out["first"].rows == [(1,)] and out["first"].truncated
    assert out["next"].rows == [(7,)]


def test_tcp_nodelay_is_set(conn):
    """Prepared statements on the pure-Python driver need TCP_NODELAY to avoid ~40 ms delayed ACKs."""
    import socket

    sock = conn.conn._socket.sock
    assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
