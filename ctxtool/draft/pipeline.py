"""Drafting end to end: snapshot -> drafts -> (language model) -> checks -> set, report, coverage.

:func:`draft` is what ``ctxtool draft templates|facets`` calls; tests and scripts call it directly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxtool.draft.check import check_drafts
from ctxtool.draft.drafts import Draft, template
from ctxtool.draft.facets import draft_facets
from ctxtool.draft.model import Model
from ctxtool.draft.names import Glossary, Namer, load_glossary
from ctxtool.draft.ranking import DEFAULT_MAX, cut, rank_drafts, same_sql, same_wording
from ctxtool.draft.templates import draft_templates
from ctxtool.draft.workload import Workload, fingerprint, group_statements, read_log
from ctxtool.errors import InputError

WORKLOAD_SOURCES = ("pg_stat_statements", "performance_schema")
TEMPLATE_KEYS = ("nl_query", "intent", "manifest", "sql", "parameterized")
FACET_KEYS = ("intent", "manifest", "sql_snippet", "parameterized")


@dataclass
class Coverage:
    """How many distinct read queries of the workload the set answers (same SQL up to literals)."""

    distinct: int
    covered: int
    missing: list[str] = field(default_factory=list)  # an example of each query not answered

    @property
    def ratio(self) -> float:
        return self.covered / self.distinct if self.distinct else 1.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "distinct_queries": self.distinct,
            "covered": self.covered,
            "ratio": round(self.ratio, 4),
            "missing": self.missing,
        }


@dataclass
class DraftResult:
    kind: str
    dialect: str
    drafts: list[Draft]
    workload: Workload | None = None
    coverage: Coverage | None = None
    llm_note: str | None = None
    already: int = 0  # drafts left out because the set being merged into has them
    skipped_columns: list[tuple[str, str]] = field(default_factory=list)  # (column, why)
    skipped_tables: list[tuple[str, str]] = field(default_factory=list)  # (table, why)
    max_templates: int | None = None  # the --max the ranked drafts were cut at

    @property
    def left_out(self) -> list[Draft]:
        return [d for d in self.drafts if d.status == "left out"]

    @property
    def kept(self) -> list[Draft]:
        return [d for d in self.drafts if d.status == "kept"]

    @property
    def dropped(self) -> list[Draft]:
        return [d for d in self.drafts if d.status == "dropped"]

    def items(self) -> list[dict[str, Any]]:
        keys = TEMPLATE_KEYS if self.kind == "templates" else FACET_KEYS
        return [_ordered(d.item, keys) for d in self.kept]

    def to_set(self) -> dict[str, Any]:
        return {self.kind: self.items()}

    def report(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "drafted": len(self.drafts),
            "kept": len(self.kept),
            "already_in_set": self.already,
            "dropped": [d.to_report() for d in self.dropped],
            "skipped_columns": [{"column": c, "reason": r} for c, r in self.skipped_columns],
            "skipped_tables": [{"table": t, "reason": r} for t, r in self.skipped_tables],
        }
        if self.max_templates is not None:
            out["max"] = self.max_templates
            out["left_out"] = [d.to_report() for d in self.left_out]
        if self.workload is not None:
            out["workload"] = {
                "statements": self.workload.statements,
                "distinct_read_queries": self.workload.distinct,
                "skipped": [{"sql": s[:200], "reason": r} for s, r in self.workload.skipped],
            }
        if self.coverage is not None:
            out["coverage"] = self.coverage.to_dict()
        if self.llm_note:
            out["llm"] = self.llm_note
        return out


def _ordered(item: dict[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    out = {k: item[k] for k in keys if k in item}
    out.update({k: v for k, v in item.items() if k not in out})
    return out


def sampler_for(connector: Any) -> Callable[[Any, Any], list[Any]]:
    def sample(table: Any, col: Any) -> list[Any]:
        return list(connector.sample_column(table.name, col.name, 20, schema=table.schema))

    return sample


def workload_statements(source: str, connector: Any) -> list[tuple[str, int]]:
    if source in WORKLOAD_SOURCES:
        if connector is None:
            raise InputError(f"--workload {source} reads the database: give --dsn")
        from ctxtool.draft import workload as wl

        return (
            wl.from_pg_stat_statements(connector)
            if source == "pg_stat_statements"
            else wl.from_performance_schema(connector)
        )
    return read_log(source)


def draft_from_workload(model: Model, workload: Workload) -> list[Draft]:
    """One template per distinct workload query, most frequent first, described in words: its
    question (``nl_query``) and a phrase (``intent``), two wordings the matcher compares."""
    from ctxtool.draft.describe import Describer, instantiate

    describer = Describer(model)
    out: list[Draft] = []
    for q in workload.queries:
        examples = q.ranked_examples
        if q.placeholders:
            filled = (instantiate(e, model, k) for e in examples[:3] for k in range(8))
            examples = list(dict.fromkeys(s for s in filled if s))
            if not examples:
                d = template(describer(q.ranked_examples[0]), q.ranked_examples[0], "workload", q.tables)
                d.fingerprint, d.frequency = q.fingerprint, q.count
                d.drop("no values to fill the placeholders of this digest")
                out.append(d)
                continue
        d = template("", examples[0], "workload", q.tables)
        d.item["nl_query"], d.item["intent"] = describer.wordings(examples[0])
        d.fingerprint, d.frequency = q.fingerprint, q.count
        d.alternatives = examples[1:20]
        d.redescribe = _redescriber(d, describer)
        out.append(d)
    return out


def _redescriber(d: Draft, describer: Any) -> Callable[[str], str]:
    """The question for another example of ``d``'s query, its phrase updated along."""

    def redescribe(sql: str) -> str:
        question, phrase = describer.wordings(sql)
        d.item["intent"] = phrase
        return question

    return redescribe


def coverage_of(templates: Sequence[dict[str, Any]], workload: Workload, dialect: str) -> Coverage:
    prints = set()
    for t in templates:
        sql = t.get("sql")
        if isinstance(sql, str) and (fp := fingerprint(sql, dialect)):
            prints.add(fp)
    missing = [q.ranked_examples[0] for q in workload.queries if q.fingerprint not in prints]
    return Coverage(workload.distinct, workload.distinct - len(missing), missing)


def draft(
    kind: str,
    snapshot: dict[str, Any],
    *,
    connector: Any = None,
    tables: Sequence[str] | None = None,
    workload: str | None = None,
    glossary: Glossary | str | None = None,
    llm: Any = None,
    existing: Sequence[dict[str, Any]] = (),
    schema_drafts: bool = True,
    max_templates: int | None = DEFAULT_MAX,
    progress: Callable[[Draft], None] | None = None,
    exclude: Sequence[str] = (),
    views: bool = True,
) -> DraftResult:
    """Draft ``kind`` ("templates" or "facets") for ``snapshot``; check everything; return the result.

    ``connector`` (an open read-only session; its statement timeout and row cap bound each check run)
    lets drafts execute and samples values the profile lacks;
    ``workload`` is a log file or ``pg_stat_statements`` / ``performance_schema``; ``llm`` a
    :class:`ctxtool.llm.ChatClient` for more proposals and better wording; ``existing`` items (of the
    set being merged into) count for coverage. Templates are ranked by how likely they are asked
    (:mod:`ctxtool.draft.ranking`), one per wording, and cut at ``max_templates`` (None: all).
    ``exclude`` leaves out tables and ``table.column`` columns; ``views=False`` drafts no views.
    """
    if kind not in ("templates", "facets"):
        raise InputError(f"unknown draft kind {kind!r}: use templates or facets")
    if isinstance(glossary, str):
        glossary = load_glossary(glossary)
    model = Model(
        snapshot,
        namer=Namer(glossary),
        tables=tables,
        sampler=sampler_for(connector) if connector is not None else None,
        exclude=exclude,
        views=views,
    )
    dialect = model.dialect
    drafts: list[Draft] = []
    wl: Workload | None = None
    if kind == "templates":
        if workload:
            statements = workload_statements(workload, connector)
            wl = group_statements(statements, dialect, known_tables=[t.name for t in model.tables])
            drafts.extend(draft_from_workload(model, wl))
        if schema_drafts:
            # the schema's families fill in after the log's questions (ranked first): a log holds
            # what was asked so far, not all that will be (see docs/draft.md, "The workload")
            drafts.extend(draft_templates(model))
        drafts = rank_drafts(drafts, model.table_weights())
    else:
        if workload:
            raise InputError("--workload drafts templates: use `ctxtool draft templates --workload ...`")
        drafts.extend(draft_facets(model))
    unique = _dedupe(drafts, [], kind, dialect)
    drafts = _dedupe(unique, existing, kind, dialect)
    already = len(unique) - len(drafts)
    new = {id(d) for d in drafts}
    in_set = [d for d in unique if id(d) not in new]
    note = None
    if llm is not None:
        from ctxtool.draft.llm import improve

        extra, note = improve(llm, model, kind, drafts)
        drafts.extend(_dedupe(extra, [*existing, *(d.item for d in drafts)], kind, dialect))
    check_drafts(
        drafts,
        dialect,
        snapshot=snapshot,
        labelled=model.labelled_snapshot(),
        connector=connector,
        progress=progress,
    )
    if kind == "templates":
        from ctxtool.draft.check import parameterize_drafts

        parameterize_drafts(in_set, dialect, model.labelled_snapshot())  # their wordings, to compare
        ranked = rank_drafts([*drafts, *in_set], model.table_weights())
        same_sql([d for d in ranked if id(d) not in {id(x) for x in in_set}], dialect, existing)
        same_wording(ranked, in_set, existing)
        cut(ranked, max_templates, in_set)
    already += sum(1 for d in drafts if d.status == "already")
    result = DraftResult(
        kind, dialect, drafts, wl, llm_note=note, already=already, skipped_columns=model.skipped_columns()
    )
    result.skipped_tables = list(model.skipped_tables)
    result.max_templates = max_templates if kind == "templates" else None
    if wl is not None:
        result.coverage = coverage_of([*existing, *(d.item for d in result.kept)], wl, dialect)
    return result


def _key(item: dict[str, Any], kind: str, dialect: str) -> tuple[str, ...]:
    sql = item.get("sql") if kind == "templates" else item.get("sql_snippet")
    fp = fingerprint(str(sql), dialect) if kind == "templates" and isinstance(sql, str) else None
    text = " ".join(str(sql or "").split()).lower()
    return (fp or text,)


def _dedupe(
    drafts: Sequence[Draft], existing: Sequence[dict[str, Any]], kind: str, dialect: str
) -> list[Draft]:
    """Drop drafts whose SQL (up to literals, for templates) or question is already there."""
    seen_sql = {_key(i, kind, dialect) for i in existing if isinstance(i, dict)}
    seen_text = {
        str(i.get("nl_query") or i.get("intent") or "").strip().lower()
        for i in existing
        if isinstance(i, dict)
    }
    out = []
    for d in drafts:
        k = _key(d.item, kind, dialect)
        text = d.text.strip().lower()
        if k in seen_sql or (text and text in seen_text):
            continue
        seen_sql.add(k)
        seen_text.add(text)
        out.append(d)
    return out
