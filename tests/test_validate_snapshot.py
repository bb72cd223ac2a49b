"""``validate --snapshot``: referenced tables and columns exist (aliases and CTEs resolved), literal
comparisons have compatible types, value-search ``columns`` literals name real columns, and
PostgreSQL's case folding of unquoted identifiers is caught."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ctxtool import contextset, snapshot
from ctxtool.cli import cli
from ctxtool.validate import validate_set
from tests.test_introspect import _snap, _tbl


@pytest.fixture(scope="module")
def snap():
    return _snap(
        [
            _tbl("district", ("district_id", "integer"), ("A2", "text"), ("A3", "text"), ("A11", "integer")),
            _tbl(
                "account",
                ("account_id", "integer"),
                ("district_id", "integer"),
                ("frequency", "text"),
                ("date", "date"),
            ),
            _tbl(
                "loan",
                ("loan_id", "integer"),
                ("account_id", "integer"),
                ("amount", "integer"),
                ("active", "boolean"),
            ),
        ]
    )


def _template(sql: str) -> dict:
    """A complete template without values (so every layer but the schema ones is quiet)."""
    question = "question about " + sql[:40]
    return {
        "nl_query": question,
        "sql": sql,
        "intent": question,
        "manifest": question,
        "parameterized": {"parameterized_intent": question, "parameterized_sql": sql},
    }


def _codes(data: dict, snap: dict, dialect: str = "postgres") -> list[tuple[str, str]]:
    cs = contextset.loads(json.dumps(data, indent=2), "ctx.json")
    return [
        (f.code, f.message)
        for f in validate_set(cs, dialect=dialect, snapshot=snap)
        if f.code.startswith("CTX8")
    ]


def test_clean_set_has_no_schema_findings(snap):
    data = {
        "templates": [
            _template(
                'WITH r AS (SELECT d.district_id, d."A3" FROM district d WHERE d."A11" > 9000) '
                'SELECT a.account_id, r."A3" FROM account a JOIN r ON r.district_id = a.district_id '
                "WHERE a.date >= '1995-01-01' ORDER BY a.account_id"
            ),
            _template("SELECT loan_id FROM loan WHERE amount BETWEEN 1000 AND 5000 AND active = true"),
        ],
        "facets": [{"sql_snippet": "district.\"A3\" = 'Prague'", "intent": "in Prague"}],
        "value_searches": [
            {
                "query": "SELECT $value AS value, 'district.A3' AS columns, 'Region' AS concept_type, 0 AS distance, "
                "'' AS context FROM district T WHERE T.\"A3\" = $value",
                "concept_type": "Region",
            }
        ],
    }
    assert _codes(data, snap) == []


def test_unknown_tables_and_columns(snap):
    data = {
        "templates": [
            _template("SELECT a.acount_id FROM account a"),
            _template("SELECT x FROM loans"),
            _template("SELECT account_id FROM account a JOIN loan l ON l.account_id = a.account_id"),
            _template("WITH c AS (SELECT account_id FROM account) SELECT c.date FROM c"),
        ]
    }
    found = _codes(data, snap)
    assert ("CTX802", "column acount_id does not exist in table account; did you mean account_id?") in found
    assert ("CTX801", "table loans does not exist; did you mean loan?") in found
    assert ("CTX803", "column account_id is ambiguous: it is in a, l") in found
    assert ("CTX802", "c.date: c returns only account_id") in found
    assert len(found) == 4  # nothing reported twice, no cascade from the missing table


def test_literal_type_mismatches_are_warnings(snap):
    data = {
        "templates": [
            _template("SELECT account_id FROM account WHERE date > 1995"),
            _template("SELECT account_id FROM account WHERE frequency = 7"),
            _template("SELECT loan_id FROM loan WHERE amount > 'lots'"),
            _template("SELECT loan_id FROM loan WHERE amount > '100' AND active = 'maybe'"),
        ]
    }
    cs = contextset.loads(json.dumps(data, indent=2), "ctx.json")
    findings = [f for f in validate_set(cs, snapshot=snap) if f.code == "CTX804"]
    assert {f.severity for f in findings} == {"warning"}
    messages = [f.message for f in findings]
    assert any("account.date (date) is compared with the number 1995" in m for m in messages)
    assert any("account.frequency (text) is compared with the number 7" in m for m in messages)
    assert any("loan.amount (integer) is compared with the text 'lots'" in m for m in messages)
    assert any("loan.active (boolean) is compared with 'maybe'" in m for m in messages)
    assert len(findings) == 4  # '100' is a fine integer literal


def test_value_search_columns_literal_and_pg_case(snap):
    data = {
        "templates": [_template("SELECT district.A3 FROM district")],
        "value_searches": [
            {
                "query": "SELECT $value AS value, 'district.A4' AS columns, 'Region' AS concept_type, 0 AS distance, "
                "'' AS context FROM district T WHERE T.\"A3\" = $value",
                "concept_type": "Region",
            }
        ],
    }
    found = _codes(data, snap)
    assert (
        "CTX806",
        'district.A3 does not match the column "A3" on PostgreSQL; write district."A3"',
    ) in found
    assert any(code == "CTX805" and "A4" in msg for code, msg in found)
    # MySQL folds nothing: the same unquoted name is fine there
    assert not [
        c for c, _ in _codes({"templates": [_template("SELECT district.A3 FROM district")]}, snap, "mysql")
    ]


def test_findings_point_at_the_line_of_the_sql(snap, tmp_path):
    ctx = tmp_path / "ctx.json"
    ctx.write_text(json.dumps({"templates": [_template("SELECT nope FROM account")]}, indent=2))
    snap_path = tmp_path / "snap.json"
    snapshot.save(str(snap_path), snap)
    result = CliRunner().invoke(cli, ["validate", str(ctx), "--snapshot", str(snap_path)])
    assert result.exit_code == 1
    line = next(i for i, text in enumerate(ctx.read_text().splitlines(), 1) if '"sql"' in text)
    assert f"ctx.json:{line}:" in result.output and "CTX802" in result.output


def test_dialect_comes_from_the_snapshot(snap, tmp_path):
    mysql_snap = dict(snap, dialect="mysql", engine="mysql", flavour="mariadb")
    snap_path = tmp_path / "my.json"
    snapshot.save(str(snap_path), mysql_snap)
    ctx = tmp_path / "ctx.json"
    ctx.write_text(
        json.dumps(
            {"templates": [_template("SELECT `account_id` FROM account WHERE district_id = 3 LIMIT 5")]},
            indent=2,
        )
    )
    result = CliRunner().invoke(cli, ["validate", str(ctx), "--snapshot", str(snap_path), "-f", "json"])
    assert result.exit_code == 0, result.output
    assert not [f for f in json.loads(result.stdout)["findings"] if f["code"].startswith(("CTX2", "CTX8"))]


def test_spanner_does_not_coerce_text_to_numbers(snap):
    spanner_snap = dict(snap, dialect="spanner", engine="spanner", flavour="spanner-googlesql")
    data = {"templates": [_template("SELECT loan_id FROM loan WHERE amount > '100'")]}
    cs = contextset.loads(json.dumps(data, indent=2), "ctx.json")
    found = [
        f.message for f in validate_set(cs, dialect="spanner", snapshot=spanner_snap) if f.code == "CTX804"
    ]
    assert found == [
        "loan.amount (integer) is compared with the text '100'; GoogleSQL does not turn text into numbers: write 100"
    ]
    assert not [f for f in validate_set(cs, dialect="postgres", snapshot=snap) if f.code == "CTX804"]
