"""Facets are added only where they keep the question's meaning: never on the column the template
returns, never a second equality on a column already fixed or a value joined by "or" (a union is
not an AND), never inside a negated subquery (NOT IN would exclude what the question includes).
Drafted sets answered "Which industry ... Banking or Conglomerate?" with two ANDed equalities and
"names of climbers not from Switzerland" with the facet inside the NOT IN."""

from __future__ import annotations

import pytest

from ctxtool.runtime import Runtime
from ctxtool.runtime.templates import sqlparts
from tests.backends import _pg_create, _pg_drop, unique_name


@pytest.fixture(scope="module")
def peaks_dsn(_pg15_admin: str):
    import psycopg

    name = unique_name("ctx_facets")
    dsn = _pg_create(_pg15_admin, name)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE peak (peak_id int PRIMARY KEY, name text, height int, prominence int, range text);"
            "CREATE TABLE climber (climber_id int PRIMARY KEY, name text, country text, peak_id int);"
            "INSERT INTO peak VALUES (1, 'Alpha', 6000, 500, 'North'), (2, 'Beta', 4000, 1500, 'South'),"
            " (3, 'Gamma', 3000, 200, 'North'), (4, 'Delta', 6500, 2000, 'East');"
            "INSERT INTO climber VALUES (1, 'Ann', 'Switzerland', 1), (2, 'Bob', 'Austria', 2),"
            " (3, 'Cid', 'Switzerland', 4);"
        )
    try:
        yield dsn
    finally:
        _pg_drop(_pg15_admin, name)


def _tpl(intent: str, sql: str) -> dict:
    return {"nl_query": intent, "intent": intent, "sql": sql}


def _facet(intent: str, p_intent: str, sql: str, p_sql: str) -> dict:
    return {
        "intent": intent,
        "manifest": intent,
        "sql_snippet": sql,
        "parameterized": {"parameterized_intent": p_intent, "parameterized_sql_snippet": p_sql},
    }


def _search(column: str, concept: str) -> dict:
    table, col = column.split(".")
    return {
        "concept_type": concept,
        "description": f"{concept} values, exact",
        "query": (
            f"SELECT DISTINCT T.{col} AS value, '{column}' AS columns, '{concept}' AS concept_type, "
            f"0.0 AS distance, '{{}}'::text AS context FROM {table} T WHERE lower(T.{col}) = lower($value::text)"
        ),
    }


SET = {
    "templates": [
        _tpl("What are the names of all peaks?", "SELECT peak.name FROM peak"),
        _tpl("How many peaks are there?", "SELECT COUNT(*) AS n FROM peak"),
        _tpl("What are the ranges of all peaks?", "SELECT peak.range FROM peak"),
        _tpl(
            "Which peaks has no climber climbed?",
            "SELECT peak.name FROM peak WHERE peak.peak_id NOT IN "
            "(SELECT climber.peak_id FROM climber JOIN peak p2 ON p2.peak_id = climber.peak_id)",
        ),
    ],
    "facets": [
        _facet("peaks higher than 5000", "peaks higher than $1", "peak.height > 5000", "peak.height > $1"),
        _facet(
            "peaks with a prominence over 1000",
            "peaks with a prominence over $1",
            "peak.prominence > 1000",
            "peak.prominence > $1",
        ),
        _facet(
            "peaks in the North range", "peaks in the $1 range", "peak.range = 'North'", "peak.range = $1"
        ),
        _facet(
            "climbers from Switzerland",
            "climbers from $1",
            "climber.country = 'Switzerland'",
            "climber.country = $1",
        ),
    ],
    "value_searches": [_search("peak.range", "Range"), _search("climber.country", "Country")],
}


@pytest.fixture(scope="module")
def rt(peaks_dsn: str):
    with Runtime(SET, dsn=peaks_dsn, use_llm=False) as runtime:
        yield runtime


def test_facets_still_apply_where_they_are_safe(rt):
    ans = rt.ask("What are the names of peaks higher than 5000?")
    assert ans.status == "answered", ans.explanation
    assert sorted(r[0] for r in ans.rows) == ["Alpha", "Delta"]
    ans = rt.ask("How many peaks are in the North range?")
    assert ans.status == "answered", ans.explanation
    assert ans.rows == [[2]]


def test_or_between_two_values_is_not_an_and(rt):
    ans = rt.ask("What are the names of peaks higher than 5000 or with a prominence over 1000?")
    assert ans.status != "answered" or sorted(r[0] for r in ans.rows) == ["Alpha", "Beta", "Delta"], ans.sql
    ans = rt.ask("How many peaks are in the North range or the South range?")
    assert ans.status != "answered" or ans.rows == [[3]], ans.sql


def test_no_facet_on_the_column_the_template_returns(rt):
    ans = rt.ask("What are the ranges of peaks in the North range?", action="showsql")
    assert ans.status != "answered", ans.sql  # "North", once per peak, is no answer


def test_no_facet_inside_a_negated_subquery(rt):
    ans = rt.ask("Which peaks has no climber from Switzerland climbed?")
    assert ans.status != "answered" or sorted(r[0] for r in ans.rows) == ["Beta", "Gamma"], ans.sql
    with pytest.raises(sqlparts.InjectError, match="negation"):
        sqlparts.inject_conditions(
            "SELECT p.name FROM peak p WHERE NOT p.peak_id IN (SELECT c.peak_id FROM climber c)",
            "postgres",
            [],
            [("climber.country = $1", ["Switzerland"])],
        )


def test_an_order_asked_for_is_an_order_given(peaks_dsn):
    data = {
        "templates": [
            _tpl("What are the names and heights of all peaks?", "SELECT peak.name, peak.height FROM peak"),
            _tpl(
                "What are the names of peaks from the lowest to the highest?",
                "SELECT peak.name FROM peak ORDER BY peak.height",
            ),
        ]
    }
    with Runtime(data, dsn=peaks_dsn, use_llm=False) as runtime:
        ans = runtime.ask("What are the names and heights of all peaks, ordered by height?")
        assert ans.status != "answered", ans.sql  # the only unordered template: rows in no order
        _, cands = runtime.understand("What are the names and heights of all peaks, ordered by height?")
        unordered = next(c for c in cands if c.template.index == 0)
        assert "asks for an order" in "; ".join(unordered.reasons)
        ans = runtime.ask("What are the names of the peaks in descending order of height?")
        assert ans.status != "answered", ans.sql  # the ordered template sorts the other way
        ans = runtime.ask("What are the names and heights of all peaks?")
        assert ans.status == "answered" and len(ans.rows) == 4, ans.explanation


def _ptpl(intent: str, p_intent: str, sql: str, p_sql: str) -> dict:
    return {
        "nl_query": intent,
        "intent": intent,
        "sql": sql,
        "parameterized": {"parameterized_intent": p_intent, "parameterized_sql": p_sql},
    }


HIGHER_THAN = _ptpl(
    "What are the names of peaks higher than 5000?",
    "What are the names of peaks higher than $1?",
    "SELECT peak.name FROM peak WHERE peak.height > 5000",
    "SELECT peak.name FROM peak WHERE peak.height > $1",
)


def test_which_one_has_the_most_is_not_answered_by_a_value(peaks_dsn):
    data = {
        "templates": [
            _tpl("What is the greatest height of all peaks?", "SELECT MAX(peak.height) AS h FROM peak"),
            _tpl("What are the names of all peaks?", "SELECT peak.name FROM peak"),
        ]
    }
    with Runtime(data, dsn=peaks_dsn, use_llm=False) as runtime:
        ans = runtime.ask("What is the greatest height of all peaks?")
        assert ans.status == "answered" and ans.rows == [[6500]], ans.explanation
        question = "What is the name of the peak with the greatest height?"
        ans = runtime.ask(question, action="showsql")
        assert ans.status != "answered", ans.sql  # 6500 is no name
        _, cands = runtime.understand(question)
        value = next(c for c in cands if c.template.index == 0)
        assert "returns a value" in "; ".join(value.reasons)


def test_a_count_of_rows_or_a_range_end_is_no_slot_value(peaks_dsn):
    data = {
        "templates": [
            HIGHER_THAN,
            _ptpl(
                "How many peaks have a prominence of 500?",
                "How many peaks have a prominence of $1?",
                "SELECT COUNT(*) AS n FROM peak WHERE peak.prominence = 500",
                "SELECT COUNT(*) AS n FROM peak WHERE peak.prominence = $1",
            ),
        ]
    }
    with Runtime(data, dsn=peaks_dsn, use_llm=False) as runtime:
        ans = runtime.ask("What are the names of peaks higher than 4500?")
        assert ans.status == "answered" and sorted(r[0] for r in ans.rows) == ["Alpha", "Delta"]
        ans = runtime.ask("What are the names of the top 3 highest peaks?", action="showsql")
        assert ans.status != "answered", (ans.sql, ans.params)  # three rows, not a height above 3
        ans = runtime.ask("How many peaks have a prominence of 1500?")
        assert ans.status == "answered" and ans.rows == [[1]], ans.explanation
        ans = runtime.ask("How many peaks have a prominence of 1500 or more?", action="showsql")
        assert ans.status != "answered", (ans.sql, ans.params)  # a range, not = 1500


def test_a_comparison_slot_takes_a_number_compared_the_same_way(peaks_dsn):
    data = {"templates": [HIGHER_THAN]}
    with Runtime(data, dsn=peaks_dsn, use_llm=False) as runtime:
        ans = runtime.ask("What are the names of peaks higher than 4500?")
        assert ans.status == "answered" and sorted(r[0] for r in ans.rows) == ["Alpha", "Delta"]
        for question in (
            "What are the names of peaks with a height of 6000?",  # no comparison: = 6000
            "What are the names of peaks lower than 4500?",  # the other way
            "What are the names of peaks of 6000 or higher?",  # >= 6000, not > 6000
        ):
            ans = runtime.ask(question, action="showsql")
            assert ans.status != "answered", (question, ans.sql, ans.params)
            _, cands = runtime.understand(question)
            assert not cands, (question, [c.bindings for c in cands])  # the number fills no slot


def test_a_facet_on_a_returned_column_named_once_adds_an_unasked_column(peaks_dsn):
    data = {
        "templates": [
            _tpl("What are the names and heights of all peaks?", "SELECT peak.name, peak.height FROM peak")
        ],
        "facets": SET["facets"][:1],
    }
    with Runtime(data, dsn=peaks_dsn, use_llm=False) as runtime:
        question = "What are the names of peaks with a height above 5000?"
        _, cands = runtime.understand(question)
        listing = next(c for c in cands if c.facets)
        assert "facet_returned" in listing.factors  # "height" is said for the condition only
        _, cands = runtime.understand("What are the names and heights of peaks with a height above 5000?")
        assert all("facet_returned" not in c.factors for c in cands)


def test_bounds_no_row_meets_together_are_no_and(peaks_dsn):
    lower = _facet("peaks lower than 3500", "peaks lower than $1", "peak.height < 3500", "peak.height < $1")
    data = {"templates": SET["templates"][:1], "facets": [SET["facets"][0], lower]}
    with Runtime(data, dsn=peaks_dsn, use_llm=False) as runtime:
        _, cands = runtime.understand("What are the names of peaks higher than 3000 and lower than 5000?")
        both = [c for c in cands if len(c.facets) == 2]
        assert both and all("empty_range" not in c.factors for c in both)  # a range rows can be in
        question = "What are the names of peaks higher than 5000 and lower than 3500?"
        _, cands = runtime.understand(question)
        both = [c for c in cands if len(c.facets) == 2]
        assert both and all("empty_range" in c.factors for c in both)
        assert runtime.ask(question, action="showsql").status != "answered"


def test_a_count_asked_is_not_answered_by_the_one_it_ranks(peaks_dsn):
    data = {
        "templates": [
            _tpl(
                "Which range has the most peaks?",
                "SELECT peak.range FROM peak GROUP BY peak.range ORDER BY COUNT(*) DESC LIMIT 1",
            ),
            _tpl(
                "Show each range and the number of peaks in it.",
                "SELECT peak.range, COUNT(*) AS n FROM peak GROUP BY peak.range ORDER BY n DESC",
            ),
        ]
    }
    with Runtime(data, dsn=peaks_dsn, use_llm=False) as runtime:
        ans = runtime.ask("Which range has the most peaks?")
        assert ans.status == "answered" and ans.rows == [["North"]], ans.explanation
        for question in (
            "How many peaks are there in the range with the most peaks?",
            "Show the ranges, ordered by the number of peaks in each.",
        ):
            ans = runtime.ask(question, action="showsql")
            assert ans.status != "answered", ans.sql
