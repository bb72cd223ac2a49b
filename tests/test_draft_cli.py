"""`ctxtool draft templates|facets` from the command line, --merge, and `--llm` against the scripted
language-model server (tests/fake_llm.py)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli
from ctxtool.connectors import connect
from ctxtool.draft import draft
from ctxtool.draft.merge import merge_file
from ctxtool.llm import ChatClient
from ctxtool.snapshot import build, save
from tests.fake_llm import error, reply, respond

FINANCIAL = "district,account,client,disp,loan,card,trans"


@pytest.fixture(scope="module")
def pg_snapshot(pg_samples_dsn, tmp_path_factory):
    path = tmp_path_factory.mktemp("snap") / "financial.json"
    with connect(pg_samples_dsn) as conn:
        save(str(path), build(conn, profile=True))
    return str(path)


def test_merge_keeps_order_indent_and_legacy_spelling(tmp_path):
    path = tmp_path / "set.json"
    original = {
        "description": "kept as is",
        "templates": [{"nl_query": "How many loans are there?", "sql": "SELECT COUNT(*) FROM loan"}],
        "fragments": [{"intent": "gold cards", "fragment": "card.type = 'gold'"}],
    }
    path.write_text(json.dumps(original, indent=4) + "\n")
    new_templates = [
        {"nl_query": "how many loans are there?", "sql": "SELECT COUNT(*) AS n FROM loan"},  # same question
        {"nl_query": "Count of loans with status 'A'", "sql": "SELECT COUNT(*) FROM loan WHERE status = 'A'"},
        {
            "nl_query": "Count of loans with status 'B'",
            "sql": "SELECT COUNT(*) FROM loan WHERE status = 'B'",
        },  # same SQL shape
    ]
    assert merge_file(str(path), "templates", new_templates, "postgres") == (1, 2)
    facets = [
        {"intent": "gold cards", "sql_snippet": "card.type = 'gold'"},
        {
            "intent": "junior cards",
            "sql_snippet": "card.type = 'junior'",
            "parameterized": {
                "parameterized_intent": "$1 cards",
                "parameterized_sql_snippet": "card.type = $1",
            },
        },
    ]
    assert merge_file(str(path), "facets", facets, "postgres") == (1, 1)
    text = path.read_text()
    data = json.loads(text)
    assert list(data) == ["description", "templates", "fragments"]
    assert [t["nl_query"] for t in data["templates"]] == [
        "How many loans are there?",
        "Count of loans with status 'A'",
    ]
    assert data["fragments"][1] == {
        "intent": "junior cards",
        "fragment": "card.type = 'junior'",
        "parameterized": {"parameterized_intent": "$1 cards", "parameterized_fragment": "card.type = $1"},
    }
    assert text.startswith('{\n    "description"') and text.endswith("}\n")
    assert merge_file(str(path), "templates", new_templates, "postgres") == (0, 3)


@pytest.mark.postgres
def test_cli_templates_from_snapshot_and_merge(pg_snapshot, tmp_path):
    out = tmp_path / "set.json"
    runner = CliRunner()
    res = runner.invoke(
        cli, ["draft", "templates", "--snapshot", pg_snapshot, "--tables", FINANCIAL, "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text())
    assert len(data["templates"]) >= 30
    assert "validated (no --dsn: not executed)" in res.stderr
    res = runner.invoke(
        cli,
        [
            "draft",
            "templates",
            "--snapshot",
            pg_snapshot,
            "--tables",
            FINANCIAL,
            "--merge",
            str(out),
            "--format",
            "json",
        ],
    )
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["kind"] == "templates"
    assert json.loads(out.read_text()) == data  # nothing new: every draft was already there
    assert "added 0 templates" in res.stderr


@pytest.mark.postgres
def test_cli_facets_with_dsn_to_stdout(pg_samples_dsn):
    res = CliRunner().invoke(cli, ["draft", "facets", "--dsn", pg_samples_dsn, "--tables", "loan,card"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert len(data["facets"]) >= 5
    assert all(f["sql_snippet"].startswith(("loan.", "card.")) for f in data["facets"])
    assert "validated and executed" in res.stderr


def test_cli_usage_errors(tmp_path):
    runner = CliRunner()
    res = runner.invoke(cli, ["draft", "templates"])
    assert res.exit_code == 2 and "exactly one of --dsn and --snapshot" in res.output
    res = runner.invoke(cli, ["draft", "facets", "--snapshot", "x.json", "--dsn", "postgresql://h/db"])
    assert res.exit_code == 2
    res = runner.invoke(cli, ["draft", "templates", "--snapshot", str(tmp_path / "missing.json")])
    assert res.exit_code == 2 and "no such file" in res.output
    assert "values" in runner.invoke(cli, ["draft", "--help"]).output


@pytest.mark.postgres
def test_llm_proposals_are_checked_like_everything_else(pg_samples_dsn, fake_llm):
    seen = {}

    def answer(request):
        seen["prompt"] = request.last_user
        assert request.body["response_format"] == {"type": "json_object"}
        return json.dumps(
            {
                "proposals": [
                    {
                        # (not "= 60": that one the schema drafts already, and a query is kept once)
                        "question": "How many loans of at least 60 months are there?",
                        "sql": "SELECT COUNT(*) FROM loan WHERE loan.duration >= 60",
                    },
                    {"question": "Which widgets exist?", "sql": "SELECT * FROM widgets"},
                    {
                        "question": "Loans with status 'Q'",
                        "sql": "SELECT loan.loan_id FROM loan WHERE loan.status = 'Q'",
                    },
                    {"question": "broken", "sql": "DELETE FROM loan"},
                ],
                "rewordings": [
                    {"id": 0, "question": "What is the number of loans?"},
                    {"id": 1, "question": "Loans per status, without the value"},
                ],
            }
        )

    fake_llm.script(respond(answer))
    client = ChatClient.from_env(sleep=lambda s: None)
    with connect(pg_samples_dsn) as conn:
        snap = build(conn, profile=True)
        result = draft("templates", snap, connector=conn, tables=["loan"], llm=client)
    assert "TABLE loan (loans)" in seen["prompt"] and "status" in seen["prompt"]
    llm_drafts = [d for d in result.drafts if d.origin == "llm"]
    assert [d.status for d in llm_drafts] == ["kept", "dropped", "dropped", "dropped"]
    assert llm_drafts[1].reason.startswith("fails:")
    assert llm_drafts[2].reason == "returns no rows"
    kept = llm_drafts[0].item
    assert kept["parameterized"]["parameterized_sql"] == "SELECT COUNT(*) FROM loan WHERE loan.duration >= $1"
    questions = [d.text for d in result.drafts]
    assert "What is the number of loans?" in questions  # a rewording without values is taken
    assert "1 rewordings taken" in result.llm_note or "2 rewordings taken" in result.llm_note


@pytest.mark.postgres
def test_llm_failure_leaves_offline_drafts(pg_snapshot, fake_llm, tmp_path):
    fake_llm.script(error(402, "Insufficient credits"))
    out = tmp_path / "set.json"
    res = CliRunner().invoke(
        cli, ["draft", "templates", "--snapshot", pg_snapshot, "--tables", "loan", "--llm", "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert "language model not used" in res.stderr and "out of credits" in res.stderr
    assert "sk-fake-secret" not in res.output
    assert json.loads(out.read_text())["templates"]


def test_llm_unconfigured_is_a_usage_error(monkeypatch, tmp_path):
    monkeypatch.delenv("CTXTOOL_LLM_BASE_URL", raising=False)
    snap = tmp_path / "s.json"
    snap.write_text("{}")
    res = CliRunner().invoke(cli, ["draft", "templates", "--snapshot", str(snap), "--llm"])
    assert res.exit_code == 2 and "CTXTOOL_LLM_BASE_URL" in res.output


def test_reply_helper_is_used():
    assert reply("x").status == 200


@pytest.mark.postgres
def test_starter_glossary_round_trip(pg_snapshot, tmp_path):
    out = tmp_path / "glossary.json"
    runner = CliRunner()
    res = runner.invoke(cli, ["draft", "glossary", "--snapshot", pg_snapshot, "-o", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text())
    assert data["columns"]["district.A3"] == "region" and data["tables"]["trans"]["singular"] == "transaction"
    assert "district.district_id" not in data["columns"]  # keys are not named in questions
    data["columns"]["district.A3"] = "administrative region"
    out.write_text(json.dumps(data, indent=2))
    res = runner.invoke(
        cli, ["draft", "templates", "--snapshot", pg_snapshot, "--tables", "district", "--glossary", str(out)]
    )
    assert res.exit_code == 0, res.output
    questions = [t["nl_query"] for t in json.loads(res.stdout)["templates"]]
    assert "How many districts are there for each administrative region?" in questions
