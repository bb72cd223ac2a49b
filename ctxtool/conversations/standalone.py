"""Whether a question stands on its own after a previous answer, and so is never a follow-up.

A follow-up rewrites the previous query; it can change which rows are read, how they are grouped
or ordered, but not what is computed about which entity. A question that says what it computes (a
count, an average, "the most") stands alone when:

- none of the tables it names is one the previous query reads ("which region has the most
  payments?" after "What is the average invoice total?");
- it asks for a measure the previous query does not compute ("what is the average total by
  status?" after "How many invoices are there?"); a top, sort or "which has the most" follow-up
  brings its own order, so an extreme asked that way is not a clash;
- it picks from or counts the previous result while that result is one row (an ``ORDER BY`` over
  the single value of "What is the average invoice total?" answers nothing).

A question that states no measure ("Lisbon?", "by region", "sort by name") is elliptical and left to
the follow-up rules. Everything comes from the question's canonical tokens
(:mod:`ctxtool.english.content`) and the set's table words: no vocabulary of any database.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlglot import exp

from ctxtool.errors import CtxtoolError
from ctxtool.runtime.templates import sqlparts

# canonical measure token -> what the query computes
MEASURE_TOKENS = {
    "__count": "count",
    "__avg": "avg",
    "__sum": "sum",
    "__max": "extreme",
    "__min": "extreme",
    "__superlative": "extreme",
}
_AGGREGATES = {exp.Count: "count", exp.Avg: "avg", exp.Sum: "sum", exp.Max: "extreme", exp.Min: "extreme"}
# follow-up kinds that bring their own order: an extreme they state is theirs, not the question's
_ORDERING_KINDS = frozenset({"topn", "sort", "result", "rank"})


def computes(sql: str, dialect: str) -> tuple[set[str], bool]:
    """What the outermost SELECT of ``sql`` computes (``count``, ``avg``, ``sum``, ``extreme``) and
    whether it returns one row (aggregates without a GROUP BY, or ``LIMIT 1``)."""
    text, _ = sqlparts.to_sentinels(sql, dialect, "s")
    tree = sqlparts.parse(text, dialect)
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    if select is None:
        return set(), False
    found: set[str] = set()
    for proj in select.expressions:
        for cls, name in _AGGREGATES.items():
            if proj.find(cls) is not None:
                found.add(name)
    limit = select.args.get("limit")
    if select.args.get("order") is not None and limit is not None:
        found.add("extreme")
    one_limit = isinstance(limit, exp.Limit) and limit.expression.sql() == "1"
    aggregated = bool(select.expressions) and all(
        (p.this if isinstance(p, exp.Alias) else p).find(exp.AggFunc) is not None for p in select.expressions
    )
    return found, one_limit or (aggregated and select.args.get("group") is None)


def stands_alone(
    question_tokens: Sequence[str],
    previous_sql: str,
    dialect: str,
    table_words: Mapping[str, set[str]],
    kinds: Sequence[str] = (),
) -> str | None:
    """Why the question stands on its own after ``previous_sql`` (None: it may be a follow-up).

    ``question_tokens`` are the question's canonical tokens, ``table_words`` the set's words per
    table, ``kinds`` what the follow-up rules read in the question (:class:`.intent.Intent`)."""
    tokens = set(question_tokens)
    measures = {MEASURE_TOKENS[t] for t in tokens if t in MEASURE_TOKENS}
    named = {t for t, words in table_words.items() if words & tokens}
    if not measures:
        return None
    try:
        read = sqlparts.tables_of(previous_sql, dialect)
        previous, one_row = computes(previous_sql, dialect)
    except CtxtoolError:  # an unparsable previous query: no opinion
        return None
    if named and not named & read:
        return f"it names {', '.join(sorted(named))}, which the previous query does not read"
    if "result" in kinds:
        return "the previous result is one row: there is nothing to pick from" if one_row else None
    if set(kinds) & _ORDERING_KINDS:
        measures.discard("extreme")
    missing = measures - previous
    if missing:
        return f"it asks for {' and '.join(sorted(missing))}, which the previous query does not compute"
    return None
