"""`ctxtool promote` on PostgreSQL 15 with the financial sample: a right answer (a question with its
SQL, or a stored feedback) becomes a parameterized, validated template that the runtime then answers
with; an answer that fails a check (a write, SQL the database rejects, a shape the set has, a value
its value search cannot find) adds nothing and says which check, and the ordinary path still works."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli
from ctxtool.connectors import connect
from ctxtool.loop.promote import promote
from ctxtool.mcp.server import registry
from ctxtool.mcp.tools import Defaults, call
from tests.mcp_client import REPO

SET = REPO / "samples" / "postgres" / "financial_runtime.json"
LOAN_SQL = (
    "SELECT MAX(l.amount) FROM loan AS l JOIN account AS a ON a.account_id = l.account_id "
    "JOIN district AS d ON d.district_id = a.district_id WHERE d.\"A2\" = '{d}'"
)


@pytest.fixture(scope="module")
def dsn(financial_dsn):
    return financial_dsn


@pytest.fixture
def set_file(tmp_path):
    path = tmp_path / "set.json"
    path.write_text(SET.read_text())
    return path


def district_with_loans(conn) -> str:
    rows = conn.query(
        'SELECT d."A2" FROM loan l JOIN account a ON a.account_id = l.account_id '
        'JOIN district d ON d.district_id = a.district_id GROUP BY d."A2" ORDER BY count(*) DESC, 1 LIMIT 1'
    ).rows
    return rows[0][0]


def test_a_right_answer_becomes_a_template_the_runtime_answers_with(dsn, set_file):
    from ctxtool.runtime import Runtime

    before = json.loads(set_file.read_text())
    with connect(dsn) as conn:
        d = district_with_loans(conn)
        q = f"What is the largest loan amount in the district {d}?"
        out = promote(str(set_file), q, LOAN_SQL.format(d=d), conn)
        assert out.ok and out.written, out.message
        after = json.loads(set_file.read_text())
        assert len(after["templates"]) == len(before["templates"]) + 1
        t = after["templates"][out.index]
        assert t["nl_query"] == q
        assert t["parameterized"]["parameterized_sql"].endswith('WHERE d."A2" = $1')
        assert "$1" in t["parameterized"]["parameterized_intent"]
        # the district slot is covered by the set's value search, which finds the value exactly
        assert [(c["value_search"], c["found"]) for c in out.value_checks] == [("District Name", True)]
        # another district, asked in other words, is answered by the new template with its value
        other = conn.query(
            'SELECT d."A2" FROM loan l JOIN account a ON a.account_id = l.account_id JOIN district d '
            'ON d.district_id = a.district_id WHERE d."A2" <> $1 GROUP BY 1 ORDER BY 1 LIMIT 1',
            (d,),
        ).rows[0][0]
        rt = Runtime(after, connector=conn, dialect="postgres", use_llm=False)
        ans = rt.ask(f"What is the largest loan amount in the district {other}?")
        gold = conn.query(LOAN_SQL.format(d=other)).rows
        assert ans.status == "answered" and ans.params == [other]
        assert [list(r) for r in ans.rows] == [list(r) for r in gold]
        # promoted twice: the set has it, nothing is added
        again = promote(str(set_file), q, LOAN_SQL.format(d=d), conn)
        assert not again.ok and again.check == "duplicate"
        assert json.loads(set_file.read_text()) == after


@pytest.mark.parametrize(
    ("sql", "check"),
    [
        ("DELETE FROM loan", "read-only"),
        ("SELECT MAX(l.no_such_column) FROM loan AS l", "runs"),
        ("SELECT COUNT(*) FROM card WHERE card.type = 'gold'", "duplicate"),
    ],
)
def test_an_answer_failing_a_check_adds_nothing(dsn, set_file, sql, check):
    text = set_file.read_text()
    with connect(dsn) as conn:
        loans = conn.query("SELECT count(*) FROM loan").rows[0][0]
        question = "How many gold cards were issued?" if check == "duplicate" else "How many loans are there?"
        out = promote(str(set_file), question, sql, conn)
        assert not out.ok and out.check == check and not out.written
        assert out.message.startswith(check + ": ") and "\n" not in out.message
        assert set_file.read_text() == text  # byte for byte
        assert conn.query("SELECT count(*) FROM loan").rows[0][0] == loans  # the DELETE did not run
        assert loans > 0


def test_a_value_its_search_cannot_find_is_not_promoted(dsn, set_file):
    """The district search made to miss exact values: the template would never link its slot."""
    data = json.loads(set_file.read_text())
    vs = next(v for v in data["value_searches"] if v["concept_type"] == "District Name")
    vs["query"] = vs["query"].replace("lower($value", "lower('x' || $value")
    set_file.write_text(json.dumps(data, indent=2))
    text = set_file.read_text()
    with connect(dsn) as conn:
        d = district_with_loans(conn)
        out = promote(str(set_file), f"What is the largest loan amount in the district {d}?",
                      LOAN_SQL.format(d=d), conn)  # fmt: skip
    assert not out.ok and out.check == "value-search" and "District Name" in out.message
    assert set_file.read_text() == text


def test_feedback_promoted_and_published_from_the_cli(dsn, set_file, tmp_path, data_home):
    store = tmp_path / "sets.sqlite"
    with connect(dsn) as conn:
        d = district_with_loans(conn)
    q = f"What is the largest loan amount in the district {d}?"
    r = CliRunner().invoke(
        cli, ["feedback", "add", "negative", "--question", q, "--corrected-sql", LOAN_SQL.format(d=d),
              "--format", "json"],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    fid = json.loads(r.output)["feedback_id"]
    args = ["promote", str(set_file), "--feedback-id", str(fid), "--dsn", dsn, "--publish", "fin"]
    r = CliRunner().invoke(cli, [*args, "--store", str(store)])
    assert r.exit_code == 0, r.output
    assert "published fin@1" in r.output
    from ctxtool.store import load_set

    assert load_set("fin@1", str(store)).data["templates"][-1]["nl_query"] == q
    # a negative without a corrected SQL has nothing to promote: exit 1, one line, nothing written
    r = CliRunner().invoke(cli, ["feedback", "add", "negative", "--question", q, "--comment", "wrong year",
                                 "--format", "json"])  # fmt: skip
    fid2 = json.loads(r.output)["feedback_id"]
    text = set_file.read_text()
    r = CliRunner().invoke(cli, ["promote", str(set_file), "--feedback-id", str(fid2), "--dsn", dsn])
    assert r.exit_code == 1 and "not promoted" in r.output and "Traceback" not in r.output
    assert set_file.read_text() == text


def test_mcp_promote_dry_run_writes_nothing(dsn, set_file):
    text = set_file.read_text()
    with connect(dsn) as conn:
        d = district_with_loans(conn)
    args = {"path": str(set_file), "question": f"What is the largest loan amount in the district {d}?",
            "sql": LOAN_SQL.format(d=d), "dsn": dsn, "dry_run": True}  # fmt: skip
    workspace = Defaults(root=str(set_file.parent))  # the MCP file tools stay in their workspace
    out = call(registry(), "promote", args, workspace)
    assert out["ok"] and not out["written"] and out["check"] is None
    assert set_file.read_text() == text
    out = call(registry(), "promote", {**args, "dry_run": False}, workspace)
    assert out["ok"] and out["written"]
