"""Where the time of a MariaDB/MySQL answer goes: per statement and per question.

Creates a uniquely named database on the MariaDB server (127.0.0.1:3306, root), loads the samples at a
small scale, asks the covered golden questions through ``samples/mysql/financial_runtime.json`` and
times every statement the connector sends (value searches and the answer's query). Then the same with
Nagle's algorithm turned back on (``TCP_NODELAY=0``, the driver's default and the connector before
it set the option): the pure-Python driver writes ``COM_STMT_CLOSE`` (which has no reply) after each
prepared statement, and the next command's write waits for the server's delayed ACK, about 40 ms a
statement. The database is dropped at the end.

    .venv/bin/python bench/runtime_mysql.py [--host 127.0.0.1 --port 3306 --scale 0.02]
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ctxtool.runtime import Runtime  # noqa: E402
from ctxtool.runtime.evaluate import load_golden  # noqa: E402

SET = ROOT / "samples" / "mysql" / "financial_runtime.json"
GOLDEN = ROOT / "tests" / "data" / "golden_financial.json"


def _stats(xs: list[float]) -> str:
    xs = sorted(xs)
    return f"median {statistics.median(xs):7.2f} ms  p95 {xs[max(0, int(len(xs) * 0.95) - 1)]:7.2f} ms  (n={len(xs)})"


def _run(rt: Runtime, questions: list[str], label: str) -> None:
    conn = rt.connector
    per_statement: list[float] = []
    original = conn.query

    def timed(*args, **kwargs):
        t = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            per_statement.append((time.perf_counter() - t) * 1000)

    conn.query = timed
    per_question: list[float] = []
    statements: list[int] = []
    try:
        for q in questions:
            rt.linker._cache.clear()  # every question pays its value searches
            before = len(per_statement)
            t = time.perf_counter()
            rt.ask(q)
            per_question.append((time.perf_counter() - t) * 1000)
            statements.append(len(per_statement) - before)
    finally:
        conn.query = original
    print(f"{label}")
    print(f"  per statement: {_stats(per_statement)}")
    print(
        f"  per question:  {_stats(per_question)}  statements/question median {statistics.median(statements)}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=3306)
    ap.add_argument("--scale", type=float, default=0.02)
    args = ap.parse_args()
    import mysql.connector

    from ctxtool import sampledata

    name = f"ctx_bench_rtmysql_{os.getpid()}_{random.randint(0, 99999)}"
    admin = mysql.connector.connect(host=args.host, port=args.port, user="root", autocommit=True)
    cur = admin.cursor()
    cur.execute(f"CREATE DATABASE `{name}`")
    dsn = f"mysql://root@{args.host}:{args.port}/{name}"
    try:
        sampledata.load(dsn, scale=args.scale)
        questions = [q.nlq for q in load_golden(str(GOLDEN)) if "uncovered" not in q.tags]
        with Runtime(str(SET), dsn=dsn, use_llm=False) as rt:
            rt.ask(questions[0])  # warm up
            sock = getattr(getattr(rt.connector.conn, "_socket", None), "sock", None)
            if sock is None:
                print("no TCP socket to tune (a unix socket?)")
                return
            nodelay = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
            _run(rt, questions, f"as shipped (TCP_NODELAY={int(bool(nodelay))}):")
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 0 if nodelay else 1)
            _run(rt, questions, f"switched (TCP_NODELAY={int(not nodelay)}):")
    finally:
        cur.execute(f"DROP DATABASE IF EXISTS `{name}`")
        admin.close()


if __name__ == "__main__":
    main()
