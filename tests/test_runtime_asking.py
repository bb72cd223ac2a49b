"""How people ask for a list: "Which ...", "the different ...", "the most often": words of asking,
not of what is asked, weigh little against a template worded otherwise.

The templates are our own (a small library: books, loans of books); no database is needed, the
matcher alone ranks them.
"""

from __future__ import annotations

import math

from ctxtool.runtime.compiled import compile_item
from ctxtool.runtime.index import ASKING_WEIGHT, ItemIndex
from ctxtool.runtime.matching import Matcher, derived_parts
from ctxtool.runtime.text import content_tokens

ITEMS = [
    {"nl_query": "Show the genres of all books.", "sql": "SELECT genre FROM book"},
    {
        "nl_query": "Show the shelf with the most books.",
        "sql": ("SELECT shelf FROM book GROUP BY shelf ORDER BY count(*) DESC LIMIT 1"),
    },
    {
        "nl_query": "How many different genres do the books have?",
        "sql": "SELECT count(DISTINCT genre) FROM book",
    },
    {
        "nl_query": "Show the titles of books borrowed by members.",
        "sql": ("SELECT b.title FROM book b JOIN loan l ON l.book_id = b.book_id"),
    },
]


def _matcher() -> Matcher:
    return Matcher([compile_item("template", i, t, "postgres") for i, t in enumerate(ITEMS)], [])


def _by_index(question: str) -> dict:
    return {c.template.index: c for c in _matcher().rank(question, [])}


def test_the_different_things_are_the_things():
    # "What are the different genres" asks for the genres: a template without "different" explains it
    cands = _by_index("What are the different genres of the books?")
    assert "__distinct" not in cands[0].unexplained
    assert cands[0].unexplained == []
    # a wording that says "different" still asks more than a question that does not
    assert "__distinct" in _by_index("How many genres do the books have?")[2].missing


def test_different_in_a_count_says_what_is_counted():
    # "How many different shelves": only a wording that says "different" explains it (not even a
    # SQL counting without repeats: near-duplicate counts differ in what they count)
    counted = Matcher(
        [
            compile_item("template", i, {"nl_query": q, "sql": sql}, "postgres")
            for i, (q, sql) in enumerate(
                [
                    ("How many shelves are there?", "SELECT count(*) FROM book"),
                    ("Count the shelves.", "SELECT count(DISTINCT shelf) FROM book"),
                    ("Count the different shelves.", "SELECT count(DISTINCT shelf) FROM book"),
                ]
            )
        ],
        [],
    )
    by_index = {c.template.index: c for c in counted.rank("How many different shelves are there?", [])}
    assert "__distinct" in by_index[0].unexplained
    assert "__distinct" in by_index[1].unexplained
    assert "__distinct" not in by_index[2].unexplained


def test_the_players_are_who_played():
    # an agent or action noun and its verb name the same thing; a word's beginning alone does not
    assert derived_parts({"play"}, {"player", "team"}) == ({"play"}, {"player"})
    assert derived_parts({"enrollment"}, {"enroll"}) == ({"enrollment"}, {"enroll"})
    assert derived_parts({"member"}, {"membership"}) == (set(), set())
    assert derived_parts({"own"}, {"owner"}) == (set(), set())  # too short to tell
    cands = _by_index("Show the titles of books with members as their borrowers.")
    assert cands[3].unexplained == [] and cands[3].missing == []


def test_which_weighs_as_a_common_word():
    templates = [compile_item("template", i, t, "postgres") for i, t in enumerate(ITEMS)]
    index = ItemIndex(templates)
    assert "which" not in index.vocabulary()  # no wording here begins with "Which"
    # said by one side only it weighs little; said by both, as any word
    assert index.weight(["which"]) == ASKING_WEIGHT < index.idf("shelf")
    assert index.weight(["which"], shared={"which"}) == index.idf("which") > ASKING_WEIGHT
    assert ASKING_WEIGHT == math.log(2.0)
    # "Which shelf has the most books?" reads almost as well as the template's own words
    which = _by_index("Which shelf has the most books?")[1]
    assert which.unexplained == ["which"]
    assert which.q_cov > 0.75  # (weighed as a word no wording says: 0.52)


def test_most_often_is_most_frequently():
    assert set(content_tokens("the genre that appears most often")) >= {"__max", "__count"}
    assert set(content_tokens("the genre borrowed least often")) >= {"__min", "__count"}
    assert set(content_tokens("most often")) == set(content_tokens("most frequently"))
