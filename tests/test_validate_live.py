"""``validate --dsn``: the server plans every template, facet and value search in the read-only
session; what it rejects is reported at the template's file:line; the dialect comes from the
database; the schema-reference layer runs from a snapshot taken once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli
from tests.backends import _mysql_connect, _mysql_create, _mysql_drop, _pg_create, _pg_drop, unique_name
from tests.connector_schemas import load_mysql, load_pg
from tests.test_validate_snapshot import _template

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def _facet(snippet: str, intent: str) -> dict:
    return {
        "sql_snippet": snippet,
        "intent": intent,
        "manifest": intent,
        "parameterized": {"parameterized_intent": intent, "parameterized_sql_snippet": snippet},
    }


def _parameterized(sql: str, psql: str, question: str, pquestion: str, manifest: str) -> dict:
    return {
        "nl_query": question,
        "sql": sql,
        "intent": question,
        "manifest": manifest,
        "parameterized": {"parameterized_intent": pquestion, "parameterized_sql": psql},
    }


def _run_validate(tmp_path, data: dict, dsn: str, *extra: str):
    path = tmp_path / "ctx.json"
    text = json.dumps(data, indent=2)
    path.write_text(text)
    result = CliRunner().invoke(cli, ["validate", str(path), "--dsn", dsn, "-f", "json", *extra])
    findings = json.loads(result.stdout)["findings"] if result.stdout.strip().startswith("{") else []
    return result, findings, text.splitlines()


def _line_of(lines: list[str], needle: str) -> int:
    return next(i for i, text in enumerate(lines, 1) if needle in text)


@pytest.fixture(scope="module")
def pg_db(_pg15_admin):
    name = unique_name("ctx_valpg")
    dsn = _pg_create(_pg15_admin, name)
    try:
        load_pg(dsn)
        yield dsn
    finally:
        _pg_drop(_pg15_admin, name)


@pytest.mark.postgres
def test_postgres_plans_everything_and_reports_at_the_line(pg_db, tmp_path):
    data = {
        "templates": [
            _parameterized(
                "SELECT a.account_id FROM account a JOIN district d ON d.district_id = a.district_id "
                "WHERE d.\"A3\" = 'Prague' ORDER BY a.account_id",
                "SELECT a.account_id FROM account a JOIN district d ON d.district_id = a.district_id "
                'WHERE d."A3" = $1 ORDER BY a.account_id',
                "Accounts in Prague",
                "Accounts in $1",
                "Accounts in a given region",
            ),
            _template("SELECT lower(a.account_id) FROM account a"),
        ],
        "facets": [_facet("loan.amount > 5000", "large loans"), _facet("district.\"A11\" > 'high'", "rich")],
        "value_searches": [
            {
                "query": "SELECT $value AS value, 'district.A3' AS columns, 'Region' AS concept_type, 0 AS distance, "
                "'' AS context FROM district T WHERE T.\"A3\" = $value",
                "concept_type": "Region",
            }
        ],
    }
    result, findings, lines = _run_validate(tmp_path, data, pg_db)
    assert result.exit_code == 1
    live = [f for f in findings if f["code"] == "CTX901"]
    assert [(f["pointer"], f["line"]) for f in live] == [
        ("/templates/1/sql", _line_of(lines, '"sql": "SELECT lower(a.account_id)')),
        ("/facets/1/sql_snippet", _line_of(lines, "'high'")),
    ]
    assert "function lower(integer) does not exist" in live[0]["message"]
    assert 'invalid input syntax for type integer: "high"' in live[1]["message"]
    # the schema layer ran too (from a snapshot the connector took), with no complaint about good SQL
    assert [f for f in findings if f["code"].startswith("CTX8")] == [
        f for f in findings if f["code"] == "CTX804"
    ]


@pytest.mark.postgres
def test_database_error_exit_3_without_password(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    path = tmp_path / "ctx.json"
    path.write_text(json.dumps({"templates": [_template("SELECT 1")]}))
    result = CliRunner().invoke(
        cli, ["validate", str(path), "--dsn", f"postgresql://u:T0pSecret@127.0.0.1:{port}/x"]
    )
    assert result.exit_code == 3
    assert "T0pSecret" not in result.output and "cannot connect" in result.output


@pytest.fixture(scope="module")
def my_db(_mariadb_available):
    name = unique_name("ctx_valmy")
    dsn = _mysql_create(name)
    conn = _mysql_connect(name)
    try:
        load_mysql(conn)
        conn.close()
        yield dsn
    finally:
        _mysql_drop(name)


@pytest.mark.mariadb
def test_mariadb_dialect_from_dsn(my_db, tmp_path):
    data = {
        "templates": [
            _parameterized(
                "SELECT a.account_id FROM account a WHERE a.district_id = 3 ORDER BY a.account_id LIMIT 5",
                "SELECT a.account_id FROM account a WHERE a.district_id = ? ORDER BY a.account_id LIMIT 5",
                "Five accounts of district 3",
                "Five accounts of district ?",
                "Five accounts of district a given number",
            ),
            _template("SELECT a.account_id FROM account a WHERE a.info ->> '$.k' = 1"),
        ],
        "facets": [_facet("district.A11 > 9000", "rich districts")],
    }
    result, findings, lines = _run_validate(tmp_path, data, my_db)
    live = [f for f in findings if f["code"] == "CTX901"]
    assert [f["pointer"] for f in live] == ["/templates/1/sql"]
    assert live[0]["line"] == _line_of(lines, '"sql": "SELECT a.account_id FROM account a WHERE a.info')
    assert not [f for f in findings if f["code"] == "CTX301"]  # ? is right: the dialect is mysql


@pytest.mark.spanner
def test_spanner_googlesql_and_postgresql(spanner_emulator_host, spanner_instance, tmp_path):
    from ctxtool import spanner_emulator
    from tests.connector_schemas import SPANNER_DDL, SPANNER_PG_DDL, load_spanner

    client = spanner_emulator.client()
    names = []
    try:
        gname, pname = unique_name("ctx_valsp"), unique_name("ctx_valspg")
        names += [gname, pname]
        gdb = spanner_emulator.create_database(client, spanner_instance, gname, ddl=SPANNER_DDL)
        load_spanner(gdb)
        spanner_emulator.create_database(
            client, spanner_instance, pname, dialect="postgresql", ddl=SPANNER_PG_DDL
        )
        data = {
            "templates": [
                _parameterized(
                    "SELECT account_id FROM account WHERE frequency = 'POPLATEK TYDNE'",
                    "SELECT account_id FROM account WHERE frequency = ?",
                    "Accounts with weekly statements POPLATEK TYDNE",
                    "Accounts with weekly statements ?",
                    "Accounts with weekly statements a given frequency",
                ),
                _template("SELECT account_id FROM account WHERE frequency_typo = 'x'"),
            ],
            "value_searches": [
                {
                    "query": "SELECT frequency AS value, 'account.frequency' AS columns, 'Frequency' AS "
                    "concept_type, 0 AS distance, JSON '{}' AS context FROM account "
                    "WHERE SEARCH_NGRAMS(frequency_tokens, $value)",
                    "concept_type": "Frequency",
                }
            ],
        }
        result, findings, lines = _run_validate(tmp_path, data, spanner_emulator.dsn(spanner_instance, gname))
        live = [(f["code"], f["pointer"]) for f in findings if f["code"] in ("CTX901", "CTX802")]
        assert ("CTX901", "/templates/1/sql") in live and ("CTX802", "/templates/1/sql") in live
        assert all(p == "/templates/1/sql" for _, p in live)
        pg_data = {
            "templates": [
                _template('SELECT "A2" FROM district WHERE "A11" > 9000'),
                _template("SELECT nope FROM district"),
            ]
        }
        _, pg_findings, _ = _run_validate(tmp_path, pg_data, spanner_emulator.dsn(spanner_instance, pname))
        assert {(f["code"], f["pointer"]) for f in pg_findings if f["code"] in ("CTX901", "CTX802")} == {
            ("CTX901", "/templates/1/sql"),
            ("CTX802", "/templates/1/sql"),
        }
    finally:
        for name in names:
            spanner_emulator.drop_database(client, spanner_instance, name)


def _sample_files(engine: str) -> list[str]:
    return sorted(str(p) for p in (SAMPLES / engine).glob("*.json"))


@pytest.mark.postgres
def test_sample_sets_plan_on_the_sample_database(_pg15_admin):
    """The shipped PostgreSQL sample sets plan cleanly on the sample database (with the extensions
    their value searches use: pg_trgm and fuzzystrmatch)."""
    from ctxtool import sampledata
    from tests.backends import SAMPLE_SCALE

    files = _sample_files("postgres")
    if not files:
        pytest.skip("no PostgreSQL sample context sets in this checkout")
    name = unique_name("ctx_valsmp")
    dsn = _pg_create(_pg15_admin, name, extensions=("pg_trgm", "fuzzystrmatch"))
    try:
        sampledata.load(dsn, scale=SAMPLE_SCALE)
        result = CliRunner().invoke(cli, ["validate", *files, "--dsn", dsn, "-f", "json"])
    finally:
        _pg_drop(_pg15_admin, name)
    findings = json.loads(result.stdout)["findings"]
    bad = [f for f in findings if f["code"].startswith(("CTX8", "CTX9")) and f["severity"] == "error"]
    assert bad == []


@pytest.mark.mariadb
def test_mysql_sample_sets_plan_on_mariadb(_mariadb_available):
    from ctxtool import sampledata
    from tests.backends import SAMPLE_SCALE

    files = _sample_files("mysql")
    if not files:
        pytest.skip("no MySQL sample context sets in this checkout")
    name = unique_name("ctx_valsmy")
    dsn = _mysql_create(name)
    try:
        sampledata.load(dsn, scale=SAMPLE_SCALE)
        result = CliRunner().invoke(cli, ["validate", *files, "--dsn", dsn, "-f", "json"])
    finally:
        _mysql_drop(name)
    findings = json.loads(result.stdout)["findings"]
    bad = [f for f in findings if f["code"].startswith(("CTX8", "CTX9")) and f["severity"] == "error"]
    assert bad == []


@pytest.mark.spanner
def test_spanner_sample_sets_plan_on_the_emulator(spanner_samples_dsn):
    files = _sample_files("spanner")
    if not files:
        pytest.skip("no Spanner sample context sets in this checkout")
    result = CliRunner().invoke(cli, ["validate", *files, "--dsn", spanner_samples_dsn, "-f", "json"])
    findings = json.loads(result.stdout)["findings"]
    bad = [f for f in findings if f["code"].startswith(("CTX8", "CTX9")) and f["severity"] == "error"]
    assert bad == []
