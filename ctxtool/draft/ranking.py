"""Which drafts a person sees first, which are the same question twice, and where ``--max`` cuts.

A drafted set is reviewed by a person and served to a matcher that compares wordings: two templates
whose questions say the same words (up to their values) can never be told apart, so only the better
ranked one is kept. Ranking follows how likely a question is asked: what the workload ran (by how
often it ran) first, then the schema families in the order a team curates them (counts and listings
of the main entities, lookups by name, aggregates of real measures, breakdowns, top-N, relationships,
then the rarer shapes), the bigger and better connected tables first within a family.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ctxtool.draft.drafts import Draft
from ctxtool.english.content import content_tokens

DEFAULT_MAX = 250  # templates kept by default: a set a person can still review in one sitting

# How likely a family of schema drafts is asked (higher first); families not listed rank last.
FAMILY_PRIOR: dict[str, float] = {
    "count": 1.0,
    "list-names": 0.97,
    "list-column": 0.9,
    "list-with-name": 0.8,
    "list-pair": 0.55,
    "lookup": 0.9,
    "lookup-column": 0.88,
    "aggregate": 0.86,
    "average": 0.85,
    "total": 0.85,
    "min-max": 0.84,
    "breakdown": 0.83,
    "count-distinct": 0.83,  # kept beside the breakdown: without it "how many different" gets one
    "count-where": 0.8,
    "superlative": 0.8,
    "date-superlative": 0.76,
    "join-top": 0.79,
    "link-top": 0.79,
    "top-n": 0.78,
    "bottom-n": 0.74,
    "list-where": 0.77,
    "list-where-not": 0.7,
    "list-threshold": 0.76,
    "threshold": 0.75,
    "distinct": 0.75,
    "ordered": 0.74,
    "join-list": 0.73,
    "join-of-named": 0.74,
    "link-of-named": 0.72,
    "join-count": 0.72,
    "most-category": 0.72,
    "most-common-in": 0.72,
    "link-exists": 0.62,
    "ordered-measure": 0.66,
    "above-average": 0.7,
    "having": 0.69,
    "without": 0.7,
    "per-parent": 0.7,
    "count-without": 0.66,
    "join-lookup": 0.68,
    "link-lookup": 0.68,
    "join-exists": 0.66,
    "per-year": 0.65,
    "per-month": 0.6,
    "in-year": 0.6,
    "average-by": 0.6,
    "total-by": 0.6,
    "join-breakdown": 0.55,
    "lookup-by-code": 0.8,
    "join-parent-of-named": 0.45,
    "breakdown-key": 0.6,
    "breakdown-owners": 0.62,
    "join-average-by": 0.5,
    "join-total-by": 0.5,
    "flag": 0.8,
    "two-hop-breakdown": 0.4,
    "two-hop-lookup": 0.35,
}


def family(d: Draft) -> str:
    return d.origin.split(":", 1)[1] if ":" in d.origin else d.origin


def rank_key(d: Draft, weight: dict[str, float]) -> tuple[float, ...]:
    """Sort key (smaller first): workload drafts by frequency, then schema drafts by family prior and
    the weight of their tables."""
    if d.origin == "workload":
        return (0.0, -float(d.frequency))
    prior = FAMILY_PRIOR.get(family(d), 0.3)
    tables = max((weight.get(t, 0.0) for t in d.tables), default=0.0) if d.tables else 0.0
    return (1.0, -(prior + 0.1 * tables))


def wording_key(d: Draft | dict) -> tuple[str, ...] | None:
    """The words a matcher compares (values and placeholders left out): equal keys cannot be told
    apart by anyone reading the two questions. ``d`` is a draft or a set's template."""
    item = d.item if isinstance(d, Draft) else d
    par = item.get("parameterized") if isinstance(item.get("parameterized"), dict) else {}
    text = par.get("parameterized_intent") or item.get("nl_query") or item.get("intent")
    if not isinstance(text, str):
        return None
    if not text:
        return None
    slots = len(re.findall(r"\$\d+", text))
    words = [w for w in content_tokens(text) if not w.startswith("$")]
    return (*words, f"#{slots}")  # in order: "tracks with the most playlists" is not the converse


def same_wording(
    drafts: Sequence[Draft], already: Sequence[Draft] = (), existing: Sequence[dict] = ()
) -> None:
    """Drop each kept template whose wording equals a better-ranked kept one (``drafts`` in rank
    order); drafts ``already`` in the set being merged into count as kept."""
    there = {id(d) for d in already}
    seen: dict[tuple[str, ...], Draft | dict] = {}
    for item in existing:
        if isinstance(item, dict) and (key := wording_key(item)) is not None:
            seen.setdefault(key, item)
    for d in drafts:
        if (d.status != "kept" and id(d) not in there) or d.kind != "templates":
            continue
        key = wording_key(d)
        if key is None:
            continue
        first = seen.get(key)
        if first is None:
            seen[key] = d
        elif id(d) in there:
            continue
        elif isinstance(first, dict):  # the set has this question already: not a failure
            d.status, d.reason = "already", f'the set asks it already: "{first.get("nl_query")}"'
        else:
            d.drop(f'asks the same as "{first.text}" (one wording, one template)')


def sql_key(sql: str, dialect: str, literals: bool = False) -> str | None:
    """The SQL with what does not change its result written one way: table aliases resolved,
    column qualifiers dropped where one table is read, output aliases dropped, literals as ``?``.
    Two templates with one key answer the same, however differently they were written."""
    from sqlglot import exp

    from ctxtool.draft.workload import fingerprint_tree, parse

    tree = parse(sql, dialect)
    if tree is None:
        return None
    tree = tree.copy()
    for sel in tree.find_all(exp.Select):
        tables = [t for t in sel.find_all(exp.Table) if t.find_ancestor(exp.Select) is sel]
        names = {(t.alias_or_name or "").lower(): t.name for t in tables}
        single = len({t.name.lower() for t in tables}) == 1
        for col in sel.find_all(exp.Column):
            if col.find_ancestor(exp.Select) is not sel or not col.table:
                continue
            if single:
                col.set("table", None)
            elif col.table.lower() in names:
                col.set("table", exp.to_identifier(names[col.table.lower()].lower()))
        for t in tables:
            t.set("alias", None)
        sel.set(
            "expressions",
            [
                e.this if isinstance(e, exp.Alias) and not isinstance(e.this, exp.Star) else e
                for e in sel.expressions
            ],
        )
    if literals:
        return " ".join(tree.sql(dialect="postgres", normalize=True).split()).lower()
    return fingerprint_tree(tree, dialect)


def _reword(kept: Draft, better: Draft, dialect: str) -> None:
    """Give ``kept`` (a workload query) the question of a schema draft that runs the very same
    query, values included: the schema family says it as a question, the describer as a phrase."""
    from ctxtool.parameterize import parameterize_item

    item = {"nl_query": better.text, "sql": kept.item["sql"]}
    res = parameterize_item(item, "templates", dialect, None)
    if not res.problems:
        kept.item = dict(res)
        kept.redescribe = None


def same_sql(drafts: Sequence[Draft], dialect: str, existing: Sequence[dict] = ()) -> None:
    """Drop each kept template whose SQL answers the same as a better-ranked one's (``drafts`` in
    rank order): the matcher could only ask back which of the two was meant."""
    seen: set[str] = set()
    for item in existing:
        if (
            isinstance(item, dict)
            and isinstance(item.get("sql"), str)
            and (k := sql_key(item["sql"], dialect))
        ):
            seen.add(k)
    there = set(seen)
    first: dict[str, Draft] = {}
    for d in drafts:
        if d.status != "kept" or d.kind != "templates":
            continue
        key = sql_key(d.sql, dialect)
        if key is None:
            continue
        if key in there:
            d.status, d.reason = "already", "the set has this query already"
        elif key in seen:
            k = first[key]
            if (
                k.origin == "workload"
                and d.origin.startswith("schema:")
                and sql_key(k.sql, dialect, True) == sql_key(d.sql, dialect, True)
            ):
                _reword(k, d, dialect)
            d.drop("the same query as a better-ranked draft")
        else:
            seen.add(key)
            first[key] = d


def rank_drafts(drafts: list[Draft], table_weight: dict[str, float]) -> list[Draft]:
    """``drafts`` in rank order (a stable sort: drafting order breaks ties)."""
    return sorted(drafts, key=lambda d: rank_key(d, table_weight))


def cut(drafts: Sequence[Draft], limit: int | None, already: Sequence[Draft] = ()) -> int:
    """Leave out the kept drafts beyond ``limit`` (``drafts`` in rank order); drafts ``already`` in
    the set being merged into count toward it, so merging the same drafting again adds nothing.
    Returns how many were left out."""
    if limit is None or limit < 0:
        return 0
    there = {id(d) for d in already}
    n = len(there)
    left = 0
    for d in drafts:
        if id(d) in there:
            continue
        if d.status != "kept":
            continue
        n += 1
        if n > limit:
            d.status = "left out"
            d.reason = f"beyond --max {limit} (rank {n})"
            left += 1
    return left
