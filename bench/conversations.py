"""Benchmark: appending a prompt and loading a conversation's context in a big store.

Builds a store with 1,000,000 prompts across 10,000 conversations (in a temporary directory for
SQLite; in a fresh schema of the given PostgreSQL database with ``--pg DSN``), then times
  (a) ctxtool: ``store.add_prompt(...)`` + ``store.context(id)`` (the conversation and its last
      ``conversation_length`` prompts), and
  (b) the floor: one indexed INSERT into the same table plus one indexed SELECT of the last 10
      prompts, through the same driver (sqlite3 / psycopg) and the same connection,
on random conversations, and reports medians, p95 and the ratio (goal: at most 2x).

    .venv/bin/python bench/conversations.py [--prompts 1000000] [--conversations 10000] [--pg DSN]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ctxtool.conversations.model import Turn, utcnow  # noqa: E402
from ctxtool.conversations.store import SQLiteStore, open_store  # noqa: E402


def build(store, conversations: int, prompts: int) -> list[str]:
    """Fill the store directly (bulk), like a store that has been used for a long time."""
    now = utcnow()
    ids = [f"00000000-0000-4000-8000-{i:012d}" for i in range(conversations)]
    per = prompts // conversations
    state = json.dumps({"sql": "SELECT count(*) FROM client", "params": [], "columns": ["count"]})
    ts = store._to_db_time(now - timedelta(days=1))
    with store._write() as tx:
        for cid in ids:
            tx.execute(
                "INSERT INTO conversations (conversation_id, title, description, retention_days, conversation_length, "
                "created, modified, expires) VALUES (?, ?, NULL, 0, 10, ?, ?, NULL)",
                (cid, "bench", ts, ts),
            )
    batch = []
    rng = random.Random(1)
    order = [cid for cid in ids for _ in range(per)]
    rng.shuffle(order)  # prompts of a conversation are interleaved with others, as in real use
    start = time.perf_counter()
    for n, cid in enumerate(order):
        batch.append(
            (
                cid,
                "financial",
                "runsql",
                f"how many clients are there? ({n})",
                "SELECT count(*) FROM client",
                "1 row",
                f"There are {n} clients.",
                state,
                ts,
                ts,
                "bench",
                "127.0.0.1",
                "1",
                n,
            )
        )
        if len(batch) == 50_000:
            _insert(store, batch)
            batch = []
            print(f"  {n + 1:>9,} prompts  {time.perf_counter() - start:6.1f}s", file=sys.stderr)
    if batch:
        _insert(store, batch)
    return ids


def _insert(store, batch) -> None:
    sql = (
        "INSERT INTO prompts (conversation_id, profile_name, prompt_action, prompt, response_sql, result_summary, "
        "answer, state, created, modified, client_identifier, client_ip, sid, serial) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )
    if store.kind == "sqlite":
        with store._lock:
            store.conn.execute("BEGIN IMMEDIATE")
            store.conn.executemany(sql, batch)
            store.conn.execute("COMMIT")
    else:
        with store.conn.cursor() as cur, store.conn.transaction():
            cur.executemany(sql.replace("?", "%s"), batch)


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p * (len(values) - 1))))]


def measure(store, ids: list[str], rounds: int) -> dict:
    rng = random.Random(7)
    ours: list[float] = []
    floor: list[float] = []
    state = {"sql": "SELECT count(*) FROM client", "params": [], "columns": ["count"]}
    from ctxtool.conversations.store import PROMPT_COLUMNS

    conn = store.conn
    mark = "?" if store.kind == "sqlite" else "%s"
    insert_sql = (
        "INSERT INTO prompts (conversation_id, profile_name, prompt_action, prompt, response_sql, result_summary, "
        "answer, state, created, modified, client_identifier, client_ip, sid, serial, request_id) VALUES ("
        + ", ".join([mark] * 15)
        + ")"
    )
    select_sql = f"SELECT {PROMPT_COLUMNS} FROM prompts WHERE conversation_id = {mark} ORDER BY prompt_id DESC LIMIT 10"
    state_text = json.dumps(state, sort_keys=True)

    def raw_insert(cid: str, n: int) -> None:
        # the same row the store writes, in one autocommitted statement
        ts = store._to_db_time(utcnow())
        conn.execute(
            insert_sql,
            (
                cid,
                None,
                "runsql",
                f"raw {n}",
                "SELECT 1",
                "1 row",
                "x",
                state_text,
                ts,
                ts,
                None,
                None,
                None,
                None,
                None,
            ),
        )

    def raw_select(cid: str) -> list:
        return conn.execute(select_sql, (cid,)).fetchall()

    for n in range(rounds):
        cid = rng.choice(ids)
        if n % 2 == 0:
            t0 = time.perf_counter()
            store.add_prompt(
                cid, Turn(prompt=f"bench {n}", sql="SELECT 1", summary="1 row", answer="x", state=state)
            )
            conv, turns = store.context(cid)
            ours.append(time.perf_counter() - t0)
            assert len(turns) == 10 and turns[-1].prompt == f"bench {n}"
        else:
            t0 = time.perf_counter()
            raw_insert(cid, n)
            rows = raw_select(cid)
            floor.append(time.perf_counter() - t0)
            assert len(rows) == 10
    return {
        "ctxtool_median_ms": statistics.median(ours) * 1000,
        "ctxtool_p95_ms": percentile(ours, 0.95) * 1000,
        "floor_median_ms": statistics.median(floor) * 1000,
        "floor_p95_ms": percentile(floor, 0.95) * 1000,
        "ratio_median": statistics.median(ours) / statistics.median(floor),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prompts", type=int, default=1_000_000)
    ap.add_argument("--conversations", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=4000)
    ap.add_argument(
        "--pg", default=None, help="a PostgreSQL DSN of a database to use (tables go in ctxtool_conv)"
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.pg:
            store = open_store(args.pg, auto_purge=False)
            with store._write() as tx:
                for table in ("message_vectors", "current_conversation", "prompts", "conversations"):
                    tx.execute(f"DELETE FROM {table}")
        else:
            store = SQLiteStore(Path(tmp) / "big.sqlite")
        t0 = time.perf_counter()
        ids = build(store, args.conversations, args.prompts)
        if store.kind == "postgres":
            store.conn.execute("ANALYZE prompts")
        else:
            store.conn.execute("ANALYZE")
        built = time.perf_counter() - t0
        total = store.count_prompts()
        result = measure(store, ids, args.rounds)
        result.update(
            {
                "store": store.kind,
                "prompts": total,
                "conversations": len(ids),
                "build_seconds": round(built, 1),
            }
        )
        if args.pg:
            with store._write() as tx:
                for table in ("prompts", "conversations"):
                    tx.execute(f"DELETE FROM {table}")
        store.close()
    print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in result.items()}, indent=2))
    print(
        f"{result['store']}: add+context {result['ctxtool_median_ms']:.3f} ms median vs floor "
        f"{result['floor_median_ms']:.3f} ms -> {result['ratio_median']:.2f}x (goal <= 2x)"
    )


if __name__ == "__main__":
    main()
