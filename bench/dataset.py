"""Golden datasets generated from the Spider train kit: items per template, and how many items'
golden SQL fails or returns nothing when run again (read-only) on the database.

For each of the first ``--first N`` databases of ``../shared/data/spider_train/`` (sorted by name):
load it into PostgreSQL as ``spider_<db_id>`` (reused when present; ``bench/spider.py`` loads the same
way), take the kit's curated set ``sets/<db_id>.json``, generate a dataset with ``ctxtool.golden``
(the call behind ``ctxtool dataset generate``), then run every item's golden SQL once more (negatives
excluded: they are never run) and count the items whose SQL fails, returns no rows, or returns one
row of NULLs/zeros.

    nice -n 10 .venv/bin/python bench/dataset.py --first 10
    .venv/bin/python bench/dataset.py --db concert_singer --format json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from spider import ensure_database, kit_dir  # noqa: E402

from ctxtool.connectors import connect  # noqa: E402
from ctxtool.errors import CtxtoolError  # noqa: E402
from ctxtool.golden import NEGATIVE_TAG, generate_dataset  # noqa: E402
from ctxtool.readonly import run_read_only  # noqa: E402

PG = "postgresql://postgres@127.0.0.1:5432/"


def measure(db_id: str, kit: Path, seed: int) -> dict:
    dsn = ensure_database(PG, db_id, kit)
    data = json.loads((kit / "sets" / f"{db_id}.json").read_text())
    t = time.perf_counter()
    with connect(dsn, statement_timeout=10.0) as conn:
        ds = generate_dataset(data, conn, database=db_id, seed=seed)
        took = time.perf_counter() - t
        failed = empty = nothing = 0
        checked = 0
        for item in ds.items:
            if NEGATIVE_TAG in item.tags:
                continue
            checked += 1
            try:
                rows = run_read_only(conn, item.golden_sql).rows
            except CtxtoolError:
                failed += 1
                continue
            if not rows:
                empty += 1
            elif len(rows) == 1 and all(v in (None, 0) for v in rows[0]):
                nothing += 1
    r = ds.report
    return {
        "db": db_id,
        "templates": r["templates"],
        "items": r["items"],
        "items_per_template": r["items_per_template"],
        "min_items_per_template": r["min_items_per_template"],
        "checked": checked,
        "failed": failed,
        "empty": empty,
        "null_or_zero": nothing,
        "by_tag": r["by_tag"],
        "seconds": round(took, 2),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--first", type=int, default=10, help="the first N databases by name")
    ap.add_argument("--db", action="append", default=[], help="only these databases")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--format", choices=["text", "json"], default="text")
    args = ap.parse_args(argv)
    kit = kit_dir()
    dbs = args.db or sorted(p.stem for p in (kit / "sets").glob("*.json"))[: args.first]
    rows = []
    for db in dbs:
        row = measure(db, kit, args.seed)
        rows.append(row)
        print(
            f"{db:<28} templates {row['templates']:>3}  items {row['items']:>4}  per template "
            f"{row['items_per_template']:>5}  failed {row['failed']}  empty {row['empty']}  "
            f"null/zero {row['null_or_zero']}",
            file=sys.stderr,
        )
    templates = sum(r["templates"] for r in rows)
    items = sum(r["items"] for r in rows)
    checked = sum(r["checked"] for r in rows)
    bad = sum(r["failed"] + r["empty"] for r in rows)
    tags = Counter()
    for r in rows:
        tags.update(r["by_tag"])
    total = {
        "databases": len(rows),
        "templates": templates,
        "items": items,
        "items_per_template": round(items / templates, 2) if templates else 0,
        "min_items_per_template": min((r["min_items_per_template"] for r in rows), default=0),
        "golden_sql_checked": checked,
        "failed": sum(r["failed"] for r in rows),
        "empty": sum(r["empty"] for r in rows),
        "null_or_zero": sum(r["null_or_zero"] for r in rows),
        "failed_or_empty_pct": round(100 * bad / checked, 2) if checked else 0,
        "by_tag": dict(sorted(tags.items())),
    }
    if args.format == "json":
        print(json.dumps({"total": total, "databases": rows}, indent=2))
    else:
        print(
            f"{total['databases']} databases, {templates} templates, {items} items "
            f"({total['items_per_template']} per template, min {total['min_items_per_template']}); golden SQL "
            f"of {checked} non-negative items: {total['failed']} fail, {total['empty']} empty "
            f"({total['failed_or_empty_pct']}%), {total['null_or_zero']} one row of NULL/0"
        )
        print("by tag: " + ", ".join(f"{k} {v}" for k, v in total["by_tag"].items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
