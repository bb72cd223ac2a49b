"""`ctxtool serve` under load, on loopback: throughput and latency by workers and concurrent clients,
fast questions beside slow (2 s) queries, and whether every prompt of every client was stored.

    .venv/bin/python bench/serve.py                       # PostgreSQL 15 at 127.0.0.1:5432 (trust auth)
    .venv/bin/python bench/serve.py --seconds 3 --workers 1,2 --clients 1,8,32

It creates a throwaway database (the financial sample, ~5,000 rows, dropped at the end), serves the
curated financial set plus one template whose query sleeps 2 s, with the conversations in the same
PostgreSQL database, and drives it from a separate load process (asyncio on raw sockets, HTTP/1.1
keep-alive: one connection per client) so the client's own CPU stays small. Bounded: each
measurement lasts ``--seconds`` (and at most ``--max-requests``). Reports:

1. throughput (answers/s) and p50/p99 latency for 1, 8, 32, 128 clients with 1, 2, 4 workers, and
   every error (a non-200 reply, a refused or dropped connection);
2. a fast question's p50/p99 alone (8 clients) and with 4 clients asking the 2 s question beside
   them (goal: p99 at most 2x), on one worker and on two;
3. conversations: 32 clients x 10 prompts, each client in its own named conversation, on 2 workers;
   every prompt must be in the store, in order.

Goals (issue 16): fast p99 beside slow <= 2x alone; 2 workers >= 1.7x the throughput of 1; no error at
128 clients; nothing lost in the conversation store. The machine's cores are shared with whatever
else runs (other builds, the database, the load process): read the figures with `nproc` and the load
average, printed first.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SET = ROOT / "samples/postgres/financial_runtime.json"
SLOW_QUESTION = "Run the sleepy audit report"


# ------------------------------------------------------------------------------------------ load client
async def _client(host, port, bodies, deadline, max_requests, counter, latencies, errors, slow):
    """One keep-alive connection asking ``bodies`` round robin until the deadline."""
    reader = writer = None
    i = 0
    while time.monotonic() < deadline and counter[0] < max_requests:
        body = bodies[i % len(bodies)]
        i += 1
        counter[0] += 1
        t = time.perf_counter()
        try:
            if writer is None:
                reader, writer = await asyncio.open_connection(host, port)
            writer.write(body)
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head[9:12])
            length = int(re.search(rb"content-length: *(\d+)", head, re.I).group(1))
            await reader.readexactly(length)
            if status != 200:
                errors.append(f"HTTP {status}")
                continue
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, AttributeError) as exc:
            errors.append(type(exc).__name__)
            if writer is not None:
                writer.close()
            reader = writer = None
            continue
        latencies.append((time.perf_counter() - t, slow))
    if writer is not None:
        writer.close()


def _request(path: str, payload: dict, host: str) -> bytes:
    data = json.dumps(payload).encode()
    return (
        f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(data)}\r\n\r\n"
    ).encode() + data


async def _load(spec: dict) -> dict:
    deadline = time.monotonic() + spec["seconds"]
    counter = [0]
    latencies: list[tuple[float, bool]] = []
    errors: list[str] = []
    host = f"{spec['host']}:{spec['port']}"  # the server answers only for its own address
    fast = [_request("/ask", {"question": q}, host) for q in spec["questions"]]
    slow = [_request("/ask", {"question": SLOW_QUESTION}, host)]
    tasks = [
        _client(
            spec["host"],
            spec["port"],
            fast,
            deadline,
            spec["max_requests"],
            counter,
            latencies,
            errors,
            False,
        )
        for _ in range(spec["clients"])
    ] + [
        _client(spec["host"], spec["port"], slow, deadline, 10**9, [0], latencies, errors, True)
        for _ in range(spec.get("slow_clients", 0))
    ]
    t = time.perf_counter()
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - t
    fast_lat = sorted(lat for lat, s in latencies if not s)
    return {
        "answers": len(fast_lat),
        "slow_answers": sum(1 for _, s in latencies if s),
        "seconds": elapsed,
        "p50_ms": 1000 * _pct(fast_lat, 50),
        "p99_ms": 1000 * _pct(fast_lat, 99),
        "errors": errors,
        "cpu_s": time.process_time(),
    }


def _pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(len(values) * p / 100))]


def run_load(spec: dict) -> dict:
    """Run the load in a separate process (its CPU is not the server's)."""
    out = subprocess.run(
        [sys.executable, __file__, "--load", json.dumps(spec)],
        capture_output=True,
        text=True,
        timeout=spec["seconds"] + 120,
    )
    if out.returncode != 0:
        raise SystemExit(f"load client failed: {out.stderr.strip()}")
    return json.loads(out.stdout)


# ------------------------------------------------------------------------------------------ the server
class Server:
    def __init__(self, workers: int, set_path: Path, dsn: str, pool: int) -> None:
        self.workers = workers
        self.proc = subprocess.Popen(
            [
                sys.executable, "-m", "ctxtool", "serve", "--port", "0", "--workers", str(workers),
                "--context", str(set_path), "--dsn", dsn, "--conversation-store", dsn, "--no-llm",
                "--pool-size", str(pool), "--quiet",
            ],
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, cwd=ROOT,
        )  # fmt: skip
        line = ""
        deadline = time.monotonic() + 120
        while "serving " not in line:
            line = self.proc.stderr.readline()
            if not line and (self.proc.poll() is not None or time.monotonic() > deadline):
                raise SystemExit("the server did not start")
        threading.Thread(target=lambda: [None for _ in self.proc.stderr], daemon=True).start()
        self.port = int(re.search(r":(\d+) with", line).group(1))
        self.url = f"http://127.0.0.1:{self.port}"
        seen: set[int] = set()
        while len(seen) < workers and time.monotonic() < deadline:  # every worker up
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=5) as r:
                    seen.add(json.loads(r.read())["pid"])
            except OSError:
                time.sleep(0.2)

    def cpu_seconds(self) -> float:
        """CPU time of the server's processes so far (nan without psutil)."""
        try:
            import psutil
        except ImportError:
            return float("nan")
        try:
            parent = psutil.Process(self.proc.pid)
            procs = [parent, *parent.children(recursive=True)]
        except psutil.Error:
            return float("nan")
        total = 0.0
        for p in procs:
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except psutil.Error:
                pass
        return total

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def answered_questions(url: str) -> list[str]:
    """Questions of the set (its templates' examples) the server answers: the fast questions."""
    data = json.loads(SET.read_text())
    out = []
    for t in data["templates"]:
        req = urllib.request.Request(
            url + "/ask",
            json.dumps({"question": t["nl_query"]}).encode(),
            {"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=30) as r:
            if json.loads(r.read())["status"] == "answered":
                out.append(t["nl_query"])
    return out


# ------------------------------------------------------------------------------------------ main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--admin-dsn", default="postgresql://postgres@127.0.0.1:5432/postgres")
    ap.add_argument("--workers", default="1,2,4")
    ap.add_argument("--clients", default="1,8,32,128")
    ap.add_argument("--seconds", type=float, default=4.0, help="length of each measurement")
    ap.add_argument("--max-requests", type=int, default=20000, help="cap of each measurement")
    ap.add_argument("--pool-size", type=int, default=10)
    ap.add_argument("--load", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.load:
        try:
            import uvloop

            uvloop.install()
        except ImportError:
            pass
        print(json.dumps(asyncio.run(_load(json.loads(args.load)))))
        return

    import psycopg

    sys.path.insert(0, str(ROOT))
    from ctxtool import sampledata

    name = f"ctx_bench_serve_{os.getpid()}"
    base = args.admin_dsn.rsplit("/", 1)[0]
    dsn = f"{base}/{name}"
    with psycopg.connect(args.admin_dsn, autocommit=True) as c:
        c.execute(f'CREATE DATABASE "{name}"')
    tmp = Path(tempfile.mkdtemp(prefix="ctx_bench_serve_"))
    try:
        with psycopg.connect(dsn, autocommit=True) as c:
            c.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            c.execute("CREATE EXTENSION IF NOT EXISTS fuzzystrmatch")
        sampledata.load(dsn, scale=0.05)
        data = json.loads(SET.read_text())
        sql = "SELECT pg_sleep(2)::text AS slept"
        data["templates"].append(
            {"nl_query": SLOW_QUESTION, "sql": sql, "manifest": SLOW_QUESTION,
             "parameterized": {"parameterized_intent": SLOW_QUESTION, "parameterized_sql": sql}}
        )  # fmt: skip
        set_path = tmp / "set.json"
        set_path.write_text(json.dumps(data))
        bench(args, set_path, dsn)
    finally:
        with psycopg.connect(args.admin_dsn, autocommit=True) as c:
            c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def bench(args: argparse.Namespace, set_path: Path, dsn: str) -> None:
    workers = [int(w) for w in args.workers.split(",")]
    clients = [int(c) for c in args.clients.split(",")]
    print(f"cores: {os.cpu_count()}, load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"each measurement {args.seconds:g} s (at most {args.max_requests} requests), pool {args.pool_size}\n"
    )
    throughput: dict[tuple[int, int], float] = {}
    lines = []
    questions: list[str] = []
    beside: dict[int, tuple[dict, dict]] = {}
    conv: dict | None = None
    for w in workers:
        server = Server(w, set_path, dsn, args.pool_size)
        try:
            if not questions:
                questions = answered_questions(server.url)
            spec = {"host": "127.0.0.1", "port": server.port, "questions": questions,
                    "seconds": args.seconds, "max_requests": args.max_requests}  # fmt: skip
            run_load({**spec, "clients": 8, "seconds": 1.0})  # warm every worker
            for c in clients:
                cpu = server.cpu_seconds()
                r = run_load({**spec, "clients": c})
                cpu_ms = 1000 * (server.cpu_seconds() - cpu) / max(1, r["answers"])
                rps = r["answers"] / r["seconds"]
                throughput[(w, c)] = rps
                errs = f"{len(r['errors'])} ({', '.join(sorted(set(r['errors'])))})" if r["errors"] else "0"
                lines.append(
                    f"{w:>7} {c:>7} {rps:>10.0f} {r['p50_ms']:>9.1f} {r['p99_ms']:>9.1f} {errs:>8}"
                    f" {cpu_ms:>10.2f} {r['cpu_s']:>9.2f} {os.getloadavg()[0]:>7.2f}"
                )
            if w in (1, 2):
                alone = run_load({**spec, "clients": 8})
                mixed = run_load({**spec, "clients": 8, "slow_clients": 4})
                beside[w] = (alone, mixed)
            if w == 2 or (conv is None and w == workers[-1]):
                conv = conversations(server, dsn, questions)
        finally:
            server.stop()
    print("workers clients  answers/s   p50 ms    p99 ms   errors  srv cpu ms client s   load1")
    print("\n".join(lines))
    for c in clients:
        if (1, c) in throughput and (2, c) in throughput:
            print(f"2 workers / 1 worker at {c:>3} clients: {throughput[(2, c)] / throughput[(1, c)]:.2f}x")
    for w, (alone, mixed) in beside.items():
        ratio = mixed["p99_ms"] / alone["p99_ms"]
        print(
            f"\n{w} worker(s), 8 fast clients: p50/p99 alone {alone['p50_ms']:.1f}/{alone['p99_ms']:.1f} ms; "
            f"with 4 clients asking the 2 s question beside: {mixed['p50_ms']:.1f}/{mixed['p99_ms']:.1f} ms "
            f"({mixed['slow_answers']} slow answers, errors {len(mixed['errors'])}); p99 ratio {ratio:.2f}x"
        )
    if conv:
        print(
            f"\nconversations on {conv['workers']} workers: {conv['clients']} clients x {conv['prompts']} prompts "
            f"in {conv['seconds']:.1f} s, {conv['errors']} errors; stored {conv['stored']} of "
            f"{conv['clients'] * conv['prompts']}, in order: {conv['in_order']}"
        )


def conversations(
    server: Server, dsn: str, questions: list[str], clients: int = 32, prompts: int = 10
) -> dict:
    """Each client asks ``prompts`` questions in its own named conversation; all must be stored."""
    from concurrent.futures import ThreadPoolExecutor

    from ctxtool.conversations.store import open_store

    with open_store(dsn) as store:
        cids = [store.create_conversation(f"bench {i}").conversation_id for i in range(clients)]

    def client(i: int) -> int:
        errors = 0
        for k in range(prompts):
            body = json.dumps({"question": questions[(i + k) % len(questions)], "conversation_id": cids[i]})
            req = urllib.request.Request(
                server.url + "/ask", body.encode(), {"Content-Type": "application/json"}
            )
            try:
                with urllib.request.urlopen(req, timeout=60) as r:
                    errors += r.status != 200
            except OSError:
                errors += 1
        return errors

    t = time.perf_counter()
    with ThreadPoolExecutor(clients) as ex:
        errors = sum(ex.map(client, range(clients)))
    seconds = time.perf_counter() - t
    with open_store(dsn) as store:
        stored = 0
        in_order = True
        for i, cid in enumerate(cids):
            got = [t.prompt for t in store.list_prompts(cid)]
            stored += len(got)
            in_order &= got == [questions[(i + k) % len(questions)] for k in range(prompts)]
    return {"workers": server.workers, "clients": clients, "prompts": prompts, "seconds": seconds,
            "errors": errors, "stored": stored, "in_order": in_order}  # fmt: skip


if __name__ == "__main__":
    main()
