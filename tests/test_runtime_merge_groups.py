"""Four rules of the runtime, on our own small fixtures (no database, no model): the groups a
question asks for (pergroup.py), 'in the order of' (words.py), what 'the number of X' measures
(compiled.py column_heads, grounding.py) and the head noun a count is of (answershape.py)."""

from __future__ import annotations

import pytest

from ctxtool.english.content import content_tokens
from ctxtool.english.reading import counted_head, counted_measures
from ctxtool.runtime.checks.grouping import grouped_otherwise, groups_asked
from ctxtool.runtime.templates.compile import compile_item, facts_of


def _words(text: str) -> frozenset[str]:
    return frozenset(content_tokens(text))


def _template(sql: str):
    return compile_item("template", 0, {"nl_query": "q0", "sql": sql}, "postgres")


# 1. pergroup.py: "for each X" naming a column is not answered by groups of another thing

BY_WIDGET = (
    "SELECT widgets.widget_id, widgets.widget_name, count(*) FROM widgets "
    "JOIN parts ON parts.widget_id = widgets.widget_id "
    "GROUP BY widgets.widget_id, widgets.widget_name"
)
BY_SHOP = (
    "SELECT shops.shop_id, count(*) FROM shops JOIN parts ON parts.shop_id = shops.shop_id "
    "GROUP BY shops.shop_id"
)
NAMED = {_words("shop id"), _words("widget id")}


def test_group_key_words_are_the_group_columns_and_their_tables():
    assert facts_of(BY_WIDGET).group_key_words == _words("widget id name")
    # an unqualified column of a one-table query takes that table's words
    assert facts_of("SELECT size, count(*) FROM widgets GROUP BY size").group_key_words == _words(
        "widget size"
    )
    assert facts_of("SELECT widget_name FROM widgets").group_key_words == frozenset()


def test_each_shop_id_is_not_answered_by_groups_of_widgets():
    assert grouped_otherwise("How many parts belong to each shop id?", facts_of(BY_WIDGET), NAMED)


def test_each_widget_is_answered_by_groups_of_widgets():
    assert not grouped_otherwise("How many parts belong to each widget?", facts_of(BY_WIDGET), NAMED)
    assert not grouped_otherwise("How many parts belong to each widget id?", facts_of(BY_WIDGET), NAMED)


def test_the_head_noun_a_few_words_later_is_the_group_key():
    # "each size 3 shop" groups by the shop, though "size" names a column
    named = {_words("size"), _words("shop id")}
    assert not grouped_otherwise("How many parts are in each size 3 shop?", facts_of(BY_SHOP), named)


def test_each_widget_of_a_widget_parts_table_asks_for_groups():
    table_words = set(_words("widget parts"))
    # the head noun of widget_parts is part: its rows are not one per widget
    assert groups_asked("Show the part names for each widget.", {"widget_parts"}, table_words)
    assert not groups_asked("Show the names for each part.", {"widget_parts"}, table_words)


# 2. words.py: "in the order of" asks for an order


def test_in_the_order_of_asks_for_an_order():
    tokens = content_tokens("List the names in the order of their size.")
    assert "__order" in tokens
    assert "__order" in content_tokens("List the names in order of their size.")


# 3. compiled.py / grounding.py: "the number of X" is a measure only when X is what a column holds


def test_column_heads_are_the_last_word_of_each_column():
    assert _template("SELECT shop_status_code FROM shops").column_heads == _words("code")
    assert _template("SELECT total_hours FROM members").column_heads == _words("hours")


def test_the_number_of_shops_is_no_measure_of_a_shop_status_code():
    tpl = _template("SELECT shop_status_code FROM shops")
    assert not counted_measures("What is the number of shops?", tpl.column_heads)
    # the column's other words name whose code it is, not what it holds
    assert counted_measures("What is the number of shops?", tpl.column_words)


def test_the_number_of_hours_is_a_measure_of_total_hours():
    tpl = _template("SELECT avg(total_hours) FROM members")
    assert counted_measures("What is the number of hours on average?", tpl.column_heads)


# 4. answershape.py: the head noun of a count ends at its first verb or preposition


@pytest.mark.parametrize(
    ("question", "head"),
    [
        ("How many different widget parts are there?", "part"),
        ("How many widgets have parts?", "widget"),
        ("How many project members were added last year?", "member"),
        ("How many diffrent widget parts are there?", "part"),
        ("Find the number of widgets without any parts.", "widget"),
        ("How many widgets with parts are there?", "widget"),
    ],
)
def test_counted_head_is_the_noun_before_a_verb_or_preposition(question, head):
    assert counted_head(question) == content_tokens(head)[0]


def test_the_name_a_select_gives_a_group_column_says_what_it_groups():
    sql = 'SELECT w."Z9" AS size, count(*) FROM widget w GROUP BY w."Z9"'
    size = frozenset(content_tokens("size"))
    assert size <= facts_of(sql).group_key_words
    assert not grouped_otherwise("How many widgets are there per size?", facts_of(sql), {size})
