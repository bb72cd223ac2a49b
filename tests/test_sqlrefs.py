""":mod:`ctxtool.sqlrefs`: tables and columns referenced by SQL, with aliases, CTEs, USING, correlated
subqueries and placeholders handled, in each dialect."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtool import snapshot, sqlrefs
from tests.test_introspect import _snap, _tbl


@pytest.fixture(scope="module")
def cat():
    return snapshot.catalog(
        _snap(
            [
                _tbl("district", ("district_id", "integer"), ("A2", "text"), ("A3", "text")),
                _tbl("account", ("account_id", "integer"), ("district_id", "integer"), ("date", "date")),
                _tbl(
                    "loan",
                    ("loan_id", "integer"),
                    ("account_id", "integer"),
                    ("amount", "integer"),
                    ("status", "text"),
                ),
            ]
        )
    )


def test_aliases_resolve_to_tables():
    refs = sqlrefs.references(
        "SELECT a.account_id FROM account a JOIN district AS d ON d.district_id = a.district_id", "postgres"
    )
    assert refs.table_names() == {"account", "district"}
    assert refs.column_pairs() == {
        ("account", "account_id"),
        ("district", "district_id"),
        ("account", "district_id"),
    }
    assert refs.unresolved == []


def test_cte_columns_are_followed_not_taken_for_tables(cat):
    sql = (
        "WITH big AS (SELECT l.account_id, l.amount AS amt FROM loan l WHERE l.amount > 1000) "
        "SELECT b.account_id, b.amt, b.nope FROM big b"
    )
    refs = sqlrefs.references(sql, "postgres", cat)
    assert refs.table_names() == {"loan"}
    assert ("loan", "amount") in refs.column_pairs()
    assert [(u.column, u.reason) for u in refs.unresolved] == [("nope", "cte-column")]


def test_unqualified_columns_need_the_snapshot_when_several_tables(cat):
    sql = "SELECT amount FROM loan l JOIN account a ON a.account_id = l.account_id WHERE status = 'A' ORDER BY amount"
    without = sqlrefs.references(sql, "postgres")
    assert {u.column for u in without.unresolved} == {"amount", "status"}
    with_cat = sqlrefs.references(sql, "postgres", cat)
    assert {("loan", "amount"), ("loan", "status")} <= with_cat.column_pairs()
    assert with_cat.unresolved == []
    ambiguous = sqlrefs.references("SELECT account_id FROM loan, account", "postgres", cat)
    assert [(u.column, u.reason, u.candidates) for u in ambiguous.unresolved] == [
        ("account_id", "ambiguous", ("account", "loan"))
    ]


def test_correlated_subquery_and_output_aliases(cat):
    sql = (
        'SELECT d."A2", count(*) AS n FROM district d WHERE EXISTS '
        "(SELECT 1 FROM account WHERE account.district_id = d.district_id AND date > '1995-01-01') "
        'GROUP BY d."A2" ORDER BY n DESC'
    )
    refs = sqlrefs.references(sql, "postgres", cat)
    assert ("account", "date") in refs.column_pairs() and ("district", "district_id") in refs.column_pairs()
    assert refs.unresolved == []
    (cmp,) = refs.comparisons
    assert (cmp.column.table, cmp.column.column, cmp.op, cmp.literal, cmp.is_string) == (
        "account", "date", ">", "1995-01-01", True,
    )  # fmt: skip


def test_using_references_both_sides(cat):
    refs = sqlrefs.references("SELECT 1 FROM account JOIN district USING (district_id)", "postgres", cat)
    assert {("account", "district_id"), ("district", "district_id")} <= refs.column_pairs()


@pytest.mark.parametrize(
    "dialect,sql",
    [
        ("postgres", "SELECT account_id FROM loan WHERE amount > $1 AND status = $value"),
        ("mysql", "SELECT account_id FROM loan WHERE amount > ? AND status = $value"),
        ("spanner", "SELECT account_id FROM loan WHERE amount > ? AND status = $value"),
    ],
)
def test_placeholders_are_not_columns(dialect, sql, cat):
    refs = sqlrefs.references(sql, dialect, cat)
    assert refs.column_pairs() == {("loan", "account_id"), ("loan", "amount"), ("loan", "status")}
    assert refs.unresolved == []


def test_facet_snippet_and_value_search_literal():
    facet = sqlrefs.references("district.\"A3\" = 'Prague' AND account.date >= $1", "postgres")
    assert facet.column_pairs() == {("district", "A3"), ("account", "date")}
    bare = sqlrefs.references("amount > 5", "postgres")
    assert bare.unresolved and bare.unresolved[0].column == "amount"
    vs = sqlrefs.references(
        "SELECT $value AS value, 'district.A2' AS columns, 'District' AS concept_type, 0 AS distance, "
        "JSON_OBJECT() AS context FROM district T WHERE T.A2 = $value",
        "mysql",
    )
    assert vs.columns_literals == ["district.A2"] and vs.column_pairs() == {("district", "A2")}


def test_union_and_derived_table(cat):
    sql = 'SELECT x.s FROM (SELECT status AS s FROM loan) x UNION ALL SELECT d."A3" FROM district d'
    refs = sqlrefs.references(sql, "postgres", cat)
    assert refs.column_pairs() == {("loan", "status"), ("district", "A3")}
    assert refs.unresolved == []


@settings(max_examples=50, deadline=None)
@given(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_ ]{0,10}", fullmatch=True),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True),
)
def test_any_alias_resolves_to_its_table(alias, cte):
    if alias.lower() == cte.lower():
        return
    sql = (
        f"WITH \"{cte}\" AS (SELECT l.account_id FROM loan l WHERE l.status = 'A') "
        f'SELECT "{alias}".amount, "{cte}".account_id FROM loan AS "{alias}" '
        f'JOIN "{cte}" ON "{cte}".account_id = "{alias}".account_id'
    )
    refs = sqlrefs.references(sql, "postgres")
    assert refs.column_pairs() == {("loan", "amount"), ("loan", "account_id"), ("loan", "status")}
    assert refs.table_names() == {"loan"}
    assert refs.unresolved == []


def test_facet_with_a_correlated_subquery(cat):
    refs = sqlrefs.references(
        "account.date >= '1996-01-01' AND EXISTS (SELECT 1 FROM loan l WHERE l.account_id = account.account_id "
        "AND status = 'A')",
        "postgres",
        cat,
    )
    assert refs.column_pairs() == {
        ("account", "date"), ("account", "account_id"), ("loan", "account_id"), ("loan", "status"),
    }  # fmt: skip
    assert refs.table_names() == {"account", "loan"} and refs.unresolved == []
