"""Behaviour pins: the runtime's answers recorded once, compared after every change that should not
change them (issue 25 moved the runtime into typed stages under these pins).

An answer is pinned by its status, SQL, parameters, confidence (2 decimals) and "did you mean"
choices. Four parts, each a gzip JSON file in ``bench/pins/``:

- ``offline``: every sample set (PostgreSQL, MySQL and Spanner twins) and the conversation set asked,
  without a database (``showsql``), every golden question, template question and conversation turn.
  Seconds; ``tests/test_pins.py`` holds it in the suite.
- ``kit-offline``: the Spider train kit's 3,091 cases against each database's curated set, no
  database (no value linking). About two minutes on two cores; the quick check while moving code.
- ``live``: the samples loaded into a new PostgreSQL and a new MariaDB database (dropped after):
  the golden and template questions on both engines, and the golden conversation file turn by turn
  through ``ConversationRunner`` on PostgreSQL.
- ``spider``: the per-case rows of ``bench/spider.py --rows FILE`` (the whole kit, with its database).

    .venv/bin/python bench/pins.py record --part offline --part live
    .venv/bin/python bench/pins.py record --part spider --rows /tmp/spider-rows.jsonl
    .venv/bin/python bench/pins.py compare --part kit-offline [--db concert_singer]
    .venv/bin/python bench/pins.py compare --part spider --rows /tmp/spider-rows.jsonl

``compare`` prints every difference (key, before, after) and exits 1 when there is one.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PINS = ROOT / "bench" / "pins"
PARTS = ("offline", "kit-offline", "live", "spider")
SAMPLE_SETS = ("financial_runtime", "financial", "airports")
DIALECTS = ("postgres", "mysql", "spanner")
GOLDEN = ROOT / "tests" / "data" / "golden_financial.json"
CONVERSATIONS = ROOT / "tests" / "data" / "conversations_financial.json"
CONVERSATION_SET = ROOT / "tests" / "data" / "conversations_financial_set.json"

Pin = list[Any]  # [status, sql, params, confidence (2 decimals), choices]


def pin_of(ans: Any) -> Pin:
    """What pins an answer: status, SQL, parameters (as text), confidence to 2 decimals, choices."""
    return [
        ans.status,
        ans.sql if ans.status == "answered" else None,
        [str(p) for p in ans.params] if ans.status == "answered" else [],
        round(float(ans.confidence), 2),
        list(ans.disambiguation),
    ]


def pin_of_row(row: dict[str, Any]) -> Pin:
    """The pin of one ``bench/spider.py --rows`` line."""
    return [
        row.get("status"),
        row.get("sql"),
        [str(p) for p in row.get("params") or []],
        round(float(row.get("confidence") or 0.0), 2),
        list(row.get("choices") or []),
    ]


# -- the questions ---------------------------------------------------------------------------------
def golden_questions() -> list[str]:
    return [q["nlq"] for q in json.loads(GOLDEN.read_text())]


def conversation_questions() -> list[str]:
    data = json.loads(CONVERSATIONS.read_text())
    return [t["question"] for c in data["conversations"] for t in c["turns"]]


def set_questions(data: dict[str, Any]) -> list[str]:
    return [t["nl_query"] for t in data.get("templates") or [] if t.get("nl_query")]


def sample_path(dialect: str, name: str) -> Path:
    return ROOT / "samples" / dialect / f"{name}.json"


def offline_cases() -> Iterator[tuple[str, str, list[str]]]:
    """(key prefix, set path, questions) of the offline part."""
    for dialect in DIALECTS:
        for name in SAMPLE_SETS:
            path = sample_path(dialect, name)
            qs = set_questions(json.loads(path.read_text()))
            if name == "financial_runtime":
                qs = golden_questions() + qs + conversation_questions()
            yield f"{dialect}/{name}", str(path), list(dict.fromkeys(qs))
    qs = conversation_questions() + set_questions(json.loads(CONVERSATION_SET.read_text()))
    yield "postgres/conversations_set", str(CONVERSATION_SET), list(dict.fromkeys(qs))


# -- recording -------------------------------------------------------------------------------------
def record_offline() -> dict[str, Pin]:
    from ctxtool.runtime import Runtime

    out: dict[str, Pin] = {}
    for prefix, path, questions in offline_cases():
        with Runtime(path, use_llm=False) as rt:
            for q in questions:
                out[f"{prefix}|{q}"] = pin_of(rt.ask(q, "showsql"))
    return out


def record_kit_offline(dbs: Iterable[str] = ()) -> dict[str, Pin]:
    """The kit's cases against each curated set parameterized without a database."""
    from bench.spider import kit_dir
    from ctxtool import console
    from ctxtool.parameterize import parameterize_set
    from ctxtool.runtime import Runtime

    kit = kit_dir()
    by_db: dict[str, list[dict[str, Any]]] = {}
    for line in (kit / "cases.jsonl").read_text().splitlines():
        c = json.loads(line)
        by_db.setdefault(c["db_id"], []).append(c)
    wanted = sorted(dbs) or sorted(by_db)
    out: dict[str, Pin] = {}
    with console.make_progress() as progress:
        task = progress.add_task("kit offline", total=len(wanted))
        for db in wanted:
            progress.update(task, description=db)
            data, _ = parameterize_set(
                json.loads((kit / "sets" / f"{db}.json").read_text()), "postgres", None
            )
            with Runtime(data, dialect="postgres", use_llm=False) as rt:
                for case in by_db[db]:
                    out[case["id"]] = pin_of(rt.ask(case["question"], "showsql"))
            progress.advance(task)
    return out


def record_live(pg_admin: str, mysql_admin: str, scale: float) -> dict[str, Pin]:
    """The sample sets on PostgreSQL and MariaDB (the golden and template questions, ``showsql``)
    and the golden conversations turn by turn on PostgreSQL (``runsql``, as ``bench/conversation_eval.py``)."""
    import tempfile

    from bench.same_answers import databases, questions_of
    from ctxtool.conversations.runner import ConversationRunner
    from ctxtool.conversations.store import SQLiteStore
    from ctxtool.errors import CtxtoolError
    from ctxtool.runtime import Runtime

    out: dict[str, Pin] = {}
    with databases(pg_admin, mysql_admin, scale) as (pg_dsn, my_dsn):
        for dialect, dsn in (("postgres", pg_dsn), ("mysql", my_dsn)):
            for name in SAMPLE_SETS:
                with Runtime(str(sample_path(dialect, name)), dsn=dsn, use_llm=False) as rt:
                    for q in questions_of(name):
                        out[f"{dialect}/{name}|{q}"] = pin_of(rt.ask(q, "showsql"))
        data = json.loads(CONVERSATIONS.read_text())
        with tempfile.TemporaryDirectory() as tmp:
            store = SQLiteStore(Path(tmp) / "pins.sqlite")
            with Runtime(str(CONVERSATION_SET), dsn=pg_dsn, use_llm=False) as rt:
                runner = ConversationRunner(rt, store=store, profile="pins", client_identifier="pins")
                for conv in data["conversations"]:
                    cid = store.create_conversation(f"pins {conv['id']}").conversation_id
                    for k, turn in enumerate(conv["turns"]):
                        key = f"conversation/{conv['id']}/{k + 1}|{turn['question']}"
                        try:
                            out[key] = pin_of(runner.ask(turn["question"], "runsql", conversation_id=cid))
                        except CtxtoolError as exc:
                            out[key] = ["exception", str(exc), [], 0.0, []]
            store.close()
    return out


def record_spider(rows_path: str) -> dict[str, Pin]:
    out: dict[str, Pin] = {}
    for line in Path(rows_path).read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            out[row["id"]] = pin_of_row(row)
    return out


def record(part: str, args: argparse.Namespace) -> dict[str, Pin]:
    if part == "offline":
        return record_offline()
    if part == "kit-offline":
        return record_kit_offline(args.db)
    if part == "live":
        return record_live(args.pg, args.mysql, args.scale)
    if not args.rows:
        raise SystemExit("--part spider needs --rows FILE (bench/spider.py --rows FILE)")
    return record_spider(args.rows)


# -- files and comparison --------------------------------------------------------------------------
def pin_file(part: str, where: Path = PINS) -> Path:
    return where / f"{part}.json.gz"


def load(part: str, where: Path = PINS) -> dict[str, Pin]:
    with gzip.open(pin_file(part, where), "rt", encoding="utf-8") as f:
        return json.load(f)


def save(part: str, pins: dict[str, Pin], where: Path = PINS) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    path = pin_file(part, where)
    text = json.dumps(dict(sorted(pins.items())), separators=(",", ":"), ensure_ascii=False, default=str)
    with gzip.GzipFile(path, "wb", mtime=0) as f:  # mtime 0: the same pins make the same bytes
        f.write(text.encode("utf-8"))
    return path


def differences(before: dict[str, Pin], after: dict[str, Pin]) -> list[tuple[str, Pin | None, Pin | None]]:
    """(key, pinned, now) of every case whose answer differs (or that only one side has)."""
    keys = sorted(set(before) | set(after))
    return [(k, before.get(k), after.get(k)) for k in keys if before.get(k) != after.get(k)]


def describe(diff: tuple[str, Pin | None, Pin | None]) -> str:
    key, a, b = diff
    if a is None or b is None:
        return f"{key}: only {'now' if a is None else 'pinned'}"
    fields = ("status", "sql", "params", "confidence", "choices")
    parts = [f"{f} {x!r} -> {y!r}" for f, x, y in zip(fields, a, b, strict=True) if x != y]
    return f"{key}: " + "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["record", "compare"])
    ap.add_argument("--part", action="append", choices=PARTS, help="which pins (repeatable; default offline)")
    ap.add_argument("--rows", help="bench/spider.py --rows FILE, for --part spider")
    ap.add_argument("--db", action="append", default=[], help="kit-offline: only this database (compare)")
    ap.add_argument("--pins", default=str(PINS), help="the folder of the pin files")
    ap.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/postgres")
    ap.add_argument("--mysql", default="mysql://root@127.0.0.1:3306")
    ap.add_argument("--scale", type=float, default=0.05)
    args = ap.parse_args(argv)
    where = Path(args.pins)
    failed = False
    for part in args.part or ["offline"]:
        now = record(part, args)
        if args.command == "record":
            if args.db:
                raise SystemExit("--db is for compare (a pin file holds every database)")
            path = save(part, now, where)
            print(f"{part}: {len(now)} answers pinned -> {path}")
            continue
        pinned = load(part, where)
        if part == "kit-offline" and args.db:
            pinned = {k: v for k, v in pinned.items() if k in now}
        diffs = differences(pinned, now)
        for d in diffs:
            print(describe(d))
        print(f"{part}: {len(now) - len(diffs)} of {len(pinned)} answers as pinned, {len(diffs)} differ")
        failed |= bool(diffs)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
