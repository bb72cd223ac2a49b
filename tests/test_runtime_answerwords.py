"""What the question's words ask of the answer, against what the SQL returns (ctxtool.runtime
answershape / conditions): as many columns as things asked, an id or a code when one is asked, an
average or an end when one is asked, an included bound ("at least") compared inclusively. Each rule
turned wrong answers of drafted sets into declines; our own small templates (sailors and boats)."""

from __future__ import annotations

from ctxtool.english.reading import asked_items
from ctxtool.runtime.question.values import Entity
from ctxtool.runtime.templates.compile import compile_item
from tests.checks_support import check_on


def asks_for_two(question: str, tpl) -> str | None:
    return check_on("asks_for_two", question, tpl)


def aggregate_unsaid(question: str, tpl) -> str | None:
    return check_on("aggregate_unsaid", question, tpl)


def age_end(question: str, tpl) -> str | None:
    return check_on("age_end", question, tpl)


def asked_not_returned(question: str, tpl) -> str | None:
    return check_on("not_returned", question, tpl)


def returned_unlisted(question: str, tpl) -> str | None:
    return check_on("returned_unlisted", question, tpl)


def unasked_columns(question: str, tpl, values=None) -> list[str]:
    found = check_on("unasked_columns", question, tpl, values=values)
    return found.split(": ", 1)[1].split(", ") if found else []


def _tpl(sql: str, nl: str = "q", p_nl: str | None = None, p_sql: str | None = None) -> object:
    item: dict = {"nl_query": nl, "sql": sql}
    if p_nl and p_sql:
        item["parameterized"] = {"parameterized_intent": p_nl, "parameterized_sql": p_sql}
    return compile_item("template", 0, item, "postgres")


def test_the_things_a_question_lists():
    assert asked_items("What are the name, rig and length of boats owned by Ann?") == [
        "name",
        "rig",
        "length",
    ]
    # the list may come in a second sentence, after "please"
    assert asked_items("Which boat is the longest? Please list the boat name and its length.") == [
        "boat name",
        "length",
    ]
    # "first and last name" is two columns, as is "the full name"
    assert asked_items("What is the first and last name of the oldest sailor?") == ["first", "last name"]
    assert len(asked_items("Find the full names of sailors in the club.")) == 2
    # a conjunction after the asked words belongs to the conditions
    assert asked_items("What are the names of boats with rig A and owner B?") == ["names"]


def test_more_things_asked_than_columns_returned():
    two = _tpl("SELECT first_name, last_name FROM sailor ORDER BY rating DESC LIMIT 5")
    assert asks_for_two("What are the first name, rating, and phone of the 5 best sailors?", two)
    assert not asks_for_two("What are the first and last names of the 5 best sailors?", two)
    one = _tpl("SELECT boat_name FROM boat ORDER BY length LIMIT 1")
    assert asks_for_two("Which boat is the shortest? Please list the boat name and its length.", one)
    assert asks_for_two("Find the full name of the sailor.", _tpl("SELECT last_name FROM sailor"))
    # one aggregate answers "the count and ..." (how people say "how many")
    assert not asks_for_two("What is the count and the rig?", _tpl("SELECT count(*) FROM boat"))
    # all the information about the rows is every column, however the question names the rows
    names = _tpl("SELECT name FROM sailor ORDER BY rating")
    assert asks_for_two("Give all information regarding sailors, in order of rating.", names)
    assert not asks_for_two("Give all information regarding sailors.", _tpl("SELECT * FROM sailor"))


def test_an_id_asked_and_names_returned():
    names = _tpl("SELECT club.club_name, COUNT(*) FROM boat JOIN club ON boat.club_id = club.id GROUP BY 1")
    q = "How many boats does each club own? List the count and the club id."
    assert asks_for_two(q, names)
    ids = _tpl("SELECT club.id, COUNT(*) FROM boat JOIN club ON boat.club_id = club.id GROUP BY 1")
    assert not asks_for_two(q, ids)
    assert not asks_for_two("List the count and the club name.", names)
    # a column of no kind may be the id ("aid", "head"): only names returned say otherwise
    assert not asks_for_two("What are the ids of boats longer than 10?", _tpl("SELECT bid FROM boat"))


def test_an_average_or_an_end_the_sql_does_not_compute():
    prices = _tpl("SELECT DISTINCT price FROM boat")
    assert aggregate_unsaid("What is the average price of all the boats?", prices)
    assert not aggregate_unsaid(
        "What is the average price of all the boats?", _tpl("SELECT avg(price) FROM boat")
    )
    rigs = _tpl("SELECT DISTINCT rig FROM boat")
    assert aggregate_unsaid("What is the rig that has the most boats?", rigs)
    most = _tpl("SELECT rig FROM boat GROUP BY rig ORDER BY count(*) DESC LIMIT 1")
    assert not aggregate_unsaid("What is the rig that has the most boats?", most)
    # "at least" / "at most" compare, they take no end; a column may be the maximum
    assert not aggregate_unsaid("Which rigs have at least 3 boats?", rigs)
    latest = _tpl("SELECT date_of_latest_race FROM sailor WHERE club = 'A'")
    assert not aggregate_unsaid("Find the latest race date of the sailors of club A.", latest)
    # the template's wording says the column holds the average (a cryptic name)
    held = _tpl("SELECT b7 FROM harbour WHERE town = 'X'", "What is the average fee in X?")
    assert not aggregate_unsaid("What is the average fee in X?", held)
    capped = _tpl("SELECT name FROM boat WHERE max_speed > 10")
    assert not aggregate_unsaid("Which boats have a maximum speed above 10?", capped)


def test_an_included_bound_against_a_strict_comparison():
    strict = _tpl(
        "SELECT name FROM sailor WHERE age > 30",
        "Which sailors are older than 30?",
        "Which sailors are older than $1?",
        "SELECT name FROM sailor WHERE age > $1",
    )
    slot = {"1": (0, 1.0)}
    q = "Which sailors are at least 25 years old?"
    start = q.index("25")
    ents = [Entity("number", "25", start, start + 2, 25)]
    assert check_on("inclusive_bound", q, strict, slot, ents)
    q2 = "Which sailors are older than 25?"
    start = q2.index("25")
    assert (
        check_on("inclusive_bound", q2, strict, slot, [Entity("number", "25", start, start + 2, 25)]) is None
    )
    inclusive = _tpl(
        "SELECT name FROM sailor WHERE age >= 30",
        "Which sailors are 30 or older?",
        "Which sailors are $1 or older?",
        "SELECT name FROM sailor WHERE age >= $1",
    )
    assert check_on("inclusive_bound", q, inclusive, slot, ents) is None


def test_the_youngest_is_an_end_of_an_age():

    by_rating = _tpl("SELECT name FROM sailor WHERE rating > 3 ORDER BY rating ASC LIMIT 1")
    assert age_end("Who is the youngest sailor with a rating above 3?", by_rating)
    # the noun after the adjective is the rows' table, not the ordered column
    own = _tpl(
        "SELECT sailor.name FROM sailor WHERE sailor.sail_rating > 3 ORDER BY sailor.sail_rating LIMIT 1"
    )
    assert age_end("Who is the youngest sailor with a rating above 3?", own)
    by_birth = _tpl("SELECT name FROM sailor WHERE rating > 3 ORDER BY birth_date DESC LIMIT 1")
    assert not age_end("Who is the youngest sailor with a rating above 3?", by_birth)
    assert not age_end("Who is the oldest sailor?", _tpl("SELECT name FROM sailor ORDER BY age DESC LIMIT 1"))
    # "the oldest ids" names the column it orders by
    assert not age_end(
        "List the boats with the three oldest ids.", _tpl("SELECT name FROM boat ORDER BY id LIMIT 3")
    )


def test_a_thing_asked_that_the_sql_reads_and_leaves_out():

    names = _tpl("SELECT sailor.first_name, sailor.last_name FROM sailor WHERE sailor.sail_rating < 3")
    q = "Find the first name and rating of the sailors whose rating is below 3."
    assert asked_not_returned(q, names)
    both = _tpl("SELECT sailor.first_name, sailor.sail_rating FROM sailor WHERE sailor.sail_rating < 3")
    assert not asked_not_returned(q, both)
    # one thing asked, or a column the outer SELECT computes from: nothing left out
    assert not asked_not_returned("Find the first names of the sailors whose rating is below 3.", names)
    avg = _tpl("SELECT sailor.club, AVG(sailor.sail_rating) FROM sailor GROUP BY sailor.club")
    assert not asked_not_returned("What are the clubs and average ratings of sailors?", avg)


def test_one_thing_asked_that_the_sql_only_orders_by():

    names = _tpl(
        "SELECT sailor.name FROM race JOIN sailor ON race.sailor_id = sailor.id ORDER BY race.points DESC"
    )
    assert asked_not_returned("List the points of races in descending order.", names)
    # the rows themselves, or a second sentence that names what to return: nothing left out
    assert not asked_not_returned("List the sailors of races in descending order of points.", names)
    assert not asked_not_returned("Which sailor has the most points? Give me the name.", names)


def test_all_the_information_is_more_than_a_name():
    one = _tpl("SELECT name FROM sailor ORDER BY rating")
    assert asks_for_two("List the information of all sailors ordered by their rating.", one)
    assert not asks_for_two(
        "List the information of all sailors ordered by their rating.", _tpl("SELECT * FROM sailor")
    )


def test_an_id_asked_and_a_condition_column_returned_instead():

    q = "Show the id and name of the boat with the maximum length."
    swapped = _tpl("SELECT boat.name, boat.length FROM boat ORDER BY boat.length DESC LIMIT 1")
    assert returned_unlisted(q, swapped)
    assert not returned_unlisted(
        q, _tpl("SELECT boat.id, boat.name FROM boat ORDER BY boat.length DESC LIMIT 1")
    )
    # a cryptic key ("bno") is no condition's column: it may be the id
    assert not returned_unlisted(
        q, _tpl("SELECT boat.bno, boat.name FROM boat ORDER BY boat.length DESC LIMIT 1")
    )


def test_an_id_the_template_names_and_the_question_does_not_ask():
    tpl = compile_item(
        "template",
        0,
        {
            "nl_query": "What is the rig and id of the longest boat?",
            "sql": "SELECT rig, boat_id FROM boat ORDER BY length DESC LIMIT 1",
        },
        "postgres",
    )
    assert unasked_columns("What is the rig of the longest boat?", tpl) == ["boat_id"]
    assert unasked_columns("What are the rig and id of the longest boat?", tpl) == []


def test_a_word_taken_for_a_value_that_fills_no_slot_still_says_what_is_asked():
    from ctxtool.runtime.question.linking import LinkedValue

    tpl = compile_item(
        "template",
        0,
        {
            "nl_query": "What are the rig and tonnage of the longest boat?",
            "sql": "SELECT rig, tonnage FROM boat ORDER BY length DESC LIMIT 1",
        },
        "postgres",
    )
    q = "What is the rig and tonnage of the longest boat?"
    start = q.index("tonnage")
    found = LinkedValue("tonnage", start, start + 7, "tonnage", "boat.label", "Label", 0.0, 0)
    # the question's words leave the value out; a lower-case word is still a word of the question
    entity = Entity("linked", "tonnage", start, start + 7, "tonnage", link=found)
    assert unasked_columns(q, tpl, [entity]) == []
    # a name the question writes as one (capitalized) is a value, not a word
    named = Entity("linked", "Tonnage", start, start + 7, "Tonnage", link=found)
    assert unasked_columns(q, tpl, [named]) == ["tonnage"]


def test_a_column_named_in_one_word_or_with_a_slip_is_asked():
    tpl = compile_item(
        "template",
        0,
        {
            "nl_query": "Show the rig, the home port and the skipper of the longest boat.",
            "sql": "SELECT rig, home_port, skipper FROM boat ORDER BY length DESC LIMIT 1",
        },
        "postgres",
    )
    assert unasked_columns("What are the rig, homeport and skiper of the longest boat?", tpl) == []
    assert unasked_columns("What is the rig of the longest boat?", tpl) == ["home_port", "skipper"]


def test_a_list_written_without_its_spaces():
    from ctxtool.english.content import content_tokens

    assert content_tokens("the first names,last names of sailors") == ["firstnam", "lastnam", "sailor"]
