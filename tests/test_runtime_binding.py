"""Which value fills which slot, and what the question's words mean around them: a value two columns
hold, the template's own example repeated word for word, quoted numbers, single letters and letter
patterns, codes with digits, a two-word name over two side-by-side slots; and the words that say how
a question is built (contractions, a person's names, "which", "each", "phone number").

Our own small fixtures (a course catalogue), no database: the matcher by words only.
"""

from __future__ import annotations

from typing import Any

from ctxtool.english.content import content_tokens, operator_spans
from ctxtool.english.literals import find_literals
from ctxtool.runtime.checks.operators import word_agreement
from ctxtool.runtime.checks.values import stated_by
from ctxtool.runtime.matching.binding import bind_slots, param_value
from ctxtool.runtime.matching.matcher import Matcher
from ctxtool.runtime.matching.stated import split_names, stated_values
from ctxtool.runtime.question.linking import LinkedValue
from ctxtool.runtime.question.values import Entity, entities_of
from ctxtool.runtime.templates.compile import compile_item, facts_of
from tests.checks_support import rank, read


def _template(index: int, question: str, sql: str, pintent: str, psql: str) -> Any:
    item = {
        "nl_query": question,
        "sql": sql,
        "parameterized": {"parameterized_intent": pintent, "parameterized_sql": psql},
    }
    return compile_item("template", index, item, "postgres")


def _entities(question: str, links: list[LinkedValue] | None = None) -> list[Entity]:
    return entities_of(find_literals(question), links or [])


COURSE = _template(
    0,
    "How many teachers teach the course with code HIST-101?",
    "SELECT count(DISTINCT teacher_id) FROM lesson WHERE course_code = 'HIST-101'",
    "How many teachers teach the course with code $1?",
    "SELECT count(DISTINCT teacher_id) FROM lesson WHERE course_code = $1",
)
TERM = _template(
    1,
    "Which rooms were used in the Autumn term?",
    "SELECT room FROM lesson WHERE term = 'Autumn'",
    "Which rooms were used in the $1 term?",
    "SELECT room FROM lesson WHERE term = $1",
)
GRADE = _template(
    2,
    "List the pupils who got a grade B.",
    "SELECT name FROM pupil WHERE grade = 'B'",
    "List the pupils who got a grade $1.",
    "SELECT name FROM pupil WHERE grade = $1",
)
ROOM = _template(
    3,
    "Which teacher has room number 204?",
    "SELECT name FROM teacher WHERE room_no = 204",
    "Which teacher has room number $1?",
    "SELECT name FROM teacher WHERE room_no = $1",
)
PUPIL = _template(
    4,
    'How many lessons does "Anna Berg" attend?',
    "SELECT count(*) FROM attends WHERE first_name = 'Anna' AND last_name = 'Berg'",
    'How many lessons does "$1 $2" attend?',
    "SELECT count(*) FROM attends WHERE first_name = $1 AND last_name = $2",
)
NICK = _template(
    5,
    'How many lessons does the pupil nicknamed "Bee" attend?',
    "SELECT count(*) FROM attends WHERE nickname = 'Bee'",
    "How many lessons does the pupil nicknamed $1 attend?",
    "SELECT count(*) FROM attends WHERE nickname = $1",
)
INITIAL = _template(
    6,
    "Which pupils have a name starting with the letter K?",
    "SELECT name FROM pupil WHERE name LIKE 'K%'",
    "Which pupils have a name starting with the letter $1?",
    "SELECT name FROM pupil WHERE name LIKE $1",
)


def test_a_number_inside_a_code_is_part_of_the_code():
    assert find_literals("the course HIST-101 and 3 rooms")[0].text == "3"
    assert [lit.text for lit in find_literals("between 10-20 rooms")] == ["10", "20"]
    # the template's own example repeated: the code fills the slot although no value search knows it
    q = "How many teachers are teaching HIST-101?"
    ents = _entities(q)
    assert stated_values(q, [COURSE], ents)
    binding = bind_slots(COURSE.slots, ents, set())
    assert binding is not None and ents[binding["1"][0]].value == "HIST-101"


def test_the_example_repeated_replaces_an_approximate_reading_and_a_number_inside_it():
    q = "How many teachers teach HIST-101?"
    near = LinkedValue("HIST-101", q.index("HIST"), q.index("HIST") + 8, "History", "dept.name", "", 0.2, 0)
    ents = _entities(q, [near])
    stated_values(q, [COURSE], ents)
    assert [e.kind for e in ents] == ["stated"]
    office = _template(
        7,
        "Who sits in office DRE 102?",
        "SELECT name FROM teacher WHERE office = 'DRE 102'",
        "Who sits in office $1?",
        "SELECT name FROM teacher WHERE office = $1",
    )
    q = "Which teacher has the office DRE 102?"
    ents = _entities(q)
    assert [e.kind for e in ents] == ["number"]
    stated_values(q, [office], ents)
    assert [(e.kind, e.value) for e in ents] == [("stated", "DRE 102")]


def test_a_value_two_columns_hold_is_read_on_the_slots_column():
    q = "Which rooms were used in the Autumn term?"
    a = q.index("Autumn")
    # found exactly as a pupil's name first; the value search also found it as a term
    link = LinkedValue("Autumn", a, a + 6, "Autumn", "pupil.name", "", 0.0, 0)
    link.alternatives = [LinkedValue("Autumn", a, a + 6, "Autumn", "lesson.term", "", 0.0, 1)]
    ents = _entities(q, [link])
    binding = bind_slots(TERM.slots, ents, set())
    assert binding == {"1": (0, 1.0)}
    # no such reading: an exact repetition of the template's example adds it
    bare = LinkedValue("Autumn", a, a + 6, "Autumn", "pupil.name", "", 0.0, 0)
    ents = _entities(q, [bare])
    assert bind_slots(TERM.slots, ents, set()) is None
    stated_values(q, [TERM], ents)
    assert bind_slots(TERM.slots, ents, set()) is not None
    assert param_value(ents[0], TERM.slots[0]) == "Autumn"


def test_a_slot_takes_the_value_found_exactly_over_words_near_another_one():
    q = "Which rooms were used in the terms of the Autumn Session?"
    a, b = q.index("terms of the"), q.index("Autumn Session")
    near = LinkedValue("terms of the", a, a + 12, "Terms of Trade", "lesson.term", "", 0.24, 0)
    exact = LinkedValue("Autumn Session", b, b + 14, "Autumn Session", "lesson.term", "", 0.0, 0)
    ents = _entities(q, [near, exact])
    binding = bind_slots(TERM.slots, ents, set())
    assert binding is not None and ents[binding["1"][0]].value == "Autumn Session"


def _bound_values(tpl: Any, question: str) -> list[Any]:
    ents = _entities(question)
    binding = bind_slots(tpl.slots, ents, set())
    assert binding is not None
    return [ents[binding[s.key][0]].value for s in tpl.slots]


def test_the_only_number_slot_takes_the_example_the_question_repeats():
    sql = "SELECT room FROM desk GROUP BY room HAVING count(*) >= 2 AND sum(chairs) >= "
    both = _template(
        41, "Which rooms have at least two desks and 10 chairs?", sql + "10",
        "Which rooms have at least two desks and $1 chairs?", sql + "$1",
    )  # fmt: skip
    assert _bound_values(both, "Which rooms hold two or more desks and 10 or more chairs in all?") == [10]
    # two slots of a kind take their values in the question's order, examples or not
    sql = "SELECT room FROM building WHERE built BETWEEN "
    span = _template(
        42, "Which rooms were built between 1995 and 1997?", sql + "1995 AND 1997",
        "Which rooms were built between $1 and $2?", sql + "$1 AND $2",
    )  # fmt: skip
    assert _bound_values(span, "Which rooms were built between 1990 and 1995?") == [1990, 1995]


def test_a_stored_value_the_templates_wording_states_inflected_or_spaced_otherwise():
    q = "Which pupils play the Keeper role in the Green , Valley team?"
    a, b = q.index("Keeper"), q.index("Green , Valley")
    keeper = LinkedValue("Keeper", a, a + 6, "Keeper", "pupil.role", "", 0.0, 0)
    valley = LinkedValue("Green , Valley", b, b + 14, "Green , Valley", "team.name", "", 0.04, 1)
    near = LinkedValue("Keeper", a, a + 6, "Keepers", "pupil.role", "", 0.1, 0)
    keeper_e, valley_e = _entities(q, [keeper, valley])
    (near_e,) = _entities(q, [near])
    wording = "Which pupils are keepers of the Green,Valley team?"
    assert stated_by(keeper_e, wording) and stated_by(valley_e, wording)
    assert not stated_by(keeper_e, "Which pupils are in the Green,Valley team?")
    assert not stated_by(near_e, "Which pupils keep the team?")  # found only approximately


def test_single_letters_and_letter_patterns():
    q = "Which pupils received a grade B?"
    ents = _entities(q)
    assert stated_values(q, [GRADE], ents) and ents[0].value == "B"
    # the article is no grade A
    grade_a = _template(
        8,
        "List the pupils with grade A.",
        "SELECT name FROM pupil WHERE grade = 'A'",
        "List the pupils with grade $1.",
        "SELECT name FROM pupil WHERE grade = $1",
    )
    q = "List a pupil of each grade."
    assert not stated_values(q, [grade_a], _entities(q))
    assert stated_values("Who received an A?", [grade_a], _entities("Who received an A?"))
    # "starting with the letter m": a pattern value, wildcards from the template
    q = "Which pupils have names that start with the letter m?"
    ents = _entities(q)
    assert [(e.kind, e.value) for e in ents] == [("quoted", "m")]
    binding = bind_slots(INITIAL.slots, ents, set())
    assert binding is not None and param_value(ents[0], INITIAL.slots[0]) == "m%"
    assert _entities("names starting with a vowel") == []
    assert [lit.value for lit in find_literals("used more than twice")] == [2]


def test_a_quoted_number_fills_a_number_slot_as_a_number():
    q = 'Which teacher is in room number "310"?'
    ents = _entities(q)
    binding = bind_slots(ROOM.slots, ents, set())
    assert binding is not None
    assert param_value(ents[binding["1"][0]], ROOM.slots[0]) == 310


def test_a_quoted_two_word_name_fills_two_side_by_side_slots():
    q = 'How many lessons is "Karl Ode" attending?'
    ents = _entities(q)
    assert split_names(q, [PUPIL, NICK], ents)
    binding = bind_slots(PUPIL.slots, ents, set(), frozenset({"1", "2"}))
    assert binding is not None
    assert [ents[binding[k][0]].value for k in ("1", "2")] == ["Karl", "Ode"]
    # a one-slot template takes the whole name, never one of its words
    one = bind_slots(NICK.slots, ents, set())
    assert one is not None and ents[one["1"][0]].value == "Karl Ode"
    # and the words of a name go to side-by-side slots only
    assert bind_slots(PUPIL.slots, ents, set()) is None
    # the matcher counts the name once, whole: no "unused" value for the template that takes its words
    matcher = Matcher([PUPIL, NICK], [])
    by_index = {c.template.index: c for c in rank(matcher, q, _entities(q))}
    assert by_index[4].finding("unused") is None and by_index[4].bindings


def test_the_words_that_build_a_question():
    assert content_tokens("who don't advise any pupil") == content_tokens("who do not advise any pupil")
    assert "__not" in content_tokens("pupils that can't swim")
    assert set(content_tokens("the full names of the pupils")) == set(
        content_tokens("the first names and last names of the pupils")
    )
    assert "__min_date" not in content_tokens("the first name of the teacher")
    assert content_tokens("the phone number of every teacher") == ["phon", "number", "teacher"]
    assert "__count" in content_tokens("the number of teachers for each room")
    assert "__each" in content_tokens("the number of teachers for each room")
    assert "__each" not in content_tokens("the name of each teacher")
    # "which" asks only at the start of a sentence
    assert "which" in content_tokens("Which room is the largest?")
    assert "which" not in content_tokens("the rooms which have a window")
    q = "rooms with greater than 20 seats and at least 2 doors"
    assert [q[a:b] for a, b in operator_spans(q)] == ["greater than", "at least"]
    # a person's names are never looked up as values, in whatever order they are listed
    q = "the full names, or the first, middle, and last names"
    assert [q[a:b] for a, b in operator_spans(q)] == ["full names", "first, middle, and last names"]
    assert content_tokens("the first and last names") == content_tokens("the first name and last name")
    assert content_tokens("first, middle and last names") == ["firstnam", "middlenam", "lastnam"]
    assert "__min_date" in content_tokens("When did she first become a customer?")
    # "under the category" is a place, "under 20" a comparison; "> 80000" says "more than 80000"
    assert "__lt" not in content_tokens("the products under the category Seeds")
    assert "__lt" in content_tokens("pupils under 20")
    assert "__gt" not in content_tokens("the most rooms over its entire existence")
    assert content_tokens("teachers with salary > 80000") == content_tokens("teachers with salary over 80000")
    assert set(content_tokens("pupils aged 12 or older")) == set(content_tokens("pupils aged at least 12"))


def test_what_the_sql_computes_agrees_with_the_question_but_is_never_required():
    assert facts_of("SELECT count(DISTINCT room) FROM lesson").operators == {"__count", "__distinct"}
    assert facts_of("SELECT name FROM t ORDER BY size DESC LIMIT 1").operators == {"__max", "__order"}
    assert "__not" in facts_of("SELECT id FROM t EXCEPT SELECT id FROM u").operators
    free = _template(
        0,
        "Which rooms are free?",
        "SELECT name FROM room WHERE name NOT IN (SELECT room FROM lesson)",
        "Which rooms are free?",
        "SELECT name FROM room WHERE name NOT IN (SELECT room FROM lesson)",
    )
    booked = _template(
        1,
        "Which rooms are free?",
        "SELECT name FROM room WHERE name IN (SELECT room FROM lesson)",
        "Which rooms are free?",
        "SELECT name FROM room WHERE name IN (SELECT room FROM lesson)",
    )
    matcher = Matcher([free, booked], [])
    q = read("Which rooms are not used?", [free, booked])
    by_index = {c.template.index: c for c in rank(matcher, q.text, [])}
    # the NOT IN says "not" (the words as the wording and the SQL say them)
    assert word_agreement(q, by_index[0], free.facts) == 1.0
    assert word_agreement(q, by_index[1], booked.facts) < 1.0
    # a question that does not say "not" loses nothing against the NOT IN template
    plain = {c.template.index: c for c in rank(matcher, "Which rooms are free?", [])}
    assert "operators" not in plain[0].factors and "operators" not in plain[1].factors


def test_either_of_two_against_a_template_with_one_value():
    q = "How many pupils got either a grade B or C?"
    matcher = Matcher([GRADE], [])
    ents = _entities(q)
    cands = rank(matcher, q, ents)
    assert cands and cands[0].factors.get("either", 1.0) < 1.0


def test_corresponding_number_of_is_a_count():
    assert "__count" in content_tokens("Show all rooms and the corresponding number of lessons.")
    assert "__count" in content_tokens("Which room has the most number of lessons?")


def test_which_asks_for_the_things_a_template_returns():
    names = _template(
        0,
        "Find the name of the room with the most lessons.",
        "SELECT r.name FROM room r JOIN lesson l ON l.room = r.name GROUP BY r.name ORDER BY count(*) DESC LIMIT 1",
        "Find the name of the room with the most lessons.",
        "SELECT r.name FROM room r JOIN lesson l ON l.room = r.name GROUP BY r.name ORDER BY count(*) DESC LIMIT 1",
    )
    how_many = _template(
        1,
        "How many lessons does the busiest room have?",
        "SELECT max(n) FROM (SELECT count(*) AS n FROM lesson GROUP BY room) t",
        "How many lessons does the busiest room have?",
        "SELECT max(n) FROM (SELECT count(*) AS n FROM lesson GROUP BY room) t",
    )
    matcher = Matcher([names, how_many], [])
    by_index = {c.template.index: c for c in rank(matcher, "Which room has the most lessons?", [])}
    # "which room" asks for the rooms' names the first template returns ("the name of the room")
    assert "nam" not in by_index[0].missing and by_index[0].t_cov == 1.0
    # a template's own "Which ..." is what "the name of ..." asks, when it returns rows
    which = _template(
        2,
        "Which room has the most lessons?",
        "SELECT r.name FROM room r JOIN lesson l ON l.room = r.name GROUP BY r.name ORDER BY count(*) DESC LIMIT 1",
        "Which room has the most lessons?",
        "SELECT r.name FROM room r JOIN lesson l ON l.room = r.name GROUP BY r.name ORDER BY count(*) DESC LIMIT 1",
    )
    cand = rank(Matcher([which], []), "Give the name of the room with the most lessons.", [])[0]
    assert "which" not in cand.missing and cand.t_cov == 1.0


def test_the_most_common_is_the_most_counted_and_where_asks_for_a_location():
    assert set(content_tokens("Which room is the most common?")) >= {"__max", "__count"}
    assert set(content_tokens("the least frequently used room")) >= {"__min", "__count"}
    assert content_tokens('Where is the room "B12" located?')[0] == content_tokens("the location")[0]
    assert "location" not in content_tokens("the town where the teacher lives")


def test_a_word_that_begins_a_run_together_table_name_is_what_the_template_reads():
    from ctxtool.runtime.checks.schema import inside_name

    assert inside_name("author", {"authorship"})
    assert inside_name("order", {"shop.customer_orders"})
    assert not inside_name("ship", {"authorship"})  # too short to tell
    written = _template(
        0,
        "How many papers did Kim write?",
        "SELECT count(*) FROM authorship a JOIN paper p ON p.id = a.paper_id WHERE a.name = 'Kim'",
        "How many papers did $1 write?",
        "SELECT count(*) FROM authorship a JOIN paper p ON p.id = a.paper_id WHERE a.name = $1",
    )
    other = _template(
        1,
        "How many authors are there?",
        "SELECT count(*) FROM author",
        "How many authors are there?",
        "SELECT count(*) FROM author",
    )
    matcher = Matcher([written, other], [])
    q = "How many papers has the author Kim written?"
    ents = _entities(q)
    stated_values(q, [written], ents)
    cand = next(c for c in rank(matcher, q, ents) if c.template.index == 0)
    assert "entities" not in cand.factors


def test_a_repeated_value_of_a_column_named_without_its_table_fills_the_slot():
    course = _template(
        9,
        "How many credits does course HIST-101 have?",
        "SELECT credits FROM course WHERE course.course_code = 'HIST-101'",
        "How many credits does course $1 have?",
        "SELECT credits FROM course WHERE course.course_code = $1",
    )
    # the other template names the column without its table ("course_code"): the same column
    q = "How many credits does course ART-220 have?"
    ents = _entities(q)
    ents.append(
        Entity("stated", "ART-220", q.index("ART"), q.index("ART") + 7, "ART-220", column="course_code")
    )
    binding = bind_slots(course.slots, ents, set())
    assert binding is not None and ents[binding["1"][0]].value == "ART-220"
    # a plural of a long value is the value ("two Boeing 737-800s")
    ents = _entities("Who flies Boeing 737-800s?")
    plane = _template(
        10,
        "Who flies a Boeing 737-800?",
        "SELECT pilot FROM flight WHERE plane = 'Boeing 737-800'",
        "Who flies a $1?",
        "SELECT pilot FROM flight WHERE plane = $1",
    )
    assert stated_values("Who flies Boeing 737-800s?", [plane], ents)
    assert [(e.kind, e.value) for e in ents] == [("stated", "Boeing 737-800")]


def test_a_word_that_ends_a_compound_is_that_compound():
    from ctxtool.runtime.matching.coverage import compound_parts

    towns, hometowns = set(content_tokens("towns")), set(content_tokens("hometowns"))
    assert compound_parts(towns, hometowns) == (towns, hometowns)
    assert compound_parts(hometowns, towns) == (hometowns, towns)
    assert compound_parts(set(content_tokens("member")), set(content_tokens("membership"))) == (set(), set())
    teachers = _template(
        0,
        "Show the hometowns of all teachers.",
        "SELECT hometown FROM teacher",
        "Show the hometowns of all teachers.",
        "SELECT hometown FROM teacher",
    )
    cand = rank(Matcher([teachers], []), "What towns do the teachers come from?", [])[0]
    assert "town" not in cand.unexplained and "hometown" not in cand.missing


def test_the_name_of_a_thing_is_the_thing_a_template_returns_and_nothing_else():
    from ctxtool.english.reading import name_of

    assert name_of("List them with the name of the building.") == set(content_tokens("building"))
    assert name_of("What are all the room codes, room names, and room descriptions?") == set()
    buildings = _template(
        0,
        "Show all the buildings and their number of rooms.",
        "SELECT building, count(*) FROM room GROUP BY building",
        "Show all the buildings and their number of rooms.",
        "SELECT building, count(*) FROM room GROUP BY building",
    )
    named = _template(
        1,
        "Show the name of each room.",
        "SELECT name FROM room",
        "Show the name of each room.",
        "SELECT name FROM room",
    )
    matcher = Matcher([buildings, named], [])
    q = "How many rooms does each building have? List them with the name of the building."
    cand = next(c for c in rank(matcher, q, []) if c.template.index == 0)
    assert "columns" not in cand.factors
    q = "What are the buildings and the names of the rooms?"
    cand = next(c for c in rank(matcher, q, []) if c.template.index == 0)
    assert cand.factors.get("columns", 1.0) < 1.0  # the rooms' names: a template without them


def test_the_example_stated_in_its_long_or_short_form():
    gloss = _template(
        20,
        "How many pupils are boys (gender B)?",
        "SELECT count(*) FROM pupil WHERE gender = 'B'",
        "How many pupils are boys (gender $1)?",
        "SELECT count(*) FROM pupil WHERE gender = $1",
    )
    town = _template(
        21,
        "Which pupils live in New Haven?",
        "SELECT name FROM pupil WHERE town = 'New Haven'",
        "Which pupils live in $1?",
        "SELECT name FROM pupil WHERE town = $1",
    )
    region = _template(
        22,
        "Which schools are in the region ON?",
        "SELECT name FROM school WHERE region = 'ON'",
        "Which schools are in the region $1?",
        "SELECT name FROM school WHERE region = $1",
    )
    cases = [
        (gloss, "Count the boys among the pupils.", "boys", "B"),  # the word the wording glosses 'B' with
        (town, "Which pupils live in NH?", "NH", "New Haven"),  # initials
        (region, "Which schools are in Ontario?", "Ontario", "ON"),  # a capitalized word the code begins
    ]
    for tpl, q, said, value in cases:
        ents = _entities(q)
        assert stated_values(q, [tpl], ents), q
        assert [(e.kind, e.text, e.value) for e in ents] == [("stated", said, value)]
        binding = bind_slots(tpl.slots, ents, set())
        assert binding is not None and param_value(ents[binding["1"][0]], tpl.slots[0]) == value
    # a word of counting glosses nothing; another word than the gloss states nothing; a lower-case
    # word is no name for a code
    for tpl, q in ((gloss, "How many pupils are girls?"), (region, "Which schools are in ontology?")):
        ents = _entities(q)
        assert not stated_values(q, [tpl], ents), q
    many = _template(
        23,
        "How many (in group M) are there?",
        "SELECT count(*) FROM pupil WHERE grp = 'M'",
        "How many (in group $1) are there?",
        "SELECT count(*) FROM pupil WHERE grp = $1",
    )
    assert not stated_values("How many pupils are there?", [many], [])
    # a word beginning with the code's letter is no gloss outside the parenthesis that explains it
    grade = _template(
        24,
        "Which pupils got grade C in any class?",
        "SELECT name FROM pupil WHERE grade = 'C'",
        "Which pupils got grade $1 in any class?",
        "SELECT name FROM pupil WHERE grade = $1",
    )
    assert not stated_values("Which pupils are in each class?", [grade], [])


def test_a_quoted_value_and_a_value_with_the_templates_own_words_read_on_the_slots_column():
    pattern = _template(
        26,
        'Which lessons have "LAB" in their title?',
        "SELECT title FROM lesson WHERE title LIKE '%LAB%'",
        "Which lessons have $1 in their title?",
        "SELECT title FROM lesson WHERE title LIKE $1",
    )
    q = 'List the lessons whose title contains "LAB".'
    s = q.index('"LAB"')
    code = LinkedValue('"LAB"', s, s + 5, "LAB", "lesson.kind", "", 0.0, 0)
    ents = _entities(q, [code])
    stated_values(q, [pattern], ents)
    binding = bind_slots(pattern.slots, ents, set())
    assert binding is not None and param_value(ents[binding["1"][0]], pattern.slots[0]) == "%LAB%"
    county = _template(
        27,
        "How many schools are in Lake County?",
        "SELECT count(*) FROM school WHERE county = 'Lake'",
        "How many schools are in $1 County?",
        "SELECT count(*) FROM school WHERE county = $1",
    )
    q = "Count the schools in Lake County."
    s = q.index("Lake")
    whole = LinkedValue("Lake County", s, s + 11, "Lake County", "district.name", "", 0.0, 0)
    ents = _entities(q, [whole])
    stated_values(q, [county], ents)
    binding = bind_slots(county.slots, ents, set())
    assert binding is not None and param_value(ents[binding["1"][0]], county.slots[0]) == "Lake"


def test_numbers_said_in_words_and_comparisons_a_few_words_before():
    lits = find_literals("Which pupils had more than one lesson? Which one is it?")
    assert [(lit.value, lit.direction) for lit in lits] == [(1, 1)]
    assert find_literals("at least one of them") == []
    assert [lit.direction for lit in find_literals("a salary greater than or equal to 500")] == [1]
    assert [lit.direction for lit in find_literals("a salary less than or equal to 500")] == [-1]
    assert [lit.direction for lit in find_literals("with at least a salary of 500")] == [1]
    assert [lit.direction for lit in find_literals("lessons more expensive than 50")] == [1]
    assert [lit.direction for lit in find_literals("more than 3 rooms and 2 desks")] == [1, 0]
    # a number after a noun names a thing ("room 111"), it keeps no rows
    assert [lit.rank for lit in find_literals("who used room 111 most recently")] == [False]
    assert [lit.rank for lit in find_literals("the 5 largest rooms")] == [True]


def test_ordinals_are_numbers_unless_they_begin_a_name():
    year = _template(
        40,
        "How many pupils are in each grade 2 room?",
        "SELECT room, count(*) FROM pupil WHERE grade = '2' GROUP BY room",
        "How many pupils are in each grade $1 room?",
        "SELECT room, count(*) FROM pupil WHERE grade = $1 GROUP BY room",
    )
    ents = _entities("How many pupils are in each fourth-grade room?")
    (slot,) = year.slots
    binding = bind_slots([slot], ents, set())
    assert binding is not None and param_value(ents[binding["1"][0]], slot) == "4"
    assert [(lit.value, lit.rank) for lit in find_literals("the 3rd desk and the second largest room")] == [
        (3, False),
        (2, True),
    ]
    # "first" and "last" order things or name them; a capital mid-sentence begins a name
    assert find_literals("the first name of the last pupil") == []
    assert find_literals("rooms of the Third-floor wing") == []
    (second,) = _entities("the pupils of the 2nd row")
    assert stated_by(second, "the pupils of the second row")


def test_a_date_kept_as_text_binds_as_written():
    voted = _template(
        28,
        "Who voted on 05/12/2014?",
        "SELECT name FROM vote WHERE voted_on = '05/12/2014'",
        "Who voted on $1?",
        "SELECT name FROM vote WHERE voted_on = $1",
    )
    q = "Who voted on 08/30/2015?"
    ents = _entities(q)
    binding = bind_slots(voted.slots, ents, set())
    assert binding is not None and param_value(ents[0], voted.slots[0]) == "08/30/2015"
    assert bind_slots(voted.slots, _entities("Who voted on March 5, 2015?"), set()) is None


def test_one_fills_only_a_slot_about_one():
    above = _template(
        29,
        "Which rooms have more than one desk with a height above 90?",
        "SELECT room FROM desk GROUP BY room HAVING count(*) > 1 AND max(height) > 90",
        "Which rooms have more than one desk with a height above $1?",
        "SELECT room FROM desk GROUP BY room HAVING count(*) > 1 AND max(height) > $1",
    )
    q = "Which rooms have more than one desk with a height above 80?"
    ents = _entities(q)
    binding = bind_slots(above.slots, ents, set())
    assert binding is not None and ents[binding["1"][0]].value == 80
    assert bind_slots(above.slots, _entities("Which rooms have more than one desk?"), set()) is None


def test_words_in_capitals_are_a_name_and_units_measure():
    lits = find_literals("How many pupils does ANNA BERG teach?")
    assert [(lit.kind, lit.text) for lit in lits] == [("quoted", "ANNA BERG")]
    assert find_literals("What is the GPA of USA pupils?") == []
    assert find_literals("HOW MANY PUPILS ARE THERE") == []
    q = "How many lessons does ANNA BERG attend?"
    ents = _entities(q)
    split_names(q, [PUPIL], ents)
    binding = bind_slots(PUPIL.slots, ents, set(), frozenset({"1", "2"}))
    assert binding is not None
    assert [ents[binding[k][0]].value for k in ("1", "2")] == ["ANNA", "BERG"]
    assert "__count" not in content_tokens("How many hours do the pupils train?")
    assert "__count" in content_tokens("How many pupils train?")
    assert content_tokens("pupils 20 years old") == ["pupil", "20", "age"]
    assert content_tokens("the total count of pupils") == ["__count", "pupil"]


def test_what_the_question_calls_a_value_and_compound_column_names():
    pupil = _template(
        30,
        'How many lessons does the pupil "Anna" attend?',
        "SELECT count(*) FROM attends WHERE pupil_name = 'Anna'",
        "How many lessons does the pupil $1 attend?",
        "SELECT count(*) FROM attends WHERE pupil_name = $1",
    )
    teacher = _template(
        31,
        'How many lessons does the teacher "Otto" give?',
        "SELECT count(*) FROM lesson WHERE teacher_name = 'Otto'",
        "How many lessons does the teacher $1 give?",
        "SELECT count(*) FROM lesson WHERE teacher_name = $1",
    )
    matcher = Matcher([pupil, teacher], [])
    q = 'How many lessons does the teacher "Eva" give?'
    # the question calls its value a teacher: no pupil's name
    assert [c.template.index for c in rank(matcher, q, _entities(q))] == [31]
    phones = _template(
        32,
        "Show the addresses and phones of all schools.",
        "SELECT address, phone FROM school",
        "Show the addresses and phones of all schools.",
        "SELECT address, phone FROM school",
    )
    rooms = _template(
        33,
        "Show the room number of each desk.",
        "SELECT number FROM room",
        "Show the room number of each desk.",
        "SELECT number FROM room",
    )
    matcher = Matcher([phones, rooms], [])
    cand = next(c for c in rank(matcher, "What are the address and phone number of the schools?", []))
    assert cand.template.index == 32 and "columns" not in cand.factors
    # "the phone, number and address" asks for three things: the template returns two columns
    cand = next(
        c
        for c in rank(matcher, "What are the phone, number and address of the schools?", [])
        if c.template.index == 32
    )
    assert cand.factors.get("asks_for_two", 1.0) < 1.0


def test_a_value_said_twice_is_one_condition_and_lookalikes_must_be_spelled_alike():
    from ctxtool.runtime.question.linking import _spelling_distance

    q = 'Which pupils are boys (gender "B") in the term "B"?'
    gender = _template(
        34,
        'Which pupils have gender "G"?',
        "SELECT name FROM pupil WHERE gender = 'G'",
        "Which pupils have gender $1?",
        "SELECT name FROM pupil WHERE gender = $1",
    )
    ents = _entities(q)
    assert [e.value for e in ents] == ["B", "B"]
    cand = rank(Matcher([gender], []), q, ents)[0]
    assert "unused" not in cand.factors
    q = "Which rooms have 20 desks and 20 chairs?"
    rooms = _template(
        35,
        "Which rooms have 10 desks?",
        "SELECT room FROM desk GROUP BY room HAVING count(*) = 10",
        "Which rooms have $1 desks?",
        "SELECT room FROM desk GROUP BY room HAVING count(*) = $1",
    )
    cand = rank(Matcher([rooms], []), q, _entities(q))[0]
    assert cand.factors.get("unused", 1.0) < 1.0  # two numbers may be two conditions
    assert _spelling_distance("Prauge", "Prague") < 0.2
    assert _spelling_distance("Compute the mean price", "Complete Walletectomy") > 0.35
    assert _spelling_distance("Praha", "Hl.m. Praha") == 0.0  # a word of the value


def test_holding_a_piece_of_text_said_in_other_words():
    for q in (
        "Which names include 'Ann'?",
        "Which names have the substring 'Ann'?",
        "Which names contain 'Ann'?",
    ):
        assert "contain" in content_tokens(q), q
