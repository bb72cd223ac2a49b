""" "for each X" asks for groups, unless the template's rows already are one per X or "every" is a
quantifier ("older than every member")."""

from __future__ import annotations

import pytest

from ctxtool.runtime.checks.grouping import groups_asked
from tests.checks_support import rank
from tests.rt_support import offline_runtime

SHOP = ({"shop"}, {"shop"})


def test_each_of_the_one_table_read_is_no_grouping():
    assert not groups_asked("What is the total stock for each shop?", *SHOP)
    assert not groups_asked("What is the average rating of every shop?", *SHOP)
    assert groups_asked("What is the total stock for each city?", *SHOP)
    assert groups_asked("What is the average rating per year?", *SHOP)
    # a template reading several tables: "each shop" may be one of several rows per shop
    assert groups_asked("What is the total stock for each shop?", {"shop", "item"}, {"shop", "item"})


def test_every_after_than_is_a_quantifier():
    assert not groups_asked("How many shops are older than every warehouse?", *SHOP)
    assert groups_asked("How many shops are older than every warehouse, for each city?", *SHOP)


SET = {
    "templates": [
        {
            "nl_query": "What is the highest and lowest stock of the shops?",
            "sql": "SELECT max(stock), min(stock) FROM shop",
        },
        {
            "nl_query": "What is the highest stock in each city?",
            "sql": "SELECT city, max(stock) FROM shop GROUP BY city",
        },
    ]
}


@pytest.fixture(scope="module")
def rt():
    return offline_runtime(SET)


def test_an_aggregate_over_every_row_of_the_table_needs_no_group(rt):
    cands = rank(rt.matcher, "What is the highest and lowest stock for every shop?", [])
    first = next(c for c in cands if c.template.index == 0)
    assert "grouping" not in first.factors
    cands = rank(rt.matcher, "What is the highest and lowest stock for every city?", [])
    first = next(c for c in cands if c.template.index == 0)
    assert "grouping" in first.factors


def test_a_bare_listing_keeps_the_check(rt):
    # "the stock count of each shop": a listing computes no count per row, whatever "each" names
    listing = {
        "templates": [
            {"nl_query": "What are the names and cities of the shops?", "sql": "SELECT name, city FROM shop"}
        ]
    }
    bare = offline_runtime(listing)
    cands = rank(bare.matcher, "What is the name and the total stock of each shop?", [])
    assert cands and "grouping" in cands[0].factors
