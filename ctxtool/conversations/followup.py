"""Follow-up questions without a model: rewrite the previous query through the schema, templates,
facets and linked values.

A follow-up is classified by what it asks of the previous query:

- ``breakdown``: "break out count of customers by region", "and per gender?" -> group by a column
  (joined through foreign keys when its table is not in the query yet);
- ``filter``: "what about Brno?", "only gold cards" -> a linked value (or facet) replaces the
  previous value on the same column, or is added as a new condition;
- ``topn``: "keep the top 5 and include a rank" -> order by the measure, limit, optional ``RANK()``;
- ``sort``: "sort by city name", "lowest first" -> change the ORDER BY;
- ``result``: "how many are there?", "which of these has the most?", "what is the total of those?"
  -> a query over the previous result.

Values never enter the SQL text: placeholders of the previous query are kept (as sentinels while
the tree is rewritten) and new values become new parameters.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlglot import exp

from ctxtool.conversations.fschema import FollowupError, Schema
from ctxtool.conversations.intent import Intent, classify
from ctxtool.conversations.rewrite.base import LinkedFilter, QueryRewriter, Rewrite, _col
from ctxtool.conversations.rewrite.breakdown import breakdown
from ctxtool.conversations.rewrite.filter import add_condition, filter_value
from ctxtool.conversations.rewrite.result import over_result
from ctxtool.conversations.rewrite.sort import sort
from ctxtool.conversations.rewrite.topn import add_rank, top

__all__ = ["FollowupError", "LinkedFilter", "QueryRewriter", "Rewrite", "rewrite"]


def rewrite(
    question: str,
    previous_sql: str,
    previous_params: Sequence[Any],
    dialect: str,
    schema: Schema,
    *,
    link: Callable[[str], Sequence[LinkedFilter]] | None = None,
    facets: Callable[[str], Sequence[tuple[str, Sequence[Any], str]]] | None = None,
    intent: Intent | None = None,
) -> Rewrite:
    """Apply a follow-up to the previous query. Raises :class:`FollowupError` when it cannot."""
    intent = intent or classify(question)
    if not intent.kinds:
        raise FollowupError("not a follow-up")
    rw = QueryRewriter(previous_sql, previous_params, dialect, schema)
    if "result" in intent.kinds:
        over_result(rw, intent.result_op or "max")
        sql, params = rw.result()
        return Rewrite(sql, params, intent.kinds, rw.explanation)
    if intent.restrict and rw.aggregated():
        raise FollowupError("the previous answer is one aggregate, not rows to narrow ('which of those')")
    if "filter" in intent.kinds:
        applied = False
        text = intent.filter_text or question
        for f in link(text) if link else ():
            filter_value(rw, f, add=intent.add_filter)
            applied = True
        for snippet, params, _why in facets(text) if facets and not applied else ():
            add_condition(rw, snippet, params)
            applied = True
        if not applied and len(intent.kinds) == 1:
            raise FollowupError(f"found no value or condition in {text!r} to filter on")
    if "breakdown" in intent.kinds and intent.dimension:
        dim = schema.find_dimension(intent.dimension, list(rw.tables()))
        if dim is None:
            if "topn" not in intent.kinds:
                raise FollowupError(f"cannot tell which column {intent.dimension!r} is")
        else:
            breakdown(rw, dim, keep_existing=intent.add_dimension)
    if "topn" in intent.kinds and intent.top_n:
        if intent.topn_dimension:
            dim = schema.find_dimension(intent.topn_dimension, list(rw.tables()))
            grouped = {
                g.sql().lower() for g in (rw.tree.args.get("group") or exp.Group(expressions=[])).expressions
            }
            if dim is not None and rw.measure() is not None and rw.tree.args.get("group") is not None:
                alias = rw.tables().get(dim.table.lower())
                col = _col(dim.column, alias).sql().lower() if alias else None
                if col not in grouped:
                    breakdown(rw, dim)  # "top 5 districts" after a breakdown by region: regroup
        top(rw, intent.top_n, intent.ascending, intent.rank)
    elif intent.rank:
        add_rank(rw)
    if "sort" in intent.kinds:
        sort(rw, intent.sort_key, intent.sort_dir)
    sql, params = rw.result()
    return Rewrite(sql, params, intent.kinds, rw.explanation)
