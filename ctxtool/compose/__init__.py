"""Composing a template's query with what the question adds, on the sqlglot AST in the set's dialect:
conditions on columns reached through the schema's foreign keys, time ranges as half-open ranges of
bound parameters, groupings, order and limit, and the measure. Never a string edit.

    from ctxtool.compose import ColumnRef, Condition, SchemaGraph, TimeRange, compose
    graph = SchemaGraph.from_snapshot(snapshot)
    done = compose("SELECT COUNT(*) FROM invoice", [], "postgres", graph,
                   [TimeRange(ColumnRef("invoice", "invoice_date"), date(2007, 3, 1), date(2007, 4, 1))])
    done.sql, done.params, done.explanation

Conversation follow-ups (issue 30) use the same edits on the previous answer's query.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ctxtool.compose.conditions import add_condition, add_time_range
from ctxtool.compose.query import Query
from ctxtool.compose.retime import retime, template_time
from ctxtool.compose.schema import SchemaGraph, Step
from ctxtool.compose.shape import measure_of, replace_measure, set_grouping, set_limit, set_order
from ctxtool.compose.types import (
    ColumnRef,
    ComposeError,
    Composition,
    Condition,
    Edit,
    Grouping,
    Limit,
    LinkedValue,
    Measure,
    OrderLimit,
    Retime,
    TimeRange,
)

__all__ = [
    "ColumnRef",
    "ComposeError",
    "Composition",
    "Condition",
    "Edit",
    "Grouping",
    "Limit",
    "LinkedValue",
    "Measure",
    "OrderLimit",
    "Query",
    "Retime",
    "SchemaGraph",
    "Step",
    "TimeRange",
    "add_condition",
    "add_time_range",
    "compose",
    "measure_of",
    "replace_measure",
    "set_grouping",
    "set_limit",
    "retime",
    "set_order",
    "template_time",
]


# each edit's function, and the order edits are made in: the measure and the grouping first (an
# order then names the final measure), conditions next, the order and limit last
EDITS: dict[type, tuple[int, Callable[[Query, Any], None]]] = {
    Retime: (0, retime),
    Measure: (0, replace_measure),
    Grouping: (1, set_grouping),
    Condition: (2, add_condition),
    TimeRange: (2, add_time_range),
    OrderLimit: (3, set_order),
    Limit: (3, set_limit),
}


def apply(q: Query, edit: Edit) -> None:
    """Make one edit on the query."""
    EDITS[type(edit)][1](q, edit)


def compose(
    sql: str,
    params: Sequence[Any],
    dialect: str,
    schema: SchemaGraph,
    edits: Sequence[Edit],
    *,
    template: str | None = None,
) -> Composition:
    """``sql`` (with ``params`` bound to its placeholders) with every edit made, in order (measure
    and grouping edits first, so that an order names the final measure). Raises
    :class:`ComposeError` when an edit cannot be made."""
    q = Query(sql, params, dialect, schema)
    for edit in sorted(edits, key=lambda e: EDITS[type(e)][0]):
        apply(q, edit)
    out, bound = q.render()
    explanation = ([f"template: {template}"] if template else []) + q.explanation
    return Composition(out, bound, q.dialect, template, list(edits), explanation)
