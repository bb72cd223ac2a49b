"""Figures for `ctxtool draft` on the financial sample (issue 6).

Loads the financial sample into a fresh, uniquely named database (PostgreSQL 15 on 127.0.0.1:5432 by
default, or MariaDB with --engine mariadb), drafts templates and facets offline (no language model)
with the database attached, then re-checks the kept set independently: how many templates and facets,
the share that validates (``validate_set``) and the share that executes and returns rows; ten of the
questions; and, on PostgreSQL, the coverage of ``samples/workload/financial.sql``. Drops the database.

    .venv/bin/python bench/draft.py [--scale 0.1] [--engine postgres|mariadb]
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ctxtool import contextset, sampledata  # noqa: E402
from ctxtool.connectors import connect  # noqa: E402
from ctxtool.draft import draft  # noqa: E402
from ctxtool.draft.model import quote_ident  # noqa: E402
from ctxtool.draft.workload import read_log  # noqa: E402
from ctxtool.snapshot import build  # noqa: E402
from ctxtool.validate import validate_set  # noqa: E402

FINANCIAL = ["district", "account", "client", "disp", "loan", "card", "trans"]
LOG = ROOT / "samples" / "workload" / "financial.sql"


def create(engine: str) -> tuple[str, callable]:
    name = f"ctx_benchdraft_{os.getpid()}_{secrets.token_hex(3)}"
    if engine == "postgres":
        import psycopg

        admin = "postgresql://postgres@127.0.0.1:5432/postgres"
        with psycopg.connect(admin, autocommit=True) as c:
            c.execute(f"CREATE DATABASE {name}")

        def drop() -> None:
            with psycopg.connect(admin, autocommit=True) as c:
                c.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

        return f"postgresql://postgres@127.0.0.1:5432/{name}", drop
    import mysql.connector

    c = mysql.connector.connect(host="127.0.0.1", user="root", password="")
    c.cursor().execute(f"CREATE DATABASE {name}")
    c.close()

    def drop() -> None:
        c = mysql.connector.connect(host="127.0.0.1", user="root", password="")
        c.cursor().execute(f"DROP DATABASE IF EXISTS {name}")
        c.close()

    return f"mysql://root@127.0.0.1:3306/{name}", drop


def recheck(result, snap, conn) -> tuple[int, int, int]:
    """(items, valid, executable with rows), checked independently of the drafting run."""
    data = result.to_set()
    items = data[result.kind]
    cs = contextset.loads(json.dumps(data))
    bad = {
        f.pointer.split("/")[2]
        for f in validate_set(cs, dialect=result.dialect, snapshot=snap)
        if f.is_error and f.pointer.count("/") >= 2
    }
    runs = 0
    for item in items:
        if result.kind == "templates":
            sql = item["sql"]
        else:
            table = next(d.table for d in result.kept if d.item["sql_snippet"] == item["sql_snippet"])
            sql = f"SELECT 1 FROM {quote_ident(table, result.dialect)} WHERE {item['sql_snippet']}"
        try:
            if conn.query(sql).rows:
                runs += 1
        except Exception as exc:  # counted as not executable
            print(f"  not executable: {sql[:100]}: {exc}")
    return len(items), len(items) - len(bad), runs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=0.1)
    ap.add_argument("--engine", choices=["postgres", "mariadb"], default="postgres")
    args = ap.parse_args()
    dsn, drop = create(args.engine)
    try:
        t0 = time.perf_counter()
        sampledata.load(dsn, datasets=("financial",), scale=args.scale)
        print(
            f"financial sample loaded at scale {args.scale} on {args.engine} in {time.perf_counter() - t0:.1f}s"
        )
        with connect(dsn) as conn:
            snap = build(conn, profile=True)
            for kind in ("templates", "facets"):
                t0 = time.perf_counter()
                result = draft(kind, snap, connector=conn, tables=FINANCIAL)
                took = time.perf_counter() - t0
                n, valid, runs = recheck(result, snap, conn)
                print(
                    f"{kind}: {n} drafted offline and kept ({len(result.dropped)} dropped by the checks) in {took:.1f}s; "
                    f"valid {valid}/{n} ({valid / n:.0%}), executable with rows {runs}/{n} ({runs / n:.0%})"
                )
                for d in result.dropped:
                    print(f"  dropped: {d.text} -- {d.reason}")
                if kind == "templates":
                    print("  ten of the questions:")
                    step = max(1, len(result.kept) // 10)
                    for d in result.kept[::step][:10]:
                        print(f"    - {d.text}")
            if args.engine == "postgres":
                t0 = time.perf_counter()
                result = draft("templates", snap, connector=conn, tables=FINANCIAL, workload=str(LOG))
                took = time.perf_counter() - t0
                wl, cov = result.workload, result.coverage
                print(
                    f"workload {LOG.relative_to(ROOT)}: {len(read_log(str(LOG)))} statements, {len(wl.skipped)} skipped "
                    f"(writes / FOR UPDATE), {wl.distinct} distinct read queries; covered {cov.covered}/{cov.distinct} "
                    f"({cov.ratio:.1%}) in {took:.1f}s"
                )
                for sql in cov.missing:
                    print(f"  not covered: {sql}")
                from_workload = [d for d in result.kept if d.origin == "workload"]
                print("  five workload questions (most frequent first):")
                for d in from_workload[:5]:
                    print(f"    - [{d.frequency}x] {d.text}")
    finally:
        drop()


if __name__ == "__main__":
    main()
