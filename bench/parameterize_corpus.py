"""Exact-match rate of ``ctxtool parameterize`` over the hand-labelled corpus.

Usage: ``python bench/parameterize_corpus.py [-v]`` (from the repository root). Prints the share of
cases whose manifest and both parameterized forms (or the reported problem) match the labels exactly,
then every miss. ``tests/test_parameterize_corpus.py`` asserts the same figure.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ctxtool.parameterize import parameterize_item, parameterize_set  # noqa: E402

CASES = ROOT / "tests" / "data" / "parameterize_cases.jsonl"
SNAPSHOT = ROOT / "tests" / "data" / "parameterize_snapshot.json"


def load_cases(path: Path = CASES) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def run_case(case: dict[str, Any], snapshot: dict[str, Any]) -> tuple[bool, str]:
    """(matched, what came out) for one labelled case."""
    result = parameterize_item(
        case["item"],
        case["kind"],
        case["dialect"],
        snapshot=snapshot if case.get("snapshot") else None,
        value_searches=case.get("value_searches", ()),
    )
    expected = case["expected"]
    if "problem" in expected:
        got = "; ".join(result.problems) or "(no problem reported)"
        return bool(result.problems) and expected["problem"] in got, got
    if result.problems:
        return False, "problem: " + "; ".join(result.problems)
    got = {"manifest": result.get("manifest"), "parameterized": result.get("parameterized")}
    return got == expected, json.dumps(got, ensure_ascii=False)


def score(cases: list[dict[str, Any]] | None = None) -> tuple[float, list[tuple[str, str, str]]]:
    cases = load_cases() if cases is None else cases
    snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    misses = []
    for case in cases:
        ok, got = run_case(case, snapshot)
        if not ok:
            misses.append((case["id"], json.dumps(case["expected"], ensure_ascii=False), got))
    return (len(cases) - len(misses)) / len(cases), misses


def main() -> None:
    cases = load_cases()
    t0 = time.perf_counter()
    rate, misses = score(cases)
    elapsed = time.perf_counter() - t0
    by_dialect: dict[str, list[int]] = {}
    missed = {m[0] for m in misses}
    for c in cases:
        n = by_dialect.setdefault(c["dialect"], [0, 0])
        n[0] += c["id"] not in missed
        n[1] += 1
    print(f"exact match: {len(cases) - len(misses)}/{len(cases)} = {rate:.1%}  ({elapsed * 1000:.0f} ms)")
    for d, (ok, total) in sorted(by_dialect.items()):
        print(f"  {d}: {ok}/{total}")
    for case_id, expected, got in misses:
        print(f"MISS {case_id}\n  expected: {expected}\n  got:      {got}")
    # every emitted form checked by `ctxtool validate` (facets next to a trivial template)
    from ctxtool.contextset import loads
    from ctxtool.validate import validate_set

    snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    anchor = {"nl_query": "How many?", "sql": "SELECT count(*) FROM account", "intent": "How many?",
              "manifest": "How many?", "parameterized": {"parameterized_intent": "How many?",
              "parameterized_sql": "SELECT count(*) FROM account"}}  # fmt: skip
    checked, failing = 0, []
    for c in cases:
        res = parameterize_item(c["item"], c["kind"], c["dialect"], snapshot=snapshot if c.get("snapshot") else None,
                                value_searches=c.get("value_searches", ()))  # fmt: skip
        if res.problems:
            continue
        data: dict[str, list] = {"templates": [anchor] if c["kind"] == "facets" else [], c["kind"]: []}
        data[c["kind"]].append(dict(res))
        codes = {
            f.code
            for f in validate_set(loads(json.dumps(data)), dialect=c["dialect"])
            if f.severity == "error"
        }
        checked += 1
        if codes - {"CTX502"}:  # CTX502: the seed's own facet uses an alias
            failing.append((c["id"], sorted(codes)))
    print(f"validate: {checked - len(failing)}/{checked} emitted items without errors {failing or ''}")
    # throughput of parameterize_set on a set made of every corpus item, ten times over
    data: dict[str, list] = {"templates": [], "facets": []}
    for c in cases * 10:
        data[c["kind"]].append(dict(c["item"]))
    items = len(data["templates"]) + len(data["facets"])
    t0 = time.perf_counter()
    for dialect in ("postgres", "mysql"):
        parameterize_set(data, dialect)
    per_item = (time.perf_counter() - t0) / (2 * items)
    print(
        f"throughput: {1 / per_item:.0f} items/s ({per_item * 1000:.2f} ms per item, {items} items per run)"
    )


if __name__ == "__main__":
    main()
