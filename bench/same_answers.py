"""The same answers on MariaDB as on PostgreSQL, for the sample sets.

Loads the financial and airports samples at one scale into a new PostgreSQL database and a new
MariaDB database (the generator is deterministic: the same rows on both), then asks every question
through each engine's twin of a sample set (``samples/postgres/X.json`` and ``samples/mysql/X.json``)
and compares the answers: the same status (answered, disambiguate, declined), the same rows
(as multisets, as lists when the query orders them; numbers to 4 places, dates as ISO text) and the
same "did you mean" choices. The questions: every golden question of
``tests/data/golden_financial.json`` (uncovered ones included) for the runtime set, and each
template's own question for the smaller sets. Both databases are dropped at the end.

    .venv/bin/python bench/same_answers.py [--pg postgresql://postgres@127.0.0.1:5432/postgres]
        [--mysql mysql://root@127.0.0.1:3306] [--scale 0.02] [-v]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import secrets
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ctxtool.runtime import Runtime  # noqa: E402
from ctxtool.runtime.evaluate import load_golden, results_match  # noqa: E402

SETS = ("financial_runtime", "financial", "airports")
GOLDEN = ROOT / "tests" / "data" / "golden_financial.json"


@dataclass
class Comparison:
    set_name: str
    question: str
    postgres: str  # status
    mariadb: str
    same: bool
    why: str = ""


def questions_of(set_name: str) -> list[str]:
    """The questions asked of a sample set: the golden file for the runtime set, else the templates'."""
    if set_name == "financial_runtime":
        return [q.nlq for q in load_golden(str(GOLDEN))]
    data = json.loads((ROOT / "samples" / "postgres" / f"{set_name}.json").read_text())
    return [t["nl_query"] for t in data["templates"]]


def _ordered(sql: str | None) -> bool:
    return bool(sql) and " order by " in sql.lower()


def compare_answers(set_name: str, question: str, pg: Any, my: Any) -> Comparison:
    out = Comparison(set_name, question, pg.status, my.status, False)
    if pg.status != my.status:
        out.why = f"status {pg.status} vs {my.status}"
    elif pg.status == "answered" and not results_match(pg.rows, my.rows, _ordered(pg.sql)):
        out.why = f"rows differ: {pg.rows[:3]} vs {my.rows[:3]}"
    elif pg.status == "disambiguate" and list(pg.disambiguation) != list(my.disambiguation):
        out.why = f"choices differ: {pg.disambiguation} vs {my.disambiguation}"
    else:
        out.same = True
    return out


def compare(pg_dsn: str, mysql_dsn: str) -> list[Comparison]:
    """Every sample set's questions asked on both databases (samples loaded), compared."""
    out: list[Comparison] = []
    for name in SETS:
        pg_set = ROOT / "samples" / "postgres" / f"{name}.json"
        my_set = ROOT / "samples" / "mysql" / f"{name}.json"
        with (
            Runtime(str(pg_set), dsn=pg_dsn, use_llm=False) as pg,
            Runtime(str(my_set), dsn=mysql_dsn, use_llm=False) as my,
        ):
            for q in questions_of(name):
                out.append(compare_answers(name, q, pg.ask(q), my.ask(q)))
    return out


def summary(rows: list[Comparison]) -> str:
    lines = []
    for name in SETS:
        mine = [r for r in rows if r.set_name == name]
        same = sum(r.same for r in mine)
        answered = sum(r.same and r.postgres == "answered" for r in mine)
        lines.append(f"{name:18} {same:3} of {len(mine):3} the same ({answered} answered on both)")
    same = sum(r.same for r in rows)
    lines.append(f"{'all':18} {same:3} of {len(rows):3} the same ({same / max(1, len(rows)):.1%})")
    return "\n".join(lines)


@contextlib.contextmanager
def databases(pg_admin: str, mysql_admin: str, scale: float) -> Iterator[tuple[str, str]]:
    """A PostgreSQL and a MariaDB database with the samples at ``scale``, dropped afterwards."""
    import urllib.parse

    import mysql.connector
    import psycopg

    from ctxtool import sampledata

    name = f"ctx_same_{secrets.token_hex(3)}"
    pg_dsn = urllib.parse.urlunsplit(urllib.parse.urlsplit(pg_admin)._replace(path="/" + name))
    my_dsn = urllib.parse.urlunsplit(urllib.parse.urlsplit(mysql_admin)._replace(path="/" + name))
    parts = urllib.parse.urlsplit(mysql_admin)

    def my_exec(sql: str) -> None:
        conn = mysql.connector.connect(
            host=parts.hostname,
            port=parts.port or 3306,
            user=parts.username or "root",
            password=parts.password or "",
        )
        try:
            conn.cursor().execute(sql)
        finally:
            conn.close()

    with psycopg.connect(pg_admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            for ext in ("pg_trgm", "fuzzystrmatch"):
                conn.execute(f"CREATE EXTENSION IF NOT EXISTS {ext}")
        my_exec(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
        try:
            sampledata.load(pg_dsn, scale=scale)
            sampledata.load(my_dsn, scale=scale)
            yield pg_dsn, my_dsn
        finally:
            my_exec(f"DROP DATABASE IF EXISTS `{name}`")
    finally:
        with psycopg.connect(pg_admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/postgres")
    ap.add_argument("--mysql", default="mysql://root@127.0.0.1:3306")
    ap.add_argument("--scale", type=float, default=0.02)
    ap.add_argument("-v", "--verbose", action="store_true", help="list every question, not only differences")
    args = ap.parse_args(argv)
    with databases(args.pg, args.mysql, args.scale) as (pg_dsn, my_dsn):
        rows = compare(pg_dsn, my_dsn)
    for r in rows:
        if args.verbose or not r.same:
            mark = "same" if r.same else "DIFF"
            print(f"{mark} {r.set_name:18} {r.postgres:12} {r.question}" + (f"  -- {r.why}" if r.why else ""))
    print(summary(rows))
    return 0 if all(r.same for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
