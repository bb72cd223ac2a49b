"""The composition's plan: a question's mentions against a template's shape -> the edits that make the
template answer it, or the mentions it cannot use and why (fixture cases in
tests/data/compose/plans.json: question, the template's SQL and its own question, the composed SQL
and parameters, the reasons for what is left unused)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from ctxtool.compose import ColumnRef, LinkedValue, compose
from ctxtool.compose.plan import TemplateShape, plan
from ctxtool.mentions import read_mentions
from tests.compose_support import SCHEMAS

CASES = json.loads((Path(__file__).parent / "data" / "compose" / "plans.json").read_text())


def _linked(question: str, spec: dict) -> LinkedValue:
    """A value the runtime's linking would give: ``{"words": ..., "column": "t.c", "value": ...}``."""
    start = question.index(spec["words"])
    table, _, column = spec["column"].rpartition(".")
    return LinkedValue(
        spec["words"], (start, start + len(spec["words"])), ColumnRef(table, column), spec["value"]
    )


@pytest.mark.parametrize("case", CASES, ids=[c["q"] for c in CASES])
def test_plan(case: dict) -> None:
    schema = SCHEMAS[case.get("schema", "store")]
    latest = date.fromisoformat(case["latest"]) if "latest" in case else None
    shape = TemplateShape.read(case["sql"], case.get("params", []), "postgres", schema)
    own = read_mentions(case["template_q"]) if "template_q" in case else None
    values = [_linked(case["q"], v) for v in case.get("values", [])]
    done = plan(read_mentions(case["q"], latest=latest), shape, schema, template_mentions=own, values=values)
    assert [why for _m, why in done.unused] == case.get("unused", [])
    assert done.mismatch == case.get("mismatch", [])
    composed = compose(case["sql"], case.get("params", []), "postgres", schema, done.edits)
    assert composed.sql == case["expect"]
    assert [str(p) for p in composed.params] == case["bound"]


def test_a_template_for_april_never_answers_march_with_april() -> None:
    schema = SCHEMAS["store"]
    sql = "SELECT SUM(total) FROM orders WHERE EXTRACT(YEAR FROM ordered_at) = 2007 AND EXTRACT(MONTH FROM ordered_at) = 4"
    shape = TemplateShape.read(sql, [], "postgres", schema)
    assert shape.time is not None and shape.time[1] == date(2007, 4, 1)
    done = plan(read_mentions("What was the total in March 2007?"), shape, schema)
    composed = compose(sql, [], "postgres", schema, done.edits)
    assert [p.month for p in composed.params] == [3, 4] and "EXTRACT" not in composed.sql


def test_a_decline_names_the_unused_words_the_closest_template_and_the_fix() -> None:
    schema = SCHEMAS["store"]
    shape = TemplateShape.read("SELECT COUNT(*) FROM customer", [], "postgres", schema)
    done = plan(read_mentions("How many customers joined in March?"), shape, schema)
    assert not done.complete
    assert done.decline("How many customers are there?") == (
        "Not used: 'March' names a month of no year; say the year. The closest template: "
        "'How many customers are there?'. Add a template whose time is a parameter on its date column."
    )
