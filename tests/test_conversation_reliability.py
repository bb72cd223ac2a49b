"""Reliability of the conversation store: concurrent writers, a writer killed mid-write."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from ctxtool.conversations.model import Turn
from ctxtool.conversations.store import SQLiteStore, open_store

WRITER = textwrap.dedent(
    """
    import sys
    from ctxtool.conversations.model import Turn
    from ctxtool.conversations.store import open_store
    dsn, conv, proc, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    store = open_store(dsn, auto_purge=False)
    for i in range(count):
        store.add_prompt(conv, Turn(prompt=f"p{proc}-{i}", profile_name="bench", sql="SELECT 1",
                                    state={"proc": proc, "i": i}, request_id=f"{proc}-{i}", sid=proc, serial=i))
    store.close()
    """
)


def _run_writers(dsn: str, conv: str, procs: int, count: int) -> None:
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    children = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, dsn, conv, str(p), str(count)], env=env, stderr=subprocess.PIPE
        )
        for p in range(procs)
    ]
    for child in children:
        _, err = child.communicate(timeout=300)
        assert child.returncode == 0, err.decode()


def _check_all_written(store, conv: str, procs: int, count: int) -> None:
    turns = store.list_prompts(conv)
    assert len(turns) == procs * count
    assert len({t.request_id for t in turns}) == procs * count  # nothing duplicated
    assert len({t.prompt_id for t in turns}) == procs * count
    for p in range(procs):  # each writer's prompts in its own order, none lost
        mine = [t for t in turns if t.sid == str(p)]
        assert [t.serial for t in mine] == list(range(count))
        assert all(t.state == {"proc": str(p), "i": t.serial} for t in mine)


def test_eight_processes_sqlite(tmp_path):
    path = str(tmp_path / "shared.sqlite")
    with open_store(path) as store:
        conv = store.create_conversation("concurrency").conversation_id
    _run_writers(path, conv, 8, 1000)
    with open_store(path) as store:
        _check_all_written(store, conv, 8, 1000)
        assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@pytest.mark.postgres
def test_eight_processes_postgres(pg_dsn):
    with open_store(pg_dsn) as store:
        conv = store.create_conversation("concurrency").conversation_id
    _run_writers(pg_dsn, conv, 8, 1000)
    with open_store(pg_dsn) as store:
        _check_all_written(store, conv, 8, 1000)
        store.drop_conversation(conv, force=True)


KILLED_WRITER = textwrap.dedent(
    """
    import sys
    from ctxtool.conversations.model import Turn
    from ctxtool.conversations.store import open_store
    store = open_store(sys.argv[1], auto_purge=False)
    big = "x" * 200_000  # large rows make the kill likely to land inside a write
    i = 0
    while True:
        t = store.add_prompt(sys.argv[2], Turn(prompt=f"p{i}", answer=big, state={"i": i, "pad": big}, serial=i))
        print(t.prompt_id, flush=True)
        i += 1
    """
)


def test_killed_writer_leaves_store_consistent(tmp_path):
    path = str(tmp_path / "killed.sqlite")
    with open_store(path) as store:
        conv = store.create_conversation("kill").conversation_id
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER, path, conv],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    acknowledged = 0
    deadline = time.monotonic() + 60
    while acknowledged < 40 and time.monotonic() < deadline:
        if child.stdout.readline():
            acknowledged += 1
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert acknowledged >= 40
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    raw.close()
    with SQLiteStore(path) as store:
        turns = store.list_prompts(conv)
        # every acknowledged write is there; at most the one in flight (committed, unacknowledged) more
        assert acknowledged <= len(turns) <= acknowledged + 2
        assert [t.serial for t in turns] == list(range(len(turns)))
        for t in turns:  # no half-written row
            assert t.answer == "x" * 200_000 and t.state["i"] == t.serial and len(t.state["pad"]) == 200_000
        # the store keeps working
        store.add_prompt(conv, Turn(prompt="after the crash"))
        assert store.recent_prompts(conv, 1)[0].prompt == "after the crash"


def test_concurrent_purge_and_writes(tmp_path):
    """Purging while another process writes to a kept conversation loses none of its prompts."""
    from datetime import timedelta

    from ctxtool.conversations.model import utcnow

    path = str(tmp_path / "purge.sqlite")
    with open_store(path) as store:
        keep = store.create_conversation("keep", retention_days=0).conversation_id
        expired = [
            store.create_conversation(
                f"old{i}", retention_days=1, now=utcnow() - timedelta(days=3)
            ).conversation_id
            for i in range(50)
        ]
        for cid in expired:
            store.add_prompt(cid, Turn(prompt="old"))
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    child = subprocess.Popen([sys.executable, "-c", WRITER, path, keep, "0", "300"], env=env)
    with open_store(path, auto_purge=False) as store:
        purged = store.purge_expired()
    child.wait(timeout=120)
    assert child.returncode == 0
    assert sorted(purged) == sorted(expired)
    with open_store(path) as store:
        assert len(store.list_prompts(keep)) == 300
        assert [c.conversation_id for c in store.list_conversations()] == [keep]
        assert json.loads(json.dumps(store.vector_stats()))["prompts"] == 300
