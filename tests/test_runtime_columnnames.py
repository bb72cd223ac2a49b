"""A question word names a column of the set only as a thing: a verb ("gadgets made", "mechanics
who work") or a participle of a column's name (``years_worked``) shares a word with a column whose
other words the question does not say, and names none."""

from __future__ import annotations

import pytest

from ctxtool.english.content import content_tokens
from ctxtool.runtime.checks.schema import COLUMN_NOT_READ as COLUMN_ONE
from ctxtool.runtime.templates.vocabulary import ColumnNames
from tests.checks_support import rank
from tests.rt_support import offline_runtime

SET = {
    "templates": [
        {"nl_query": "How many gadgets are there?", "sql": "SELECT count(*) FROM gadget"},
        {
            "nl_query": "When was the gadget with id 3 made?",
            "sql": "SELECT date_made FROM gadget_order WHERE gadget_id = 3",
        },
        {"nl_query": "How many mechanics are there?", "sql": "SELECT count(*) FROM mechanic"},
        {
            "nl_query": "What are the years worked of each mechanic?",
            "sql": "SELECT name, years_worked FROM mechanic",
        },
        {"nl_query": "List the details of every vendor.", "sql": "SELECT vendor_details FROM vendor"},
    ]
}


def _passing(names: ColumnNames, question: str, word: str) -> set[str]:
    return names.only_in_passing(question, set(content_tokens(word)), set(content_tokens(question)))


def test_a_verb_or_a_participle_of_a_compound_column_names_no_column():
    names = ColumnNames(["date_made", "years_worked", "vendor_details", "name"])
    assert _passing(names, "Count the gadgets made.", "made") == set(content_tokens("made"))
    assert _passing(names, "Which mechanics work on Mondays?", "work") == set(content_tokens("work"))
    # with another word of the column's name, the question names it
    assert _passing(names, "Show the date made of each order.", "made") == set()
    assert _passing(names, "How many years worked in total?", "worked") == set()
    # a noun of a compound column is a thing asked for ("the details of ...")
    assert _passing(names, "What are the details of the gadgets?", "details") == set()
    # a word that is a column's whole name is that column, whatever its part of speech
    assert _passing(names, "Which gadget was named Zed?", "named") == set()


@pytest.fixture(scope="module")
def rt():
    return offline_runtime(SET)


def test_a_count_of_things_made_is_not_held_against_a_template_that_reads_no_date(rt):
    best = rank(rt.matcher, "Count the number of gadgets made.", [])[0]
    assert best.template.index == 0 and "columns" not in best.factors
    best = rank(rt.matcher, "How many mechanics work here?", [])[0]
    assert best.template.index == 2 and "columns" not in best.factors
    # "the date made" names the column the count does not read
    cands = rank(rt.matcher, "What is the number of gadgets by date made?", [])
    assert "columns" in next(c for c in cands if c.template.index == 0).factors


NAMED = {
    "templates": [
        {
            "nl_query": "What is the phone and join date of the clerk Ann?",
            "sql": "SELECT phone, join_date FROM crew WHERE first_name = 'Ann'",
        },
        {"nl_query": "List the titles of the reels.", "sql": "SELECT T1.title FROM reels AS T1"},
        {
            "nl_query": "What is the price of the gadget Zed?",
            "sql": "SELECT price FROM gadget WHERE name = 'Zed'",
        },
        {
            "nl_query": "Which reels cost less than the cheapest gadget?",
            "sql": "SELECT title FROM reels WHERE price < (SELECT min_price FROM shelf)",
        },
        {
            "nl_query": "Who made the gadget with the highest price?",
            "sql": "SELECT maker FROM gadget ORDER BY price DESC LIMIT 1",
        },
    ]
}


@pytest.fixture(scope="module")
def named():
    return offline_runtime(NAMED)


def _factors(rt, question: str, index: int, value: tuple[str, str] | None = None) -> dict:
    from ctxtool.english.literals import find_literals
    from ctxtool.runtime.question.linking import LinkedValue
    from ctxtool.runtime.question.values import entities_of

    lits = find_literals(question)
    links = []
    if value is not None:  # the value search found it on this column
        at = question.index(value[0])
        links = [LinkedValue(value[0], at, at + len(value[0]), value[0], value[1], "", 0.0, 0)]
    ents = entities_of(lits, links)
    return next(c for c in rank(rt.matcher, question, ents) if c.template.index == index).factors


def test_a_verb_before_a_value_of_its_own_column_says_the_kind_of_value(named):
    # "named Ann" of a first name slot is no name column left unread
    value = ("Ann", "crew.first_name")
    assert "columns" not in _factors(
        named, "What is the phone and join date of the clerk named Ann?", 0, value
    )
    # the verb says the value's column: not a word of another column
    assert "columns" in _factors(named, "What is the phone of the clerk titled Ann?", 0, value)


def test_the_name_of_a_thing_is_the_column_the_template_returns_of_its_table(named):
    assert "columns" not in _factors(named, "What are the names of the reels?", 1)
    # not when the thing has a name column of its own: its maker is not its name
    assert "columns" in _factors(named, "Give the name of the gadget with the highest price.", 4)


def test_a_columns_operator_word_is_weighed_as_an_operator_not_as_a_column(named):
    factors = _factors(named, "List the titles of the reels with the min price.", 1)
    assert factors.get("columns", 1.0) >= COLUMN_ONE  # "price" may count, "min" never
