"""How people ask: "Which ..." weighs little against a template worded otherwise, "the most often"
counts, "in descending order of", "the tallest" is the greatest height.

The templates are our own (a small library: books, loans of books); no database is needed, the
matcher alone ranks them.
"""

from __future__ import annotations

import math

from ctxtool.english.content import content_tokens
from ctxtool.runtime.matching.matcher import Matcher
from ctxtool.runtime.templates.compile import compile_item
from ctxtool.runtime.templates.index import ASKING_WEIGHT, ItemIndex
from tests.checks_support import rank

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
    return {c.template.index: c for c in rank(_matcher(), question, [])}


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


def test_an_adjective_of_a_measure_names_the_measure():
    # "the tallest" is the greatest height, "older than" a greater age, "how old" the age
    assert set(content_tokens("the tallest reader")) == set(
        content_tokens("the reader with the greatest height")
    )
    assert set(content_tokens("readers older than 30")) == set(content_tokens("readers with an age over 30"))
    assert content_tokens("How old is the reader?") == content_tokens("What is the age of the reader?")
    # the oldest is the earliest born (a date), not a degree of age
    assert content_tokens("the oldest reader") == ["__min_date", "reader"]
    assert "__comparative" not in content_tokens("the older readers")


def test_an_order_and_its_direction_in_other_words():
    # "in descending order of" orders, like "ordered by ... descending"; "ordered" alone may be a purchase
    assert set(content_tokens("the genres in descending order of the count")) >= {"__desc", "__order"}
    assert set(content_tokens("the genres ordered by frequency descending")) >= {"__desc", "__order"}
    assert set(content_tokens("titles ordered alphabetically")) == set(
        content_tokens("titles in alphabetic order")
    )
    assert "__order" not in content_tokens("the members who ordered a book")
