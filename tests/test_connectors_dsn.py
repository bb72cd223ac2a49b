"""Connection strings: every accepted form parses, passwords never leak into messages, and a server
that cannot be reached is a one-line DatabaseError (exit 3) that says what to do."""

from __future__ import annotations

import socket
import urllib.parse

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtool.cli import cli
from ctxtool.connectors import connect
from ctxtool.connectors.dsn import parse, redact, redact_text
from ctxtool.errors import EXIT_DATABASE, DatabaseError, InputError


def test_postgres_uri_forms():
    d = parse("postgresql://alice:pw@db.example:6543/shop?sslmode=require")
    assert (d.engine, d.scheme, d.host, d.port, d.user, d.password, d.database) == (
        "postgres", "postgresql", "db.example", 6543, "alice", "pw", "shop",
    )  # fmt: skip
    assert d.params == {"sslmode": "require"}
    assert parse("postgres://u@h/db").engine == "postgres"


def test_libpq_keyword_form_and_environment(monkeypatch):
    d = parse("host=h1 port=5433 dbname=x user=bob password='se cret'")
    assert (d.host, d.port, d.database, d.user, d.password) == ("h1", 5433, "x", "bob", "se cret")
    monkeypatch.setenv("PGHOST", "envhost")
    monkeypatch.setenv("PGUSER", "envuser")
    monkeypatch.setenv("PGDATABASE", "envdb")
    monkeypatch.setenv("PGPORT", "7777")
    e = parse("")
    assert (e.engine, e.host, e.user, e.database, e.port) == ("postgres", "envhost", "envuser", "envdb", 7777)


def test_alloydb_is_a_postgres_connection():
    d = parse("alloydb://u:p@10.0.0.5:5432/db")
    assert d.engine == "postgres" and d.scheme == "alloydb"
    assert d.libpq() == "postgresql://u:p@10.0.0.5:5432/db"


def test_mysql_form():
    d = parse("mysql://root:p%40ss@127.0.0.1:3307/shop")
    assert (d.engine, d.host, d.port, d.user, d.password, d.database) == (
        "mysql", "127.0.0.1", 3307, "root", "p@ss", "shop",
    )  # fmt: skip
    assert parse("mariadb://root@h/x").engine == "mysql"
    assert parse("mysql://root@h").port == 3306


def test_spanner_form_and_emulator(monkeypatch):
    monkeypatch.delenv("SPANNER_EMULATOR_HOST", raising=False)
    d = parse("spanner://projects/p1/instances/i1/databases/d1")
    assert (d.engine, d.project, d.instance, d.database, d.emulator_host) == (
        "spanner",
        "p1",
        "i1",
        "d1",
        None,
    )
    monkeypatch.setenv("SPANNER_EMULATOR_HOST", "localhost:9010")
    assert parse("spanner://projects/p1/instances/i1/databases/d1").emulator_host == "localhost:9010"
    with pytest.raises(InputError, match="spanner://projects/PROJECT"):
        parse("spanner://projects/p1/databases/d1")


@pytest.mark.parametrize("bad", ["oracle://x", "just-a-name", "sqlite:///tmp/x.db"])
def test_unknown_forms_are_input_errors(bad):
    with pytest.raises(InputError):
        parse(bad)


def test_redact_every_password_form():
    assert redact("postgresql://u:hunter2@h/db") == "postgresql://u:***@h/db"
    assert redact("mysql://root:hunter2@h:3306/db") == "mysql://root:***@h:3306/db"
    assert "hunter2" not in redact("host=h password=hunter2 dbname=x")
    assert "hunter2" not in redact("host=h password='hunter 2' dbname=x").replace("***", "")
    assert "hunter2" not in redact("postgresql://h/db?user=u&password=hunter2")
    assert redact("postgresql://u@h/db") == "postgresql://u@h/db"


_password = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="@/"),
    min_size=4,
    max_size=20,
).filter(lambda s: s.strip() == s and "***" not in s)


@settings(max_examples=60, deadline=None)
@given(_password)
def test_redacted_dsn_never_contains_the_password(password):
    quoted = urllib.parse.quote(password, safe="")
    for dsn in (f"postgresql://u:{quoted}@h:5432/db", f"mysql://u:{quoted}@h/db"):
        assert parse(dsn).password == password
        out = redact_text(f"failed for {dsn}: {password}", password)
        assert password not in out and quoted not in out


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize(
    "template",
    ["postgresql://u:Sup3rSecret!@127.0.0.1:{port}/db", "mysql://u:Sup3rSecret!@127.0.0.1:{port}/db"],
)
def test_dead_server_is_a_redacted_one_line_database_error(template):
    dsn = template.format(port=_dead_port())
    with pytest.raises(DatabaseError) as info:
        connect(dsn)
    message = str(info.value)
    assert "Sup3rSecret" not in message
    assert "\n" not in message
    assert "cannot be reached" in message and "check that it is running" in message
    assert info.value.exit_code == EXIT_DATABASE


def test_unknown_host_says_so():
    with pytest.raises(DatabaseError, match="unknown host"):
        connect("postgresql://u:pw@no-such-host.invalid:5432/db")


def test_wrong_password_on_mariadb(_mariadb_available):
    with pytest.raises(DatabaseError) as info:
        connect("mysql://ctx_no_such_user:Wr0ngPass@127.0.0.1:3306/test")
    assert "authentication failed" in str(info.value)
    assert "Wr0ngPass" not in str(info.value)


def test_cli_exit_code_3_and_no_password(tmp_path):
    dsn = f"postgresql://u:Sup3rSecret@127.0.0.1:{_dead_port()}/db"
    result = CliRunner().invoke(cli, ["introspect", "--dsn", dsn])
    assert result.exit_code == 3
    assert "Sup3rSecret" not in result.output
    assert "Traceback" not in result.output
    assert result.output.startswith("error: cannot connect to postgresql://u:***@127.0.0.1")


def test_dead_spanner_emulator_fails_fast(monkeypatch):
    import time

    monkeypatch.setenv("SPANNER_EMULATOR_HOST", f"127.0.0.1:{_dead_port()}")
    started = time.monotonic()
    with pytest.raises(DatabaseError, match="cannot be reached"):
        connect("spanner://projects/p/instances/i/databases/d")
    assert time.monotonic() - started < 5
