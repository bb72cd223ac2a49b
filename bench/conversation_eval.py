"""Conversation accuracy without a model: question match and interaction match on the golden
multi-turn file ``tests/data/conversations_financial.json`` (financial sample, PostgreSQL).

Creates a uniquely named database on the local PostgreSQL (or uses ``--dsn``), loads the financial
sample, asks every turn through ``ConversationRunner`` and compares rows with the golden SQL.

    .venv/bin/python bench/conversation_eval.py [--scale 0.1] [--dsn DSN] [--format text|json] [-v]
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ctxtool.conversations.evaluate import evaluate  # noqa: E402

ADMIN = os.environ.get("CTXTOOL_TEST_PG_DSN", "postgresql://postgres@127.0.0.1:5432/postgres")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--golden", default=str(ROOT / "tests/data/conversations_financial.json"))
    ap.add_argument("--dsn", default=None, help="a database that already holds the financial sample")
    ap.add_argument("--scale", type=float, default=0.1)
    ap.add_argument("--format", choices=["text", "json"], default="text")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every wrong turn")
    args = ap.parse_args()
    created = None
    dsn = args.dsn
    if dsn is None:
        import psycopg

        from ctxtool.sampledata import load

        created = f"ctx_conveval_{os.getpid()}_{secrets.token_hex(3)}"
        with psycopg.connect(ADMIN, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{created}"')
        dsn = ADMIN.rsplit("/", 1)[0] + "/" + created
        load(dsn, ("financial",), scale=args.scale)
    try:
        report = evaluate(args.golden, dsn, verbose=args.verbose)
    finally:
        if created:
            import psycopg

            with psycopg.connect(ADMIN, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{created}" WITH (FORCE)')
    if args.format == "json":
        print(json.dumps({k: v for k, v in report.items()}, indent=2, default=str))
        return 0
    print(f"{report['conversations']} conversations, {report['turns']} turns (no language model)")
    print(f"question match    {100 * report['question_match']:5.1f}%")
    print(f"interaction match {100 * report['interaction_match']:5.1f}%")
    print("by pattern:")
    for pattern, row in report["by_pattern"].items():
        print(f"  {pattern:<10} {row['correct']:>3}/{row['turns']:<3} {100 * row['accuracy']:5.1f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
