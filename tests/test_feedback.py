"""Feedback on answers (issue 29): stored beside the conversations on SQLite and PostgreSQL 15,
recorded from a conversation's prompt (its template parameters written into the SQL) or from a
question and SQL; the CLI, `POST /feedback` and the MCP `feedback` tool; listing and the golden
export that `ctxtool eval` reads."""

from __future__ import annotations

import json
import threading

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli
from ctxtool.conversations.feedback import concrete_sql, export_golden, list_feedback, record_feedback
from ctxtool.conversations.model import ConversationNotFound, Turn
from ctxtool.conversations.sqlitestore import SQLiteStore
from ctxtool.conversations.store import open_store
from ctxtool.errors import InputError
from ctxtool.runtime.evaluate import load_golden, run_eval
from ctxtool.server.http import make_server
from ctxtool.server.service import Service
from tests.mcp_client import stdio
from tests.serve_support import call

TEMPLATE_SQL = 'SELECT COUNT(a.account_id) FROM account a JOIN district d ON a.district_id = d.district_id WHERE d."A2" = $1'


@pytest.fixture(params=["sqlite", "pg15"])
def store(request, tmp_path):
    if request.param == "sqlite":
        s = SQLiteStore(tmp_path / "conv.sqlite")
    else:
        s = open_store(request.getfixturevalue("pg_dsn"))
        s.write_returning("DELETE FROM feedback RETURNING 1")
    yield s
    s.close()


def _prompt(store) -> int:
    conv = store.create_conversation(title="feedback test")
    turn = Turn(
        prompt="how many accounts does Pisek have",
        action="runsql",
        sql=TEMPLATE_SQL,
        state={"sql": TEMPLATE_SQL, "params": ["Pisek"], "dialect": "postgres", "source": "template"},
    )
    return store.add_prompt(conv.conversation_id, turn).prompt_id


def test_feedback_is_stored_listed_and_exported(store):
    assert store.schema_version() == 4
    pid = _prompt(store)
    right = record_feedback(store, "positive", prompt_id=pid, database="financial")
    assert right.response_sql.endswith("d.\"A2\" = 'Pisek'") and right.conversation_id
    fixed = record_feedback(
        store,
        "NEGATIVE",
        question="how many cards are gold",
        sql="SELECT count(*) FROM card",
        corrected_sql="SELECT count(*) FROM card WHERE type = 'gold'",
        comment="the type was left out",
    )
    note = record_feedback(store, "negative", question="average loan", sql="SELECT 1", comment="wrong table")
    assert [f.feedback_id for f in list_feedback(store)] == [
        right.feedback_id,
        fixed.feedback_id,
        note.feedback_id,
    ]
    assert [f.feedback_id for f in list_feedback(store, feedback_type="negative")] == [
        fixed.feedback_id,
        note.feedback_id,
    ]
    golden = export_golden(list_feedback(store), database="financial")
    assert [g["golden_sql"] for g in golden] == [
        right.response_sql,
        fixed.corrected_sql,
    ]  # the note has no SQL
    assert golden[1]["tags"] == ["feedback", "negative", "corrected"]
    store.delete_prompt(pid)  # the feedback outlives its prompt (the prompt id is cleared)
    assert list_feedback(store)[0].prompt_id is None and list_feedback(store)[0].question


def test_bad_feedback_stores_nothing(store):
    with pytest.raises(InputError, match="positive or negative"):
        record_feedback(store, "meh", question="q", sql="SELECT 1")
    with pytest.raises(InputError, match="corrected SQL"):
        record_feedback(store, "negative", question="q", sql="SELECT 1")
    with pytest.raises(InputError, match="needs the SQL"):
        record_feedback(store, "positive", question="q")
    with pytest.raises(ConversationNotFound):
        record_feedback(store, "positive", prompt_id=987654)
    assert list_feedback(store) == []
    record_feedback(store, "positive", question="q", sql="SELECT 1")  # the control: a good one is stored
    assert len(list_feedback(store)) == 1


def test_concrete_sql_writes_parameters_as_literals():
    assert concrete_sql("SELECT * FROM t WHERE a = $1 AND b > $2", ["O'Hara", 3], "postgres") == (
        "SELECT * FROM t WHERE a = 'O''Hara' AND b > 3"
    )
    assert concrete_sql("SELECT * FROM t WHERE a = ?", ["x"], "mysql") == "SELECT * FROM t WHERE a = 'x'"


def test_cli_feedback_and_exported_golden_evaluates(financial_runtime, tmp_path):
    db = str(tmp_path / "conv.sqlite")
    run = CliRunner().invoke
    r = run(cli, ["feedback", "add", "positive", "--question", "how many accounts does Pisek have",
                  "--sql", TEMPLATE_SQL.replace("$1", "'Pisek'"), "--store", db, "--format", "json"])  # fmt: skip
    assert r.exit_code == 0, r.output and json.loads(r.output)["feedback_type"] == "positive"
    bad = run(cli, ["feedback", "add", "negative", "--question", "x", "--store", db])
    assert bad.exit_code == 2 and "corrected SQL" in bad.output
    listed = run(cli, ["feedback", "list", "--store", db])
    assert "positive" in listed.output and "Pisek" in listed.output
    out = tmp_path / "golden.json"
    assert run(cli, ["feedback", "export", "-o", str(out), "--store", db]).exit_code == 0
    report = run_eval(financial_runtime, load_golden(str(out)))
    assert [i.outcome for i in report.items] == ["correct"]


def test_http_and_mcp_feedback(financial_runtime, tmp_path):
    db = str(tmp_path / "conv.sqlite")
    server = make_server(Service(financial_runtime, conversation_store=db), "127.0.0.1", 0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        status, ans = call(
            url + "/ask", {"question": "how many accounts does Pisek have", "session": "s1"}, None
        )
        assert status == 200 and ans["status"] == "answered"
        status, fb = call(
            url + "/feedback",
            {"feedback": "positive", "question": ans["question"], "sql": ans["sql"], "params": ans["params"]},
            None,
        )
        assert status == 200 and fb["feedback_type"] == "positive" and fb["set_ref"]
        assert "'Pisek'" in fb["response_sql"] and "$1" not in fb["response_sql"]
        status, err = call(url + "/feedback", {"feedback": "negative", "question": "q"}, None)
        assert status == 400 and "corrected SQL" in err["error"]["message"]
        status, err = call(url + "/feedback", {"feedback": "positive", "prompt_id": 99999}, None)
        assert status == 404
    finally:
        server.shutdown()
        server.server_close()
    with stdio(cwd=tmp_path) as client:
        out = client.ok(
            "feedback", {"feedback": "negative", "question": "q", "comment": "wrong", "store": db}
        )
        assert out["feedback_type"] == "negative"
        assert "corrected SQL" in client.error(
            "feedback", {"feedback": "negative", "question": "q", "store": db}
        )
    with SQLiteStore(db) as st:
        assert [f.feedback_type for f in list_feedback(st)] == ["positive", "negative"]
