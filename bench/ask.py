"""Question-to-SQL time of the runtime with 100, 1,000 and 10,000 templates (the SQL is not run).

The set is the financial runtime set (samples/postgres/financial_runtime.json) padded with generated
templates whose wording shares the domain's words (accounts, loans, districts, amounts...) with a
large vocabulary of other words, so the posting lists of common words grow with the set, as in a real
large set. The questions are the covered golden questions (tests/data/golden_financial.json); each is
asked with ``action="showsql"`` and the value-search cache cleared, so every question pays its value
linking against the database.

    .venv/bin/python bench/ask.py --dsn postgresql://postgres@127.0.0.1:5432/DB   # with the samples loaded
    .venv/bin/python bench/ask.py                                                 # no database: no linking

Reports the median and p95 per question of the whole question-to-SQL path and of matching alone
(index lookup, scoring, slot filling, facets, SQL building: everything but the value searches), the
ratio 10,000 / 100 (goal: at most 3), and whether the answers stayed the same as with the real set.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ctxtool.english.literals import find_literals  # noqa: E402
from ctxtool.runtime import Runtime  # noqa: E402
from ctxtool.runtime.question.question import Question  # noqa: E402
from ctxtool.runtime.question.values import entities_of  # noqa: E402

DOMAIN = [
    "account",
    "loan",
    "client",
    "district",
    "card",
    "transaction",
    "amount",
    "balance",
    "salary",
    "region",
]
VERBS = [
    "opened",
    "closed",
    "approved",
    "reported",
    "recorded",
    "assigned",
    "linked",
    "flagged",
    "reviewed",
    "held",
]
SHAPES = [
    "How many {a} {b} were {v} in the {c} $1?",
    "What is the average {a} of the {b} {v} by $1?",
    "List the {a} {b} {v} after $1",
    "Which {a} has the highest {b} {c}?",
    "What is the total {a} of {b} {v} in $1?",
]


def _words(rng: random.Random, n: int) -> list[str]:
    syll = ["ka", "lo", "mi", "ne", "tu", "ra", "zo", "pe", "vi", "sa", "do", "ri", "mu", "te", "ba", "go"]
    out: set[str] = set()
    while len(out) < n:
        out.add("".join(rng.choice(syll) for _ in range(rng.randint(2, 4))))
    return sorted(out)


def padded_set(base: dict, total: int, seed: int = 7) -> dict:
    rng = random.Random(seed)
    vocab = _words(rng, 3000)
    templates = list(base["templates"])
    i = 0
    while len(templates) < total:

        def word() -> str:
            return rng.choice(DOMAIN) if rng.random() < 0.15 else rng.choice(vocab)

        a, b, c, v = word(), word(), word(), rng.choice(VERBS)
        shape = SHAPES[i % len(SHAPES)]
        intent = shape.format(a=a, b=b, c=c, v=v)
        has_slot = "$1" in intent
        psql = (
            f"SELECT COUNT(*) FROM t_{a} WHERE t_{a}.c_{b} = $1"
            if has_slot
            else f"SELECT MAX(t_{a}.c_{b}) FROM t_{a}"
        )
        templates.append(
            {
                "nl_query": intent.replace("$1", "42"),
                "sql": psql.replace("$1", "42"),
                "manifest": intent.replace("$1", "a given number"),
                "parameterized": {"parameterized_intent": intent, "parameterized_sql": psql},
            }
        )
        i += 1
    return {**base, "templates": templates[:total]}


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    k = max(0, min(len(values) - 1, round(p / 100 * (len(values) - 1))))
    return values[k]


def run(dsn: str | None, sizes: list[int], repeat: int) -> dict:
    base = json.loads((ROOT / "samples/postgres/financial_runtime.json").read_text())
    golden = json.loads((ROOT / "tests/data/golden_financial.json").read_text())
    questions = [q["nlq"] for q in golden if "uncovered" not in q.get("tags", [])]
    results = {}
    reference: dict[str, str | None] = {}
    for size in sizes:
        data = padded_set(base, size)
        t = time.perf_counter()
        rt = Runtime(data, dsn=dsn, use_llm=False)
        build = time.perf_counter() - t
        gc.collect()
        gc.freeze()  # as `ctxtool serve` does: the compiled set is long-lived, keep it out of GC passes
        total: list[float] = []
        match: list[float] = []
        same = 0
        for _ in range(repeat):
            for q in questions:
                rt.linker._cache.clear()
                t0 = time.perf_counter()
                ans = rt.ask(q, action="showsql")
                total.append((time.perf_counter() - t0) * 1000)
                # matching alone: the same question with its linked values already known
                lits = find_literals(q)
                links = rt.linker.link(q, lits)  # cached now
                question = Question(q, values=entities_of(lits, links), vocabulary=rt.matcher.set_facts)
                t1 = time.perf_counter()
                question, cands = rt.matcher.rank(question)
                if cands and cands[0].score >= rt.threshold:
                    rt.plan_from(cands[0], list(question.values))
                match.append((time.perf_counter() - t1) * 1000)
                key = ans.sql if ans.status == "answered" else None
                if size == sizes[0]:
                    reference[q] = key
                same += reference.get(q) == key
        results[size] = {
            "templates": size,
            "build_s": round(build, 3),
            "total_median_ms": round(statistics.median(total), 3),
            "total_p95_ms": round(percentile(total, 95), 3),
            "match_median_ms": round(statistics.median(match), 3),
            "match_p95_ms": round(percentile(match, 95), 3),
            "same_answer_as_smallest": f"{same}/{len(questions) * repeat}",
        }
        rt.close()
        gc.unfreeze()
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dsn", help="PostgreSQL with the financial sample, pg_trgm and fuzzystrmatch")
    ap.add_argument("--sizes", default="100,1000,10000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    res = run(args.dsn, sizes, args.repeat)
    if args.json:
        print(json.dumps(res, indent=2))
        return
    print(
        f"question-to-SQL per question ({'with value linking on ' + args.dsn.rsplit('/', 1)[-1] if args.dsn else 'no database'})"
    )
    print(
        f"{'templates':>9} {'build s':>8} {'median ms':>10} {'p95 ms':>8} {'match med':>10} {'match p95':>10}  same answers"
    )
    for r in res.values():
        print(
            f"{r['templates']:>9} {r['build_s']:>8} {r['total_median_ms']:>10} {r['total_p95_ms']:>8} "
            f"{r['match_median_ms']:>10} {r['match_p95_ms']:>10}  {r['same_answer_as_smallest']}"
        )
    lo, hi = res[sizes[0]], res[sizes[-1]]
    print(
        f"ratio {sizes[-1]}/{sizes[0]}: median {hi['total_median_ms'] / lo['total_median_ms']:.2f}x, "
        f"p95 {hi['total_p95_ms'] / lo['total_p95_ms']:.2f}x; matching alone: median "
        f"{hi['match_median_ms'] / lo['match_median_ms']:.2f}x, p95 {hi['match_p95_ms'] / lo['match_p95_ms']:.2f}x (goal <= 3x)"
    )


if __name__ == "__main__":
    main()
