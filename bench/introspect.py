"""Benchmark: ``ctxtool introspect`` against ``pg_dump --schema-only`` and ``mysqldump --no-data``.

Builds a schema of N tables x C columns (a foreign key from every table to the one before it, two
secondary indexes per table, comments on the columns) in a scratch database on PostgreSQL and on
MariaDB, then times, side by side and in the same run, the three commands as a user runs them
(separate processes, output to a file), the median of ``--repeat`` runs each. It also reports how
many statements ctxtool sends to the server (its round trips) for 10% of the tables and for all of
them: the number must not grow with the table count.

    .venv/bin/python bench/introspect.py                  # 1,000 and 20 tables x 20 columns, both engines
    .venv/bin/python bench/introspect.py --tables 200 --engines postgres

On a small schema the command's time is mostly the process start (Python, the driver, the CLI):
``python -X importtime -m ctxtool introspect ...`` shows where it goes.

Needs PostgreSQL on 127.0.0.1:5432 (user postgres, trust) and MariaDB on 127.0.0.1:3306 (root, no
password), as on the project's machines; ``pg_dump``/``mysqldump`` on PATH. The scratch databases
are dropped at the end.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PG_ADMIN = os.environ.get("CTXTOOL_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
MY_HOST, MY_PORT, MY_USER = "127.0.0.1", 3306, "root"

_PG_TYPES = ["integer", "text", "numeric(12,2)", "date", "timestamp", "boolean", "bigint", "varchar(80)"]
_MY_TYPES = ["INT", "TEXT", "DECIMAL(12,2)", "DATE", "DATETIME", "BOOLEAN", "BIGINT", "VARCHAR(80)"]


def _pg_ddl(n_tables: int, n_columns: int) -> list[str]:
    out = []
    for i in range(n_tables):
        cols = ["id integer PRIMARY KEY", "prev_id integer" + (f" REFERENCES t{i - 1:04d}(id)" if i else "")]
        cols += [f"c{j:02d} {_PG_TYPES[j % len(_PG_TYPES)]}" for j in range(n_columns - 2)]
        out.append(f"CREATE TABLE t{i:04d} ({', '.join(cols)})")
        out.append(f"CREATE INDEX t{i:04d}_prev ON t{i:04d} (prev_id)")
        out.append(f"CREATE INDEX t{i:04d}_c01 ON t{i:04d} (c01, c03)")
        out.append(f"COMMENT ON COLUMN t{i:04d}.c01 IS 'column 1 of table {i}'")
    return out


def _my_ddl(n_tables: int, n_columns: int) -> list[str]:
    out = []
    for i in range(n_tables):
        cols = ["id INT PRIMARY KEY", "prev_id INT"]
        cols += [
            f"c{j:02d} {_MY_TYPES[j % len(_MY_TYPES)]}"
            + (f" COMMENT 'column 1 of table {i}'" if j == 1 else "")
            for j in range(n_columns - 2)
        ]
        cols.append(f"KEY t{i:04d}_c01 (c01(20), c03)")
        if i:
            cols.append(f"CONSTRAINT t{i:04d}_prev FOREIGN KEY (prev_id) REFERENCES t{i - 1:04d} (id)")
        out.append(f"CREATE TABLE t{i:04d} ({', '.join(cols)}) ENGINE=InnoDB")
    return out


def _median_time(cmd: list[str], repeat: int, env: dict[str, str] | None = None) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _round_trips(dsn: str) -> tuple[int, float, int, int]:
    """(statements ctxtool counted, seconds in-process, tables found, round trips seen by the other
    side) for one introspection. The other side: on PostgreSQL the libpq protocol trace (every Sync
    and Query message waits for the server once); on MariaDB/MySQL the server's own ``Questions``
    counter for the session."""
    from ctxtool import snapshot
    from ctxtool.connectors import connect

    started = time.perf_counter()
    with connect(dsn, statement_timeout=120) as conn:
        before = conn.round_trips
        if conn.engine == "postgres":
            fd, path = tempfile.mkstemp(prefix="ctx_bench_trace_")
            conn.conn.pgconn.trace(fd)
            snap = snapshot.build(conn)
            conn.conn.pgconn.untrace()
            os.close(fd)
            with open(path, encoding="utf-8", errors="replace") as fh:
                seen = sum(
                    1
                    for line in fh
                    if "\tF\t" in line and line.rstrip("\n").split("\t")[3] in ("Sync", "Query")
                )
            os.unlink(path)
        else:
            cur = conn.conn.cursor()
            cur.execute("SHOW SESSION STATUS LIKE 'Questions'")
            asked = int(cur.fetchone()[1])
            snap = snapshot.build(conn)
            cur.execute("SHOW SESSION STATUS LIKE 'Questions'")
            seen = int(cur.fetchone()[1]) - asked - 1  # the second SHOW counts itself
            cur.close()
        trips = conn.round_trips - before
    return trips, time.perf_counter() - started, sum(len(s["tables"]) for s in snap["schemas"]), seen


def _ctxtool_cmd(dsn: str, out: str) -> list[str]:
    return [sys.executable, "-m", "ctxtool", "introspect", "--dsn", dsn, "-o", out]


def bench_postgres(n_tables: int, n_columns: int, repeat: int, tmp: str) -> dict:
    import psycopg

    name = f"ctx_bench_pg_{os.getpid()}_{secrets.token_hex(2)}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    dsn = PG_ADMIN.rsplit("/", 1)[0] + "/" + name
    try:
        small = max(1, n_tables // 10)
        ddl = _pg_ddl(n_tables, n_columns)
        per_table = len(ddl) // n_tables
        with psycopg.connect(dsn) as conn:
            for stmt in ddl[: small * per_table]:
                conn.execute(stmt)
        trips_small, _, found_small, seen_small = _round_trips(dsn)
        with psycopg.connect(dsn) as conn:
            for stmt in ddl[small * per_table :]:
                conn.execute(stmt)
            conn.execute("ANALYZE")
        trips, inproc, found, seen = _round_trips(dsn)
        env = dict(os.environ, CTXTOOL_NO_PROGRESS="1")
        ours = _median_time(_ctxtool_cmd(dsn, os.path.join(tmp, "pg.json")), repeat, env)
        theirs = _median_time(
            [
                "pg_dump",
                "--schema-only",
                "-h",
                "127.0.0.1",
                "-U",
                "postgres",
                "-d",
                name,
                "-f",
                os.path.join(tmp, "pg.sql"),
            ],
            repeat,
        )
        return {
            "engine": "PostgreSQL 15",
            "tables": found,
            "reference": "pg_dump --schema-only",
            "ctxtool_s": ours,
            "ctxtool_inprocess_s": inproc,
            "reference_s": theirs,
            "round_trips": {found_small: trips_small, found: trips},
            "seen_by_server": {found_small: seen_small, found: seen},
        }
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def bench_mariadb(n_tables: int, n_columns: int, repeat: int, tmp: str) -> dict:
    import mysql.connector

    name = f"ctx_bench_my_{os.getpid()}_{secrets.token_hex(2)}"
    admin = mysql.connector.connect(host=MY_HOST, port=MY_PORT, user=MY_USER)
    admin.cursor().execute(f"CREATE DATABASE `{name}`")
    dsn = f"mysql://{MY_USER}@{MY_HOST}:{MY_PORT}/{name}"
    try:
        small = max(1, n_tables // 10)
        ddl = _my_ddl(n_tables, n_columns)
        cur = admin.cursor()
        cur.execute(f"USE `{name}`")
        for stmt in ddl[:small]:
            cur.execute(stmt)
        trips_small, _, found_small, seen_small = _round_trips(dsn)
        for stmt in ddl[small:]:
            cur.execute(stmt)
        trips, inproc, found, seen = _round_trips(dsn)
        env = dict(os.environ, CTXTOOL_NO_PROGRESS="1")
        ours = _median_time(_ctxtool_cmd(dsn, os.path.join(tmp, "my.json")), repeat, env)
        theirs = _median_time(
            ["mysqldump", "--no-data", "-h", MY_HOST, "-P", str(MY_PORT), "-u", MY_USER,
             f"--result-file={os.path.join(tmp, 'my.sql')}", name],
            repeat,
        )  # fmt: skip
        return {
            "engine": "MariaDB 10.11",
            "tables": found,
            "reference": "mysqldump --no-data",
            "ctxtool_s": ours,
            "ctxtool_inprocess_s": inproc,
            "reference_s": theirs,
            "round_trips": {found_small: trips_small, found: trips},
            "seen_by_server": {found_small: seen_small, found: seen},
        }
    finally:
        admin.cursor().execute(f"DROP DATABASE IF EXISTS `{name}`")
        admin.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default="1000,20", help="table counts, comma-separated")
    parser.add_argument("--columns", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--engines", default="postgres,mariadb")
    args = parser.parse_args(argv)
    for tool in ("pg_dump", "mysqldump"):
        if shutil.which(tool) is None:
            print(f"{tool} is not on PATH", file=sys.stderr)
            return 2
    for n_tables in (int(n) for n in str(args.tables).split(",")):
        _run_size(n_tables, args)
    return 0


def _run_size(n_tables: int, args: argparse.Namespace) -> None:
    rows = []
    with tempfile.TemporaryDirectory(prefix="ctx_bench_") as tmp:
        for engine in args.engines.split(","):
            print(f"building {n_tables} tables x {args.columns} columns on {engine} ...", file=sys.stderr)
            bench = bench_postgres if engine == "postgres" else bench_mariadb
            rows.append(bench(n_tables, args.columns, args.repeat, tmp))
    print(f"\nintrospect of {n_tables} tables x {args.columns} columns (median of {args.repeat} runs)\n")
    header = f"{'engine':<15} {'ctxtool introspect':>19} {'(in-process)':>13} {'reference':>26} {'ratio':>6}   round trips by table count"
    print(header)
    print("-" * len(header))
    for r in rows:
        ratio = r["ctxtool_s"] / r["reference_s"]
        trips = ", ".join(
            f"{t} tables: {n} (server saw {r['seen_by_server'][t]})"
            for t, n in sorted(r["round_trips"].items())
        )
        ref = f"{r['reference']} {r['reference_s']:.2f} s"
        print(
            f"{r['engine']:<15} {r['ctxtool_s']:>17.2f} s {r['ctxtool_inprocess_s']:>11.2f} s "
            f"{ref:>26} {ratio:>5.2f}x   {trips}"
        )


if __name__ == "__main__":
    raise SystemExit(main())
