"""The issue-24 probes against the real servers: hostile templates through `ctxtool ask --context`, a
hostile model (the scripted OpenAI-compatible server answering with harmful SQL), golden SQL that
writes in `ctxtool eval` and the MCP `eval` tool, hostile value searches and probe values in
`test-values --probe`, advisory locks in templates, and `validate` on templates calling lo_import,
dblink or a writing user function. Each test proves the effect did not happen (the table, file, large object or lock is
absent) and that the ordinary read-only answer on the same path still works."""

from __future__ import annotations

import json
import os
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner

from ctxtool.cli import cli
from ctxtool.runtime import Runtime
from tests.backends import unique_name
from tests.fake_llm import reply, tool_call
from tests.mcp_client import stdio
from tests.rt_support import RUNTIME_SET

ROOT = Path(__file__).resolve().parent.parent
CONTROL_QUESTION = "How many clients live in the district Kladno?"
MODEL_QUESTION = "What is the average loan duration in months?"
MODEL_CONTROL_SQL = "SELECT AVG(duration) FROM loan"


def _template(question: str, sql: str) -> dict:
    return {
        "nl_query": question,
        "sql": sql,
        "manifest": question,
        "parameterized": {"parameterized_intent": question, "parameterized_sql": sql},
    }


def _set_with(path: Path, question: str, sql: str) -> Path:
    data = json.loads((ROOT / RUNTIME_SET).read_text())
    data["templates"].append(_template(question, sql))
    path.write_text(json.dumps(data))
    return path


def _ask(question: str, context: Path, dsn: str) -> tuple[int, dict]:
    r = CliRunner().invoke(
        cli, ["ask", question, "--context", str(context), "--dsn", dsn, "--no-llm", "--format", "json"]
    )
    return r.exit_code, json.loads(r.stdout)


def _scalar(dsn: str, sql: str, params: tuple = ()) -> object:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return conn.execute(sql, params).fetchone()[0]


def _table_exists(dsn: str, name: str) -> bool:
    return _scalar(dsn, "SELECT to_regclass(%s) IS NOT NULL", (name,)) is True


# -- hostile templates through `ctxtool ask --context` (PostgreSQL 15) ------------------------------


@pytest.mark.postgres
@pytest.mark.parametrize(
    "sql, finding",
    [
        ("BEGIN READ WRITE; CREATE TABLE {t}(x int); COMMIT", "CTX203"),
        ("/* /* */ # */ CREATE TABLE {t} AS SELECT 1 AS x", "CTX208"),
        ("WITH w AS (SELECT 1) SELECT * INTO {t} FROM w", "CTX204"),
        (
            "SELECT * FROM dblink_exec('dbname={db} host=127.0.0.1 user=postgres', 'CREATE TABLE {t}(x int)')",
            "CTX207",
        ),
    ],
)
def test_template_that_writes_is_refused_and_writes_nothing(financial_dsn, tmp_path, sql, finding):
    table = unique_name("ctx_probe")
    db = financial_dsn.rsplit("/", 1)[1]
    with psycopg.connect(financial_dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS dblink")
    question = "Run the maintenance report"
    path = _set_with(tmp_path / "hostile.json", question, sql.format(t=table, db=db))
    code, ans = _ask(question, path, financial_dsn)
    assert ans["status"] == "error" and code == 4  # refused: the documented exit code
    assert "refused by the read-only gate" in ans["error"] and finding in ans["error"]
    assert not _table_exists(financial_dsn, table)
    # the ordinary read-only answer on the same path still works
    code, ans = _ask(CONTROL_QUESTION, path, financial_dsn)
    assert code == 0 and ans["status"] == "answered" and ans["rows"]


@pytest.mark.postgres
def test_copy_to_program_never_runs(financial_dsn, tmp_path):
    marker = Path("/tmp") / unique_name("ctx_probe_copy")
    question = "Export the audit trail"
    path = _set_with(tmp_path / "copy.json", question, f"COPY (SELECT 1) TO PROGRAM 'touch {marker}'")
    code, ans = _ask(question, path, financial_dsn)
    assert code == 4 and ans["status"] == "error" and "COPY" in ans["error"] and "CTX202" in ans["error"]
    assert not marker.exists()
    code, ans = _ask(CONTROL_QUESTION, path, financial_dsn)
    assert code == 0 and ans["status"] == "answered"


# -- MySQL executable comments (MariaDB) --------------------------------------------------------------


@pytest.mark.mysql
@pytest.mark.parametrize(
    "sql",
    [
        "SELECT name FROM probe /*! INTO OUTFILE '{file}' */",
        "SELECT name FROM probe /*! UNION SELECT LOAD_FILE('/etc/hostname') */",
        "SELECT name FROM probe /* /* */ UNION SELECT @@hostname */",
        "SELECT name FROM probe # UNION SELECT LOAD_FILE('/etc/hostname')",
    ],
)
def test_mysql_comments_the_server_would_run_are_refused(mariadb_dsn, tmp_path, sql):
    from tests.backends import _mysql_connect

    database = mariadb_dsn.rsplit("/", 1)[1]
    conn = _mysql_connect(database)
    cur = conn.cursor()
    cur.execute("CREATE TABLE IF NOT EXISTS probe (id INT PRIMARY KEY, name VARCHAR(20))")
    cur.execute("INSERT IGNORE INTO probe VALUES (1, 'alpha'), (2, 'beta')")
    conn.commit()
    conn.close()
    target = Path("/tmp") / unique_name("ctx_probe_out")
    question, control = "Dump the probe names", "How many probes are named alpha?"
    counted = _template(control, "SELECT COUNT(*) FROM probe WHERE name = 'alpha'")
    counted["parameterized"] = {
        "parameterized_intent": "How many probes are named ?",
        "parameterized_sql": "SELECT COUNT(*) FROM probe WHERE name = ?",
    }
    data = {"templates": [_template(question, sql.format(file=target)), counted]}
    path = tmp_path / "my.json"
    path.write_text(json.dumps(data))
    with Runtime(str(path), dsn=mariadb_dsn, use_llm=False) as rt:
        ans = rt.ask(question)
        assert ans.status == "error" and "refused by the read-only gate" in (ans.error or ""), ans.explanation
        assert not ans.rows and not target.exists()
        hostname = Path("/etc/hostname").read_text().strip()
        assert hostname not in json.dumps(ans.to_dict(), default=str)
        ok = rt.ask(control)
        assert ok.status == "answered" and ok.rows == [[1]]
    # validate reports the same finding, so the set fails CI; publish refuses it
    r = CliRunner().invoke(cli, ["validate", str(path), "--dialect", "mysql"])
    assert r.exit_code == 1 and "CTX208" in r.output
    home = {"CTXTOOL_HOME": str(tmp_path / "home")}
    r = CliRunner(env=home).invoke(cli, ["publish", str(path), "--name", "probe", "--dialect", "mysql"])
    assert r.exit_code == 1 and "CTX208" in r.output and "publish again" in r.output, r.output


# -- a hostile model ------------------------------------------------------------------------------


def _large_objects(dsn: str) -> int:
    return int(_scalar(dsn, "SELECT count(*) FROM pg_largeobject_metadata"))


@pytest.mark.postgres
@pytest.mark.parametrize(
    "hostile, named",
    [
        ("SELECT lo_import('/etc/hostname')", "lo_import"),
        ("SELECT lo_from_bytea(0, 'x'::bytea)", "lo_from_bytea"),
        (
            "SELECT dblink_exec('dbname={db} host=127.0.0.1 user=postgres', 'CREATE TABLE {t}(x int)')",
            "dblink_exec",
        ),
        ("SELECT query_to_xml('select rolname, rolpassword from pg_authid', true, true, '')", "query_to_xml"),
        ("SELECT pg_read_file('/etc/hostname')", "pg_read_file"),
        ("SELECT pg_advisory_lock({lock})", "pg_advisory_lock"),
        ("SELECT COUNT(*) FROM loan; CREATE TABLE {t}(x int)", "more than one statement"),
    ],
)
def test_hostile_model_sql_is_refused_and_the_retry_answers(fake_llm, financial_dsn, hostile, named):
    table = unique_name("ctx_probe_llm")
    lock = 424242 + len(named)
    db = financial_dsn.rsplit("/", 1)[1]
    with psycopg.connect(financial_dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS dblink")
    objects_before = _large_objects(financial_dsn)
    fake_llm.script(
        reply(tool_calls=[tool_call("run_sql", {"sql": hostile.format(db=db, t=table, lock=lock)})]),
        reply(json.dumps({"sql": MODEL_CONTROL_SQL})),
    )
    with Runtime(RUNTIME_SET, dsn=financial_dsn) as rt:
        ans = rt.ask(MODEL_QUESTION)
        # the lock would be held by a pooled session now: there is none
        held = _scalar(
            financial_dsn, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = %s", (lock,)
        )
    assert held == 0
    assert _large_objects(financial_dsn) == objects_before
    assert not _table_exists(financial_dsn, table)
    assert any(named in w and "refused by the read-only gate" in w for w in ans.warnings), ans.warnings
    hostname = Path("/etc/hostname").read_text().strip()
    assert hostname not in json.dumps(ans.to_dict(), default=str)
    # the model's second, ordinary SQL is answered: the path still works
    assert ans.status == "answered" and ans.sql == MODEL_CONTROL_SQL and ans.rows[0][0] is not None
    assert "refused" in fake_llm.requests[1].messages[-1]["content"]


# -- golden SQL in `ctxtool eval` --------------------------------------------------------------------


@pytest.mark.postgres
def test_eval_golden_sql_that_writes_is_refused(financial_dsn, tmp_path):
    table = unique_name("ctx_probe_gold")
    golden = [
        {"id": "bad", "nlq": CONTROL_QUESTION, "golden_sql": f"CREATE TABLE {table} AS SELECT 1 AS x"},
        {"id": "lo", "nlq": CONTROL_QUESTION, "golden_sql": "SELECT lo_import('/etc/hostname')"},
        {
            "id": "good",
            "nlq": CONTROL_QUESTION,
            "golden_sql": "SELECT COUNT(*) FROM client c JOIN district d ON c.district_id = d.district_id "
            "WHERE d.\"A2\" = 'Kladno'",
        },
    ]
    path = tmp_path / "golden.json"
    path.write_text(json.dumps(golden))
    objects_before = _large_objects(financial_dsn)
    r = CliRunner().invoke(
        cli,
        ["eval", str(path), "--context", RUNTIME_SET, "--dsn", financial_dsn, "--no-llm", "--format", "json"],
    )
    report = json.loads(r.stdout)
    items = {i["id"]: i for i in report["questions"]}
    assert (
        items["bad"]["outcome"] == "golden_error"
        and "refused by the read-only gate" in items["bad"]["detail"]
    )
    assert items["lo"]["outcome"] == "golden_error" and "lo_import" in items["lo"]["detail"]
    assert items["good"]["outcome"] == "correct"
    assert not _table_exists(financial_dsn, table)
    assert _large_objects(financial_dsn) == objects_before


# -- validate ------------------------------------------------------------------------------------------


@pytest.mark.postgres
def test_validate_refuses_lo_import_dblink_and_a_writing_user_function(financial_dsn, tmp_path):
    table = unique_name("ctx_probe_fn")
    with psycopg.connect(financial_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE {table} (x int)")
        conn.execute(
            f"CREATE OR REPLACE FUNCTION {table}_write() RETURNS int VOLATILE LANGUAGE sql "
            f"AS 'INSERT INTO {table} VALUES (1) RETURNING x'"
        )
    try:
        data = json.loads((ROOT / RUNTIME_SET).read_text())
        clean = tmp_path / "clean.json"
        clean.write_text(json.dumps(data))
        for sql, named in (
            ("SELECT lo_import('/etc/hostname')", "lo_import"),
            ("SELECT * FROM dblink('dbname=x', 'select 1') AS t(a int)", "dblink"),
            (f"SELECT {table}_write()", f"{table}_write"),
        ):
            path = _set_with(tmp_path / "v.json", "Run the nightly job", sql)
            r = CliRunner().invoke(cli, ["validate", str(path), "--dsn", financial_dsn])
            assert r.exit_code == 1, r.output
            assert "CTX207" in r.output and named in r.output
        assert _scalar(financial_dsn, f"SELECT count(*) FROM {table}") == 0
        r = CliRunner().invoke(cli, ["validate", str(clean)])
        assert r.exit_code == 0, r.output
        # a user function declared read-only is allowed (and a writing one must never be declared)
        path = _set_with(tmp_path / "v.json", "Run the nightly job", f"SELECT {table}_write()")
        env = {**os.environ, "CTXTOOL_GATE_FUNCTIONS": f"{table}_write"}
        r = CliRunner(env=env).invoke(cli, ["validate", str(path)])
        assert "CTX207" not in r.output
    finally:
        with psycopg.connect(financial_dsn, autocommit=True) as conn:
            conn.execute(f"DROP FUNCTION IF EXISTS {table}_write()")
            conn.execute(f"DROP TABLE IF EXISTS {table}")


# -- the MCP `eval` tool (the MCP SDK client over stdio) -------------------------------------------


@pytest.mark.postgres
def test_mcp_eval_golden_sql_that_writes_is_refused(financial_dsn, tmp_path):
    table = unique_name("ctx_probe_mcpgold")
    golden = [
        {"id": "bad", "nlq": CONTROL_QUESTION, "golden_sql": f"CREATE TABLE {table} AS SELECT 1 AS x"},
        {
            "id": "hidden",
            "nlq": CONTROL_QUESTION,
            "golden_sql": f"/* /* */ # */ CREATE TABLE {table} AS SELECT 1 AS x",
        },
        {"id": "lo", "nlq": CONTROL_QUESTION, "golden_sql": "SELECT lo_import('/etc/hostname')"},
        {
            "id": "good",
            "nlq": CONTROL_QUESTION,
            "golden_sql": "SELECT COUNT(*) FROM client c JOIN district d ON c.district_id = d.district_id "
            "WHERE d.\"A2\" = 'Kladno'",
        },
    ]
    (tmp_path / "golden.json").write_text(json.dumps(golden))
    (tmp_path / "set.json").write_text((ROOT / RUNTIME_SET).read_text())
    objects_before = _large_objects(financial_dsn)
    with stdio(cwd=tmp_path) as client:  # the server's workspace: its files stay there
        report = client.ok(
            "eval", {"golden": "golden.json", "context": "set.json", "dsn": financial_dsn, "verbose": True}
        )
    items = {i["id"]: i for i in report["questions"]}
    for refused in ("bad", "hidden", "lo"):
        assert items[refused]["outcome"] == "golden_error", items[refused]
        assert "refused by the read-only gate" in items[refused]["detail"]
    assert "CTX208" in items["hidden"]["detail"] and "lo_import" in items["lo"]["detail"]
    assert not _table_exists(financial_dsn, table)
    assert _large_objects(financial_dsn) == objects_before
    assert items["good"]["outcome"] == "correct"  # the ordinary golden item is still scored


# -- `test-values --probe`: hostile value searches and a hostile probe value -----------------------


def _value_search(query: str, concept: str) -> dict:
    return {"query": query, "concept_type": concept, "description": concept}


@pytest.mark.postgres
def test_probe_of_hostile_value_searches_has_no_effect(financial_dsn, tmp_path):
    table = unique_name("ctx_probe_vs")
    lock = 424299
    region = str(_scalar(financial_dsn, 'SELECT "A3" FROM district ORDER BY district_id LIMIT 1'))
    good = (
        "SELECT $value AS value, 'district.A3' AS columns, 'Region' AS concept_type, 0 AS distance, "
        "'{}'::text AS context FROM district T WHERE T.\"A3\" = $value"
    )
    hostile = [
        _value_search(f"{good}; CREATE TABLE {table}(x int)", "Two statements"),
        _value_search(
            f"SELECT $value AS value, 'x' AS columns, 'Lock' AS concept_type, 0 AS distance, "
            f"'{{}}'::text AS context FROM district WHERE pg_advisory_lock({lock}) IS NOT NULL",
            "Lock",
        ),
        _value_search(
            "SELECT lo_import($value) AS value, 'x' AS columns, 'Import' AS concept_type, 0 AS distance, "
            "'{}'::text AS context",
            "Import",
        ),
    ]
    path = tmp_path / "values.json"
    path.write_text(json.dumps({"value_searches": [_value_search(good, "Region"), *hostile]}))
    objects_before = _large_objects(financial_dsn)
    for value in (f"x'; CREATE TABLE {table}(x int); --", "/etc/hostname", region):
        r = CliRunner().invoke(
            cli, ["test-values", str(path), "--dsn", financial_dsn, "--probe", value, "--format", "json"]
        )
        out = json.loads(r.stdout)
        assert r.exit_code == 1  # a search failed: the hostile ones
        region_search, *refused = out["searches"]
        assert region_search["error"] is None
        assert [row["value"] for row in region_search["rows"]] == ([region] if value == region else [])
        for search, named in zip(
            refused, ("more than one statement", "pg_advisory_lock", "lo_import"), strict=True
        ):
            assert "refused by the read-only gate" in search["error"] and named in search["error"]
            assert not search["rows"]
    assert not _table_exists(financial_dsn, table)
    assert _large_objects(financial_dsn) == objects_before
    held = _scalar(
        financial_dsn, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = %s", (lock,)
    )
    assert held == 0


# -- an advisory lock in a template, through ask -----------------------------------------------------


@pytest.mark.postgres
@pytest.mark.parametrize(
    "sql",
    [
        "SELECT pg_advisory_lock({lock})",
        "SELECT district_id FROM district WHERE pg_try_advisory_lock({lock})",
        "SELECT district_id FROM district WHERE pg_advisory_xact_lock_shared({lock}) IS NULL",
    ],
)
def test_template_advisory_lock_leaves_no_lock(financial_dsn, tmp_path, sql):
    lock = 424300 + len(sql)
    question = "Reserve the nightly batch slot"
    path = _set_with(tmp_path / "lock.json", question, sql.format(lock=lock))
    with Runtime(str(path), dsn=financial_dsn, use_llm=False) as rt:
        ans = rt.ask(question)
        # the runtime's pooled sessions are still open: a lock taken on one would be held now
        held = _scalar(
            financial_dsn, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = %s", (lock,)
        )
        assert held == 0
        assert ans.status == "error" and "refused by the read-only gate" in (ans.error or ""), ans.explanation
        assert "advisory" in (ans.error or "") and "CTX207" in (ans.error or "")
        control = rt.ask(CONTROL_QUESTION)
        assert control.status == "answered" and control.rows


# -- through MCP alone: mutate_set writes a template that hides its start, ask runs it ----------------


@pytest.mark.postgres
def test_mcp_mutate_set_then_ask_cannot_write(financial_dsn, tmp_path):
    table = unique_name("ctx_probe_mcpmut")
    question = "Rebuild the report cache"
    hidden = f"/* /* */ # */ CREATE TABLE {table} AS SELECT 1 AS x"
    (tmp_path / "set.json").write_text((ROOT / RUNTIME_SET).read_text())
    before = (tmp_path / "set.json").read_text()
    add = [{"op": "add", "kind": "templates", "item": _template(question, hidden)}]
    with stdio(cwd=tmp_path) as client:
        failed, out = client.call("mutate_set", {"path": "set.json", "operations": add, "dialect": "mysql"})
        assert "CTX208" in json.dumps(out) and (failed or not out["written"]), out
        assert (tmp_path / "set.json").read_text() == before  # the set is not changed
        _set_with(tmp_path / "set.json", question, hidden)  # written by other means: ask still refuses
        failed, ans = client.call("ask", {"question": question, "context": "set.json", "dsn": financial_dsn})
        assert failed and ans["status"] == "error" and "refused by the read-only gate" in ans["error"]
        assert "CTX208" in ans["error"] and not ans["executed"]
        assert not _table_exists(financial_dsn, table)
        control = client.ok(
            "ask", {"question": CONTROL_QUESTION, "context": "set.json", "dsn": financial_dsn}
        )
        assert control["status"] == "answered" and control["rows"]
