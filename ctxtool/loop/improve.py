"""Read an eval report as a list of fixes: the gap report of ``ctxtool improve``.

Each question the set did not answer right is put under one cause, read from its golden SQL, the
set and the database:

================ ==============================================================================
cause            how it is told, and the fix proposed
================ ==============================================================================
no-template      no template has the golden SQL's shape (literals as slots): a drafted template,
                 the question with its golden SQL (added through :func:`ctxtool.loop.promote`)
missing-facet    a template has the shape of the golden SQL less one ``WHERE`` condition: a facet
                 of that condition
unlinked-value   a template has the shape, and a text value of the golden SQL is in a column no
                 value search covers: a value search drafted for that column (``draft_values``)
unknown-word     a template has the shape and every value is searchable, so its wording was too
                 far: the words of the question the set does not know are listed, and the
                 question is proposed as another wording of that template (at most
                 ``max_wordings`` per template)
wrong-check      a wrong answer: a question that must be declined was answered (the check that
                 should have fired is named: the value check, the unknown-word check, the
                 out-of-scope check), or one answered with other rows (its golden SQL proposed
                 as a template, so the right one wins)
================ ==============================================================================

A proposal is an item ready for ``mutate_set`` / ``promote``;
:func:`ctxtool.loop.hillclimb.apply_proposals` adds those that pass their checks. The report is read from ``ctxtool eval --report json`` output;
its golden SQL comes from the report or from the golden file. A held-out golden file is never
read here: ``improve`` tunes only on what it is given.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ctxtool.errors import CtxtoolError, InputError
from ctxtool.jsondoc import load_json

__all__ = [
    "CAUSES",
    "GENERATED_STAGES",
    "Gap",
    "GapReport",
    "Proposal",
    "dumps",
    "gap_report",
    "item_label",
    "read_eval_report",
]

CAUSES = {
    "no-template": "no template of that shape",
    "missing-facet": "a filter no facet adds",
    "unlinked-value": "a value no value search links",
    "unknown-word": "words the set does not know",
    "wrong-check": "a wrong answer a check should have declined",
}
NEGATIVE_CHECKS = {
    "absent-value": "the value check: a value the column does not hold must be declined, not answered",
    "absent-column": "the unknown-word check: an attribute the database lacks must be declined",
    "write": "the out-of-scope check: a write request is declined",
    "chat": "the out-of-scope check: a question no database answers is declined",
    "out-of-scope": "the out-of-scope check: a request the database cannot answer is declined",
}

# A generated variant (``ctxtool dataset generate``'s tags) is not a question a person asked: when
# the set misses it, the runtime stage that should have read it is named, and it is not proposed as
# a template (a set of synonyms picked by WordNet, misspellings and asides would fit the generated
# file and nothing else). A user's question (no such tag) is proposed as a wording.
GENERATED_STAGES = {
    "misspelling": "the spelling check should have read the misspelt word",
    "value-misspelling": "the value search should have linked the misspelt value",
    "paraphrase": "the matcher should have read the synonym as the template's word",
    "reorder": "the matcher should have read the moved phrase",
    "question-form": "the matcher should have read the other question form",
    "terse": "the matcher should have read the terse form",
    "distraction": "the matcher should have ignored the aside",
    "value": "the value linking should have bound the other value",
}


def _near(word: str, vocabulary: set[str]) -> str | None:
    """The word of ``vocabulary`` one edit (or one swap of neighbours) from ``word``: a misspelling;
    of several, the one sharing the longest beginning (then the first in order)."""
    if len(word) < 4:
        return None
    found = [v for v in vocabulary if abs(len(v) - len(word)) <= 1 and _one_edit(word, v)]
    if not found:
        return None

    def shared(v: str) -> int:
        return next(
            (i for i, (a, b) in enumerate(zip(v, word, strict=False)) if a != b), min(len(v), len(word))
        )

    return min(found, key=lambda v: (-shared(v), v))


def _one_edit(a: str, b: str) -> bool:
    if a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                   and a[diff[1]] == b[diff[0]])  # fmt: skip
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


@dataclass
class Proposal:
    """One fix: an item for ``kind`` (``templates``, ``facets``, ``value_searches``; ``check`` has no
    item and names the runtime check to look at), the cause, and the questions it is for."""

    kind: str
    cause: str
    item: dict[str, Any] | None
    reason: str
    questions: list[str] = field(default_factory=list)
    status: str = "proposed"  # proposed | added | rejected | not applicable
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


@dataclass
class Gap:
    id: str
    nlq: str
    outcome: str
    cause: str
    detail: str
    template: str | None = None
    proposal: int | None = None  # index in GapReport.proposals

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


@dataclass
class GapReport:
    questions: int
    correct: int
    gaps: list[Gap]
    proposals: list[Proposal]
    skipped: dict[str, int] = field(default_factory=dict)  # golden_error etc.

    def by_cause(self) -> dict[str, list[Gap]]:
        return {
            c: [g for g in self.gaps if g.cause == c] for c in CAUSES if any(g.cause == c for g in self.gaps)
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "questions": self.questions,
            "correct": self.correct,
            "gaps": len(self.gaps),
            "by_cause": {c: len(g) for c, g in self.by_cause().items()},
            "skipped": self.skipped,
            "proposals": [p.to_dict() for p in self.proposals],
            "proposal_status": dict(Counter(p.status for p in self.proposals)),
            "questions_by_cause": {c: [g.to_dict() for g in gs] for c, gs in self.by_cause().items()},
        }

    def text(self) -> str:
        lines = [f"{self.correct}/{self.questions} right; {len(self.gaps)} gap(s)"]
        for cause, gaps in self.by_cause().items():
            lines.append(f"\n{cause} ({CAUSES[cause]}): {len(gaps)}")
            for g in gaps[:8]:
                lines.append(f"  [{g.outcome}] {g.id}: {g.nlq} -- {g.detail}")
            if len(gaps) > 8:
                lines.append(f"  ... and {len(gaps) - 8} more")
        if self.proposals:
            lines.append(f"\n{len(self.proposals)} proposal(s):")
            for i, p in enumerate(self.proposals):
                what = item_label(p)
                status = (
                    f" [{p.status}{': ' + p.message if p.message else ''}]" if p.status != "proposed" else ""
                )
                lines.append(f"  {i}. {p.kind} ({p.cause}, {len(p.questions)} question(s)): {what}{status}")
        return "\n".join(lines)


def item_label(p: Proposal) -> str:
    if p.item is None:
        return p.reason
    return str(p.item.get("nl_query") or p.item.get("intent") or p.item.get("concept_type") or "")


def read_eval_report(path: str, golden: str | None = None) -> list[dict[str, Any]]:
    """The questions of an eval report (``ctxtool eval --report json``; of B in a comparison), each
    with its ``golden_sql`` (from the report, else from the ``golden`` file by id)."""
    doc = load_json(path)
    data = doc.data
    if isinstance(data, dict) and "b" in data and isinstance(data["b"], dict):
        data = data["b"]
    items = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(items, list) or not all(isinstance(q, dict) and "id" in q for q in items):
        raise InputError(
            f"{path}:1:1: not an eval report: write one with `ctxtool eval GOLDEN --format json -o REPORT`"
        )
    if golden:
        from ctxtool.runtime.evaluate import load_golden

        by_id = {q.id: q for q in load_golden(golden)}
        for q in items:
            g = by_id.get(str(q["id"]))
            if g is not None:
                q.setdefault("golden_sql", g.golden_sql)
                q.setdefault("template", g.template)
    missing = [q["id"] for q in items if q.get("outcome") != "correct" and not q.get("golden_sql")]
    if missing:
        raise InputError(
            f"{path}: question {missing[0]!r} has no golden_sql: give the golden file with --golden FILE"
        )
    return items


# ------------------------------------------------------------------------------------------ causes
class _SetFacts:
    """What the classification reads from the set and the database, once."""

    def __init__(self, data: dict[str, Any], connector: Any, dialect: str) -> None:
        from ctxtool.draft.workload import fingerprint
        from ctxtool.english.content import content_tokens
        from ctxtool.identifiers import words_of
        from ctxtool.parameterize.types import value_search_columns

        self.data, self.connector, self.dialect = data, connector, dialect
        self.fingerprint = lambda sql: fingerprint(sql, dialect)
        self.shapes: dict[str, int] = {}
        words: list[str] = []
        for i, t in enumerate(data.get("templates") or []):
            if isinstance(t, dict) and isinstance(t.get("sql"), str):
                fp = self.fingerprint(t["sql"])
                if fp:
                    self.shapes.setdefault(fp, i)
                words += [str(t.get("nl_query") or ""), str(t.get("intent") or "")]
        for f in data.get("facets") or []:
            if isinstance(f, dict):
                words.append(str(f.get("intent") or ""))
        from ctxtool.values.draft import iter_columns

        self.snapshot = connector.introspect() if connector is not None else {}
        self.columns = [
            (str(t.get("name") or ""), str(c.get("name") or "")) for _, t, c in iter_columns(self.snapshot)
        ]
        for tname, cname in self.columns:
            words += [words_of(tname), words_of(cname)]
        self.vocabulary = set(content_tokens(" ".join(words)))
        self.content_tokens = content_tokens
        self.searched = value_search_columns(data.get("value_searches") or [], dialect)

    def unknown_words(self, nlq: str, values: Iterable[str]) -> list[str]:
        said = set(self.content_tokens(" ".join(values)))
        return [
            w for w in dict.fromkeys(self.content_tokens(nlq)) if w not in self.vocabulary and w not in said
        ]

    def reduced_shape(self, sql: str) -> tuple[int, str] | None:
        """(template index, the condition) when the golden SQL less one WHERE condition has a
        template's shape."""
        from sqlglot import exp

        from ctxtool.runtime.templates.sqlparts import parse

        try:
            tree = parse(sql, self.dialect)
        except CtxtoolError:
            return None
        where = tree.args.get("where")
        if where is None:
            return None
        conds = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
        for k, cond in enumerate(conds):
            rest = [c for j, c in enumerate(conds) if j != k]
            t = tree.copy()
            if rest:
                t.set("where", exp.Where(this=exp.and_(*[c.copy() for c in rest])))
            else:
                t.set("where", None)
            fp = self.fingerprint(t.sql(dialect=_sqlglot(self.dialect)))
            if fp in self.shapes:
                return self.shapes[fp], cond.sql(dialect=_sqlglot(self.dialect))
        return None


def _sqlglot(dialect: str) -> str:
    from ctxtool.dialects import sqlglot_dialect

    return sqlglot_dialect(dialect)


def _column_label(v: Any, facts: _SetFacts) -> str | None:
    """``table.column`` of a compared text value, as the snapshot names it."""
    if not v.column:
        return None
    for tname, cname in facts.columns:
        if v.table and tname.lower() != str(v.table).lower():
            continue
        if cname.lower() == v.column.lower():
            return f"{tname}.{cname}"
    return None


def gap_report(
    questions: list[dict[str, Any]],
    data: dict[str, Any],
    connector: Any,
    *,
    dialect: str | None = None,
    max_wordings: int = 2,
) -> GapReport:
    """Group the questions not answered right by cause and propose a fix for each (see the module
    docstring). ``connector`` is an open connector to the set's database (read-only: its catalogue,
    and the value searches drafted for it)."""
    from ctxtool.parameterize.extract import extract_values

    dialect = dialect or connector.dialect
    facts = _SetFacts(data, connector, dialect)
    gaps: list[Gap] = []
    proposals: list[Proposal] = []
    keyed: dict[tuple[str, str], int] = {}
    wordings: Counter[str] = Counter()
    skipped: Counter[str] = Counter()

    def propose(key: tuple[str, str], make: Callable[[], Proposal | None], qid: str) -> int | None:
        if key not in keyed:
            p = make()
            if p is None:
                return None
            keyed[key] = len(proposals)
            proposals.append(p)
        proposals[keyed[key]].questions.append(qid)
        return keyed[key]

    correct = 0
    for q in questions:
        outcome = q.get("outcome")
        if outcome == "correct":
            correct += 1
            continue
        if outcome == "golden_error":
            skipped["golden_error"] += 1
            continue
        qid, nlq, tags = str(q["id"]), str(q.get("nlq") or ""), list(q.get("tags") or [])
        golden = str(q.get("golden_sql") or "")
        gap = Gap(qid, nlq, str(outcome), "", "", q.get("template"))
        template_item = {"nl_query": nlq, "sql": golden}
        if "negative" in tags:
            if outcome != "wrong":
                skipped[f"negative {outcome}"] += 1
                continue
            which = next(
                (NEGATIVE_CHECKS[t] for t in tags if t in NEGATIVE_CHECKS), NEGATIVE_CHECKS["out-of-scope"]
            )
            gap.cause, gap.detail = (
                "wrong-check",
                f"answered with {q.get('sql')!r}; should have fired: {which}",
            )
            gap.proposal = propose(
                ("check", which), lambda w=which: Proposal("check", "wrong-check", None, w), qid
            )
            gaps.append(gap)
            continue
        if outcome == "wrong":
            gap.cause = "wrong-check"
            gap.detail = (
                f"answered with other rows ({q.get('sql')!r}): the template that answered should not "
                "have matched; the golden SQL is proposed as a template so the right one wins"
            )
            made = sorted(set(tags) & set(GENERATED_STAGES))
            if made:
                stage = f"a wrong answer to a generated variant: {GENERATED_STAGES[made[0]]}"
                gap.proposal = propose(
                    ("check", stage), lambda s=stage: Proposal("check", "wrong-check", None, s), qid
                )
                gaps.append(gap)
                continue
            gap.proposal = propose(
                ("templates", nlq.lower()),
                lambda t=template_item: Proposal(
                    "templates", "wrong-check", t, "answered wrong: add the right SQL"
                ),
                qid,
            )
            gaps.append(gap)
            continue
        shape = facts.fingerprint(golden)
        if shape not in facts.shapes:
            reduced = facts.reduced_shape(golden)
            if reduced is not None:
                index, cond = reduced
                gap.cause = "missing-facet"
                gap.detail = f"template {index} with the condition {cond}"
                facet = {"sql_snippet": cond, "intent": _facet_intent(nlq, data["templates"][index], facts)}
                gap.proposal = propose(
                    ("facets", cond.lower()),
                    lambda f=facet, i=index: Proposal(
                        "facets", "missing-facet", f, f"the filter template {i} lacks"
                    ),
                    qid,
                )
            else:
                gap.cause, gap.detail = "no-template", "no template has the golden SQL's shape"
                gap.proposal = propose(
                    ("shape", shape or golden),
                    lambda t=template_item: Proposal(
                        "templates", "no-template", t, "a template of this shape"
                    ),
                    qid,
                )
            gaps.append(gap)
            continue
        index = facts.shapes[shape]
        try:
            values = extract_values(golden, dialect).values
        except CtxtoolError:
            values = []
        texts = [v for v in values if v.kind == "string" and v.context in ("compare", "in", "like")]
        unsearched = [
            (v, lab) for v in texts if (lab := _column_label(v, facts)) and lab.lower() not in facts.searched
        ]
        if unsearched:
            v, label = unsearched[0]
            gap.cause = "unlinked-value"
            gap.detail = f"{v.phrase!r} of {label}: no value search covers the column"
            gap.proposal = propose(
                ("value_searches", label.lower()),
                lambda lab=label: _value_search_proposal(lab, facts),
                qid,
            )
            gaps.append(gap)
            continue
        missed = [v for v in texts if v.phrase and v.phrase.lower() not in nlq.lower()]
        if missed:
            gap.cause = "unlinked-value"
            gap.detail = (
                f"{missed[0].phrase!r} is not written as in the data, and the value search of its column "
                "did not link it (ctxtool test-values --probe shows what it returns)"
            )
            gaps.append(gap)
            continue
        unknown = facts.unknown_words(nlq, [v.phrase for v in values])
        gap.cause = "unknown-word"
        t = data["templates"][index]
        gap.detail = (
            f"unknown to the set: {', '.join(unknown)}" if unknown else "every word is known"
        ) + f"; the shape is template {index}'s ({t.get('nl_query')!r})"
        misspelt = {w: near for w in unknown if (near := _near(w, facts.vocabulary))}
        made = sorted(set(tags) & set(GENERATED_STAGES))
        origin = str(q.get("template") or index)
        if misspelt:
            w, near = next(iter(misspelt.items()))
            stage = f"the spelling check should have read {w!r} as {near!r}"
            gap.proposal = propose(
                ("check", "spelling"), lambda s=stage: Proposal("check", "unknown-word", None, s), qid
            )
        elif made:
            stage = GENERATED_STAGES[made[0]]
            gap.proposal = propose(
                ("check", stage), lambda s=stage: Proposal("check", "unknown-word", None, s), qid
            )
        elif wordings[origin] < max_wordings:
            wordings[origin] += 1
            gap.proposal = propose(
                ("templates", nlq.lower()),
                lambda t=template_item, i=index: Proposal(
                    "templates", "unknown-word", t, f"another wording of template {i}"
                ),
                qid,
            )
        gaps.append(gap)
    return GapReport(len(questions), correct, gaps, proposals, dict(skipped))


def _facet_intent(nlq: str, template: dict[str, Any], facts: _SetFacts) -> str:
    """The facet's words: what the question says beyond its template's question."""
    said = set(facts.content_tokens(str(template.get("nl_query") or "")))
    extra = [w for w in nlq.rstrip("?.!").split() if not set(facts.content_tokens(w)) <= said]
    return " ".join(extra) or nlq


def _value_search_proposal(label: str, facts: _SetFacts) -> Proposal | None:
    from ctxtool.values.draft import draft, server_from_connector

    try:
        recipes, notes = draft(
            facts.snapshot,
            server=server_from_connector(facts.connector),
            columns=[label],
            connector=facts.connector,
        )
    except CtxtoolError as exc:
        return Proposal("check", "unlinked-value", None, f"no value search can be drafted for {label}: {exc}")
    if not recipes:
        return Proposal(
            "check",
            "unlinked-value",
            None,
            f"no value search drafted for {label}: {'; '.join(notes) or 'none fits'}",
        )
    return Proposal(
        "value_searches", "unlinked-value", recipes[0].value_search(), f"a value search for {label}"
    )


def dumps(report: GapReport) -> str:
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False, default=str)
