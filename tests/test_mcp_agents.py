"""The defects the real Gemini CLI met in `ctxtool mcp` (issue 28), each with its test: the host's own
argument (``wait_for_previous``), files in folders that do not exist yet, a database that drops and
comes back, results an agent's host would truncate, mutate_set checked against the database, tools
taking either argument alone, messages naming tool arguments, progress during long calls, the
server-side database, and deletes that say what changed."""

from __future__ import annotations

import json
import shutil
import time
import urllib.parse
from pathlib import Path

import pytest

from ctxtool.mcp.server import registry
from ctxtool.mcp.tools import Defaults, ToolError, call
from tests.mcp_client import REPO, stdio
from tests.rt_support import RUNTIME_SET
from tests.tcp_proxy import TcpProxy

TOOLS = registry()
RUNTIME = str(REPO / RUNTIME_SET)


def test_wait_for_previous_is_accepted_and_ignored_typos_are_not(tmp_path):
    """The Gemini CLI adds wait_for_previous to every tool's schema and the model sets it (true or
    false); the tool runs as without it. Another unknown argument is still refused."""
    args = {"paths": [str(REPO / "samples" / "postgres")]}
    plain = call(TOOLS, "validate", args, Defaults())
    for flag in (True, False):
        assert call(TOOLS, "validate", {**args, "wait_for_previous": flag}, Defaults()) == plain
    with pytest.raises(ToolError, match="'wait_for_previus' was unexpected"):
        call(TOOLS, "validate", {**args, "wait_for_previus": True}, Defaults())


def _via(dsn: str, port: int) -> str:
    parts = urllib.parse.urlsplit(dsn)
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{parts.username}@127.0.0.1:{port}"))


@pytest.mark.postgres
def test_runtime_tools_reconnect_after_the_database_comes_back(financial_dsn, tmp_path):
    """ask and describe_schema through a TCP proxy: cut (the calls fail, the server lives on), then
    back on the same port (the same calls answer again, without a restart)."""
    parts = urllib.parse.urlsplit(financial_dsn)
    shutil.copy(RUNTIME, tmp_path / "set.json")  # the server's files are in its workspace
    with TcpProxy((parts.hostname, parts.port or 5432)) as proxy, stdio(cwd=tmp_path) as c:
        where = {"context": "set.json", "dsn": _via(financial_dsn, proxy.port)}
        question = {"question": "How many accounts are there?", **where}
        first = c.ok("ask", question)
        assert first["status"] == "answered"
        assert "account" in {t["name"] for t in c.ok("describe_schema", where)["tables"]}
        proxy.stop()
        failed, data = c.call("ask", question)
        assert failed, data  # the database is gone: an error, not an answer
        assert c.ok("validate", {"paths": ["set.json"]})["ok"]  # the server keeps serving
        proxy.start()
        deadline = time.monotonic() + 20  # the pool reconnects in the background, with a backoff
        while True:
            failed, again = c.call("ask", question)
            if not failed or time.monotonic() > deadline:
                break
            assert "no database session" in again, again  # says what to check, names no CLI flag
            time.sleep(0.5)
        assert not failed and again["status"] == "answered" and again["rows"] == first["rows"], again
        assert c.ok("describe_schema", where)["tables"]


def test_a_silent_call_still_reports_progress_every_two_seconds():
    """The heartbeat of a call that asked for progress: at least every 2 s, values only growing."""
    import anyio

    from ctxtool.mcp.server import _Progress

    sent: list[tuple[float, float | None, str, float]] = []

    class Session:
        async def send_progress_notification(self, token, done, total, message, request_id):
            sent.append((done, total, message, time.monotonic()))

    class Ctx:
        session = Session()
        request_id = 1

    async def main() -> None:
        progress = _Progress(Ctx(), "tok")
        await progress.send(3, 10, "checking drafted templates")
        with anyio.move_on_after(4.2):
            await progress.heartbeat()

    start = time.monotonic()
    anyio.run(main)
    times = [start] + [t for *_, t in sent]
    assert len(sent) >= 3 and max(b - a for a, b in zip(times, times[1:], strict=False)) <= 2.0
    values = [d for d, *_ in sent]
    assert values == sorted(values) and len(set(values)) == len(values) and values[-1] < 10
    assert "still running" in sent[-1][2] and "checking drafted templates" in sent[-1][2]


@pytest.mark.postgres
def test_long_results_go_to_a_file_and_the_agent_gets_a_review_list(financial_dsn, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    steps: list = []
    with stdio(cwd=tmp_path) as c:
        drafted = c.ok("draft_templates", {"dsn": financial_dsn, "output": "context/set.json"}, steps)
        text = json.dumps(drafted)
        assert len(text) < 30_000 and "templates" in drafted["omitted"]
        full = json.loads((tmp_path / drafted["full_result"]).read_text())
        written = json.loads((tmp_path / "context" / "set.json").read_text())["templates"]
        assert full["templates"] == written and len(written) == drafted["report"]["kept"] > 60
        review = drafted["review"]
        assert [r["index"] for r in review] == list(range(len(written)))
        assert {r["family"] for r in review} and all(r["question"] for r in review)
        # the whole set, a page at a time, with the set alone (no database)
        pages, offset = [], 0
        while offset is not None:
            page = c.ok("list_templates", {"context": "context/set.json", "offset": offset, "limit": 40})
            assert len(json.dumps(page)) < 30_000
            pages += page["templates"]
            offset = page["next_offset"]
        assert [t["index"] for t in pages] == list(range(len(written))) and page["total"] == len(written)
        compact = c.ok("list_templates", {"context": "context/set.json", "compact": True, "limit": 500})
        assert set(compact["templates"][0]) == {"index", "question"} and compact["next_offset"] is None
        # the database alone describes its schema
        assert "loan" in {t["name"] for t in c.ok("describe_schema", {"dsn": financial_dsn})["tables"]}


@pytest.mark.postgres
def test_mutate_set_checks_the_database_and_reports_deletes(financial_dsn, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    defaults = Defaults()
    call(TOOLS, "introspect", {"dsn": financial_dsn, "output": "snap/db.snapshot.json"}, defaults)
    good = {"nl_query": "How many loans are there in all?", "sql": "SELECT COUNT(*) FROM loan"}
    bad = {"nl_query": "What is the loan colour?", "sql": "SELECT loan.colour FROM loan"}
    add = lambda item: {"op": "add", "kind": "templates", "item": item}  # noqa: E731
    out = call(TOOLS, "mutate_set", {"path": "s.json", "operations": [add(good)]}, defaults)
    assert out["written"] and out["dialect"] == "postgres"
    # against the snapshot and against the database: a column that does not exist blocks the change
    for where in ({"snapshot": "snap/db.snapshot.json"}, {"dsn": financial_dsn}):
        refused = call(TOOLS, "mutate_set", {"path": "s.json", "operations": [add(bad)], **where}, defaults)
        assert not refused["written"] and refused["blocking_findings"], refused
        assert "colour" in json.dumps(refused["blocking_findings"])
    # without either, only the SQL itself is checked: the control
    loose = call(TOOLS, "mutate_set", {"path": "s.json", "operations": [add(bad)], "dry_run": True}, defaults)
    assert not loose["blocking_findings"]
    # the server's database checks by default
    served = Defaults(dsn=financial_dsn)
    refused = call(TOOLS, "mutate_set", {"path": "s.json", "operations": [add(bad)]}, served)
    assert refused["checked_against"] == "database" and not refused["written"]
    gone = call(
        TOOLS,
        "mutate_set",
        {"path": "s.json", "operations": [{"op": "delete", "kind": "templates", "index": 0}]},
        defaults,
    )
    assert gone["written"] and gone["changed"] == []
    assert gone["deleted"] == [
        {"op": "delete", "kind": "templates", "index": 0, "nl_query": good["nl_query"]}
    ]
    # a MySQL set's dialect is taken from its SQL, not postgres
    Path("my.json").write_text(json.dumps({"templates": [{"nl_query": "n", "sql": "SELECT `a` FROM t"}]}))
    my = call(TOOLS, "mutate_set", {"path": "my.json", "operations": [add(good)], "dry_run": True}, defaults)
    assert (my["dialect"], my["dialect_from"]) == ("mysql", "the set's SQL")


@pytest.mark.postgres
def test_messages_name_tool_arguments_not_cli_flags(financial_dsn, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ToolError) as raised:
        call(TOOLS, "draft_templates", {"dsn": financial_dsn, "tables": ["no_such_table"]}, Defaults())
    message = str(raised.value)
    assert "the argument tables" in message and "--tables" not in message


def test_the_ask_tool_offers_the_runtime_actions():
    from ctxtool.mcp.runtime_tools import ASK_ACTIONS
    from ctxtool.runtime.answer import ACTIONS

    assert ASK_ACTIONS == tuple(a for a in ACTIONS if a != "chat")
