"""Closing the loop on the analyst questions: right / wrong / declined per round and per database.

On Chinook and Northwind (PostgreSQL; ``--db chinook_mariadb`` adds MariaDB), with the functions of
``bench/analyst.py`` (loading, the drafted set, asking and scoring):

- round 0: the set drafted by the pipeline alone;
- round 1: one ``improve`` round (:func:`ctxtool.loop.improve.hill_climb`, apply) using ONLY a golden
  file generated from the drafted set and its database (``ctxtool dataset generate``, seed 0, 20% of
  the templates held out; for time, a seeded sample of ``--max-golden`` items of the golden file and a
  third of that of the held-out file is used); the analyst files are never read for it. The
  generated held-out split is reported before and after;
- round 2: feedback on 10 answers, then their promotion. The analyst questions are split by their
  position in the file: even positions (0, 2, ...) are the tuning half, odd positions the held-out
  half. The simulated user reads the round-1 answers of the tuning half in file order and, for the
  first 10 that were not right (wrong or declined; ``decline`` items excluded), records negative
  feedback with the analyst's reference SQL as the corrected SQL (``record_feedback`` in a scratch
  conversation store); each is then promoted (:func:`ctxtool.loop.promote.promote_feedback`, every
  check on). Both halves are reported; only the held-out half says anything about generalization.

    nice -n 10 .venv/bin/python bench/loop.py --format json > /tmp/loop.json
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from analyst import SOURCES, ask_questions, drafted, load, loaded, public_data, tally  # noqa: E402

from ctxtool import console  # noqa: E402
from ctxtool.connectors import connect  # noqa: E402

FEEDBACK_ANSWERS = 10


def _ask(src: Any, path: Path, questions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return ask_questions(src, json.loads(path.read_text()), questions)


def _figures(rows: list[dict[str, Any]], halves: dict[str, set[str]]) -> dict[str, Any]:
    out = {"all": tally(rows)}
    for name, ids in halves.items():
        out[name] = tally([r for r in rows if r["id"] in ids])
    return {k: {f: v[f] for f in ("n", "right", "wrong", "declined")} for k, v in out.items()}


def run_database(src: Any, data: Path, work: Path, seed: int, max_golden: int) -> dict[str, Any]:
    from ctxtool.conversations.feedback import record_feedback
    from ctxtool.conversations.sqlitestore import SQLiteStore
    from ctxtool.golden import generate_dataset
    from ctxtool.loop.hillclimb import hill_climb
    from ctxtool.loop.promote import promote_feedback

    if not loaded(src):
        load(src, data)
    questions = json.loads((data / "analyst" / f"{src.questions}_questions.json").read_text(encoding="utf-8"))
    halves = {
        "tuning_half": {q["id"] for i, q in enumerate(questions) if i % 2 == 0},
        "heldout_half": {q["id"] for i, q in enumerate(questions) if i % 2 == 1},
    }
    out: dict[str, Any] = {"rounds": {}}
    the_set, report, _ = drafted(src, data, work / "drafted")
    r0 = work / f"{src.name}.round0.json"
    r0.write_text(json.dumps(the_set, indent=1))
    console.info(f"{src.name}: round 0 (drafted: {report.get('templates')} templates)")
    rows0 = _ask(src, r0, questions)
    out["rounds"]["0"] = _figures(rows0, halves)

    # round 1: improve on a generated golden file only
    r1 = work / f"{src.name}.round1.json"
    shutil.copy(r0, r1)
    golden = work / f"{src.name}.golden.json"
    with connect(src.dsn, statement_timeout=20.0) as conn:
        ds = generate_dataset(the_set, conn, seed=seed, split=0.2)
        made = {"golden": len(ds.items), "heldout": len(ds.heldout)}
        rng = random.Random(seed)  # a sample of each, for time: every ask costs ~0.2 s on a 2-core machine
        ds.items = [
            ds.items[i] for i in sorted(rng.sample(range(len(ds.items)), min(max_golden, len(ds.items))))
        ]
        ds.heldout = [
            ds.heldout[i]
            for i in sorted(rng.sample(range(len(ds.heldout)), min(max_golden // 3, len(ds.heldout))))
        ]
        written = ds.write(str(golden))
        console.info(
            f"{src.name}: round 1 (golden {made} items generated, {len(ds.items)}/{len(ds.heldout)} used)"
        )
        climb = hill_climb(str(r1), str(golden), conn, heldout=written[1] if len(written) > 1 else None)
    rows1 = _ask(src, r1, questions)
    out["rounds"]["1"] = _figures(rows1, halves)
    rnd = climb["rounds"][0] if climb["rounds"] else {}
    out["improve"] = {
        "generated": made,
        "used": {"golden": len(ds.items), "heldout": len(ds.heldout)},
        "golden_before": climb.get("golden_before"),
        "golden_after": climb.get("golden_after"),
        "generated_heldout_before": climb.get("heldout_before"),
        "generated_heldout_after": climb.get("heldout_after"),
        "by_cause": rnd.get("by_cause"),
        "proposal_status": rnd.get("proposal_status"),
        "proposals_by_kind": _count_kinds(rnd.get("proposals") or []),
    }

    # round 2: feedback on the first 10 not-right answers of the tuning half, then promote
    r2 = work / f"{src.name}.round2.json"
    shutil.copy(r1, r2)
    by_id = {q["id"]: q for q in questions}
    chosen = [
        r for r in rows1
        if r["id"] in halves["tuning_half"] and r["outcome"] != "right" and r["expected"] != "decline"
    ][:FEEDBACK_ANSWERS]  # fmt: skip
    promoted = []
    with tempfile.TemporaryDirectory() as tmp, connect(src.dsn, statement_timeout=20.0) as conn:
        store = SQLiteStore(Path(tmp) / "feedback.sqlite")
        try:
            for r in chosen:
                q = by_id[r["id"]]
                fb = record_feedback(
                    store, "negative", question=q["question"], sql=r.get("sql"), corrected_sql=q[src.sql_key],
                    comment="the analyst's reference", database=src.database,
                )  # fmt: skip
                res = promote_feedback(str(r2), fb, conn)
                promoted.append({"id": q["id"], "ok": res.ok, "message": res.message})
        finally:
            store.close()
    rows2 = _ask(src, r2, questions)
    out["rounds"]["2"] = _figures(rows2, halves)
    out["feedback"] = {
        "chosen": [p["id"] for p in promoted],
        "promoted": sum(p["ok"] for p in promoted),
        "rejected": [p for p in promoted if not p["ok"]],
    }
    return out


def _count_kinds(proposals: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for p in proposals:
        out.setdefault(p["kind"], {}).setdefault(p["status"], 0)
        out[p["kind"]][p["status"]] += 1
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", action="append", default=[], help="chinook, northwind (default), chinook_mariadb")
    ap.add_argument("--work", default="/tmp/ctxtool-loop", help="where the sets of each round are written")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--max-golden", type=int, default=600, help="golden items used (a seeded sample; held out: a third)"
    )
    ap.add_argument("--format", choices=["text", "json"], default="text")
    args = ap.parse_args(argv)
    names = args.db or ["chinook", "northwind"]
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    data = public_data()
    result = {
        s.name: run_database(s, data, work, args.seed, args.max_golden) for s in SOURCES if s.name in names
    }
    if args.format == "json":
        print(json.dumps(result, indent=2, default=str))
        return 0
    for name, r in result.items():
        print(f"{name}:")
        for n, f in r["rounds"].items():
            cells = "  ".join(
                f"{k} {v['right']}/{v['n']} right, {v['wrong']} wrong, {v['declined']} declined"
                for k, v in f.items()
            )
            print(f"  round {n}: {cells}")
        print(f"  improve: {json.dumps(r['improve'], default=str)}")
        print(f"  feedback: {json.dumps(r['feedback'], default=str)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
