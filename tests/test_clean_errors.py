"""Clean errors and honest interrupts (issue 24, deliverable 6): an integer of 4,301 digits in a set,
a question that is not UTF-8, a damaged SQLite set store, each one line and a documented exit code
(never a traceback; a damaged store is left as it was); Ctrl-C says whether the write completed; a
rerun of a completed publish stores no duplicate version. Every case has its ordinary control."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli
from ctxtool.errors import EXIT_DATABASE, EXIT_FINDINGS, EXIT_INTERRUPTED, EXIT_STORE, EXIT_USAGE
from ctxtool.store import open_store
from tests.mcp_client import REPO
from tests.rt_support import RUNTIME_SET
from tests.serve_support import FAST_QUESTION
from tests.test_store import pg_store_dsn  # noqa: F401 - the fixture

SET = REPO / RUNTIME_SET


def ctxtool(*args: str, stdin: bytes | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ctxtool", *args],
        input=stdin,
        capture_output=True,
        cwd=REPO,
        env={**os.environ, **(env or {})},
        timeout=180,
    )


def one_line(done: subprocess.CompletedProcess) -> str:
    err = done.stderr.decode()
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture
def big_int_set(tmp_path):
    text = SET.read_text().replace('"templates": [', '"templates": [', 1)
    data = json.loads(text)
    data["templates"][0]["note"] = 0
    body = json.dumps(data, indent=2).replace('"note": 0', '"note": ' + "9" * 4301, 1)
    path = tmp_path / "big.json"
    path.write_text(body)
    line = body[: body.index("9" * 4301)].count("\n") + 1
    return path, line


def test_an_integer_of_4301_digits(big_int_set, tmp_path, data_home):
    path, line = big_int_set
    done = ctxtool("validate", str(path))
    assert done.returncode == EXIT_FINDINGS and b"Traceback" not in done.stderr
    assert f"big.json:{line}:".encode() in done.stdout and b"4,301 digits" in done.stdout
    for args in (
        ["publish", str(path), "--name", "big"],
        ["parameterize", str(path), "--dialect", "postgres"],
        ["ask", FAST_QUESTION, "--context", str(path), "--action", "showsql", "--no-llm"],
    ):
        done = ctxtool(*args)
        assert done.returncode == EXIT_USAGE, (args, done.stderr)
        assert f"big.json:{line}:" in one_line(done) and "write it as a string" in one_line(done)
    ok = tmp_path / "ok.json"  # control: the set as it was
    ok.write_text(SET.read_text())
    assert ctxtool("validate", str(ok)).returncode == 0
    done = ctxtool("ask", FAST_QUESTION, "--context", str(ok), "--action", "showsql", "--no-llm")
    assert done.returncode == 0 and b"district" in done.stdout


def test_a_lone_surrogate_in_a_file(tmp_path):
    path = tmp_path / "surrogate.json"
    path.write_text(
        SET.read_text().replace('"templates": [', '"templates": [\n{"nl_query": "a\\udfffb"},', 1)
    )
    done = ctxtool("validate", str(path))
    assert done.returncode == EXIT_FINDINGS and b"Traceback" not in done.stderr
    assert b"surrogate.json:3:16: error CTX001 invalid JSON: \\udfff is half of a UTF-16 pair" in done.stdout
    done = ctxtool("ask", FAST_QUESTION, "--context", str(path), "--action", "showsql", "--no-llm")
    assert done.returncode == EXIT_USAGE and "\\udfff is half of a UTF-16 pair" in one_line(done)


def test_a_question_that_is_not_utf8(tmp_path, financial_dsn, data_home):
    lines = b"How many clients live in the district \xffKladno?\n" + FAST_QUESTION.encode() + b"\n"
    done = ctxtool("chat", "--context", str(SET), "--dsn", financial_dsn, "--no-llm", "--action", "showsql",
                   stdin=lines)  # fmt: skip
    assert done.returncode == 0 and "not UTF-8 text (byte 39)" in one_line(done)
    assert done.stdout.count(b'"A2" = $1') == 1  # the next line was answered
    golden = tmp_path / "golden.json"
    golden.write_bytes(b'[{"question": "How many clients \xff?", "golden_sql": "SELECT 1"}]')
    done = ctxtool("eval", str(golden), "--context", str(SET), "--dsn", financial_dsn, "--no-llm")
    assert done.returncode == EXIT_USAGE and "not UTF-8 text" in one_line(done)


def _corruptions(size: int):
    rng = random.Random(24)

    def garbage(offset: int, n: int):
        def write(path):
            with open(path, "r+b") as fh:
                fh.seek(offset)
                fh.write(bytes(rng.randrange(256) for _ in range(n)))

        return write

    def sql(statement: str):
        def run(path):
            with sqlite3.connect(path) as conn:
                conn.execute(statement)

        return run

    def wrong_schema(path):
        os.remove(path)
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE ctx_sets (x int)")
            conn.execute("CREATE TABLE ctx_store_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)")
            conn.execute("INSERT INTO ctx_store_migrations VALUES (1, 'x'), (2, 'y')")

    return {
        "truncated-100": lambda p: open(p, "r+b").truncate(100),
        "truncated-half": lambda p: open(p, "r+b").truncate(size // 2),
        "truncated-page": lambda p: open(p, "r+b").truncate(4096),
        "garbage-header": garbage(0, 100),
        "garbage-page-2": garbage(4096, 4096),
        "garbage-last-page": garbage(size - 4096, 4096),
        "text-file": lambda p: open(p, "w").write("hello\n"),
        "wrong-schema": wrong_schema,
        "renamed-column": sql("ALTER TABLE ctx_set_versions RENAME COLUMN content TO stuff"),
        "content-not-json": sql("UPDATE ctx_set_versions SET content = '{not json'"),
        "content-big-int": sql('UPDATE ctx_set_versions SET content = \'{"n": ' + "9" * 5000 + "}'"),
        "content-a-list": sql("UPDATE ctx_set_versions SET content = '[]'"),
    }


COMMANDS = {
    "sets list": ["sets", "list"],
    "sets show": ["sets", "show", "fin"],
    "publish": ["publish", str(SET), "--name", "fin"],
    "ask": ["ask", FAST_QUESTION, "--set", "fin", "--action", "showsql", "--no-llm"],
}


@pytest.fixture(scope="module")
def good_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("store") / "sets.sqlite"
    with open_store(str(path)) as st:
        st.publish(json.loads(SET.read_text()), "fin")
    return path


@pytest.mark.parametrize("damage", list(_corruptions(49152)))
def test_a_damaged_set_store_is_one_line_and_left_as_it_was(good_store, tmp_path, damage):
    path = tmp_path / "sets.sqlite"
    shutil.copy(good_store, path)
    _corruptions(os.path.getsize(good_store))[damage](path)
    before = path.read_bytes()
    failed = []
    for name, args in COMMANDS.items():
        done = ctxtool(*args, "--store", str(path))
        if done.returncode == 0:
            continue  # damage this command does not read (a free page, another version's row)
        assert done.returncode == EXIT_STORE, (name, done.returncode, done.stderr[-600:])
        line = one_line(done)
        assert "the set store is damaged" in line and str(path) in line and line.isprintable(), line
        failed.append(name)
        assert path.read_bytes() == before, f"{name} changed the damaged store"
    assert failed, f"no command noticed {damage}"


def test_the_intact_store_answers_every_command(good_store, tmp_path):
    path = tmp_path / "sets.sqlite"
    shutil.copy(good_store, path)
    for name, args in COMMANDS.items():
        done = ctxtool(*args, "--store", str(path))
        assert done.returncode == 0 and b"Traceback" not in done.stderr, (name, done.stderr)


def test_publish_again_is_not_a_new_version(tmp_path):
    store = str(tmp_path / "sets.sqlite")
    first = ctxtool("publish", str(SET), "--name", "fin", "--store", store)
    assert first.returncode == 0 and b"published fin@1" in first.stdout
    again = ctxtool("publish", str(SET), "--name", "fin", "--store", store, "--format", "json")
    assert again.returncode == 0 and json.loads(again.stdout)["already_published"] is True
    assert json.loads(again.stdout)["version"] == 1
    text = ctxtool("publish", str(SET), "--name", "fin", "--store", store).stdout.decode()
    assert text.startswith("already published as version 1 (fin@1")
    changed = tmp_path / "changed.json"  # control: new content is a new version
    data = json.loads(SET.read_text())
    data["templates"] = data["templates"][:-1]
    changed.write_text(json.dumps(data))
    assert b"published fin@2" in ctxtool("publish", str(changed), "--name", "fin", "--store", store).stdout
    with open_store(store) as st:
        assert [v.version for v in st.versions("fin")] == [1, 2]


def test_ctrl_c_after_a_completed_publish_says_so(tmp_path, monkeypatch):
    """Ctrl-C landing just after the commit (before the command printed anything)."""
    from ctxtool.store.sqlite import SqliteStore

    store = str(tmp_path / "sets.sqlite")
    committed = SqliteStore.publish

    def then_interrupted(self, *args, **kwargs):
        committed(self, *args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(SqliteStore, "publish", then_interrupted)
    done = CliRunner().invoke(cli, ["publish", str(SET), "--name", "fin", "--store", store])
    assert done.exit_code == EXIT_INTERRUPTED
    assert "interrupted after it completed: published fin@1" in done.output, done.output
    monkeypatch.undo()
    rerun = CliRunner().invoke(cli, ["publish", str(SET), "--name", "fin", "--store", store])
    assert rerun.exit_code == 0 and "already published as version 1" in rerun.output
    with open_store(store) as st:
        assert len(st.versions("fin")) == 1


@pytest.mark.postgres
def test_ctrl_c_before_the_publish_completed_says_nothing_was_written(pg_store_dsn):  # noqa: F811
    """A real SIGINT while the publish waits for the store (its table locked by another session)."""
    import psycopg

    from ctxtool.store.postgres import split_schema

    with open_store(pg_store_dsn) as st:
        st.publish({"templates": json.loads(SET.read_text())["templates"][:3]}, "fin")
    dsn, schema = split_schema(pg_store_dsn)
    with psycopg.connect(dsn) as holder:
        holder.execute(f'LOCK TABLE "{schema}".ctx_set_versions IN ACCESS EXCLUSIVE MODE')
        proc = subprocess.Popen(
            [sys.executable, "-m", "ctxtool", "publish", str(SET), "--name", "fin", "--store", pg_store_dsn],
            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        waiting = 0
        while not waiting and time.monotonic() < deadline:  # it waits for the lock
            time.sleep(0.2)
            with psycopg.connect(dsn, autocommit=True) as probe:
                waiting = probe.execute(
                    "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = %s::regclass",
                    (f'"{schema}".ctx_set_versions',),
                ).fetchone()[0]
        assert waiting, "the publish never waited for the store"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == EXIT_INTERRUPTED and b"Traceback" not in err, err
    assert b"interrupted: nothing was written" in err
    with open_store(pg_store_dsn) as st:
        assert [v.version for v in st.versions("fin")] == [1]  # nothing stored
    done = ctxtool("publish", str(SET), "--name", "fin", "--store", pg_store_dsn)  # control
    assert done.returncode == 0 and b"published fin@2" in done.stdout


def test_exit_codes_are_documented():
    readme = (REPO / "README.md").read_text()
    for code in (EXIT_FINDINGS, EXIT_USAGE, EXIT_DATABASE, EXIT_STORE, EXIT_INTERRUPTED):
        assert f"| {code} " in readme or f"`{code}`" in readme, code
    assert "5 a set store that is damaged" in " ".join(CliRunner().invoke(cli, ["--help"]).output.split())


def test_ctrl_c_after_a_stored_prompt_says_so(tmp_path, monkeypatch):
    from ctxtool.conversations.store import ConversationStore
    from ctxtool.conversations.store import open_store as open_conversations

    path = str(tmp_path / "conversations.sqlite")
    with open_conversations(path) as st:
        cid = st.create_conversation("c").conversation_id
    args = ["ask", FAST_QUESTION, "--context", str(SET), "--action", "showsql", "--no-llm",
            "--conversation", cid, "--conversation-store", path]  # fmt: skip
    first = CliRunner().invoke(cli, args)  # control: an ordinary turn
    assert first.exit_code == 0, first.output
    stored = ConversationStore.add_prompt

    def then_interrupted(self, *a, **kw):
        stored(self, *a, **kw)
        raise KeyboardInterrupt

    monkeypatch.setattr(ConversationStore, "add_prompt", then_interrupted)
    done = CliRunner().invoke(cli, args)
    assert done.exit_code == EXIT_INTERRUPTED
    assert f"interrupted after it completed: stored prompt 2 in conversation {cid}" in done.output, (
        done.output
    )
    with open_conversations(path) as st:
        assert len(st.list_prompts(cid)) == 2
