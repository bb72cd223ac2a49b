"""`ctxtool mcp` driven by the MCP Python SDK client over stdio: every tool, on real PostgreSQL 15 and
MariaDB with the samples loaded, as an agent's authoring session would call them; and bad input, which
must get a tool error with a message (no password in it) while the server keeps serving."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import sqlglot

from tests.backends import SAMPLE_SCALE, _mysql_create, _mysql_drop, _pg_create, _pg_drop, unique_name
from tests.mcp_client import REPO, stdio
from tests.rt_support import GOLDEN

AUTHORING = {
    "introspect",
    "draft_templates",
    "draft_facets",
    "draft_values",
    "parameterize",
    "validate",
    "test_values",
    "mutate_set",
    "eval",
    "generate_dataset",
    "feedback",
    "promote",
    "improve",
}
RUNTIME = {"ask", "query_data", "list_templates", "describe_schema"}


RUNTIME_FILE = "financial_runtime.json"  # in the server's workspace (its files stay there)


def _project(work: Path, dialect: str) -> Path:
    """A project folder holding the engine's runtime set, for a server started in it."""
    shutil.copy(REPO / "samples" / dialect / RUNTIME_FILE, work / RUNTIME_FILE)
    return work


@pytest.fixture(scope="module", params=["postgres", "mariadb"])
def db(request):
    """(engine, dsn, dialect, runtime set) on a database of this module's own: draft_values applies
    DDL to it."""
    from ctxtool import sampledata

    if request.param == "postgres":
        admin = request.getfixturevalue("_pg15_admin")
        name = unique_name("ctx_mcp")
        dsn = _pg_create(admin, name, extensions=("pg_trgm", "fuzzystrmatch"))
        drop = lambda: _pg_drop(admin, name)  # noqa: E731
    else:
        request.getfixturevalue("_mariadb_available")
        name = unique_name("ctx_mcpmy")
        dsn = _mysql_create(name)
        drop = lambda: _mysql_drop(name)  # noqa: E731
    try:
        sampledata.load(dsn, scale=SAMPLE_SCALE)
        dialect = "postgres" if request.param == "postgres" else "mysql"
        yield request.param, dsn, dialect, RUNTIME_FILE
    finally:
        drop()


@pytest.fixture(scope="module")
def client(db, tmp_path_factory):
    """One warm server per engine, started with nothing configured, in a project directory."""
    work = _project(tmp_path_factory.mktemp(f"mcp-{db[0]}"), db[2])
    with stdio(cwd=work) as c:
        c.work = work
        yield c


def test_tools_are_listed_with_schemas_for_a_model(client):
    tools = client.tools()
    assert set(tools) == AUTHORING | RUNTIME
    for tool in tools.values():
        assert len(tool.description) > 60, tool.name
        schema = tool.input_schema
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        for name, prop in schema["properties"].items():
            assert "type" in prop, (tool.name, name)
    assert tools["mutate_set"].input_schema["required"] == ["path", "operations"]
    assert tools["validate"].annotations.read_only_hint is True
    assert tools["draft_values"].annotations.read_only_hint is False


def test_authoring_session(client, db):
    engine, dsn, dialect, _ = db
    work: Path = client.work

    snap = client.ok("introspect", {"dsn": dsn, "output": "db.snapshot.json"})
    names = {t["table"].split(".")[-1] for t in snap["tables"]}
    assert {"district", "account", "loan"} <= names and "snapshot" not in snap
    assert snap["dialect"] == dialect and (work / "db.snapshot.json").exists()

    steps: list = []
    drafted = client.ok(
        "draft_templates", {"dsn": dsn, "output": "set.json", "tables": ["district", "account"]}, steps
    )
    told = [s[2] for s in steps if "(still running" not in s[2]]  # a heartbeat may come first under load
    assert told and told[0].startswith("introspecting")  # progress, while the drafts are checked
    assert drafted["executed"] and drafted["report"]["kept"] == len(drafted["review"]) > 3
    written = json.loads((work / "set.json").read_text())["templates"]
    assert [r["question"] for r in drafted["review"]] == [t["nl_query"] for t in written]
    assert [r["index"] for r in drafted["review"]] == list(range(len(written)))
    if "templates" in drafted:
        assert drafted["templates"] == written
    else:  # too long for an agent's host: the full result is in a file
        assert json.loads((work / drafted["full_result"]).read_text())["templates"] == written
    facets = client.ok("draft_facets", {"snapshot": "db.snapshot.json", "merge": "set.json"})
    assert facets["added"] > 0 and not facets["executed"]

    values = client.ok("draft_values", {"dsn": dsn, "merge": "set.json", "columns": ["district.A2"]})
    assert values["added"] == 1 and values["ddl"] and values["ddl_applied"] == []  # reported only
    (search,) = values["searches"]
    assert search["column"].endswith("district.A2") and search["ddl"] == values["ddl"]
    applied = client.ok(
        "draft_values", {"dsn": dsn, "merge": "set.json", "columns": ["district.A2"], "apply_ddl": True}
    )
    assert applied["replaced"] == 1 and {a["status"] for a in applied["ddl_applied"]} <= {"applied", "exists"}
    assert applied["ddl_applied"]
    # the DDL may add columns (MariaDB's SOUNDEX key): the snapshot is taken again after applying it
    client.ok("introspect", {"dsn": dsn, "output": "db.snapshot.json"})

    check = client.ok("validate", {"paths": ["set.json"], "snapshot": "db.snapshot.json", "dsn": dsn})
    assert check["ok"], [f["message"] for f in check["findings"]]
    assert check["summary"]["files"] == 1 and check["files"] == ["set.json"]

    tested = client.ok("test_values", {"path": "set.json", "dsn": dsn, "samples": 5})
    assert tested["summary"]["searches"] == 1 and tested["searches"][0]["ok"], tested
    probe = client.ok("test_values", {"path": "set.json", "dsn": dsn, "probe": "Pisek"})
    assert probe["searches"][0]["rows"][0]["value"] == "Pisek"

    # the agent adds a question the user asked for, without derived forms: mutate_set derives them
    question = "How many districts are in the region north Moravia?"
    sql = (
        "SELECT COUNT(*) FROM district WHERE "
        + ('"A3"' if engine == "postgres" else "`A3`")
        + " = 'north Moravia'"
    )
    before = (work / "set.json").read_text()
    changed = client.ok(
        "mutate_set",
        {
            "path": "set.json",
            "dialect": dialect,
            "operations": [{"op": "add", "kind": "templates", "item": {"nl_query": question, "sql": sql}}],
        },
    )
    assert changed["written"] and not changed["blocking_findings"]
    data = json.loads((work / "set.json").read_text())
    added = data["templates"][-1]
    assert added["nl_query"] == question and "parameterized" in added and "manifest" in added
    assert (work / "set.json").read_text().startswith(before[:40])  # same layout: key order, indent

    # a broken change is refused and the file is left as it was
    text = (work / "set.json").read_text()
    refused = client.ok(
        "mutate_set",
        {
            "path": "set.json",
            "dialect": dialect,
            "operations": [
                {"op": "update", "kind": "templates", "nl_query": question, "item": {"sql": "SELEC 1 FROM"}}
            ],
        },
    )
    codes = {f["code"] for f in refused["blocking_findings"]}
    assert not refused["written"] and "CTX201" in codes, refused["blocking_findings"]
    assert refused["blocking_findings"][0]["fix"] and (work / "set.json").read_text() == text

    # parameterize fills an item written by hand without derived forms
    data = json.loads((work / "set.json").read_text())
    data["templates"].insert(0, {"nl_query": question + " (copy)", "sql": sql})
    (work / "set.json").write_text(json.dumps(data, indent=2) + "\n")
    report = client.ok("parameterize", {"path": "set.json", "dialect": dialect})
    assert report["changed"] and not report["written"] and "+++ set.json (parameterized)" in report["diff"]
    assert report["items"][0]["pointer"] == "/templates/0" and report["items"][0]["status"] == "filled"
    written = client.ok("parameterize", {"path": "set.json", "dialect": dialect, "write": True})
    assert (
        written["written"] and "parameterized" in json.loads((work / "set.json").read_text())["templates"][0]
    )
    removed = client.ok(
        "mutate_set",
        {
            "path": "set.json",
            "dialect": dialect,
            "operations": [{"op": "delete", "kind": "templates", "index": 0}],
        },
    )
    assert removed["written"] and removed["counts"]["templates"] == len(data["templates"]) - 1


def test_runtime_tools_and_eval(client, db):
    engine, dsn, dialect, runtime_set = db
    work: Path = client.work
    answer = client.ok(
        "ask", {"question": "How many gold cards were issued?", "context": runtime_set, "dsn": dsn}
    )
    assert answer["status"] == "answered" and answer["params"] == ["gold"]
    assert isinstance(answer["rows"][0][0], int)
    shown = client.ok(
        "ask",
        {
            "question": "How many gold cards were issued?",
            "action": "showsql",
            "context": runtime_set,
            "dsn": dsn,
        },
    )
    assert shown["sql"] and not shown.get("rows")
    rows = client.ok(
        "query_data", {"question": "What is the capital of France?", "context": runtime_set, "dsn": dsn}
    )
    assert rows["status"] == "declined"
    templates = client.ok("list_templates", {"context": runtime_set, "dsn": dsn})
    assert len(templates["templates"]) > 30
    tables = client.ok("describe_schema", {"context": runtime_set, "dsn": dsn})["tables"]
    assert "loan" in {t["name"] for t in tables}

    golden = json.loads((REPO / GOLDEN).read_text())[:6]
    if engine == "mariadb":
        for q in golden:
            q["golden_sql"] = sqlglot.transpile(q["golden_sql"], read="postgres", write="mysql")[0]
    (work / "golden.json").write_text(json.dumps(golden))
    steps: list = []
    report = client.ok(
        "eval", {"golden": "golden.json", "context": runtime_set, "dsn": dsn, "verbose": True}, progress=steps
    )
    assert steps[0][1] == 6 and steps[-1] == (6, 6, "asking golden questions")  # progress notifications
    overall = report["summary"]["overall"]
    assert overall["questions"] == 6 and overall["correct"] >= 4 and overall["wrong"] == 0
    assert {q["id"] for q in report["questions"]} == {q["id"] for q in golden}


def test_bad_input_gets_a_tool_error_and_the_server_lives_on(client, db):
    engine, dsn, dialect, runtime_set = db
    work: Path = client.work
    assert "unknown tool" in client.error("drop_database", {})
    assert "paths" in client.error("validate", {"paths": "set.json"})  # a string, not a list
    assert "was unexpected" in client.error("introspect", {"dsn": dsn, "verbose": True})
    assert "no such file" in client.ok("validate", {"paths": ["missing.json"]})["unreadable"][0]
    assert "no database given" in client.error("introspect", {})
    (work / "broken.json").write_text('{"templates": [\n  {"nl_query": "x",}\n]}\n')
    assert "broken.json:2:" in client.error("parameterize", {"path": "broken.json", "dialect": dialect})
    found = client.ok("validate", {"paths": ["broken.json"]})
    assert not found["ok"] and found["findings"][0]["code"] == "CTX001" and found["findings"][0]["line"] == 2
    assert "unreadable" in found and client.ok("validate", {"paths": ["nothing-*.json"]})["unreadable"]
    assert "broken.json:2:20: invalid JSON" in client.error(
        "eval", {"golden": "broken.json", "context": runtime_set, "dsn": dsn}
    )
    (work / "shape.json").write_text('{"questions": 3}')
    assert "golden file is a JSON list" in client.error(
        "eval", {"golden": "shape.json", "context": runtime_set, "dsn": dsn}
    )
    assert "index 99" in client.error(
        "mutate_set",
        {"path": "broken2.json", "operations": [{"op": "delete", "kind": "facets", "index": 99}]},
    )
    assert not (work / "broken2.json").exists()
    assert "operations" in client.error("mutate_set", {"path": "x.json", "operations": []})

    # a dead server and a wrong password: a database error naming what to do, never the password
    secret = "hunter2-Secret"
    if engine == "postgres":
        bad = f"postgresql://postgres:{secret}@127.0.0.1:1/nowhere"
    else:
        bad = dsn.replace("mysql://root@", f"mysql://root:{secret}@")
    message = client.error("introspect", {"dsn": bad})
    assert secret not in message and ("refused" in message or "authentication" in message), message
    message = client.error("ask", {"question": "How many accounts?", "context": runtime_set, "dsn": bad})
    assert secret not in message
    message = client.error("test_values", {"path": runtime_set, "dsn": bad})
    assert secret not in message
    assert client.ok("list_templates", {"context": runtime_set, "dsn": dsn})["templates"]  # still serving


def test_server_defaults_from_options(db, tmp_path):
    """`ctxtool mcp --dsn --context`: the tools take the server's database and set when a call omits them."""
    engine, dsn, dialect, runtime_set = db
    with stdio("--dsn", dsn, "--context", runtime_set, cwd=_project(tmp_path, dialect)) as c:
        assert c.ok("ask", {"question": "How many gold cards were issued?"})["status"] == "answered"
        assert c.ok("introspect", {"output": "s.json"})["dialect"] == dialect
        follow = c.ok("ask", {"question": "How many accounts are there?", "session": "s1"})
        assert follow["conversation"]["session"] == "s1"


def test_requests_from_a_file_are_all_answered_before_exit(tmp_path):
    """`ctxtool mcp < requests.jsonl`: end of input waits for every answer; a bad request is an error
    response, a line that is not JSON a parse error (-32700), and the process exits 0."""
    import subprocess
    import sys

    def request(i: int, method: str, params: dict) -> str:
        return json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params})

    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    lines = [
        request(1, "initialize", init),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        "not json",
        request(
            2,
            "tools/call",
            {"name": "validate", "arguments": {"paths": [str(REPO / "samples" / "postgres")]}},
        ),
        request(3, "tools/call", {"name": "validate", "arguments": {"paths": 7}}),
        request(4, "no/such", {}),
    ]
    requests = tmp_path / "requests.jsonl"
    requests.write_text("\n".join(lines) + "\n")
    with requests.open() as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "ctxtool", "mcp"], stdin=stdin, capture_output=True, text=True, timeout=120
        )
    assert done.returncode == 0, done.stderr
    answers = {r["id"]: r for r in map(json.loads, done.stdout.splitlines())}
    assert set(answers) == {1, 2, 3, 4, None} and answers[None]["error"]["code"] == -32700
    assert answers[2]["result"]["structuredContent"]["summary"]["files"] == 3
    assert answers[3]["result"]["isError"] and "paths" in answers[3]["result"]["content"][0]["text"]
    assert answers[4]["error"]["code"] == -32601


def _sessions(engine: str, dsn: str) -> set:
    """The server-side sessions open on the test database (pid / connection id, and start)."""
    import urllib.parse

    name = urllib.parse.urlsplit(dsn).path.lstrip("/")
    if engine == "postgres":
        import psycopg

        with psycopg.connect(dsn.rsplit("/", 1)[0] + "/postgres") as conn:
            sql = "SELECT pid, backend_start FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()"
            return set(conn.execute(sql, (name,)).fetchall())
    from tests.backends import _mysql_connect

    conn = _mysql_connect()
    try:
        cur = conn.cursor()
        cur.execute(
            "SELECT ID FROM information_schema.PROCESSLIST WHERE DB = %s AND ID <> CONNECTION_ID()", (name,)
        )
        return set(cur.fetchall())
    finally:
        conn.close()


def test_sessions_stay_open_between_calls(db, tmp_path):
    """The server keeps its database sessions warm: the session of a call outlives it, and the next
    call on the same database reuses it."""
    engine, dsn, dialect, runtime_set = db
    with stdio(cwd=_project(tmp_path, dialect)) as c:
        before = _sessions(engine, dsn)
        c.ok("validate", {"paths": [runtime_set], "dsn": dsn})
        first = _sessions(engine, dsn)
        assert first - before, "no session kept open after the call"
        c.ok("validate", {"paths": [runtime_set], "dsn": dsn})
        c.ok("validate", {"text": json.dumps({"templates": []}), "dsn": dsn})
        assert _sessions(engine, dsn) == first
