"""How people word a question: lemmas that are not degrees, open ranges ("3 or more"), and ordinary
words that only resemble a stored value.

The database is our own (a small product catalogue) on the real PostgreSQL 15; its value searches
are drafted the way a user drafts them (``draft values --merge``).
"""

from __future__ import annotations

import json

import pytest

from ctxtool.english.content import content_tokens
from ctxtool.english.tokens import lemma
from ctxtool.runtime.checks.values import UNUSED_LOOKALIKE, UNUSED_VALUE, unused_weight
from ctxtool.runtime.question.linking import LinkedValue
from ctxtool.runtime.question.values import Entity
from tests.backends import _pg_create, _pg_drop, unique_name
from tests.checks_support import rank


def test_a_noun_spelled_like_a_comparative_is_the_noun():
    assert lemma("number") == ("number", None)
    assert lemma("higher") == ("high", "comparative")
    assert content_tokens("the number of colors") == ["__count", "color"]
    assert "__comparative" not in content_tokens("order them by the number than before")


def test_an_open_range_reads_as_at_least_or_at_most():
    assert set(content_tokens("districts with two or more addresses")) == set(
        content_tokens("districts with at least two addresses")
    )
    assert set(content_tokens("rooms for 4 or fewer guests")) == set(
        content_tokens("rooms for at most 4 guests")
    )


def _linked(text: str, start: int, distance: float) -> Entity:
    lv = LinkedValue(text, start, start + len(text), "x", "t.c", "c", distance, 0)
    return Entity("linked", text, start, start + len(text), "x", link=lv)


def test_how_much_an_unused_value_counts_against_a_reading():
    q = 'Count the items from "acme" with a serial number made in Lyon or more than that.'
    assert unused_weight(_linked("serial", q.index("serial"), 0.14), q) == UNUSED_LOOKALIKE
    assert unused_weight(_linked("serial", q.index("serial"), 0.0), q) == UNUSED_VALUE  # exact: a value
    # words of counting and comparing, alone or with their neighbour, are never values
    assert unused_weight(_linked("number", 4, 0.0), "the number of items") == 1.0
    assert unused_weight(_linked("more", 5, 0.0), "3 or more items") == 1.0
    assert unused_weight(_linked('"acme"', q.index('"acme"'), 0.2), q) == UNUSED_VALUE  # quoted
    assert unused_weight(_linked("Lyon", q.index("Lyon"), 0.1), q) == UNUSED_VALUE  # a name
    assert unused_weight(_linked("more than", q.index("more than"), 0.1), q) == 1.0  # comparison words
    assert UNUSED_VALUE < UNUSED_LOOKALIKE < 1.0


SET = {
    "templates": [
        {"nl_query": "How many colors are there?", "sql": "SELECT count(*) FROM colour"},
        {"nl_query": "List the names of all products.", "sql": "SELECT product_name FROM product"},
        {
            "nl_query": "Which products have the colour 'teal'?",
            "sql": "SELECT p.product_name FROM product p JOIN colour c ON c.colour_id = p.colour_id "
            "WHERE c.colour_name = 'teal'",
        },
    ]
}


@pytest.fixture(scope="module")
def catalogue(_pg15_admin, tmp_path_factory):
    import psycopg

    name = unique_name("ctx_word")
    dsn = _pg_create(_pg15_admin, name, extensions=("pg_trgm", "fuzzystrmatch"))
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(
                "CREATE TABLE colour (colour_id int PRIMARY KEY, colour_name text NOT NULL);"
                "CREATE TABLE attribute (attribute_id int PRIMARY KEY, data_type text NOT NULL);"
                "CREATE TABLE product (product_id int PRIMARY KEY, product_name text NOT NULL,"
                " colour_id int REFERENCES colour);"
                "INSERT INTO colour VALUES (1, 'teal'), (2, 'amber'), (3, 'crimson');"
                "INSERT INTO attribute VALUES (1, 'Numbers'), (2, 'Grade');"
                "INSERT INTO product VALUES (1, 'Lamp', 1), (2, 'Chair', 2), (3, 'Desk', 1);"
            )
        yield dsn
    finally:
        _pg_drop(_pg15_admin, name)


@pytest.fixture(scope="module")
def runtime(catalogue, tmp_path_factory):
    import os

    from ctxtool.connectors import connect
    from ctxtool.parameterize import parameterize_set
    from ctxtool.runtime import Runtime
    from ctxtool.values.workflow import draft_values

    os.environ.setdefault("CTXTOOL_HOME", str(tmp_path_factory.mktemp("home")))
    path = tmp_path_factory.mktemp("set") / "set.json"
    path.write_text(json.dumps(SET))
    draft_values(dsn=catalogue, merge_path=str(path))
    with connect(catalogue) as conn:
        snapshot = conn.introspect()
    data, _ = parameterize_set(json.loads(path.read_text()), "postgres", snapshot)
    assert data.get("value_searches"), "draft values found no columns to search"
    with Runtime(data, dsn=catalogue, use_llm=False) as rt:
        yield rt


def test_an_ordinary_word_resembling_a_value_does_not_block_the_answer(runtime):
    # "number" is close to the stored 'Numbers' (attribute.data_type); it is a word, not a condition
    # ("the number of" is a count: its words are not even looked up)
    ans = runtime.ask("Count the number of colors.", action="showsql")
    assert not any(lv["phrase"] == "number" for lv in ans.linked_values), ans.linked_values
    assert ans.status == "answered", ans.explanation
    assert ans.template.index == 0
    # a stored value written as such still must be used: 'crimson' is a condition no count template has
    declined = runtime.ask("How many colors are there named crimson?", action="showsql")
    assert declined.status != "answered" or declined.template.index != 0


def test_different_distinct_and_unique_say_the_same():
    assert set(content_tokens("How many different store locations are there?")) == set(
        content_tokens("Count the number of distinct store locations.")
    )
    assert "__distinct" in content_tokens("the unique ids of the teams")


def test_function_words_are_not_content():
    # "them", "by", "corresponding": how a question is built, not what it asks ("which" stays: "which
    # loan has the highest amount" asks for the loan, "what is the highest amount" for the value)
    assert content_tokens("Rooms that cost more than 100? Sort them by their price.") == content_tokens(
        "rooms cost more than 100? sort price."
    )
    assert "which" in content_tokens("Which loan has the highest amount?")
    assert content_tokens("the ids and the corresponding names") == content_tokens("the ids and the names")


def test_the_columns_a_template_returns_explain_the_words_that_ask_for_them():
    from ctxtool.runtime.matching.matcher import Matcher
    from ctxtool.runtime.templates.compile import compile_item

    items = [
        {"nl_query": "List all the stores in the mall.", "sql": "SELECT store_name FROM store"},
        {
            "nl_query": "List all the stores in the mall by size.",
            "sql": "SELECT size FROM store ORDER BY size",
        },
    ]
    templates = [compile_item("template", i, t, "postgres") for i, t in enumerate(items)]
    matcher = Matcher(templates, [])
    by_index = {
        c.template.index: c for c in rank(matcher, "What are the names of the stores in the mall?", [])
    }
    assert by_index[0].unexplained == []  # "names": the template returns store_name
    assert "nam" in by_index[1].unexplained  # a template returning sizes does not answer it
    assert by_index[0].lexical > by_index[1].lexical
