"""The Spider train kit, scored as its README's "Scoring" section says.

For each database of ``../shared/data/spider_train/``: load it into PostgreSQL as
``spider_<db_id lower>`` (reused when present), take ``sets/<db_id>.json`` as the curated set, add
what a user would add (``draft values --merge``, ``parameterize``; through the library calls the CLI
makes), ask every case of the database (the call behind ``ctxtool ask --action showsql``), run the SQL
that comes back with its parameters, read-only, and compare its result with the gold SQL's result
(numbers as floats rounded to 4 places, NULL kept, dates as text, rows sorted unless the outermost
query has ORDER BY, columns in any order).

    .venv/bin/python bench/spider.py                          # all 138 databases, 3,091 cases
    .venv/bin/python bench/spider.py --db concert_singer --db pets_1 --limit 20
    .venv/bin/python bench/spider.py --format json > spider.json

Prints per kind (paraphrase, value-variant, uncovered) correct / wrong / declined, the covered
accuracy (correct / (paraphrase + value-variant)), the uncovered cases' accuracy (questions whose
shape no template has: answered only by composing a template with conditions), the wrong rate (wrong
/ all cases), the ask latency p50/p95 without the database's own time, and how many paraphrases were
declined although their own template was the closest candidate. The same figures follow for two fixed
halves of the databases (sorted by name: ``even`` the 1st, 3rd, 5th...; ``odd`` the others): tune on
one (``--half even``), report both.

    .venv/bin/python bench/spider.py --half even --work /tmp/spider-me     # the tuning half only
    .venv/bin/python bench/spider.py --summarize rows.jsonl                # the figures of a --rows file

``--drafted`` (issue 14) scores drafting instead of curation: each database's set is drafted from the
database alone (``draft templates``, ``draft facets``, ``draft values``, ``parameterize``, the library
calls the CLI makes), loaded as ``drafts_spider_<db>``, and every question of the kit is a case, the
curated templates' own questions included (kind ``template``). ``--drafted --workload`` gives the kit's
gold SQL of that database as the query log (``draft templates --workload FILE``).

    .venv/bin/python bench/spider.py --drafted --first 30
    .venv/bin/python bench/spider.py --drafted --workload --first 30
    .venv/bin/python bench/spider.py --drafted --workload --skip 30 --first 30   # databases 31-60
    .venv/bin/python bench/spider.py --drafted --workload --holdout --first 30   # log: even cases, asked: odd

Prepared sets are cached in ``--work`` by the hash of the curated
set (delete the folder to redo ``draft values`` and ``parameterize``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import decimal
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ctxtool import console  # noqa: E402
from ctxtool.connectors import connect  # noqa: E402
from ctxtool.errors import CtxtoolError  # noqa: E402
from ctxtool.parameterize import parameterize_set  # noqa: E402
from ctxtool.runtime import Runtime  # noqa: E402
from ctxtool.values.workflow import draft_values  # noqa: E402

KINDS = ("paraphrase", "value-variant", "uncovered")
HALVES = ("even", "odd")


def half_of(db_ids: list[str] | set[str], half: str) -> list[str]:
    """The databases of one fixed half: sorted by name, ``even`` takes the 1st, 3rd, 5th..."""
    return sorted(db_ids)[HALVES.index(half) :: 2]


DRAFTED_KINDS = ("template", *KINDS)


def kit_dir() -> Path:
    env = os.environ.get("CTXTOOL_SHARED")
    for base in ([Path(env)] if env else []) + [ROOT.parent / "shared", Path("/work/shared")]:
        if (base / "data" / "spider_train" / "cases.jsonl").is_file():
            return base / "data" / "spider_train"
    raise SystemExit("spider kit not found: set CTXTOOL_SHARED to the shared/ folder")


# -- databases ---------------------------------------------------------------------------------------
def ensure_database(server: str, db_id: str, kit: Path, prefix: str = "spider_") -> str:
    """The DSN of ``<prefix><db_id>``, created and loaded from ``<db_id>.sql`` when absent."""
    import psycopg

    name = f"{prefix}{db_id.lower()}"
    with psycopg.connect(server + "postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')
            load = subprocess.run(
                ["psql", "-q", "-v", "ON_ERROR_STOP=1", "-d", server + name, "-f", str(kit / f"{db_id}.sql")],
                capture_output=True,
                text=True,
            )
            if load.returncode != 0:
                conn.execute(f'DROP DATABASE "{name}"')
                raise SystemExit(f"{db_id}.sql did not load: {load.stderr.strip()[:300]}")
    return server + name


def prepare_set(dsn: str, db_id: str, kit: Path, work: Path) -> tuple[dict[str, Any], list[str]]:
    """The curated set plus drafted value searches, parameterized (cached by the set's hash)."""
    raw = (kit / "sets" / f"{db_id}.json").read_bytes()
    digest = hashlib.sha256(raw + b"v1").hexdigest()[:16]
    out = work / f"{db_id}.{digest}.json"
    notes: list[str] = []
    if out.is_file():
        return json.loads(out.read_text()), notes
    work.mkdir(parents=True, exist_ok=True)
    tmp = work / f"{db_id}.draft.json"
    tmp.write_bytes(raw)
    try:
        draft_values(dsn=dsn, merge_path=str(tmp))
    except CtxtoolError as exc:  # reported, the set is then asked without value searches
        notes.append(f"{db_id}: draft values --merge failed: {exc}")
    data = json.loads(tmp.read_text())
    with connect(dsn) as conn:
        snapshot = conn.introspect()
    data, _report = parameterize_set(data, "postgres", snapshot)
    out.write_text(json.dumps(data, indent=1, default=str))
    tmp.unlink()
    return data, notes


# -- results ---------------------------------------------------------------------------------------
def _norm_value(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float, decimal.Decimal)):
        return round(float(v), 4)
    if isinstance(v, (dt.date, dt.datetime, dt.time)):
        return str(v)
    return str(v)


def _key(v: Any) -> tuple:
    return (0, "") if v is None else (1, str(type(v)), v)


def _ordered(sql: str) -> bool:
    """The outermost query has ORDER BY (parenthesized subqueries ignored)."""
    depth = 0
    flat = []
    for ch in re.sub(r"'(?:[^']|'')*'", "''", sql):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0:
            flat.append(ch)
    return re.search(r"\border\s+by\b", "".join(flat), re.I) is not None


def same_result(got: list[list[Any]], gold: list[list[Any]], ordered: bool) -> bool:
    """Equal results, columns in any order (matched by their values), rows sorted unless ordered."""
    if len(got) != len(gold):
        return False
    if not gold:
        return True
    g = [[_norm_value(v) for v in r] for r in got]
    r = [[_norm_value(v) for v in row] for row in gold]
    if len(g[0]) != len(r[0]):
        return False
    n = len(r[0])

    def signature(rows: list[list[Any]], c: int) -> list:
        return sorted(_key(row[c]) for row in rows)

    gold_sigs = [signature(r, c) for c in range(n)]
    free = list(range(n))
    perm = []
    for c in range(n):
        sig = signature(g, c)
        match = next((j for j in free if gold_sigs[j] == sig), None)
        if match is None:
            return False
        free.remove(match)
        perm.append(match)
    # answer column c holds gold column perm[c]: put the answer's columns in gold order
    inverse = {p: c for c, p in enumerate(perm)}
    g = [[row[inverse[j]] for j in range(n)] for row in g]
    if not ordered:
        g = sorted(g, key=lambda row: [_key(v) for v in row])
        r = sorted(r, key=lambda row: [_key(v) for v in row])
    return g == r


class TimedConnector:
    """The runtime's connector with the time spent in the database counted (to leave it out)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.db_seconds = 0.0

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name not in ("query", "plan", "sample_column", "introspect"):
            return attr

        def timed(*a: Any, **k: Any) -> Any:
            t = time.perf_counter()
            try:
                return attr(*a, **k)
            finally:
                self.db_seconds += time.perf_counter() - t

        return timed


def _squash(sql: str) -> str:
    return re.sub(r"\s+", " ", sql.strip().rstrip(";")).lower()


def _shape(sql: str) -> str:
    """The literal shape (string and number literals as ``?``), as the kit's README defines it."""
    s = re.sub(r"'(?:[^']|'')*'", "?", sql)
    s = re.sub(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w])", "?", s)
    return _squash(s)


def candidate_features(rt: Runtime, case: dict[str, Any]) -> list[dict[str, Any]]:
    """The runtime's top candidates for a case, each with whether its SQL has the gold's shape."""
    _, cands = rt.understand(case["question"])
    gold = _shape(case["gold_sql"])
    return [
        {
            "t": c.template.index,
            "same_shape": _shape(c.template.concrete_sql) == gold,
            "same_sql": _squash(c.template.concrete_sql) == _squash(case["gold_sql"]),
            "sim": c.similarity,
            "lex": c.lexical,
            "checks": c.checks,
            "score": c.evidence,
            "confidence": c.score,
            "reasons": list(c.reasons),
        }
        for c in cands
    ]


# -- scoring ---------------------------------------------------------------------------------------
def score_database(
    db_id: str,
    cases: list[dict[str, Any]],
    data: dict[str, Any],
    dsn: str,
    runtime_args: dict[str, Any],
    dump: bool = False,
) -> list[dict[str, Any]]:
    out = []
    with connect(dsn, statement_timeout=20.0, row_cap=100_000) as conn:
        timed = TimedConnector(conn)
        rt = Runtime(data, connector=timed, dialect="postgres", use_llm=False, **runtime_args)
        for case in cases:
            timed.db_seconds = 0.0
            t = time.perf_counter()
            try:
                ans = rt.ask(case["question"], action="showsql")
                error = None
            except CtxtoolError as exc:
                ans, error = None, str(exc)
            ms = (time.perf_counter() - t - timed.db_seconds) * 1000
            row = {"id": case["id"], "db": db_id, "kind": case["kind"], "ms": round(ms, 3)}
            if ans is not None:
                row["status"], row["confidence"] = ans.status, ans.confidence
                if ans.disambiguation:
                    row["choices"] = list(ans.disambiguation)  # pinned with the answer (bench/pins.py)
            if dump:
                row["candidates"] = candidate_features(rt, case)
            if ans is None or ans.status != "answered" or not ans.sql:
                row["outcome"] = "wrong" if error else "declined"
                if error:
                    row["error"] = error
                elif case["kind"] == "paraphrase":
                    _, cands = rt.understand(case["question"])
                    row["own_closest"] = bool(
                        cands and _squash(cands[0].template.concrete_sql) == _squash(case["gold_sql"])
                    )
                out.append(row)
                continue
            row["sql"], row["params"] = ans.sql, [str(p) for p in ans.params]
            try:
                gold = conn.query(case["gold_sql"], None, max_rows=100_000)
                got = conn.query(ans.sql, ans.params, max_rows=100_000)
                ok = same_result(
                    [list(x) for x in got.rows], [list(x) for x in gold.rows], _ordered(case["gold_sql"])
                )
                row["outcome"] = "correct" if ok else "wrong"
            except CtxtoolError as exc:
                row["outcome"] = "wrong"
                row["error"] = str(exc)[:300]
            out.append(row)
        rt.close()
    return out


def summarize(
    rows: list[dict[str, Any]], kinds: tuple[str, ...] = KINDS, *, halves: bool = True
) -> dict[str, Any]:
    table: dict[str, Counter] = {k: Counter() for k in kinds}
    for r in rows:
        table[r["kind"]][r["outcome"]] += 1
    covered = sum(sum(table[k].values()) for k in KINDS[:2])
    correct_cov = table["paraphrase"]["correct"] + table["value-variant"]["correct"]
    wrong = sum(table[k]["wrong"] for k in kinds)
    ms = sorted(r["ms"] for r in rows)
    q = statistics.quantiles(ms, n=20) if len(ms) >= 20 else ms

    return {
        "cases": len(rows),
        "databases": len({r["db"] for r in rows}),
        "per_kind": {k: {o: table[k][o] for o in ("correct", "wrong", "declined")} for k in kinds},
        "covered": covered,
        "covered_correct": correct_cov,
        "covered_accuracy": round(correct_cov / covered, 4) if covered else None,
        "wrong": wrong,
        "wrong_rate": round(wrong / len(rows), 4) if rows else None,
        "latency_ms": {
            "p50": round(statistics.median(ms), 2) if ms else None,
            "p95": round(q[18] if len(ms) >= 20 else ms[-1], 2) if ms else None,
        },
        "paraphrase_declined_own_closest": sum(1 for r in rows if r.get("own_closest")),
        "uncovered": _uncovered(table),
        "halves": _halves(rows, kinds) if halves else {},
    }


def _uncovered(table: dict[str, Counter]) -> dict[str, Any]:
    c = table.get("uncovered", Counter())
    n = sum(c.values())
    return {
        "cases": n,
        "correct": c["correct"],
        "wrong": c["wrong"],
        "accuracy": round(c["correct"] / n, 4) if n else None,
    }


def _halves(rows: list[dict[str, Any]], kinds: tuple[str, ...]) -> dict[str, Any]:
    """The headline figures of each fixed half of the databases the rows cover."""
    dbs = {r["db"] for r in rows}
    out: dict[str, Any] = {}
    for half in HALVES:
        mine = set(half_of(_all_databases() or sorted(dbs), half)) & dbs
        part = [r for r in rows if r["db"] in mine]
        if part:
            s = summarize(part, kinds, halves=False)
            out[half] = {
                k: s[k]
                for k in (
                    "databases",
                    "cases",
                    "covered",
                    "covered_correct",
                    "covered_accuracy",
                    "wrong",
                    "wrong_rate",
                )
            } | {"uncovered": s["uncovered"]}
    return out


def _all_databases() -> list[str]:
    """Every database of the kit, so that a half is the same whatever subset was run."""
    try:
        lines = (kit_dir() / "cases.jsonl").read_text().splitlines()
    except (OSError, SystemExit):
        return []
    return sorted({json.loads(line)["db_id"] for line in lines})


def print_summary(s: dict[str, Any]) -> None:
    from rich.table import Table

    t = Table(
        "kind", "cases", "correct", "wrong", "declined", title=f"Spider train kit: {s['databases']} databases"
    )
    for k, c in s["per_kind"].items():
        t.add_row(k, str(sum(c.values())), str(c["correct"]), str(c["wrong"]), str(c["declined"]))
    console.stdout.print(t)
    print(
        f"covered accuracy {s['covered_correct']}/{s['covered']} = {100 * (s['covered_accuracy'] or 0):.1f}%  "
        f"wrong {s['wrong']}/{s['cases']} = {100 * (s['wrong_rate'] or 0):.1f}%  "
        f"ask p50 {s['latency_ms']['p50']} ms, p95 {s['latency_ms']['p95']} ms (without database time)  "
        f"paraphrases declined with their own template closest: {s['paraphrase_declined_own_closest']}"
    )
    u = s["uncovered"]
    if u["cases"]:
        print(
            f"uncovered {u['correct']}/{u['cases']} = {100 * (u['accuracy'] or 0):.1f}% right, {u['wrong']} wrong"
        )
    for half, h in s.get("halves", {}).items():
        hu = h["uncovered"]
        print(
            f"  {half:4} half ({h['databases']} databases, {h['cases']} cases): covered "
            f"{h['covered_correct']}/{h['covered']} = {100 * (h['covered_accuracy'] or 0):.1f}%  uncovered "
            f"{hu['correct']}/{hu['cases']} = {100 * (hu['accuracy'] or 0):.1f}%  wrong {h['wrong']}/{h['cases']} "
            f"= {100 * (h['wrong_rate'] or 0):.2f}%"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", default="postgresql://postgres@127.0.0.1:5432/", help="server DSN prefix")
    ap.add_argument("--db", action="append", default=[], help="only this database (repeatable)")
    ap.add_argument("--limit", type=int, default=0, help="at most N cases per database")
    ap.add_argument("--work", default="/tmp/ctxtool-spider", help="cache of prepared sets")
    ap.add_argument("--threshold", type=float, default=None, help="the runtime's confidence threshold")
    ap.add_argument("--matcher", choices=["hybrid", "lexical"], default=None, help="CTXTOOL_MATCHER")
    ap.add_argument(
        "--confidence", choices=["evidence", "calibrated"], default=None, help="CTXTOOL_CONFIDENCE"
    )
    ap.add_argument("--dump", action="store_true", help="record each case's candidates (with --rows)")
    ap.add_argument("--format", choices=["table", "json"], default="table")
    ap.add_argument("--rows", help="write every case's outcome to this JSON-lines file")
    ap.add_argument("--sets", help="with --drafted: write the drafted sets (per database) to this JSON file")
    ap.add_argument(
        "--half", choices=HALVES, help="only this fixed half of the databases (sorted, alternate)"
    )
    ap.add_argument("--summarize", metavar="ROWS", help="print the figures of a --rows file; run nothing")
    add_drafted_arguments(ap)
    args = ap.parse_args(argv)
    if args.summarize:
        summary = summarize(
            [json.loads(line) for line in Path(args.summarize).read_text().splitlines() if line]
        )
        print(json.dumps(summary, indent=2)) if args.format == "json" else print_summary(summary)
        return 0
    if args.drafted:
        return drafted_main(args)
    if args.workload:
        raise SystemExit("--workload goes with --drafted")

    kit = kit_dir()
    by_db: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in (kit / "cases.jsonl").read_text().splitlines():
        c = json.loads(line)
        by_db[c["db_id"]].append(c)
    dbs = sorted(by_db) if not args.db else args.db
    if args.half:
        dbs = [d for d in half_of(sorted(by_db), args.half) if d in dbs]
    unknown = [d for d in dbs if d not in by_db]
    if unknown:
        raise SystemExit(f"no cases for {', '.join(unknown)}")
    runtime_args: dict[str, Any] = {"threshold": args.threshold} if args.threshold is not None else {}
    if args.matcher:
        runtime_args["matcher"] = args.matcher
    if args.confidence:
        runtime_args["confidence"] = args.confidence
    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    with console.make_progress() as progress:
        task = progress.add_task("spider", total=len(dbs))
        for db_id in dbs:
            progress.update(task, description=db_id)
            dsn = ensure_database(args.server, db_id, kit)
            data, n = prepare_set(dsn, db_id, kit, Path(args.work))
            notes += n
            cases = by_db[db_id][: args.limit] if args.limit else by_db[db_id]
            rows += score_database(db_id, cases, data, dsn, runtime_args, args.dump)
            progress.advance(task)
    for n in notes:
        print(n, file=sys.stderr)
    if args.rows:
        Path(args.rows).write_text("".join(json.dumps(r, default=str) + "\n" for r in rows))
    summary = summarize(rows)
    if args.format == "json":
        print(json.dumps(summary, indent=2))
    else:
        print_summary(summary)
    return 0


# -- drafted sets (issue 14) -----------------------------------------------------------------------
DRAFTED_PREFIX = "drafts_spider_"


def add_drafted_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--drafted", action="store_true", help="score sets drafted from each database")
    ap.add_argument(
        "--workload", action="store_true", help="with --drafted: the kit's gold SQL is the query log"
    )
    ap.add_argument(
        "--holdout",
        action="store_true",
        help="with --drafted --workload: half of each database's gold SQL (even cases) is the log, "
        "the other half (odd cases) the questions scored",
    )
    ap.add_argument("--first", type=int, default=0, help="only the first N databases (sorted)")
    ap.add_argument("--skip", type=int, default=0, help="leave out the first N databases (before --first)")
    ap.add_argument("--max", type=int, default=None, help="with --drafted: draft templates --max N")


def drafted_cases(kit: Path) -> dict[str, list[dict[str, Any]]]:
    """Every question of the kit per database: its cases plus the curated templates' own questions
    (kind ``template``, their SQL the gold)."""
    by_db: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in (kit / "cases.jsonl").read_text().splitlines():
        c = json.loads(line)
        by_db[c["db_id"]].append(c)
    for db_id in list(by_db):
        curated = json.loads((kit / "sets" / f"{db_id}.json").read_text())
        for i, t in enumerate(curated.get("templates") or []):
            by_db[db_id].append(
                {"id": f"{db_id}-template-{i}", "db_id": db_id, "kind": "template",
                 "question": t["nl_query"], "gold_sql": t["sql"]}
            )  # fmt: skip
    return by_db


def draft_set(
    dsn: str, db_id: str, cases: list[dict[str, Any]], work: Path, workload: bool, max_templates: int | None
) -> tuple[dict[str, Any], list[str], dict[str, Any]]:
    """The set a user drafts from the database (and the query log): templates, facets, value
    searches, parameterized. Returns (set, notes, a small report)."""
    from ctxtool import snapshot as snapshots
    from ctxtool.draft import draft
    from ctxtool.values.draft import draft as draft_value_searches
    from ctxtool.values.draft import merge, server_from_connector

    notes: list[str] = []
    log = None
    if workload:
        work.mkdir(parents=True, exist_ok=True)
        log = work / f"{db_id}.workload.sql"
        gold = dict.fromkeys(c["gold_sql"].strip().rstrip(";") for c in cases)
        log.write_text("".join(sql + ";\n" for sql in gold))
    with connect(dsn, statement_timeout=10.0, row_cap=1000) as conn:
        snap = snapshots.build(conn, profile=True)
        data: dict[str, Any] = {}
        report: dict[str, Any] = {}
        for kind in ("templates", "facets"):
            kw: dict[str, Any] = {}
            if kind == "templates" and log is not None:
                kw["workload"] = str(log)
            if kind == "templates" and max_templates is not None:
                kw["max_templates"] = max_templates
            try:
                result = draft(kind, snap, connector=conn, **kw)
            except TypeError:  # a drafting library without --max
                kw.pop("max_templates", None)
                result = draft(kind, snap, connector=conn, **kw)
            data[kind] = result.items()
            report[kind] = len(result.kept)
        try:
            recipes, _ = draft_value_searches(
                snap, server=server_from_connector(conn), connector=conn, as_is=True
            )
            data, _, _ = merge(data, recipes)
        except CtxtoolError as exc:
            notes.append(f"{db_id}: draft values failed: {exc}")
    data, _report = parameterize_set(data, "postgres", snap)
    return data, notes, report


def drafted_main(args: argparse.Namespace) -> int:
    kit = kit_dir()
    by_db = drafted_cases(kit)
    dbs = sorted(by_db) if not args.db else args.db
    dbs = dbs[args.skip :]
    if args.first:
        dbs = dbs[: args.first]
    unknown = [d for d in dbs if d not in by_db]
    if unknown:
        raise SystemExit(f"no cases for {', '.join(unknown)}")
    if args.holdout and not args.workload:
        raise SystemExit("--holdout goes with --drafted --workload")
    runtime_args = {"threshold": args.threshold} if args.threshold is not None else {}
    work = Path(args.work) / (
        "drafted-workload-holdout" if args.holdout else "drafted-workload" if args.workload else "drafted"
    )
    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    sets: dict[str, dict[str, Any]] = {}
    with console.make_progress() as progress:
        task = progress.add_task("spider --drafted", total=len(dbs))
        for db_id in dbs:
            progress.update(task, description=db_id)
            dsn = ensure_database(args.server, db_id, kit, DRAFTED_PREFIX)
            cases = by_db[db_id]
            # held out: the log never holds the SQL of a question scored
            logged, scored = (cases[0::2], cases[1::2]) if args.holdout else (cases, cases)
            data, n, _rep = draft_set(dsn, db_id, logged, work, args.workload, args.max)
            notes += n
            sets[db_id] = data
            asked = scored[: args.limit] if args.limit else scored
            rows += score_database(db_id, asked, data, dsn, runtime_args)
            progress.advance(task)
    for n in notes:
        print(n, file=sys.stderr)
    if args.rows:
        Path(args.rows).write_text("".join(json.dumps(r, default=str) + "\n" for r in rows))
    if args.sets:
        Path(args.sets).write_text(json.dumps(sets, indent=1, default=str))
    summary = summarize(rows, DRAFTED_KINDS)
    right = sum(c["correct"] for c in summary["per_kind"].values())
    summary["all_correct"] = right
    summary["all_correct_rate"] = round(right / len(rows), 4) if rows else None
    summary["templates_drafted"] = sum(len(s.get("templates") or []) for s in sets.values())
    if args.format == "json":
        print(json.dumps(summary, indent=2))
    else:
        print_summary(summary)
        print(
            f"drafted{' with workload' if args.workload else ''}{' (held out)' if args.holdout else ''}: "
            f"right {right}/{len(rows)} = "
            f"{100 * (summary['all_correct_rate'] or 0):.1f}%  wrong {summary['wrong']}/{len(rows)} = "
            f"{100 * (summary['wrong_rate'] or 0):.1f}%  templates drafted {summary['templates_drafted']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
