"""Matching by meaning (the sentence encoder) and the checks similarity cannot make.

The set is our own, shaped like a small school database; no database is needed for ``showsql``.
"""

from __future__ import annotations

import numpy as np
import pytest

from ctxtool.embeddings import minilm
from ctxtool.embeddings.cache import cached_vectors, content_key
from ctxtool.runtime import Runtime
from ctxtool.runtime.checks.operators import operator_agreement
from ctxtool.runtime.templates.compile import compile_item
from tests.checks_support import candidate

pytestmark = pytest.mark.skipif(not minilm.available(), reason="the sentence encoder is not installed")

SET = {
    "templates": [
        {
            "nl_query": "Show the hometowns shared by at least two teachers.",
            "sql": "SELECT hometown FROM teacher GROUP BY hometown HAVING COUNT(*) >= 2",
        },
        {
            "nl_query": "Which model of the car has the minimum horsepower?",
            "sql": "SELECT model FROM car ORDER BY horsepower ASC LIMIT 1",
        },
        {
            "nl_query": "Which model of the car has the maximum horsepower?",
            "sql": "SELECT model FROM car ORDER BY horsepower DESC LIMIT 1",
        },
        {
            "nl_query": "How many different store locations are there?",
            "sql": "SELECT COUNT(DISTINCT location) FROM store",
        },
        {
            "nl_query": "List the names of the stores in the district 'North'.",
            "sql": "SELECT name FROM store WHERE district LIKE '%North%'",
        },
        {
            "nl_query": "What is the name of the store with the code 338?",
            "sql": "SELECT name FROM store WHERE code = '338'",
        },
    ]
}


@pytest.fixture(scope="module")
def rt(tmp_path_factory):
    import os

    from ctxtool.parameterize import parameterize_set

    os.environ["CTXTOOL_HOME"] = str(tmp_path_factory.mktemp("home"))
    data, _ = parameterize_set(SET, "postgres", None)
    return Runtime(data, dialect="postgres", use_llm=False, matcher="hybrid")


def test_encoder_agrees_with_the_reference_cosines():
    # figures of the reference model (sentence-transformers all-MiniLM-L6-v2) on these pairs
    enc = minilm.shared()
    v = enc.embed_array(
        [
            "How many invoices were issued in 2021?",
            "Count the invoices from 2021",
            "Which artist has the most albums?",
            "Name the artist with the largest number of albums",
            "Which artist has the fewest albums?",
        ]
    )
    assert v.shape == (5, 384) and np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-4)
    assert abs(float(v[0] @ v[1]) - 0.87) < 0.03
    assert abs(float(v[2] @ v[3]) - 0.87) < 0.03
    assert float(v[2] @ v[4]) > 0.85  # similarity cannot tell opposites apart: the checks must
    assert float(v[0] @ v[2]) < 0.3


def test_set_vectors_are_cached_by_content(tmp_path, monkeypatch):
    monkeypatch.setenv("CTXTOOL_HOME", str(tmp_path))
    enc = minilm.shared()
    texts = ["a question about stores", "another about cars"]
    first = cached_vectors(enc, texts)
    path = tmp_path / "embeddings" / f"{content_key(enc.name, texts)}.npy"
    assert path.is_file() and np.allclose(np.load(path), first)
    assert content_key(enc.name, texts) != content_key(enc.name, [*texts, "x"])


def test_paraphrases_in_other_words_are_answered(rt):
    for question, index in [
        ("List the hometowns that at least two teachers share.", 0),
        ("What is the model of the car with the smallest amount of horsepower?", 1),
        ("What is the number of different locations of the stores?", 3),
    ]:
        ans = rt.ask(question, "showsql")
        assert ans.status == "answered" and ans.template.index == index, (question, ans.explanation)


def test_opposites_are_told_apart(rt):
    ans = rt.ask("Which car model has the most horsepower?", "showsql")
    assert ans.status == "answered" and ans.template.index == 2, ans.explanation


def test_like_templates_keep_their_wildcards(rt):
    ans = rt.ask("List the names of the stores in the district 'South'.", "showsql")
    assert ans.status == "answered" and ans.params == ["%South%"], ans.explanation
    assert "LIKE $1" in ans.sql


def test_a_number_written_as_text_in_the_sql_is_bound_as_text(rt):
    ans = rt.ask("What is the name of the store with the code 412?", "showsql")
    assert ans.status == "answered" and ans.params == ["412"], ans.explanation


def test_a_value_the_template_does_not_use_is_not_dropped(rt):
    ans = rt.ask("How many different store locations are there in 1997?", "showsql")
    assert ans.status != "answered", ans.explanation


def test_lexical_matcher_is_the_fallback():
    lexical = Runtime(SET, dialect="postgres", use_llm=False, matcher="lexical")
    assert lexical.matcher.semantic is None
    ans = lexical.ask("Which model of the car has the minimum horsepower?", "showsql")
    assert ans.status == "answered" and ans.template.index == 1


def test_operator_agreement_by_axis():
    assert operator_agreement({"__max"}, {"__max"}) == (1.0, [])
    f, why = operator_agreement({"__max"}, {"__min"})
    assert f < 0.5 and "opposite extreme" in why
    assert operator_agreement({"__gt"}, {"__gte"})[0] == 1.0  # more than / at least: one direction
    assert operator_agreement({"__superlative"}, {"__min"})[0] == 1.0  # "cheapest": either way
    assert operator_agreement({"__not"}, set())[0] < 0.5
    assert operator_agreement({"__both"}, {"__either"})[0] < 0.5
    assert operator_agreement(set(), {"__count"})[0] < 1.0  # "which campuses" vs "how many"


def test_compiled_template_reads_columns_and_grouping():
    t = compile_item("template", 0, SET["templates"][0], "postgres")
    assert t.facts.grouped and "hometown" in t.facts.columns and "hometown" in t.column_words


def test_disambiguation_offers_distinct_readings_on_the_templates_tables():
    from ctxtool.runtime.matching.binding import bind_slots
    from ctxtool.runtime.question.linking import LinkedValue
    from ctxtool.runtime.question.values import Entity

    data = {
        "templates": [
            {
                "nl_query": "Which branches are in Lisbon?",
                "sql": "SELECT name FROM branch WHERE city = 'Lisbon'",
            }
        ]
    }
    from ctxtool.parameterize import parameterize_set

    data, _ = parameterize_set(data, "postgres", None)
    rt = Runtime(data, dialect="postgres", use_llm=False, matcher="lexical")
    tpl = rt.templates[0]

    def link(column: str, search: int) -> LinkedValue:
        return LinkedValue("Porto", 23, 28, "Porto", column, "City", 0.0, search)

    main = link("branch.city", 0)
    main.alternatives = [link("branch.city", 1), link("customer.city", 2)]  # the same reading twice
    entities = [Entity("linked", "Porto", 23, 28, "Porto", link=main)]
    cand = candidate(tpl, bind_slots(tpl.slots, entities, set()))
    assert cand.bindings
    from ctxtool.runtime.decide.decide import ambiguity

    assert ambiguity(cand, entities) == []
    ans = rt.ask("Which branches are in 'Porto'?", "showsql")
    assert len(set(ans.disambiguation)) == len(ans.disambiguation)


def test_a_code_never_fills_a_slot_of_names():
    from ctxtool.runtime.matching.binding import compatibility
    from ctxtool.runtime.question.values import Entity
    from ctxtool.runtime.templates.compiled import Slot

    city = Slot("1", "text", "city", None, "Porto")
    assert compatibility(Entity("quoted", "Lisbon", 0, 6, "Lisbon"), city) > 0
    assert compatibility(Entity("quoted", "PT-11", 0, 5, "PT-11"), city) == 0
    code = Slot("1", "text", "code", None, "A12")
    assert compatibility(Entity("quoted", "B7", 0, 2, "B7"), code) > 0
    assert compatibility(Entity("quoted", "New York", 0, 8, "New York"), code) == 0


FACET_SET = {
    "templates": [
        {
            "nl_query": "List the names of the products in the category 'Toys'.",
            "sql": "SELECT name FROM product WHERE category = 'Toys'",
        }
    ],
    "facets": [{"intent": "products cheaper than 10", "sql_snippet": "product.price < 10"}],
}


def test_a_facet_stated_in_other_words_is_applied():
    from ctxtool.parameterize import parameterize_set

    data, _ = parameterize_set(FACET_SET, "postgres", None)
    rt = Runtime(data, dialect="postgres", use_llm=False, matcher="hybrid")
    ans = rt.ask("List the names of the products in the category 'Games' that cost less than 20.", "showsql")
    assert ans.status == "answered" and ans.params == ["Games", 20], ans.explanation
    assert [f.index for f in ans.facets] == [0]
    # the opposite is not the facet: the value is left unused, so the runtime does not answer
    ans = rt.ask("List the names of the products in the category 'Games' that cost more than 20.", "showsql")
    assert ans.status != "answered" or not ans.facets, ans.explanation


def test_calibrated_confidence_is_a_probability_with_its_own_threshold(monkeypatch):
    from ctxtool.errors import InputError
    from ctxtool.parameterize import parameterize_set

    data, _ = parameterize_set(SET, "postgres", None)
    rt = Runtime(data, dialect="postgres", use_llm=False, confidence="calibrated")
    assert rt.threshold == 0.9 and rt.matcher.calibrated
    _, cands = rt.understand("Which model of the car has the minimum horsepower?")
    assert all(0 <= c.score <= 1 for c in cands) and cands[0].template.index == 1
    assert cands[0].score > cands[1].score and cands[0].evidence > 0
    assert rt.ask("How many teachers live in Lisbon?", "showsql").status != "answered"
    monkeypatch.setenv("CTXTOOL_CONFIDENCE", "sure")
    with pytest.raises(InputError, match="CTXTOOL_CONFIDENCE"):
        Runtime(data, dialect="postgres", use_llm=False)


def test_a_year_said_as_a_time_never_fills_another_number():
    from ctxtool.parameterize import parameterize_set

    data, _ = parameterize_set(
        {
            "templates": [
                {
                    "nl_query": "How many loans have a duration of 24 months?",
                    "sql": "SELECT COUNT(*) FROM loan WHERE duration = 24",
                }
            ]
        },
        "postgres",
        None,
    )
    rt = Runtime(data, dialect="postgres", use_llm=False, matcher="lexical")
    ans = rt.ask("how many loans were issued in 1997?", "showsql")
    assert ans.status == "declined" and not ans.disambiguation, ans.disambiguation
    assert rt.ask("How many loans have a duration of 36 months?", "showsql").params == [36]
    assert rt.ask("How many loans have a duration of 2000 months?", "showsql").params == [2000]


def test_without_the_encoder_words_match_and_each_answer_says_so(monkeypatch):
    monkeypatch.setattr(minilm, "available", lambda: False)
    rt = Runtime(SET, dialect="postgres", use_llm=False)
    assert rt.matcher.semantic is None
    ans = rt.ask("Which model of the car has the minimum horsepower?", "showsql")
    assert ans.status == "answered" and any("sentence encoder is not installed" in w for w in ans.warnings)


def test_a_value_two_read_tables_hold_is_read_on_the_column_the_slot_is_compared_with():
    from ctxtool.parameterize import parameterize_set
    from ctxtool.runtime.decide.decide import ambiguity
    from ctxtool.runtime.plan import own_reading
    from ctxtool.runtime.question.linking import LinkedValue
    from ctxtool.runtime.question.values import Entity

    data = {
        "templates": [
            {
                "nl_query": "Who advises the member named Smith?",
                "sql": "SELECT T1.fname FROM staff AS T1 JOIN member AS T2 ON T1.id = T2.advisor "
                "WHERE T2.lname = 'Smith'",
            }
        ]
    }
    data, _ = parameterize_set(data, "postgres", None)
    rt = Runtime(data, dialect="postgres", use_llm=False, matcher="lexical")
    tpl = rt.templates[0]
    assert tpl.slots[0].column and tpl.slots[0].column.lower().endswith("member.lname")

    def link(column: str, value: str, search: int) -> LinkedValue:
        return LinkedValue("Smith", 30, 35, value, column, "Lname", 0.0, search)

    main = link("staff.lname", "Smith", 0)  # both tables are the template's: their own tables tie
    main.alternatives = [link("member.lname", "Smith", 1)]
    entities = [Entity("linked", "Smith", 30, 35, "Smith", link=main)]
    from ctxtool.runtime.matching.binding import bind_slots

    cand = candidate(tpl, bind_slots(tpl.slots, entities, set()))
    assert cand.bindings
    assert ambiguity(cand, entities) == []
    assert own_reading(entities[0], tpl.tables, tpl.slots[0]).link.column_key == "member.lname"
    # two values as close on the compared column stay rival readings
    main.alternatives = [link("member.lname", "Smith", 1), link("member.lname", "Smithe", 2)]
    assert len(ambiguity(cand, entities)) == 2
