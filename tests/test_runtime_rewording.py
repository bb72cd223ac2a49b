"""Rewording (ctxtool.runtime.matching.rewording): question words that say the template's words in other
words (a relation verb of the question's own, a misspelling, a short form) and the template's own
relation verbs. Our own small templates and a matcher over them, no database."""

from __future__ import annotations

import pytest

from ctxtool.english.literals import find_literals
from ctxtool.english.spelling import edits1 as _edits1
from ctxtool.english.tokens import is_verb
from ctxtool.runtime.matching.candidate import Finding
from ctxtool.runtime.matching.matcher import Matcher
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.question.values import entities_of
from ctxtool.runtime.templates.compile import compile_item, facts_of
from tests.checks_support import candidate, read, run_check


def test_verbs_are_told_from_nouns():
    assert is_verb("spend") and is_verb("received") and is_verb("earned")
    assert not is_verb("boat") and not is_verb("harbour") and not is_verb("name")


def test_a_word_after_a_relative_pronoun_is_a_verb():
    from ctxtool.english.reading import verb_in

    assert not is_verb("hold") and verb_in("hold", "the sailors who hold a licence")
    assert verb_in("sail", "the boats that sail to Oslo") and not verb_in("hold", "the hold of the boat")
    assert not verb_in("boat", "the harbours which boat owners use")  # English knows no verb "boat"


def test_one_letter_slips():
    assert _edits1("harbuor", "harbour") and _edits1("harbor", "harbour") and _edits1("harbours", "harbour")
    assert not _edits1("harbour", "harbour") and not _edits1("sailor", "tailors")


def _question(matcher: Matcher, question: str, values=None) -> Question:
    literals = find_literals(question)
    return Question(
        question,
        values=list(values) if values is not None else entities_of(literals, []),
        vocabulary=matcher.set_facts,
    )


def _matcher_and_candidate(question: str, sql: str, nl: str):
    """The matcher, the question and the template's candidate as its wording reads it (before the
    SQL checks and the rewording: ``matcher.verify`` does them)."""
    tpl = compile_item("template", 0, {"nl_query": nl, "sql": sql}, "postgres")
    matcher = Matcher([tpl], [], semantic=None)
    q = _question(matcher, question)
    return matcher, q, matcher.read(q, tpl)


SQL = "SELECT count(*) FROM sailor AS T1 JOIN boat AS T2 ON T1.id = T2.owner_id"


def test_a_verb_of_the_question_alone_is_its_way_of_saying_the_join():
    q = "How many sailors rented a boat?"
    matcher, qq, cand = _matcher_and_candidate(q, SQL, "How many sailors have a boat?")
    assert "rent" in cand.unexplained
    before = cand.evidence
    matcher.verify(qq, cand)
    assert cand.evidence > before and not cand.unexplained


def test_a_verb_of_each_side_is_two_relations():
    q = "How many sailors rented a boat?"
    matcher, qq, cand = _matcher_and_candidate(q, SQL, "How many sailors repaired a boat?")
    before = cand.evidence
    matcher.verify(qq, cand)
    assert cand.evidence == before


def test_a_word_left_unexplained_keeps_the_question_words_as_they_are():
    q = "How many old sailors rented a boat?"
    matcher, qq, cand = _matcher_and_candidate(q, SQL, "How many sailors have a boat?")
    matcher.verify(qq, cand)
    assert "rent" in cand.unexplained


def test_a_misspelling_and_a_short_form_of_the_template_words():
    q = "How many sailors have a boat in the harbuor?"
    matcher, qq, cand = _matcher_and_candidate(q, SQL, "How many sailors have a boat in the harbour?")
    before = cand.evidence
    matcher.verify(qq, cand)
    assert cand.evidence > before and not cand.unexplained


def test_a_column_word_is_no_relation_verb():
    sql = "SELECT count(*) FROM sailor WHERE sail_count > 0"
    q = "How many sailors sailed?"
    matcher, qq, cand = _matcher_and_candidate(q, sql, "How many sailors are there?")
    before = cand.evidence
    matcher.verify(qq, cand)
    assert cand.evidence == before


def test_a_candidate_a_check_spoke_against_is_left_as_it_is():
    q = "How many sailors rented a boat?"
    matcher, qq, cand = _matcher_and_candidate(q, SQL, "How many sailors have a boat?")
    cand.findings.append(Finding("a check spoke against it", 0.75, "some_check", "words"))
    matcher.verify(qq, cand)
    assert "rent" in cand.unexplained


def test_a_longer_form_is_no_word_of_the_same_stem():
    from ctxtool.runtime.matching.rewording import _pairs

    assert _pairs({"info"}, {"information"}, {}, {}, set()) == ({"info"}, {"information"})
    assert _pairs({"member"}, {"membership"}, {}, {}, set()) == (set(), set())
    # a plural of the short form: the words' tokens begin one another ("beds" of "bedrooms")
    assert _pairs({"bed"}, {"bedroom"}, {"bed": "beds"}, {"bedroom": "bedrooms"}, set()) == (
        {"bed"},
        {"bedroom"},
    )


def test_an_english_synonym_unless_the_schema_names_the_question_word():
    from ctxtool.runtime.matching.rewording import _pairs

    assert _pairs({"film"}, {"movi"}, {"film": "films"}, {"movi": "movies"}, set()) == ({"film"}, {"movi"})
    # a database with a film table and a movie table: the question's films are that table's
    assert _pairs({"film"}, {"movi"}, {"film": "films"}, {"movi": "movies"}, {"film"}) == (set(), set())


LIKE_SQL = "SELECT name FROM boat WHERE name LIKE '%' || $1 || '%'"


def _like(question: str, nl: str):
    tpl = compile_item("template", 0, {"nl_query": nl, "sql": LIKE_SQL}, "postgres")
    matcher = Matcher([tpl], [], semantic=None)
    q = _question(matcher, question)
    return matcher, q, matcher.read(q, tpl)


def test_the_words_of_a_like_said_otherwise():
    # "substring" already reads as "contain" (english/lexicon.py); "as part of" only through the LIKE
    q = 'Which boats have "Sea" as part of their name?'
    matcher, qq, cand = _like(q, "Find the names of boats whose name contains $1.")
    before = cand.evidence
    matcher.verify(qq, cand)
    assert cand.evidence > before and "part" not in cand.unexplained


def test_the_template_words_of_a_like_are_asked_when_the_question_says_none():
    q = 'Which boats did "Sea Wolf" build?'
    matcher, qq, cand = _like(q, "Find the names of boats whose name contains $1.")
    matcher.verify(qq, cand)
    assert "contain" in cand.missing


def test_the_verb_a_wording_begins_with_is_an_instruction():
    from ctxtool.english.reading import imperatives

    assert imperatives("Report the names of all sailors. Compute their number.") == {"report", "comput"}
    assert imperatives("What is the name of the sailor?") == frozenset()
    q = "What are the names of all sailors?"
    tpl_sql = "SELECT name FROM sailor"
    matcher, qq, cand = _matcher_and_candidate(q, tpl_sql, "Report the names of all sailors.")
    assert "report" in cand.missing
    before = cand.evidence
    matcher.verify(qq, cand)
    assert cand.evidence > before and "report" not in cand.missing


def test_a_value_found_for_the_instruction_is_no_value():
    from ctxtool.runtime.question.linking import LinkedValue
    from ctxtool.runtime.question.values import Entity

    tpl = compile_item(
        "template",
        0,
        {"nl_query": "How many sailors are there?", "sql": "SELECT count(*) FROM sailor"},
        "postgres",
    )

    def unused(q: str) -> float:
        start = q.index("Report")
        link = LinkedValue("Report", start, start + 6, "Report", "sailor.name", "name", 0.0, 0)
        e = Entity("linked", "Report", start, start + 6, "Report", link=link)
        found = run_check("unused", read(q, [tpl], [e]), candidate(tpl))
        return 1.0 if found is None else found.factor

    assert unused("How many sailors are there? Report the number.") == 1.0
    # the same word inside a sentence is a value the question states
    assert unused("How many sailors named Report are there?") == 0.45


def test_a_relation_read_the_other_way_is_no_rewording():
    """The things both sides name in another order: the verb one side says reverses the relation."""
    from ctxtool.runtime.matching.rewording import _reversed

    schema = {"shelf", "book"}
    assert _reversed(["shelf", "__max", "book"], ["book", "belong", "__max", "shelf"], schema)
    assert not _reversed(["shelf", "hold", "__max", "book"], ["shelf", "__max", "book"], schema)
    assert not _reversed(["book", "__max"], ["book", "belong", "__max"], schema)


def test_the_oldest_and_the_longest_are_the_ends_of_an_age_a_date_a_span():
    from ctxtool.english.content import content_tokens
    from ctxtool.runtime.matching.rewording import said_ends

    def ends(question: str, sql: str) -> set[str]:
        return said_ends(content_tokens(question), facts_of(sql))[0]

    assert ends("the oldest member", "SELECT name FROM member ORDER BY age DESC LIMIT 1") == {"__min_date"}
    assert ends("the oldest member", "SELECT name FROM member ORDER BY birth_date LIMIT 1") == {"__min_date"}
    assert ends("the youngest member", "SELECT min(age) FROM member") == {"__max_date"}
    assert ends("the shortest trips", "SELECT id FROM trip ORDER BY duration ASC LIMIT 3") >= {"short"}
    assert said_ends(content_tokens("the oldest member"), facts_of("SELECT max(age) FROM member"))[1] == {
        "__max"
    }
    # the direction must agree, and a column of no age, date or span says nothing
    assert not ends("the youngest member", "SELECT name FROM member ORDER BY age DESC LIMIT 1")
    assert not ends("the longest trips", "SELECT id FROM trip ORDER BY duration LIMIT 3")
    assert not ends("the oldest member", "SELECT name FROM member ORDER BY rating DESC LIMIT 1")


def test_a_value_found_for_the_end_the_sql_takes_is_that_end():
    from ctxtool.runtime.question.linking import LinkedValue
    from ctxtool.runtime.question.values import Entity

    tpl = compile_item(
        "template",
        0,
        {
            "nl_query": "Which trip has the lowest duration?",
            "sql": "SELECT id FROM trip ORDER BY duration LIMIT 1",
        },
        "postgres",
    )

    def unused(question: str) -> float:
        start = question.index("est ") - 5
        word = question[start : question.index("est ") + 3]
        link = LinkedValue(word, start, start + len(word), word, "trip.note", "Note", 0.0, 0)
        e = Entity("linked", word, start, start + len(word), word, link=link)
        found = run_check("unused", read(question, [tpl], [e]), candidate(tpl))
        return 1.0 if found is None else found.factor

    assert unused("Which trip was the shortest one?") == 1.0
    assert unused("Which trip was the longest one?") < 1.0  # the other end: a value still


def test_a_number_the_template_compares_with_as_written_is_used():

    sql = "SELECT name FROM t GROUP BY name HAVING count(*) >= 2 AND max(x) < 1.5 AND note = '7' ORDER BY name LIMIT 3"
    assert facts_of(sql).constants == {2.0, 1.5}  # no quoted text, no LIMIT
    assert facts_of("SELECT a FROM t WHERE b = $1 AND c2 > 0").constants == {0.0}


def test_a_stated_number_the_template_compares_with_is_no_value_left_out():
    from ctxtool.english.literals import Literal
    from ctxtool.runtime.question.values import Entity

    tpl = compile_item(
        "template",
        0,
        {
            "nl_query": "Which names are used at least twice?",
            "sql": "SELECT name FROM t GROUP BY name HAVING count(*) >= 2",
        },
        "postgres",
    )

    def unused(n: int) -> float:
        q = f"Which names are in {n} or more rows?"
        start = q.index(str(n))
        lit = Literal("number", str(n), start, start + 1, n, bound=True)
        e = Entity("number", str(n), start, start + 1, n, literal=lit)
        found = run_check("unused", read(q, [tpl], [e]), candidate(tpl))
        return 1.0 if found is None else found.factor

    assert unused(2) == 1.0
    assert unused(3) < 1.0  # another number: a condition the template leaves out


# -- operator words said in other words ------------------------------------------------------------
BOATS = "SELECT name FROM boat WHERE length > (SELECT avg(length) FROM boat)"


def _reworded(question: str, sql: str, nl: str):
    matcher, qq, cand = _matcher_and_candidate(question, sql, nl)
    before = (cand.evidence, list(cand.unexplained), list(cand.missing))
    matcher.verify(qq, cand)
    return before, cand


REWORDED = [
    # (question, SQL, wording, the question's words and the wording's words explained by the rewording)
    (
        "Which boats are longer than average?",
        BOATS,
        "Which boats have a length greater than the average?",
        {"__comparative", "long"},
        {"__gt"},
    ),
    (
        "What is the name of the boat with the lowest price?",
        "SELECT name FROM boat ORDER BY price LIMIT 1",
        "What is the name of the cheapest boat?",
        {"__min"},
        {"__superlative", "cheap"},
    ),
    (
        "Give the name of the sailor with the lowest age.",
        "SELECT name FROM sailor ORDER BY age ASC LIMIT 1",
        "What is the name of the youngest sailor?",
        {"__min", "age"},
        {"__max_date"},
    ),
    (
        "What are the different rigs and how many boats have each?",
        "SELECT rig, count(*) FROM boat GROUP BY rig",
        "Show each rig and the number of boats with it.",
        {"__distinct"},
        set(),
    ),
    (
        "Show the name of each sailor and the number of boats.",
        "SELECT T1.name, count(*) FROM sailor AS T1 JOIN boat AS T2 ON T1.id = T2.owner_id GROUP BY T1.id",
        "Show the name of each sailor and the number of boats he or she owns.",
        set(),
        {"he", "she"},
    ),
    (
        "List the boats, their harbour and length.",
        "SELECT name, harbour, length FROM boat",
        "List the boats with the harbuor and length of each.",
        set(),
        {"harbuor"},
    ),
    (
        "List the sailors, ordered descending by amount of wage.",
        "SELECT name FROM sailor ORDER BY wage DESC",
        "List the sailors in descending order of wage.",
        {"amount"},
        set(),
    ),
    (
        "Which sailors are making more than the average wage?",
        "SELECT name FROM sailor WHERE wage > (SELECT avg(wage) FROM sailor)",
        "Which sailors earn more than the average wage?",
        {"mak"},
        {"earn"},
    ),
]


@pytest.mark.parametrize(("question", "sql", "nl", "q_words", "t_words"), REWORDED)
def test_words_said_otherwise_are_explained(question, sql, nl, q_words, t_words):
    (ev, unexplained, missing), cand = _reworded(question, sql, nl)
    assert q_words <= set(unexplained) and t_words <= set(missing)
    assert not (q_words & set(cand.unexplained)) and not (t_words & set(cand.missing))
    assert cand.evidence > ev


def test_a_size_adjective_in_the_other_direction_is_no_rewording():
    sql = BOATS.replace(">", "<")
    (ev, _, _), cand = _reworded(
        "Which boats are longer than average?", sql, "Which boats have a length lower than the average?"
    )
    assert "__comparative" in cand.unexplained and cand.evidence <= ev


def test_an_end_of_another_column_is_not_the_template_s_latest():
    sql = "SELECT name FROM sailor WHERE hired = (SELECT max(hired) FROM sailor)"
    (ev, _, _), cand = _reworded("Which sailor has the most boats?", sql, "Which sailor was hired latest?")
    assert "__max" in cand.unexplained


def test_no_function_word_is_credited_while_an_operator_word_is_left():
    sql = "SELECT name FROM sailor ORDER BY wage DESC LIMIT 1"
    (ev, _, _), cand = _reworded(
        "Give all information regarding sailors, from least to most paid.",
        sql,
        "Who is the sailor with the highest wage?",
    )
    assert "regard" in cand.unexplained


def test_a_number_the_wording_spells_out_is_the_question_s_digits():
    sql = "SELECT club FROM sailor GROUP BY club HAVING count(*) > 2"
    (_, _, missing), cand = _reworded(
        "Which clubs have more than 2 sailors?", sql, "Show the clubs with more than two sailors."
    )
    assert "two" in missing and "two" not in cand.missing
    (_, _, _), other = _reworded(
        "Which clubs have more than 3 sailors?", sql, "Show the clubs with more than two sailors."
    )
    assert "two" in other.missing


def test_two_words_the_wording_runs_together():
    q = "Which sailors tried out?"
    sql = "SELECT s.name FROM sailor AS s JOIN tryout AS t ON s.id = t.sailor_id"
    matcher, qq, cand = _matcher_and_candidate(q, sql, "Which sailors were in the tryout?")
    assert {"try", "out"} <= set(cand.unexplained) and "tryout" in cand.missing
    before = cand.evidence
    matcher.verify(qq, cand)
    assert cand.evidence > before and not {"try", "out"} & set(cand.unexplained)


@pytest.mark.parametrize(
    ("question", "sql", "said"),
    [
        ("How many different types of boats are there?", "SELECT count(DISTINCT boat_type) FROM boat", True),
        ("Return the number of distinct sailors.", "SELECT count(*) FROM sailors", True),
        # the distinct things counted are harbours, not the boats the question counts
        ("How many different harbour boats are there?", "SELECT count(DISTINCT harbour_id) FROM boat", False),
        ("How many distinct sailors have boats?", "SELECT count(*) FROM boat", False),
    ],
)
def test_different_of_a_count_of_distinct_things(question, sql, said):
    from ctxtool.english.content import content_tokens
    from ctxtool.runtime.matching.rewording import sql_said_ops

    tpl = compile_item("template", 0, {"nl_query": "How many are there?", "sql": sql}, "postgres")
    q_tokens = set(content_tokens(question))
    assert ("__distinct" in sql_said_ops({"__distinct"}, tpl, q_tokens, question)) is said


def test_words_that_say_nothing_need_no_value_to_fit_well():
    # a quoted piece of a name fits a LIKE slot loosely (a value factor, no disagreement): the light
    # verb "made" is still no condition
    q = 'Which boats made in the yard have "Sea" in their name?'
    matcher, qq, cand = _like(q, "Find the names of boats in the yard whose name contains $1.")
    assert cand.checks < 0.999 and "mak" in cand.unexplained
    matcher.verify(qq, cand)
    assert "mak" not in cand.unexplained
