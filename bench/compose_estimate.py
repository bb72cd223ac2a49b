"""What composition would add on the Spider train kit, measured before it is wired into the runtime.

For every case the runtime declines (read from a ``bench/spider.py --rows`` file of the same code),
the runtime's best candidate (``Runtime.understand``, its plan with slots and facets bound) is
composed with the question's typed mentions (:mod:`ctxtool.mentions`, :func:`ctxtool.compose.plan.plan`):
its own time re-bound, conditions for the values it leaves unused, groupings, orders, measures.
A composition is tried only when it uses every value the candidate left unused and every word it
left unexplained lies inside a mention the plan used; the composed SQL is run read-only and compared
with the gold as ``bench/spider.py`` compares. Reported per fixed half of the databases and per
floor of the candidate's evidence, so the floor is chosen on one half (``even``) and read on the other.

    .venv/bin/python bench/compose_estimate.py --rows /work/notes/spider_rows_main.jsonl --out /tmp/est.jsonl
    .venv/bin/python bench/compose_estimate.py --summarize /tmp/est.jsonl
    .venv/bin/python bench/compose_estimate.py --analyst --extra bench/analyst_curated.json

``--analyst`` does the same for the analyst questions (``bench/analyst.py``'s databases and drafted
sets, plus ``--extra``): for each question the runtime declines, the composed answer scored as the
analyst README says; for each it answers, whether the plan of its template would have used every
typed part of the question (a plan that leaves parts unused would decline it: "never confidently
wrong").

This is an estimate of the stage, not the runtime's figure: the runtime's own figures come from
``bench/spider.py`` once the stage is wired.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.spider import (  # noqa: E402
    HALVES,
    _ordered,
    ensure_database,
    half_of,
    kit_dir,
    prepare_set,
    same_result,
)
from ctxtool import console  # noqa: E402
from ctxtool.compose import ColumnRef, ComposeError, LinkedValue, SchemaGraph, compose  # noqa: E402
from ctxtool.compose.plan import TemplateShape, plan  # noqa: E402
from ctxtool.connectors import connect  # noqa: E402
from ctxtool.errors import CtxtoolError  # noqa: E402
from ctxtool.mentions import read_mentions  # noqa: E402
from ctxtool.runtime import Runtime  # noqa: E402

FLOORS = (0.3, 0.4, 0.5, 0.6, 0.7)


def _linked(entity: Any) -> LinkedValue | None:
    link = entity.link
    if link is None or not link.column or "." not in link.column:
        return None
    table, _, column = link.column.rpartition(".")
    return LinkedValue(entity.text, (entity.start, entity.end), ColumnRef(table, column), link.value)


def try_case(
    rt: Runtime, graph: SchemaGraph, question: str, dialect: str = "postgres"
) -> dict[str, Any] | None:
    """The composed SQL of the best candidate for ``question``, or None (with no reason to try)."""
    entities, cands, _links = rt.understand(question)
    if not cands:
        return None
    best = cands[0]
    try:
        first = rt.plan_from(best, entities)
        shape = TemplateShape.read(first.sql, first.params, dialect, graph)
    except (CtxtoolError, ValueError):
        return None
    unused = [entities[i] for i in best.unused if i < len(entities)]
    values = [lv for lv in (_linked(e) for e in unused) if lv is not None]
    own = read_mentions(best.template.data.get("nl_query") or best.template.intent)
    mentions = read_mentions(question)
    done = plan(mentions, shape, graph, template_mentions=own, values=values)
    if not done.edits or not done.complete:
        return None
    spans = done.covers
    for e in unused:  # every value the template left unused is used by the composition
        if not any(a <= e.start and e.end <= b for a, b in spans):
            return None
    words = [w.lower() for w in best.unexplained]
    low = question.lower()
    for w in words:  # every word the template leaves unexplained is inside a used mention
        at = low.find(w)
        if at < 0 or not any(a <= at < b for a, b in spans):
            return None
    try:
        out = compose(first.sql, first.params, dialect, graph, done.edits)
    except ComposeError:
        return None
    return {"sql": out.sql, "params": out.params, "evidence": best.evidence, "explanation": out.explanation}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", help="a bench/spider.py --rows file of the same code (which cases it declined)")
    ap.add_argument("--server", default="postgresql://postgres@127.0.0.1:5432/")
    ap.add_argument("--work", default="/tmp/ctxtool-spider")
    ap.add_argument("--out", help="write each tried case (JSON lines)")
    ap.add_argument("--summarize", metavar="OUT", help="print the figures of an --out file")
    ap.add_argument("--analyst", action="store_true", help="the analyst questions instead of the kit")
    ap.add_argument("--extra", help="with --analyst: curated extra templates (bench/analyst.py --extra)")
    args = ap.parse_args(argv)
    if args.analyst:
        return analyst_main(args)
    if args.summarize:
        summarize([json.loads(x) for x in Path(args.summarize).read_text().splitlines() if x])
        return 0
    if not args.rows:
        raise SystemExit("--rows FILE (a bench/spider.py --rows file) is needed")
    kit = kit_dir()
    cases = {}
    for line in (kit / "cases.jsonl").read_text().splitlines():
        c = json.loads(line)
        cases[c["id"]] = c
    declined = defaultdict(list)
    rows = [json.loads(x) for x in Path(args.rows).read_text().splitlines() if x]
    for r in rows:
        if r["outcome"] == "declined":
            declined[r["db"]].append(cases[r["id"]])
    out: list[dict[str, Any]] = []
    with console.make_progress() as progress:
        task = progress.add_task("compose", total=len(declined))
        for db_id in sorted(declined):
            progress.update(task, description=db_id)
            dsn = ensure_database(args.server, db_id, kit)
            data, _notes = prepare_set(dsn, db_id, kit, Path(args.work))
            with connect(dsn, statement_timeout=20.0, row_cap=100_000) as conn:
                graph = SchemaGraph.from_snapshot(conn.introspect())
                rt = Runtime(data, connector=conn, dialect="postgres", use_llm=False)
                for case in declined[db_id]:
                    tried = try_case(rt, graph, case["question"])
                    if tried is None:
                        continue
                    row = {"id": case["id"], "db": db_id, "kind": case["kind"], **tried}
                    row["params"] = [str(p) for p in tried["params"]]
                    try:
                        gold = conn.query(case["gold_sql"], None, max_rows=100_000)
                        got = conn.query(tried["sql"], tried["params"], max_rows=100_000)
                        ok = same_result(
                            [list(x) for x in got.rows],
                            [list(x) for x in gold.rows],
                            _ordered(case["gold_sql"]),
                        )
                        row["outcome"] = "correct" if ok else "wrong"
                    except CtxtoolError as exc:
                        row["outcome"], row["error"] = "wrong", str(exc)[:200]
                    out.append(row)
                rt.close()
            progress.advance(task)
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r, default=str) + "\n" for r in out))
    summarize(out, rows)
    return 0


def analyst_main(args: argparse.Namespace) -> int:
    """The analyst questions: composition of the declined, the plan's verdict on the answered."""
    from types import SimpleNamespace

    from bench import analyst

    data = analyst.public_data()
    extra = analyst.read_extra(args.extra) if args.extra else {}
    out = []
    for src in analyst.SOURCES:
        if not analyst.loaded(src):
            analyst.load(src, data)
        the_set, _report, _cached = analyst.drafted(src, data, Path("/tmp/ctxtool-analyst"))
        dialect = "postgres" if src.engine == "postgres" else "mysql"
        the_set, _added = analyst.with_extra(the_set, extra.get(src.name, []), dialect, src.dsn)
        items = json.loads((data / "analyst" / f"{src.questions}_questions.json").read_text(encoding="utf-8"))
        with connect(src.dsn, statement_timeout=20.0, row_cap=100_000) as conn:
            graph = SchemaGraph.from_snapshot(conn.introspect())
            rt = Runtime(the_set, connector=conn, dialect=conn.dialect, use_llm=False)
            for item in items:
                ans = rt.ask(item["question"], action="showsql")
                row = {"id": item["id"], "db": src.name, "kind": item["kind"], "expected": item["expected"]}
                before = analyst.score_answer(conn, item, src.sql_key, ans, None)["outcome"]
                row["before"] = before
                if ans.status == "answered" and ans.sql:
                    row["plan_complete"] = _answer_complete(rt, graph, item["question"], ans, dialect)
                    row["after"] = before if row["plan_complete"] else "declined"
                elif item["expected"] == "answer":
                    tried = try_case(rt, graph, item["question"], dialect)
                    if tried is not None:
                        fake = SimpleNamespace(
                            status="answered",
                            sql=tried["sql"],
                            params=tried["params"],
                            source="composed",
                            confidence=tried["evidence"],
                            explanation="",
                        )
                        scored = analyst.score_answer(conn, item, src.sql_key, fake, None)
                        row["after"], row["lenient"] = scored["outcome"], bool(scored.get("lenient"))
                        row["sql"], row["evidence"] = tried["sql"], tried["evidence"]
                    else:
                        row["after"] = before
                else:
                    row["after"] = before
                out.append(row)
            rt.close()
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r, default=str) + "\n" for r in out))
    for db in [s.name for s in analyst.SOURCES] + ["all"]:
        part = [r for r in out if db in ("all", r["db"])]
        fig = {
            k: {o: sum(r[k] == o for r in part) for o in ("right", "wrong", "declined")}
            for k in ("before", "after")
        }
        lenient = sum(1 for r in part if r.get("lenient"))
        print(
            f"{db}: before {fig['before']}  after {fig['after']} ({lenient} of the wrong right leniently)  ({len(part)} questions)"
        )
    return 0


def _answer_complete(rt: Runtime, graph: SchemaGraph, question: str, ans: Any, dialect: str) -> bool:
    """Whether the plan of an answer's own SQL uses every typed part of the question."""
    try:
        shape = TemplateShape.read(ans.sql, list(ans.params or []), dialect, graph)
    except (CtxtoolError, ValueError):
        return True  # a query composition cannot read is left to the runtime
    own = read_mentions(ans.template.intent) if getattr(ans, "template", None) else None
    done = plan(read_mentions(question), shape, graph, template_mentions=own)
    _entities, cands, _links = rt.understand(question)
    same = [c for c in cands if ans.template is not None and c.template.index == ans.template.index]
    unexplained = same[0].unexplained if same else []
    return not done.decisive(unexplained) and not done.mismatch


def summarize(out: list[dict[str, Any]], rows: list[dict[str, Any]] | None = None) -> None:
    dbs = sorted({r["db"] for r in (rows or out)})
    from bench.spider import _all_databases

    every = _all_databases() or dbs
    for half in HALVES:
        mine = set(half_of(every, half))
        part = [r for r in out if r["db"] in mine]
        print(f"{half} half:")
        for floor in FLOORS:
            kept = [r for r in part if r["evidence"] >= floor]
            line = []
            for kind in ("uncovered", "paraphrase", "value-variant"):
                k = [r for r in kept if r["kind"] == kind]
                line.append(
                    f"{kind} +{sum(r['outcome'] == 'correct' for r in k)} right / "
                    f"{sum(r['outcome'] == 'wrong' for r in k)} wrong"
                )
            print(f"  evidence >= {floor}: " + ", ".join(line))


if __name__ == "__main__":
    raise SystemExit(main())
