"""What the read-only gate costs an answer: `ask` latency (runsql, no model) with the gate and without it.

    .venv/bin/python bench/gate.py                        # PostgreSQL 15 at 127.0.0.1:5432 (trust auth)
    .venv/bin/python bench/gate.py --repeat 5 --admin-dsn postgresql://postgres@host/postgres

It loads the financial sample (~5,000 rows) into a throwaway database (dropped at the end), opens one
Runtime over the curated financial set, and asks every golden question (tests/data/golden_financial.json)
``--repeat`` times in three modes, interleaved question by question (each mode first, second and
third equally often) so the machine's noise and the order of the asks fall on all three alike:

- ``off``: ``Connector.gate`` replaced by a no-op (what an answer cost before the gate);
- ``warm``: the gate with its cache (a server answering the same templates again: the usual case);
- ``cold``: the gate with its cache cleared before every question (every SQL text new to it).

Then the gate alone on the SQL of every answer, cold and warm. Reports medians and p90s and the
gate's share of an answer's median (goal, issue 24: at most 5%).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ctxtool import sampledata  # noqa: E402
from ctxtool.connectors.base import Connector  # noqa: E402
from ctxtool.gate import check, clear_cache  # noqa: E402
from ctxtool.runtime import Runtime  # noqa: E402
from ctxtool.runtime.evaluate import load_golden  # noqa: E402
from tests.backends import _pg_create, _pg_drop, unique_name  # noqa: E402

RUNTIME_SET = ROOT / "samples" / "postgres" / "financial_runtime.json"
GOLDEN = ROOT / "tests" / "data" / "golden_financial.json"


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def run(dsn: str, repeat: int) -> dict:
    questions = [q.nlq for q in load_golden(str(GOLDEN))]
    real_gate = Connector.gate
    times: dict[str, list[float]] = {"off": [], "warm": [], "cold": []}
    with Runtime(str(RUNTIME_SET), dsn=dsn, use_llm=False) as rt:
        for q in questions:  # warm-up: caches of the runtime, the parser, the server
            rt.ask(q, action="runsql")
        modes = ("off", "warm", "cold")
        try:
            for r in range(repeat):
                for i, q in enumerate(questions):
                    turn = (i + r) % 3  # each mode goes first, second and third equally often
                    for mode in modes[turn:] + modes[:turn]:
                        Connector.gate = (lambda self, sql: None) if mode == "off" else real_gate  # type: ignore[method-assign]
                        if mode == "cold":
                            clear_cache()
                        t = time.perf_counter()
                        rt.ask(q, action="runsql")
                        times[mode].append((time.perf_counter() - t) * 1000)
        finally:
            Connector.gate = real_gate  # type: ignore[method-assign]
        sqls = [a.sql for a in (rt.ask(q, action="showsql") for q in questions) if a.sql]
        dialect = rt.dialect
    # the gate alone on the answers' SQL, cold (cache cleared) and warm: the direct measure, free of
    # the noise of whole answers
    direct: dict[str, list[float]] = {"cold": [], "warm": []}
    for _ in range(repeat):
        for sql in sqls:
            clear_cache()
            t = time.perf_counter()
            check(sql, dialect)
            direct["cold"].append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            check(sql, dialect)
            direct["warm"].append((time.perf_counter() - t) * 1000)
    off = statistics.median(times["off"])
    out: dict = {"questions": len(questions), "repeat": repeat}
    for mode, values in times.items():
        med = statistics.median(values)
        out[f"ask_{mode}"] = {
            "median_ms": round(med, 3),
            "p90_ms": round(p90(values), 3),
            "gate_share_of_median": round((med - off) / med, 4) if mode != "off" else 0.0,
        }
    for mode, values in direct.items():
        med = statistics.median(values)
        out[f"gate_alone_{mode}"] = {
            "median_ms": round(med, 4),
            "p90_ms": round(p90(values), 4),
            "share_of_ask_median": round(med / off, 4),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--admin-dsn", default="postgresql://postgres@127.0.0.1:5432/postgres")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    name = unique_name("ctx_bench_gate")
    dsn = _pg_create(args.admin_dsn, name, extensions=("pg_trgm", "fuzzystrmatch"))
    try:
        print("loading the financial sample...", file=sys.stderr)
        sampledata.load(dsn, scale=0.05)
        print(json.dumps(run(dsn, args.repeat), indent=2))
    finally:
        _pg_drop(args.admin_dsn, name)


if __name__ == "__main__":
    main()
