"""Value linking without a database: which phrases of a question are asked about, and which of the
stored values a search returns stand for them.

Our own fixture: a shop's stored names and categories behind a fake value search that measures
closeness letter by letter (as trigram searches roughly do).
"""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import Any

from ctxtool.english.literals import find_literals
from ctxtool.runtime.question.linking import ValueLinker, candidate_phrases

STORED = {
    "Marisol": "shop.buyer_name",
    "Harbour of the Moon": "shop.boat_name",
    "Folding garden chair": "shop.item",
    "Reserved": "shop.status",
    "Annika": "buyer.first_name",
    "Bergqvist": "buyer.last_name",
    "254 Mill Lane": "shop.street_address",
}


class _Result:
    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        self.columns = ["value", "columns", "concept_type", "distance", "context"]
        self.rows = rows


class _Shop:
    """A value search over :data:`STORED`: every value within 0.4 of the phrase, closest first."""

    def query(self, sql: str, params: dict[str, Any], max_rows: int | None = None) -> _Result:
        phrase = str(params["value"]).casefold()
        rows = []
        for v, column in STORED.items():
            d = 1 - SequenceMatcher(None, phrase, v.casefold()).ratio()
            if d <= 0.4:
                rows.append((v, column, column.replace("_", " ").title(), round(d, 3), ""))
        return _Result(sorted(rows, key=lambda r: r[3]))


def _link(question: str) -> dict[str, str]:
    linker = ValueLinker([{"query": "SELECT ...", "concept_type": "Shop Value"}], _Shop())
    return {lv.phrase: lv.value for lv in linker.link(question, find_literals(question))}


def test_words_of_how_a_question_is_built_are_not_values():
    q = "How many items does each shelf have per aisle?"
    phrases = {p for _, _, p in candidate_phrases(q, find_literals(q), set())}
    assert "shelf" in phrases and not {"each", "per"} & phrases


def test_everyday_words_only_resembling_a_name_are_not_that_name():
    # lower-case words near a name written with capitals: a verb, a phrase of the question
    assert "Marisol" not in _link("Which items have customers marshal to the till?").values()
    assert "Harbour of the Moon" not in _link("What is the harbor of the month?").values()
    # the name itself, misspelt, capitalized or quoted, still links
    assert _link("Which items did Marisoll buy?") == {"Marisoll": "Marisol"}
    assert _link('Which items did "marisoll" buy?') == {"marisoll": "Marisol"}
    # a lower-case value of everyday words links from lower-case words, and so does a category's
    # capitalized label (the column holds no names)
    assert _link("Do they sell folding garden chairs?")["folding garden chairs"] == "Folding garden chair"
    assert _link("Which items are on reserve?") == {"reserve": "Reserved"}


def test_the_words_of_a_quoted_name_no_search_finds_whole_are_found_one_by_one():
    from ctxtool.runtime.question.values import entities_of

    q = 'Which items did "Annika Bergqvist" buy?'
    linker = ValueLinker([{"query": "SELECT ...", "concept_type": "Shop Value"}], _Shop())
    literals = find_literals(q)
    links = linker.link(q, literals)
    assert [(lv.phrase, lv.column) for lv in links if lv.part] == [
        ("Annika", "buyer.first_name"),
        ("Bergqvist", "buyer.last_name"),
    ]
    # the whole name stays a value of the question (here found only approximately, as a last
    # name), its words are parts of it
    ents = entities_of(literals, links)
    assert [(e.text, e.part) for e in ents] == [
        ("Annika Bergqvist", False),
        ("Annika", True),
        ("Bergqvist", True),
    ]
    # both words or neither: a word found only approximately leaves the name whole
    q = 'Which items did "Annika Bergqvisz" buy?'
    assert not any(lv.part for lv in linker.link(q, find_literals(q)))


def test_a_house_number_begins_a_street_address_found_exactly():
    assert _link("Which shop is at 254 Mill Lane?") == {"254 Mill Lane": "254 Mill Lane"}
    # only exactly: a number before other capitalized words stays a number
    assert _link("Which shop is at 250 Mill Lane?") == {"Mill Lane": "254 Mill Lane"}
