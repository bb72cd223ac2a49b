"""Least privilege, said and checked (issue 24, deliverable 3): ``ctxtool doctor`` and the start-up
warning, on roles created for the test on PostgreSQL 15 and MariaDB (and dropped after): a read-only
role is ok (the control), a superuser/root, a role that may write, and one that may reach the
server's files are flagged, with no password in any output."""

from __future__ import annotations

import json
import urllib.parse

import psycopg
import pytest
from click.testing import CliRunner

from ctxtool.cli import cli
from ctxtool.connectors import connect
from ctxtool.connectors.privileges import (
    CAN_WRITE,
    SERVER_FILES,
    SERVER_PROGRAM,
    SUPERUSER,
    UNCHECKED,
    check_privileges,
    startup_warning,
)
from tests.backends import _mysql_connect, _mysql_create, _mysql_drop, _pg_create, _pg_drop, unique_name


def _codes(dsn: str) -> set[str]:
    with connect(dsn) as c:
        report = check_privileges(c)
    return {f.code for f in report.findings}


def _with_user(dsn: str, user: str, password: str | None = None) -> str:
    parts = urllib.parse.urlsplit(dsn)
    auth = urllib.parse.quote(user) + (":" + urllib.parse.quote(password) if password else "")
    host = parts.hostname + (f":{parts.port}" if parts.port else "")
    return urllib.parse.urlunsplit((parts.scheme, f"{auth}@{host}", parts.path, parts.query, ""))


@pytest.fixture(scope="module")
def pg_roles(_pg15_admin):
    name = unique_name("ctx_priv")
    dsn = _pg_create(_pg15_admin, name)
    suffix = name.rsplit("_", 2)[-2] + name.rsplit("_", 1)[-1]
    roles = {kind: f"ctx_{kind}_{suffix}" for kind in ("reader", "granted", "writer", "files")}
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute("CREATE TABLE kept (id int)")
        admin.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
        for role in roles.values():
            admin.execute(f"CREATE ROLE {role} LOGIN")
        admin.execute(f"GRANT pg_read_all_data TO {roles['reader']}")
        admin.execute(f"GRANT USAGE ON SCHEMA public TO {roles['granted']}")
        admin.execute(f"GRANT SELECT ON kept TO {roles['granted']}")
        admin.execute(f"GRANT SELECT, INSERT ON kept TO {roles['writer']}")
        admin.execute(f"GRANT pg_read_server_files, pg_execute_server_program TO {roles['files']}")
    try:
        yield dsn, roles
    finally:
        with psycopg.connect(dsn, autocommit=True) as admin:
            admin.execute("DROP TABLE kept")
            for role in roles.values():
                admin.execute(f"DROP OWNED BY {role}")
        _pg_drop(_pg15_admin, name)
        with psycopg.connect(_pg15_admin, autocommit=True) as admin:
            for role in roles.values():
                admin.execute(f"DROP ROLE IF EXISTS {role}")


@pytest.mark.postgres
def test_postgres_read_only_roles_are_ok_and_others_flagged(pg_roles):
    dsn, roles = pg_roles
    assert _codes(_with_user(dsn, roles["reader"])) == set()  # pg_read_all_data
    assert _codes(_with_user(dsn, roles["granted"])) == set()  # SELECT grants
    assert _codes(_with_user(dsn, roles["writer"])) == {CAN_WRITE}
    assert _codes(_with_user(dsn, roles["files"])) == {SERVER_FILES, SERVER_PROGRAM}
    assert _codes(dsn) == {SUPERUSER}  # the test's own connection: postgres


@pytest.mark.postgres
def test_doctor_command_exit_codes_and_json(pg_roles):
    dsn, roles = pg_roles
    runner = CliRunner()
    ok = runner.invoke(cli, ["doctor", "--dsn", _with_user(dsn, roles["reader"])])
    assert ok.exit_code == 0, ok.output
    assert ok.output.startswith("ok: ")
    flagged = runner.invoke(cli, ["doctor", "--dsn", _with_user(dsn, roles["writer"]), "--format", "json"])
    assert flagged.exit_code == 1
    report = json.loads(flagged.stdout)
    assert report["ok"] is False and report["role"] == roles["writer"]
    assert [f["code"] for f in report["findings"]] == [CAN_WRITE]
    assert "public.kept" in report["findings"][0]["detail"]


@pytest.mark.postgres
def test_startup_warning_once_per_dsn_and_silenced(pg_roles, monkeypatch):
    dsn, roles = pg_roles
    writer = _with_user(dsn, roles["writer"])
    first = startup_warning(writer)
    assert first and first.startswith("warning: the postgres role") and "can-write" in first
    assert startup_warning(_with_user(dsn, roles["reader"])) is None  # control: a reader is not warned
    with connect(writer) as c:
        before = c.round_trips
        assert startup_warning(writer, c) == first  # cached for the process: no query
        assert c.round_trips == before
    monkeypatch.setenv("CTXTOOL_NO_PRIVILEGE_WARNING", "1")
    assert startup_warning(_with_user(dsn, roles["files"])) is None


@pytest.fixture(scope="module")
def my_users(_mariadb_available):
    name = unique_name("ctx_privmy")
    dsn = _mysql_create(name)
    suffix = name.rsplit("_", 1)[-1]
    users = {kind: f"ctx_{kind}_{suffix}" for kind in ("reader", "writer", "files", "viarole")}
    role = f"ctx_role_{suffix}"
    password = "pw-" + suffix
    admin = _mysql_connect(name)
    cur = admin.cursor()
    for user in users.values():
        cur.execute(f"CREATE USER '{user}'@'%' IDENTIFIED BY '{password}'")
        cur.execute(f"CREATE USER '{user}'@'localhost' IDENTIFIED BY '{password}'")
        cur.execute(f"GRANT SELECT ON `{name}`.* TO '{user}'@'%'")
        cur.execute(f"GRANT SELECT ON `{name}`.* TO '{user}'@'localhost'")
    for host in ("%", "localhost"):
        cur.execute(f"GRANT INSERT, UPDATE ON `{name}`.* TO '{users['writer']}'@'{host}'")
        cur.execute(f"GRANT FILE ON *.* TO '{users['files']}'@'{host}'")
    cur.execute(f"CREATE ROLE {role}")
    cur.execute(f"GRANT DELETE ON `{name}`.* TO {role}")
    for host in ("%", "localhost"):
        cur.execute(f"GRANT {role} TO '{users['viarole']}'@'{host}'")
        cur.execute(f"SET DEFAULT ROLE {role} FOR '{users['viarole']}'@'{host}'")
    admin.close()
    try:
        yield dsn, users, password
    finally:
        admin = _mysql_connect()
        cur = admin.cursor()
        for user in users.values():
            cur.execute(f"DROP USER IF EXISTS '{user}'@'%', '{user}'@'localhost'")
        cur.execute(f"DROP ROLE IF EXISTS {role}")
        admin.close()
        _mysql_drop(name)


@pytest.mark.mariadb
def test_mysql_select_only_is_ok_and_others_flagged(my_users):
    dsn, users, password = my_users
    assert _codes(_with_user(dsn, users["reader"], password)) == set()
    assert _codes(_with_user(dsn, users["writer"], password)) == {CAN_WRITE}
    assert _codes(_with_user(dsn, users["files"], password)) == {SERVER_FILES}
    assert _codes(_with_user(dsn, users["viarole"], password)) == {CAN_WRITE}  # DELETE through a role
    assert SUPERUSER in _codes(dsn)  # root


@pytest.mark.mariadb
def test_mysql_doctor_and_warning_never_show_the_password(my_users):
    dsn, users, password = my_users
    writer = _with_user(dsn, users["writer"], password)
    result = CliRunner().invoke(cli, ["doctor", "--dsn", writer])
    assert result.exit_code == 1 and "INSERT" in result.output
    assert password not in result.output
    warning = startup_warning(writer)
    assert warning and password not in warning and users["writer"] in warning
    ok = CliRunner().invoke(cli, ["doctor", "--dsn", _with_user(dsn, users["reader"], password)])
    assert ok.exit_code == 0 and password not in ok.output  # control


@pytest.mark.spanner
def test_spanner_emulator_says_it_cannot_check(spanner_dsn):
    with connect(spanner_dsn) as c:
        report = check_privileges(c)
    assert not report.checked and not report.ok
    assert [f.code for f in report.findings] == [UNCHECKED]
    result = CliRunner().invoke(cli, ["doctor", "--dsn", spanner_dsn])
    assert result.exit_code == 1 and "emulator" in result.output
    assert startup_warning(spanner_dsn) is None  # nothing known to warn about


@pytest.mark.postgres
def test_ask_warns_on_stderr_at_start(pg_roles, monkeypatch):
    from pathlib import Path

    dsn, roles = pg_roles
    sample = str(Path(__file__).resolve().parent.parent / "samples/postgres/financial_runtime.json")
    args = ["ask", "How many accounts are there?", "--context", sample, "--action", "showsql", "--no-llm"]
    runner = CliRunner()
    flagged = runner.invoke(cli, [*args, "--dsn", _with_user(dsn, roles["writer"])])
    assert flagged.exit_code == 0, flagged.output
    assert "warning: the postgres role" in flagged.stderr and "SELECT" in flagged.stdout
    reader = runner.invoke(cli, [*args, "--dsn", _with_user(dsn, roles["reader"])])
    assert reader.exit_code == 0 and "warning" not in reader.stderr  # control
    monkeypatch.setenv("CTXTOOL_NO_PRIVILEGE_WARNING", "1")
    silenced = runner.invoke(cli, [*args, "--dsn", _with_user(dsn, roles["files"])])
    assert silenced.exit_code == 0 and "warning" not in silenced.stderr
