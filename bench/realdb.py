"""The whole authoring pipeline on databases nobody here wrote (issue 12).

Loads Chinook (PostgreSQL and MariaDB), Northwind (PostgreSQL) and the Spider train databases from
``<repo>/../shared/data`` (or /work/shared/data) into databases named ``realdb_*`` (reused when
present; ``--reload`` loads them again), then runs on each, through the library API the CLI uses:
introspect with profile, draft templates / facets / value searches, parameterize, validate (with the
snapshot and the live database), test-values, and executes every drafted template once more.

Per database it prints: tables, templates, facets, value searches drafted, validate errors,
test-values passed/total, drafted templates/facets that fail (kept ones that fail to execute plus
drafts dropped because the database rejected them), and wall time. Goal: 0 validate errors, 0
failing drafts, every value search passing, on every database.

    .venv/bin/python bench/realdb.py                     # all of them
    .venv/bin/python bench/realdb.py --db chinook --db chinook_mariadb --db northwind
    .venv/bin/python bench/realdb.py --limit 20 --format json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402
from rich.progress import Progress  # noqa: E402

PG = "postgresql://postgres@127.0.0.1:5432/"
MY = "mysql://root@127.0.0.1:3306/"
PREFIX = "realdb_"
SHAPE_CHECKS = ("runs", "shape", "exact", "nomatch")
err = Console(stderr=True)


def shared_data() -> Path | None:
    for base in (ROOT.parent / "shared", Path("/work/shared")):
        if (base / "data").is_dir():
            return base / "data"
    return None


@dataclass
class Source:
    name: str  # what --db selects
    engine: str  # postgres | mariadb
    file: Path
    database: str

    @property
    def dsn(self) -> str:
        return (PG if self.engine == "postgres" else MY) + self.database


def sources(data: Path) -> list[Source]:
    pub = data / "public"
    out = [
        Source("chinook", "postgres", pub / "chinook_postgres.sql", PREFIX + "chinook"),
        Source("chinook_mariadb", "mariadb", pub / "chinook_mysql.sql", PREFIX + "chinook"),
        Source("northwind", "postgres", pub / "northwind_postgres.sql", PREFIX + "northwind"),
    ]
    for f in sorted((data / "spider_train").glob("*.sql")):
        db = f.stem.lower()
        out.append(Source(f"spider_{db}", "postgres", f, f"{PREFIX}spider_{db}"))
    return out


# ------------------------------------------------------------------------------------------ loading

_DB_LINES = re.compile(r"^\s*(DROP DATABASE|CREATE DATABASE|USE |\\c )[^\n]*$", re.IGNORECASE | re.MULTILINE)


def _script(src: Source) -> str:
    """The dump without its own CREATE/DROP DATABASE and connect lines (we pick the database)."""
    return _DB_LINES.sub("", src.file.read_text(encoding="utf-8"))


def exists(src: Source) -> bool:
    if src.engine == "postgres":
        import psycopg

        with psycopg.connect(PG + "postgres", autocommit=True) as c:
            return bool(c.execute("SELECT 1 FROM pg_database WHERE datname = %s", (src.database,)).fetchone())
    import mysql.connector

    c = mysql.connector.connect(host="127.0.0.1", user="root", password="")
    try:
        cur = c.cursor()
        cur.execute("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = %s", (src.database,))
        return cur.fetchone()[0] > 0
    finally:
        c.close()


def load(src: Source) -> None:
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False, encoding="utf-8") as fh:
        fh.write(_script(src))
        script = fh.name
    try:
        if src.engine == "postgres":
            import psycopg

            with psycopg.connect(PG + "postgres", autocommit=True) as c:
                c.execute(f'DROP DATABASE IF EXISTS "{src.database}" WITH (FORCE)')
                c.execute(f'CREATE DATABASE "{src.database}"')
            cmd = ["psql", "-q", "-X", "-v", "ON_ERROR_STOP=1", "-d", PG + src.database, "-f", script]
            subprocess.run(cmd, check=True, capture_output=True)
        else:
            import mysql.connector

            c = mysql.connector.connect(host="127.0.0.1", user="root", password="")
            c.cursor().execute(f"DROP DATABASE IF EXISTS `{src.database}`")
            c.cursor().execute(f"CREATE DATABASE `{src.database}` CHARACTER SET utf8mb4")
            c.close()
            with open(script, "rb") as fh:
                subprocess.run(
                    ["mariadb", "-uroot", "-h127.0.0.1", src.database],
                    stdin=fh,
                    check=True,
                    capture_output=True,
                )
    except subprocess.CalledProcessError as exc:
        raise RuntimeError(f"loading {src.file.name}: {exc.stderr.decode()[-300:]}") from None
    finally:
        os.unlink(script)


# --------------------------------------------------------------------------------------- the pipeline


@dataclass
class Row:
    database: str
    engine: str
    tables: int = 0
    templates: int = 0
    facets: int = 0
    value_searches: int = 0
    validate_errors: int = 0
    values_passed: int = 0  # every check, the index one included
    values_shape_ok: int = 0  # runs, shape, exact and no-match checks (the goal)
    values_total: int = 0
    failing_templates: int = 0
    failing_facets: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (
            not self.validate_errors
            and not self.failing_templates
            and not self.failing_facets
            and self.values_shape_ok == self.values_total
            and not any(p.startswith("CRASH") for p in self.problems)
        )


def _rejected(reason: str) -> bool:
    """A drop because the database (or the validator) rejected the SQL: a drafting bug, not a
    draft that merely found no rows."""
    return reason.startswith("fails:") or bool(re.match(r"CTX\d+", reason))


def run_pipeline(src: Source) -> Row:
    from ctxtool import contextset, jsondoc
    from ctxtool import snapshot as snapshots
    from ctxtool.connectors import connect
    from ctxtool.draft import draft
    from ctxtool.errors import CtxtoolError
    from ctxtool.parameterize import parameterize_set
    from ctxtool.validate import validate_set
    from ctxtool.values.draft import draft as draft_values
    from ctxtool.values.draft import merge, server_from_connector
    from ctxtool.values.testing import test_values

    row = Row(src.name, src.engine)
    start = time.perf_counter()
    stage = "connect"
    try:
        with connect(src.dsn, statement_timeout=10.0, row_cap=1000) as conn:
            stage = "introspect"
            snap = snapshots.build(conn, profile=True)
            row.tables = sum(len(s.get("tables") or []) for s in snap.get("schemas") or [])
            data: dict = {}
            for kind in ("templates", "facets"):
                stage = f"draft {kind}"
                result = draft(kind, snap, connector=conn)
                data[kind] = result.items()
                setattr(row, kind, len(result.kept))
                bad = [d for d in result.dropped if _rejected(d.reason or "")]
                setattr(row, f"failing_{kind}", len(bad))
                row.problems += [f"{kind} dropped: {d.text} -- {d.reason}" for d in bad]
            stage = "draft values"
            recipes, _notes = draft_values(snap, server=server_from_connector(conn))
            data, _, _ = merge(data, recipes)
            row.value_searches = len(recipes)
            stage = "parameterize"
            data, report = parameterize_set(data, snap.get("dialect") or conn.dialect, snap)
            row.problems += [
                f"parameterize {r.pointer}: {'; '.join(r.problems)}" for r in report if r.problems
            ]
            cs = contextset.loads(jsondoc.dumps_json(data), f"<{src.name}>")
            stage = "validate"
            for f in validate_set(cs, dialect=conn.dialect, snapshot=snap, connector=conn):
                if f.is_error and f.code != "CTX003":
                    row.validate_errors += 1
                    row.problems.append(f"validate {f.pointer}: {f.code} {f.message}")
            stage = "test-values"
            rep = test_values(cs, conn)
            row.values_total = len(rep.results)
            row.values_passed = sum(1 for r in rep.results if r.ok)
            row.values_shape_ok = sum(
                1 for r in rep.results if all(c.ok for c in r.checks if c.name in SHAPE_CHECKS) and r.checks
            )
            for r in rep.results:
                row.problems += [f"test-values {r.concept_type}: {c.name}: {c.message}" for c in r.failed]
            stage = "execute templates"
            for t in data.get("templates") or []:
                try:
                    conn.query(t["sql"])
                except CtxtoolError as exc:
                    row.failing_templates += 1
                    row.problems.append(f"template fails: {t['nl_query']}: {str(exc).splitlines()[0]}")
    except Exception as exc:  # noqa: BLE001 - a crash is a finding of the benchmark
        row.problems.append(
            f"CRASH in {stage}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        )
    row.seconds = round(time.perf_counter() - start, 2)
    return row


# -------------------------------------------------------------------------------------------- output


def print_table(rows: list[Row], verbose: bool) -> None:
    from rich.table import Table

    table = Table(title="ctxtool on real databases (bench/realdb.py)")
    heads = ["database", "engine", "tables", "templates", "facets", "value searches",
             "validate errors", "test-values shape/exact", "test-values all checks", "failing drafts",
             "seconds"]  # fmt: skip
    for h in heads:
        table.add_column(h, justify="left" if h in ("database", "engine") else "right")
    for r in rows:
        style = None if r.ok else "red"
        table.add_row(
            r.database, r.engine, str(r.tables), str(r.templates), str(r.facets), str(r.value_searches),
            str(r.validate_errors), f"{r.values_shape_ok}/{r.values_total}",
            f"{r.values_passed}/{r.values_total}",
            str(r.failing_templates + r.failing_facets), f"{r.seconds:.1f}", style=style,
        )  # fmt: skip
    t = totals(rows)
    table.add_row(
        "total", "", str(t["tables"]), str(t["templates"]), str(t["facets"]), str(t["value_searches"]),
        str(t["validate_errors"]), f"{t['values_shape_ok']}/{t['values_total']}",
        f"{t['values_passed']}/{t['values_total']}",
        str(t["failing_drafts"]), f"{t['seconds']:.0f}", style="bold",
    )  # fmt: skip
    Console(width=200).print(table)
    print(f"{t['databases_ok']} of {len(rows)} databases meet the goal")
    for r in rows:
        if r.problems and verbose:
            print(f"\n{r.database} ({r.engine}):")
            for p in r.problems[:40]:
                print(f"  {p[:300]}")


def totals(rows: list[Row]) -> dict:
    keys = ("tables", "templates", "facets", "value_searches", "validate_errors", "values_passed",
            "values_shape_ok", "values_total", "seconds")  # fmt: skip
    out = {k: round(sum(getattr(r, k) for r in rows), 1) for k in keys}
    out["failing_drafts"] = sum(r.failing_templates + r.failing_facets for r in rows)
    out["crashes"] = sum(1 for r in rows if any(p.startswith("CRASH") for p in r.problems))
    out["databases_ok"] = sum(1 for r in rows if r.ok)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", action="append", default=[], help="only this database (repeatable; see --list)")
    ap.add_argument("--limit", type=int, default=None, help="only the first N databases")
    ap.add_argument("--reload", action="store_true", help="load the databases again even when present")
    ap.add_argument("--format", choices=["text", "json"], default="text")
    ap.add_argument("--verbose", "-v", action="store_true", help="list every problem found")
    ap.add_argument("--list", action="store_true", help="list the databases and exit")
    args = ap.parse_args()
    data = shared_data()
    if data is None:
        sys.exit("no shared data: looked for <repo>/../shared/data and /work/shared/data")
    chosen = sources(data)
    if args.list:
        print("\n".join(s.name for s in chosen))
        return
    if args.db:
        wanted = {d.lower() for d in args.db}
        chosen = [s for s in chosen if s.name in wanted or s.database in wanted]
    if args.limit:
        chosen = chosen[: args.limit]
    rows: list[Row] = []
    with Progress(console=err, transient=True) as bar:
        task = bar.add_task("databases", total=len(chosen))
        for src in chosen:
            bar.update(task, description=f"{src.name}: loading")
            try:
                if args.reload or not exists(src):
                    load(src)
            except Exception as exc:  # noqa: BLE001
                rows.append(Row(src.name, src.engine, problems=[f"CRASH in load: {exc}"]))
                bar.advance(task)
                continue
            bar.update(task, description=f"{src.name}: pipeline")
            rows.append(run_pipeline(src))
            bar.advance(task)
    if args.format == "json":
        out = {"databases": [{**asdict(r), "ok": r.ok} for r in rows], "totals": totals(rows)}
        print(json.dumps(out, indent=2))
    else:
        print_table(rows, args.verbose)


if __name__ == "__main__":
    main()
