"""Benchmark value searches on PostgreSQL (run as a script, not a test).

1. ``test-values`` wall time against the same statements run through the bare driver (psycopg, one
   connection, autocommit) in the same process: the ratio is ctxtool's overhead (read-only
   transactions, server-side cursors, row caps, probe bookkeeping).
2. A 1,000,000-row column: the drafted trigram search's plan (it must use its index) and the ratio
   of its p50 latency to an exact-match lookup's p50.

Every database it makes has a unique name and is dropped at the end.

    .venv/bin/python bench/values.py [--dsn postgresql://postgres@127.0.0.1:5432/postgres] [--rows 1000000]
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psycopg  # noqa: E402

from ctxtool import contextset, sampledata  # noqa: E402
from ctxtool.connectors import connect  # noqa: E402
from ctxtool.placeholders import to_driver  # noqa: E402
from ctxtool.values.probes import make_probes, percentile  # noqa: E402
from ctxtool.values.testing import test_values  # noqa: E402
from ctxtool.values.workflow import draft_values  # noqa: E402


def with_db(admin: str, name: str) -> str:
    parts = urllib.parse.urlsplit(admin)
    return urllib.parse.urlunsplit(parts._replace(path="/" + name))


def scratch(admin: str, label: str) -> tuple[str, str]:
    name = f"ctx_values_bench_{label}_{os.getpid()}_{secrets.token_hex(3)}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    dsn = with_db(admin, name)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    return name, dsn


def drop(admin: str, name: str) -> None:
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def compare(dsn: str, cs, samples: int, repeats: int) -> dict:
    """Wall time of ``test-values`` on ``cs``, of the same statements replayed through the
    connector, and through the bare driver (psycopg, autocommit, one cursor). The three are
    interleaved run by run so that load from other processes hits them alike; best and median."""
    tool_times, conn_times, bare_times = [], [], []
    statements: list[tuple[str, object]] = []
    with connect(dsn) as conn, psycopg.connect(dsn, autocommit=True) as bare:
        test_values(cs, conn, samples=samples)  # warm-up: caches, plans
        real_query = conn.query

        def recording(sql, params=(), **kw):
            statements.append((sql, params))
            return real_query(sql, params, **kw)

        conn.query = recording
        report = test_values(cs, conn, samples=samples)  # records the statements of one run
        conn.query = real_query
        driver = [to_driver(sql, "postgres", params or (), "numbered") for sql, params in statements]
        for _ in range(repeats):
            start = time.perf_counter()
            report = test_values(cs, conn, samples=samples)
            tool_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            for sql, params in statements:
                conn.query(sql, params)
            conn_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            with psycopg.RawCursor(bare) as cur:
                for sql, params in driver:
                    cur.execute(sql, params or None)
                    cur.fetchall()
            bare_times.append(time.perf_counter() - start)
    fuzzy = [r.recall_misspelling for r in report.results if r.recall_misspelling]
    return {
        "searches": len(report.results),
        "statements_per_run": len(statements),
        "test_values_s": {
            "best": round(min(tool_times), 4),
            "median": round(statistics.median(tool_times), 4),
        },
        "connector_replay_s": {
            "best": round(min(conn_times), 4),
            "median": round(statistics.median(conn_times), 4),
        },
        "bare_driver_s": {
            "best": round(min(bare_times), 4),
            "median": round(statistics.median(bare_times), 4),
        },
        "ratio_vs_bare_driver": {
            "best": round(min(tool_times) / min(bare_times), 3),
            "median": round(statistics.median(tool_times) / statistics.median(bare_times), 3),
        },
        "ratio_vs_connector_replay": {
            "best": round(min(tool_times) / min(conn_times), 3),
            "median": round(statistics.median(tool_times) / statistics.median(conn_times), 3),
        },
        "all_passed": report.ok,
        "recall_misspelling_mean_nonzero": round(statistics.mean(fuzzy), 3) if fuzzy else None,
    }


def overhead(admin: str, scale: float, samples: int, repeats: int) -> dict:
    """test-values against the bare driver on the drafted searches of both samples."""
    name, dsn = scratch(admin, "overhead")
    try:
        sampledata.load(dsn, scale=scale)
        out = draft_values(dsn=dsn, apply=True)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "values.json"
            path.write_text(json.dumps(out.data, indent=2))
            return compare(dsn, contextset.load(str(path)), samples, repeats)
    finally:
        drop(admin, name)


def million(admin: str, rows: int, probes_n: int) -> dict:
    """Drafted trigram search on a large column: plan and p50 against an exact lookup."""
    name, dsn = scratch(admin, "1m")
    try:
        t0 = time.perf_counter()
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(
                "CREATE TABLE customers (customer_id int PRIMARY KEY, name text NOT NULL);"
                "INSERT INTO customers SELECT g, "
                "initcap(translate(substr(md5(g::text), 1, 7), '0123456789', 'aeioulnrst')) || ' ' || "
                "initcap(translate(substr(md5((g * 31)::text), 3, 9), '0123456789', 'aeioulnrst')) "
                f"FROM generate_series(1, {int(rows)}) g"
            )
            conn.execute("CREATE INDEX customers_name ON customers (name)")  # what an exact lookup uses
        load_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        out = draft_values(dsn=dsn, columns=["customers.name"], match="trigram", apply=True)
        ddl_s = time.perf_counter() - t0
        exact = draft_values(dsn=dsn, columns=["customers.name"], match="exact")
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("ANALYZE customers")
            values = [r[0] for r in conn.execute(
                "SELECT name FROM customers TABLESAMPLE SYSTEM (1) REPEATABLE (7) LIMIT %s", (probes_n,)
            ).fetchall()]  # fmt: skip
        probes = [p for p in make_probes(values, seed=1) if p.kind in ("exact", "misspelling")][
            : probes_n * 2
        ]
        trig_sql = out.recipes[0].query
        exact_sql = exact.recipes[0].query
        trig_ms, exact_ms = [], []
        with connect(dsn) as conn:
            plan = conn.plan(trig_sql, {"value": probes[1].text})
            for p in probes:  # warm
                conn.query(trig_sql, {"value": p.text})
                conn.query(exact_sql, {"value": p.text})
            for p in probes:
                t = time.perf_counter()
                conn.query(trig_sql, {"value": p.text})
                trig_ms.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                conn.query(exact_sql, {"value": p.text})
                exact_ms.append((time.perf_counter() - t) * 1000)
            found = sum(
                1
                for p in probes
                if p.kind == "misspelling"
                and p.expected in [r[0] for r in conn.query(trig_sql, {"value": p.text}).rows[:5]]
            )
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "values.json"
                path.write_text(json.dumps(out.data, indent=2))
                big_overhead = compare(dsn, contextset.load(str(path)), 10, 3)
        misspellings = sum(1 for p in probes if p.kind == "misspelling")
        driver_sql, params = to_driver(trig_sql, "postgres", {"value": probes[1].text}, "numbered")
        with psycopg.connect(dsn) as conn, psycopg.RawCursor(conn) as cur:
            cur.execute("SET TRANSACTION READ ONLY")
            cur.execute("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + driver_sql, params)
            text_plan = "\n".join(r[0] for r in cur.fetchall())
        from ctxtool.values.testing import plan_uses_index

        return {
            "rows": rows,
            "load_s": round(load_s, 1),
            "ddl_s": round(ddl_s, 1),
            "ddl": out.ddl,
            "probes": len(probes),
            "uses_index": plan_uses_index("postgres", plan, "customers"),
            "trigram_p50_ms": round(percentile(trig_ms, 0.5), 2),
            "trigram_p95_ms": round(percentile(trig_ms, 0.95), 2),
            "exact_p50_ms": round(percentile(exact_ms, 0.5), 2),
            "exact_p95_ms": round(percentile(exact_ms, 0.95), 2),
            "p50_ratio": round(percentile(trig_ms, 0.5) / percentile(exact_ms, 0.5), 2),
            "recall_at5_misspellings": round(found / misspellings, 3) if misspellings else None,
            "test_values_overhead": big_overhead,
            "plan_value": probes[1].text,
            "plan": text_plan,
        }
    finally:
        drop(admin, name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dsn", default="postgresql://postgres@127.0.0.1:5432/postgres", help="an admin DSN")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--scale", type=float, default=0.1, help="sample scale for the overhead run")
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--probes", type=int, default=50)
    ap.add_argument("--skip-million", action="store_true")
    args = ap.parse_args()
    result = {"overhead": overhead(args.dsn, args.scale, args.samples, args.repeats)}
    print(json.dumps(result, indent=2), flush=True)
    if not args.skip_million:
        big = million(args.dsn, args.rows, args.probes)
        plan = big.pop("plan")
        print(json.dumps({"million": big}, indent=2))
        print(f"\nplan of the drafted trigram search for {big['plan_value']!r}:\n{plan}")


if __name__ == "__main__":
    main()
