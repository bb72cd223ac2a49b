"""A question word names a column of the set only as a thing: a verb ("gadgets made", "mechanics
who work") or a participle of a column's name (``years_worked``) shares a word with a column whose
other words the question does not say, and names none."""

from __future__ import annotations

import pytest

from ctxtool.parameterize import parameterize_set
from ctxtool.runtime import Runtime
from ctxtool.runtime.columnnames import ColumnNames
from ctxtool.runtime.content import content_tokens

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
        {"nl_query": "List the details of every customer.", "sql": "SELECT customer_details FROM customer"},
    ]
}


def _passing(names: ColumnNames, question: str, word: str) -> set[str]:
    return names.only_in_passing(question, set(content_tokens(word)), set(content_tokens(question)))


def test_a_verb_or_a_participle_of_a_compound_column_names_no_column():
    names = ColumnNames(["date_made", "years_worked", "customer_details", "name"])
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
    data, _ = parameterize_set(SET, "postgres", None)
    return Runtime(data, dialect="postgres", use_llm=False, matcher="lexical")


def test_a_count_of_things_made_is_not_held_against_a_template_that_reads_no_date(rt):
    best = rt.matcher.rank("Count the number of gadgets made.", [])[0]
    assert best.template.index == 0 and "columns" not in best.factors
    best = rt.matcher.rank("How many mechanics work here?", [])[0]
    assert best.template.index == 2 and "columns" not in best.factors
    # "the date made" names the column the count does not read
    cands = rt.matcher.rank("What is the number of gadgets by date made?", [])
    assert "columns" in next(c for c in cands if c.template.index == 0).factors
