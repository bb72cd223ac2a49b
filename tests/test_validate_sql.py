"""The SQL layer's parsing per dialect, including the Spanner GoogleSQL extension of sqlglot."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp

from ctxtool.sqlglot_spanner import Spanner
from ctxtool.validate import sqlcache


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT a FROM airports@{FORCE_INDEX=airports_by_name} AS x WHERE x.iata = @iata",
        "@{USE_ADDITIONAL_PARALLELISM=TRUE} SELECT name FROM airports",
        "SELECT a.name FROM airports AS a JOIN@{JOIN_METHOD=HASH_JOIN} flights AS f ON f.origin_airport_id = a.airport_id",
        "SELECT CAST(x AS TOKENLIST) FROM t",
        "SELECT JSON '{}' AS context, SAFE_CAST(altitude AS INT64) FROM airports",
        "SELECT name FROM airports WHERE SEARCH_NGRAMS(name_tokens, 'heathrow') ORDER BY SCORE_NGRAMS(name_tokens, 'heathrow') DESC",
        "SELECT name FROM airports WHERE iata = ? AND country = ?",
    ],
)
def test_spanner_parses_googlesql(sql):
    tree = sqlglot.parse_one(sql, read=Spanner)
    assert isinstance(tree, exp.Select)


def test_spanner_hints_do_not_change_the_tree():
    with_hint = sqlglot.parse_one("SELECT a FROM t@{FORCE_INDEX=i} WHERE b = 1", read=Spanner)
    plain = sqlglot.parse_one("SELECT a FROM t WHERE b = 1", read=Spanner)
    assert with_hint == plain
    assert with_hint.sql(Spanner) == "SELECT a FROM t WHERE b = 1"


def test_spanner_tokenlist_round_trips():
    assert (
        sqlglot.parse_one("SELECT CAST(x AS TOKENLIST)", read=Spanner).sql(Spanner)
        == "SELECT CAST(x AS TOKENLIST)"
    )


def test_spanner_unbalanced_hint_is_a_parse_error_not_a_crash():
    parsed = sqlcache.parse("SELECT a FROM t@{FORCE_INDEX=i WHERE", "spanner")
    assert not parsed.ok


@pytest.mark.parametrize(
    ("dialect", "sql"),
    [
        ("mysql", "SELECT name FROM airports WHERE MATCH(name) AGAINST($value IN NATURAL LANGUAGE MODE)"),
        ("spanner", "SELECT name FROM airports WHERE SEARCH_NGRAMS(TOKENIZE_NGRAMS(name), $value)"),
        ("postgres", "SELECT name FROM airports WHERE name % $value::text"),
    ],
)
def test_value_placeholder_parses_in_every_dialect(dialect, sql):
    parsed = sqlcache.parse(sql, dialect)
    assert parsed.ok, parsed.error
    params = list(parsed.single.find_all(exp.Parameter, exp.Placeholder))
    assert params, "the $value placeholder should be a parameter in the tree"


def test_parse_is_cached_by_string():
    sqlcache.clear()
    a = sqlcache.parse("SELECT 1 AS x", "postgres")
    b = sqlcache.parse("SELECT 1 AS x", "postgres")
    c = sqlcache.parse("SELECT 1 AS x", "mysql")
    assert a is b and a is not c


def test_parse_error_names_sql_line_and_column():
    parsed = sqlcache.parse("SELECT a FROM t WHERE (b = 1", "postgres")
    assert not parsed.ok and "SQL line 1" in parsed.error


@pytest.mark.parametrize(
    "sql", ["SELECT 1 WHERE c IN ($1,$2)", "SELECT $1+$2", "SELECT f($1,$2)", "SELECT $value,$value"]
)
def test_postgres_parameters_after_punctuation_parse(sql):
    parsed = sqlcache.parse(sql, "postgres")
    assert parsed.ok, parsed.error
    assert len(list(parsed.single.find_all(exp.Parameter))) == 2
