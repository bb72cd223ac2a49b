"""The analyst questions of ``../shared/data/public/analyst/``, asked of sets drafted from the databases.

Loads Chinook (PostgreSQL and MariaDB) and Northwind (PostgreSQL) from ``../shared/data/public/``
under the names the analyst README uses (``ana_chinook``, ``ana_northwind``; reused when present,
``--reload`` loads them again), drafts a set for each database through the library calls the CLI
makes (introspect with profile, draft templates / facets / values, parameterize: the pipeline alone,
no model; see ``bench/drafting.py``), optionally adds a curated file of extra templates (``--extra
FILE``: ``{"chinook": [{"nl_query": ..., "sql": ...}, ...], "chinook_mariadb": [...], "northwind":
[...]}``, at most 10 per database, counted and printed), then asks every question of
``analyst/<db>_questions.json`` through the runtime (the call behind ``ctxtool ask --action
showsql``), runs the SQL it returns with its bound parameters in ctxtool's read-only session (statement
timeout, row cap) and scores it as the analyst README says:

- right: the same rows as the reference (a multiset unless the item is ``ordered``; columns matched in
  any order; numbers equal within 0.01; a timestamp at midnight equals the date; text exact; an id
  column beside a list of names is allowed); wrong: SQL whose result differs, or that fails;
  declined: no answer (asked back or declined);
- a ``decline`` item is right only when declined; its SQL, if any, is never run;
- the README's known leniencies (a month as ``3``, ``'2024-03'`` or ``2024-03-01``; a group listed
  with a zero/NULL measure on one side only) are counted separately from the strict score.

``--conversations`` asks ``<db>_conversations.json`` the same way through the conversation runner
(each turn in order, the earlier turns and the tool's own answers as context) and scores each turn
and each whole conversation.

    .venv/bin/python bench/analyst.py                                  # all three databases
    .venv/bin/python bench/analyst.py --db chinook --conversations --rows /tmp/chinook.jsonl
    .venv/bin/python bench/analyst.py --extra my_templates.json --format json
    .venv/bin/python bench/analyst.py --db northwind --set northwind.json   # score this set instead

Drafted sets are cached in ``--work`` by a hash of the drafting code and the database's dump, so a
rerun on unchanged code only asks.
"""

from __future__ import annotations

import argparse
import datetime as dt
import decimal
import hashlib
import itertools
import json
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from drafting import code_hash, draft_set  # noqa: E402

from ctxtool import console  # noqa: E402
from ctxtool.connectors import connect  # noqa: E402
from ctxtool.errors import CtxtoolError  # noqa: E402

PG = "postgresql://postgres@127.0.0.1:5432/"
MY = "mysql://root@127.0.0.1:3306/"
KINDS = ("time", "value", "group", "combined", "lookup", "decline")
MAX_EXTRA = 10
TOLERANCE = 0.01 + 1e-9


def public_data() -> Path:
    for base in (ROOT.parent / "shared", Path("/work/shared")):
        if (base / "data" / "public" / "analyst").is_dir():
            return base / "data" / "public"
    raise SystemExit("no analyst files: looked for <repo>/../shared/data/public/analyst and /work/shared/...")


# ----------------------------------------------------------------------------------------- databases
@dataclass
class Source:
    name: str  # what --db selects
    engine: str  # postgres | mariadb
    database: str
    dump: str  # file in public/
    questions: str  # the analyst file's prefix (chinook | northwind)

    @property
    def dsn(self) -> str:
        return (PG if self.engine == "postgres" else MY) + self.database

    @property
    def sql_key(self) -> str:
        return "sql_postgres" if self.engine == "postgres" else "sql_mysql"


SOURCES = (
    Source("chinook", "postgres", "ana_chinook", "chinook_postgres.sql", "chinook"),
    Source("chinook_mariadb", "mariadb", "ana_chinook", "chinook_mysql.sql", "chinook"),
    Source("northwind", "postgres", "ana_northwind", "northwind_postgres.sql", "northwind"),
)


def loaded(src: Source) -> bool:
    """The database exists and holds tables (a load that failed half-way is loaded again)."""
    if src.engine == "postgres":
        import psycopg

        with psycopg.connect(PG + "postgres", autocommit=True) as c:
            if not c.execute("SELECT 1 FROM pg_database WHERE datname = %s", (src.database,)).fetchone():
                return False
        with psycopg.connect(PG + src.database) as c:
            n = c.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()[0]
        return n > 0
    out = subprocess.run(
        ["mariadb", "-uroot", "-h127.0.0.1", "-N", "-e",
         f"SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = '{src.database}'"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return int(out.stdout.strip() or 0) > 0


def load(src: Source, data: Path) -> None:
    """Load the dump as the analyst README does (its sed lines, done in Python)."""
    text = (data / src.dump).read_text(encoding="utf-8")
    if src.engine == "mariadb":
        script = text.replace("`Chinook`", f"`{src.database}`")
        subprocess.run(
            ["mariadb", "-uroot", "-h127.0.0.1"], input=script, text=True, check=True, capture_output=True
        )
        return
    import psycopg

    with psycopg.connect(PG + "postgres", autocommit=True) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{src.database}" WITH (FORCE)')
        c.execute(f'CREATE DATABASE "{src.database}"')
    # chinook's dump drops, creates and connects to its own database: those lines go
    script = re.sub(r"^(DROP DATABASE|CREATE DATABASE|\\c )[^\n]*$", "", text, flags=re.MULTILINE)
    subprocess.run(
        ["psql", "-q", "-X", "-v", "ON_ERROR_STOP=1", "-d", PG + src.database],
        input=script, text=True, check=True, capture_output=True,
    )  # fmt: skip


# --------------------------------------------------------------------------------------------- sets
def drafted(src: Source, data: Path, work: Path) -> tuple[dict[str, Any], dict[str, Any], bool]:
    """The set drafted from ``src`` (cached by the drafting code and the dump): (set, report, cached)."""
    dump = hashlib.sha256((data / src.dump).read_bytes()).hexdigest()
    key = code_hash(f"{src.dsn}\0{dump}".encode())
    path = work / f"{src.name}.{key}.json"
    if path.is_file():
        cached = json.loads(path.read_text())
        return cached["set"], cached["report"], True
    data_set, notes, report = draft_set(src.dsn)
    report["notes"] = notes
    work.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"set": data_set, "report": report}, indent=1, default=str))
    tmp.replace(path)
    return data_set, report, False


def read_extra(path: str) -> dict[str, list[dict[str, Any]]]:
    """The curated extra templates per database (at most :data:`MAX_EXTRA` each)."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    names = {s.name for s in SOURCES}
    if not isinstance(doc, dict) or set(doc) - names:
        raise SystemExit(
            f"{path}: an object with keys among {', '.join(sorted(names))}, each a list of templates"
        )
    out = {}
    for db, items in doc.items():
        if not isinstance(items, list) or not all(
            isinstance(i, dict) and i.get("nl_query") and i.get("sql") for i in items
        ):
            raise SystemExit(f"{path}: {db}: a list of templates, each with nl_query and sql")
        if len(items) > MAX_EXTRA:
            raise SystemExit(f"{path}: {db} has {len(items)} extra templates; at most {MAX_EXTRA}")
        out[db] = items
    return out


def with_extra(
    data: dict[str, Any], extra: list[dict[str, Any]], dialect: str, dsn: str
) -> tuple[dict[str, Any], int]:
    """``data`` with the ``extra`` templates appended (those whose question or SQL the set has are
    skipped) and parameterized, as ``ctxtool draft ... --merge`` and ``parameterize`` would."""
    from ctxtool.draft.workload import fingerprint
    from ctxtool.parameterize import parameterize_set

    if not extra:
        return data, 0
    data = json.loads(json.dumps(data))
    have = data.setdefault("templates", [])
    seen_q = {str(t.get("nl_query", "")).strip().lower() for t in have}
    seen_fp = {fingerprint(t["sql"], dialect) for t in have if isinstance(t.get("sql"), str)}
    added = 0
    for t in extra:
        if t["nl_query"].strip().lower() in seen_q or fingerprint(t["sql"], dialect) in seen_fp:
            continue
        have.append({k: v for k, v in t.items() if k in ("nl_query", "intent", "sql")})
        added += 1
    with connect(dsn) as conn:
        snap = conn.introspect()
    data, _ = parameterize_set(data, dialect, snap)
    return data, added


# ------------------------------------------------------------------------------------------ scoring
def norm(v: Any) -> Any:
    """A value as the README compares it: numbers as floats, a midnight timestamp as its date."""
    if v is None:
        return None
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (int, float, decimal.Decimal)):
        return float(v)
    if isinstance(v, dt.datetime):
        return v.date().isoformat() if v.time() == dt.time(0) else v.isoformat(sep=" ")
    if isinstance(v, dt.date):
        return v.isoformat()
    return str(v)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= TOLERANCE
    return a == b


def _key(v: Any) -> tuple:
    if v is None:
        return (0, "")
    if isinstance(v, float):
        return (1, round(v, 2))
    return (2, v)


def same_rows(got: list[tuple], ref: list[tuple], ordered: bool) -> bool:
    """Rows equal as the README says (in order when ``ordered``, else as multisets)."""
    if len(got) != len(ref):
        return False
    if ordered:
        return all(len(g) == len(r) and all(map(_same, g, r)) for g, r in zip(got, ref, strict=True))
    # exact matches after rounding first, then the few left over within the tolerance
    left: dict[tuple, list[tuple]] = {}
    for r in ref:
        left.setdefault(tuple(_key(v) for v in r), []).append(r)
    rest_got = []
    for g in got:
        bucket = left.get(tuple(_key(v) for v in g))
        if bucket:
            bucket.pop()
        else:
            rest_got.append(g)
    if not rest_got:
        return True
    pool = [r for bucket in left.values() for r in bucket]
    for g in rest_got:
        hit = next((i for i, r in enumerate(pool) if all(map(_same, g, r))), None)
        if hit is None:
            return False
        pool.pop(hit)
    return True


_NAME_COLUMN = re.compile(r"(?:^|_)(?:name|title)$|(?:name|title)$", re.I)
_ID_COLUMN = re.compile(r"(?:^|_)id$|[a-z]id$|Id$", re.I)


def _column_values(rows: list[tuple], i: int) -> list[Any]:
    return sorted((r[i] for r in rows), key=_key)


def compare(
    got_cols: list[str], got: list[tuple], ref_cols: list[str], ref: list[tuple], ordered: bool
) -> bool:
    """The answer's result equals the reference's: columns in any order (by their values), an
    extra id column allowed beside a reference that lists only names."""
    got = [tuple(norm(v) for v in r) for r in got]
    ref = [tuple(norm(v) for v in r) for r in ref]
    if len(got) != len(ref):
        return False
    k, m = len(ref_cols), len(got_cols)
    if m < k:
        return False
    if m > k:
        names_only = all(_NAME_COLUMN.search(c) for c in ref_cols)
        if not names_only:
            return False
    if not ref:
        return True
    ref_sig = [_column_values(ref, i) for i in range(k)]
    got_sig = [_column_values(got, j) for j in range(m)]
    options = []
    for i in range(k):
        fits = [
            j
            for j in range(m)
            if len(got_sig[j]) == len(ref_sig[i]) and all(map(_same, got_sig[j], ref_sig[i]))
        ]
        if not fits:
            return False
        options.append(fits)
    for choice in itertools.islice(itertools.product(*options), 200):
        if len(set(choice)) != k:
            continue
        extra = [got_cols[j] for j in range(m) if j not in choice]
        if extra and not all(_ID_COLUMN.search(c) for c in extra):
            continue
        if same_rows([tuple(r[j] for j in choice) for r in got], ref, ordered):
            return True
    return False


_MONTH_TEXT = re.compile(r"^(\d{4})-(\d{2})(?:-01(?: 00:00:00)?)?$")


def _as_months(rows: list[tuple]) -> list[tuple]:
    """Columns holding month buckets (``2024-03``, ``2024-03-01``) as month numbers when one year
    holds them all, as the README's leniency reads ``3``, ``'2024-03'`` and ``2024-03-01`` alike."""
    if not rows:
        return rows
    cols = list(zip(*rows, strict=True))
    out = []
    for col in cols:
        vals = [v for v in col if v is not None]
        ms = [_MONTH_TEXT.match(v) for v in vals if isinstance(v, str)]
        if vals and len(ms) == len(vals) and all(ms):
            years = {m.group(1) for m in ms}
            col = tuple(
                None
                if v is None
                else (float(int(_MONTH_TEXT.match(v).group(2))) if len(years) == 1 else v[:7])
                for v in col
            )
        out.append(col)
    return [tuple(r) for r in zip(*out, strict=True)]


def _without_empty_groups(rows: list[tuple]) -> list[tuple]:
    return [r for r in rows if not any(v is None or v == 0.0 for v in r)]


def compare_lenient(
    got_cols: list[str], got: list[tuple], ref_cols: list[str], ref: list[tuple], ordered: bool
) -> bool:
    """:func:`compare` with the README's known leniencies (month buckets; empty groups)."""
    g = _as_months([tuple(norm(v) for v in r) for r in got])
    r = _as_months([tuple(norm(v) for v in r) for r in ref])
    if compare(got_cols, g, ref_cols, r, ordered):
        return True
    return compare(got_cols, _without_empty_groups(g), ref_cols, _without_empty_groups(r), ordered)


def run_sql(conn: Any, sql: str, params: list[Any] | None = None) -> tuple[list[str], list[tuple]]:
    res = conn.query(sql, params or [], max_rows=100_000)
    return list(res.columns), [tuple(r) for r in res.rows]


def score_answer(
    conn: Any, item: dict[str, Any], sql_key: str, ans: Any, error: str | None
) -> dict[str, Any]:
    """The row of one question (or turn): status, SQL, outcome (right / wrong / declined) and
    whether a leniency made it right."""
    row: dict[str, Any] = {"question": item["question"]}
    if ans is not None:
        row.update(
            status=ans.status,
            source=ans.source,
            confidence=round(float(ans.confidence or 0.0), 4),
            sql=ans.sql,
            params=[str(p) for p in ans.params or []],
            explanation=(ans.explanation or "")[:300],
        )
    answered = ans is not None and ans.status == "answered" and bool(ans.sql)
    expected = item.get("expected", "answer")
    if error:
        row["error"] = error[:300]
    if expected == "decline":
        row["outcome"] = "wrong" if answered else "right"  # its SQL is never run
        return row
    if not answered:
        row["outcome"] = "wrong" if error else "declined"
        return row
    try:
        ref_cols, ref = run_sql(conn, item[sql_key])
    except CtxtoolError as exc:
        row["outcome"], row["error"] = "wrong", f"the reference failed: {exc}"[:300]
        return row
    try:
        got_cols, got = run_sql(conn, ans.sql, list(ans.params or []))
    except CtxtoolError as exc:
        row["outcome"], row["error"] = "wrong", str(exc)[:300]
        return row
    ordered = bool(item.get("ordered"))
    if compare(got_cols, got, ref_cols, ref, ordered):
        row["outcome"] = "right"
    elif compare_lenient(got_cols, got, ref_cols, ref, ordered):
        row["outcome"], row["lenient"] = "wrong", True
    else:
        row["outcome"] = "wrong"
    row["rows"], row["ref_rows"] = len(got), len(ref)
    return row


# ------------------------------------------------------------------------------------------- asking
def ask_questions(src: Source, data: dict[str, Any], questions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from ctxtool.runtime import Runtime

    out = []
    with connect(src.dsn, statement_timeout=20.0, row_cap=100_000) as conn:
        rt = Runtime(data, connector=conn, dialect=conn.dialect, use_llm=False)
        try:
            for item in questions:
                t = time.perf_counter()
                try:
                    ans, error = rt.ask(item["question"], action="showsql"), None
                except CtxtoolError as exc:
                    ans, error = None, str(exc)
                ms = (time.perf_counter() - t) * 1000
                row = {"id": item["id"], "db": src.name, "kind": item["kind"], "expected": item["expected"]}
                row.update(score_answer(conn, item, src.sql_key, ans, error))
                row["ms"] = round(ms, 1)
                out.append(row)
        finally:
            rt.close()
    return out


def ask_conversations(
    src: Source, data: dict[str, Any], conversations: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    from ctxtool.conversations.runner import ConversationRunner
    from ctxtool.conversations.sqlitestore import SQLiteStore
    from ctxtool.runtime import Runtime

    out = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        connect(src.dsn, statement_timeout=20.0, row_cap=100_000) as conn,
    ):
        store = SQLiteStore(Path(tmp) / "analyst-conversations.sqlite")
        rt = Runtime(data, connector=conn, dialect=conn.dialect, use_llm=False)
        try:
            runner = ConversationRunner(rt, store=store, profile="analyst", client_identifier="bench/analyst")
            for conv in conversations:
                cid = store.create_conversation(f"analyst {conv['id']}", None, 0, None).conversation_id
                for k, turn in enumerate(conv["turns"], 1):
                    item = {
                        "id": f"{conv['id']}#{k}",
                        "question": turn["question"],
                        "ordered": turn["ordered"],
                        **turn,
                    }
                    try:
                        ans, error = runner.ask(turn["question"], "showsql", conversation_id=cid), None
                    except CtxtoolError as exc:
                        ans, error = None, str(exc)
                    row = {"id": item["id"], "db": src.name, "conversation": conv["id"], "turn": k}
                    row.update(score_answer(conn, item, src.sql_key, ans, error))
                    out.append(row)
        finally:
            rt.close()
            store.close()
    return out


# ------------------------------------------------------------------------------------------ figures
def tally(rows: list[dict[str, Any]]) -> dict[str, int]:
    c = Counter(r["outcome"] for r in rows)
    lenient = sum(1 for r in rows if r.get("lenient"))
    return {
        "n": len(rows),
        "right": c["right"],
        "wrong": c["wrong"],
        "declined": c["declined"],
        "right_lenient": c["right"] + lenient,
        "wrong_lenient": c["wrong"] - lenient,
    }


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    qs = [r for r in rows if "kind" in r]
    out: dict[str, Any] = {
        "per_kind": {k: tally([r for r in qs if r["kind"] == k]) for k in KINDS},
        "overall": tally(qs),
    }
    turns = [r for r in rows if "turn" in r]
    if turns:
        convs: dict[str, list[dict[str, Any]]] = {}
        for r in turns:
            convs.setdefault(f"{r['db']}:{r['conversation']}", []).append(r)
        per_turn = {}
        for k in sorted({r["turn"] for r in turns}):
            per_turn[str(k)] = tally([r for r in turns if r["turn"] == k])
        out["conversations"] = {
            "turns": tally(turns),
            "per_turn": per_turn,
            "conversations": len(convs),
            "all_turns_right": sum(all(r["outcome"] == "right" for r in c) for c in convs.values()),
            "all_turns_right_lenient": sum(
                all(r["outcome"] == "right" or r.get("lenient") for r in c) for c in convs.values()
            ),
        }
    return out


def _cell(t: dict[str, int]) -> list[str]:
    return [str(t["n"]), str(t["right"]), str(t["wrong"]), str(t["declined"]), str(t["right_lenient"])]


def print_summary(per_db: dict[str, dict[str, Any]], total: dict[str, Any], info: dict[str, Any]) -> None:
    from rich.table import Table

    for name, s in [*per_db.items(), ("all databases", total)]:
        t = Table(
            "kind", "questions", "right", "wrong", "declined", "right (lenient)", title=f"analyst: {name}"
        )
        for k, v in s["per_kind"].items():
            t.add_row(k, *_cell(v))
        t.add_row("all", *_cell(s["overall"]), style="bold")
        console.stdout.print(t)
        c = s.get("conversations")
        if c:
            per_turn = "  ".join(f"turn {k}: {v['right']}/{v['n']}" for k, v in c["per_turn"].items())
            print(
                f"  conversations: turns right {c['turns']['right']}/{c['turns']['n']} "
                f"(wrong {c['turns']['wrong']}, declined {c['turns']['declined']}, lenient "
                f"{c['turns']['right_lenient']}); {per_turn}; whole conversations right "
                f"{c['all_turns_right']}/{c['conversations']} (lenient {c['all_turns_right_lenient']})"
            )
    for name, i in info.items():
        print(f"  {name}: {i}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--db", action="append", default=[], help="only this database: " + ", ".join(s.name for s in SOURCES)
    )
    ap.add_argument("--reload", action="store_true", help="load the databases again even when present")
    ap.add_argument("--work", default="/tmp/ctxtool-analyst", help="cache of drafted sets")
    ap.add_argument("--extra", help=f"curated extra templates per database (at most {MAX_EXTRA} each)")
    ap.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="[DB=]FILE",
        help="score this set instead of drafting",
    )
    ap.add_argument("--conversations", action="store_true", help="also ask the conversations, turn by turn")
    ap.add_argument(
        "--only-conversations", action="store_true", help="ask the conversations only (not the questions)"
    )
    ap.add_argument("--format", choices=["table", "json"], default="table")
    ap.add_argument(
        "--rows", help="write every question's SQL, params, status, confidence and outcome (JSON lines)"
    )
    args = ap.parse_args(argv)

    data = public_data()
    chosen = [s for s in SOURCES if not args.db or s.name in args.db]
    unknown = set(args.db) - {s.name for s in SOURCES}
    if unknown:
        raise SystemExit(
            f"unknown database {', '.join(sorted(unknown))}: use {', '.join(s.name for s in SOURCES)}"
        )
    given: dict[str, str] = {}
    for spec in args.sets:
        db, _, path = spec.rpartition("=")
        if not db:
            if len(chosen) != 1:
                raise SystemExit("--set FILE scores one database: add --db NAME, or write --set NAME=FILE")
            db = chosen[0].name
        given[db] = path
    extra = read_extra(args.extra) if args.extra else {}
    rows: list[dict[str, Any]] = []
    info: dict[str, Any] = {}
    with console.make_progress() as progress:
        task = progress.add_task("analyst", total=len(chosen))
        for src in chosen:
            progress.update(task, description=f"{src.name}: loading")
            if args.reload or not loaded(src):
                load(src, data)
            progress.update(task, description=f"{src.name}: drafting")
            if src.name in given:
                the_set = json.loads(Path(given[src.name]).read_text(encoding="utf-8"))
                note = f"set {given[src.name]}: {len(the_set.get('templates') or [])} templates"
            else:
                the_set, report, cached = drafted(src, data, Path(args.work))
                note = (
                    f"drafted{' (cached)' if cached else ''}: {report.get('templates')} templates, "
                    f"{report.get('facets')} facets, {report.get('value_searches', 0)} value searches"
                )
            dialect = "postgres" if src.engine == "postgres" else "mysql"
            the_set, added = with_extra(the_set, extra.get(src.name, []), dialect, src.dsn)
            if src.name in extra:
                note += f"; extra templates: {len(extra[src.name])} given, {added} added"
            info[src.name] = note
            progress.update(task, description=f"{src.name}: asking")
            qs = json.loads(
                (data / "analyst" / f"{src.questions}_questions.json").read_text(encoding="utf-8")
            )
            if not args.only_conversations:
                rows += ask_questions(src, the_set, qs)
            if args.conversations or args.only_conversations:
                cs = json.loads(
                    (data / "analyst" / f"{src.questions}_conversations.json").read_text(encoding="utf-8")
                )
                rows += ask_conversations(src, the_set, cs)
            progress.advance(task)
    if args.rows:
        Path(args.rows).write_text(
            "".join(json.dumps(r, default=str, ensure_ascii=False) + "\n" for r in rows)
        )
    per_db = {s.name: summarize([r for r in rows if r["db"] == s.name]) for s in chosen}
    total = summarize(rows)
    if args.format == "json":
        print(json.dumps({"databases": per_db, "all": total, "sets": info}, indent=2))
    else:
        print_summary(per_db, total, info)
    return 0


if __name__ == "__main__":
    sys.exit(main())
