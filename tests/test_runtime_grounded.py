"""Operator words decided by the template's SQL (ctxtool.runtime.checks.grounding): a word only
one side states counts against a candidate only when the SQL computes what the word says (or the
question asks for something the SQL does not compute). Our own small templates, no database."""

from __future__ import annotations

from ctxtool.english.content import content_tokens
from ctxtool.runtime.checks.operators import grounded_operators, grounded_ops, operator_agreement
from ctxtool.runtime.matching.candidate import Candidate
from ctxtool.runtime.templates.compile import compile_item, facts_of


def sql_realizes(sql: str) -> frozenset[str]:
    return facts_of(sql).realizes


def ops(text: str) -> set[str]:
    return {t for t in content_tokens(text) if t.startswith("__")}


def agreement(question: str, wording: str, sql: str) -> float:
    q, t = grounded_ops(ops(question), ops(wording), sql_realizes(sql))
    return operator_agreement(q, t)[0]


def test_what_the_sql_computes():
    assert sql_realizes("SELECT name FROM boat ORDER BY length DESC LIMIT 1") == {"end", "one end"}
    assert sql_realizes("SELECT name FROM boat ORDER BY length DESC") == {"end", "listed desc"}
    assert sql_realizes("SELECT count(*) FROM boat WHERE length >= 3") == {"range", "__count"}
    assert sql_realizes("SELECT name FROM boat WHERE owner <> 'a > b'") == {"negation"}
    assert sql_realizes("SELECT avg(length), sum(width) FROM boat") == {"__avg", "__sum"}


def test_a_wording_word_the_sql_does_not_compute_is_no_operator():
    # "the phone number of" counts nothing; "first name" takes no end; "under the code" compares nothing
    sql = "SELECT first_name, phone_number FROM sailor WHERE club = $1"
    assert (
        operator_agreement(
            ops("full names and phones of sailors in club X"),
            ops("the first name and phone number of sailors under club $1"),
        )[0]
        < 1
    )
    assert (
        agreement(
            "full names and phones of sailors in club X",
            "the first name and phone number of sailors under club $1",
            sql,
        )
        == 1.0
    )


def test_a_word_the_question_alone_states_is_met_by_the_sql():
    sql = "SELECT name FROM sailor WHERE age >= $1"
    assert agreement("sailors at least 25 years old", "sailors aged $1 or older", sql) == 1.0
    # the youngest, said as the smallest age: one end on two axes
    sql = "SELECT name FROM sailor ORDER BY age ASC LIMIT 1"
    assert agreement("the youngest sailor", "the sailor with the smallest age", sql) == 1.0
    assert agreement("how many boats each sailor has", "the boats of each sailor and their number", sql) < 1


def test_what_the_sql_computes_still_has_to_be_asked():
    sql = "SELECT label FROM album GROUP BY label ORDER BY count(*) DESC LIMIT 1"
    assert agreement("what are all the labels", "the label that has the most albums", sql) < 1
    # the question asks for an end the SQL does not take
    assert (
        agreement(
            "the most common college", "the authors and their colleges", "SELECT author, college FROM s"
        )
        < 1
    )
    # "the latest" is one row: an ORDER BY that lists them all does not take it
    sql = "SELECT name, left_office FROM minister ORDER BY left_office"
    assert (
        agreement("the minister who left office latest", "the ministers listed by when they left office", sql)
        < 1
    )
    # words on one axis both sides state still differ, computed or not
    assert agreement("the latest boat", "the first boat", "SELECT name FROM boat") < 1


def test_an_opposite_is_still_an_opposite():
    sql = "SELECT name FROM boat ORDER BY length DESC LIMIT 1"
    assert agreement("the boat with the fewest sails", "the boat with the most sails", sql) < 0.5


def test_a_candidate_reads_its_value_words_and_contracted_negations():
    tpl = compile_item(
        "template",
        0,
        {
            "nl_query": "Which sailors don't own a boat?",
            "sql": "SELECT name FROM sailor WHERE id NOT IN (SELECT owner FROM boat)",
        },
        "postgres",
    )
    cand = Candidate(tpl, 0, 0.6, {})
    q = "Which sailors do not own any boat?"
    factor, clashes = grounded_operators(q, [], cand, set(content_tokens(q)))
    assert factor == 1.0 and not clashes


def _tpl(sql: str, nl: str = "q") -> object:
    return compile_item("template", 0, {"nl_query": nl, "sql": sql}, "postgres")


def test_two_things_asked_one_column_returned():
    from tests.checks_support import check_on

    def asks_for_two(question: str, tpl) -> str | None:
        return check_on("asks_for_two", question, tpl)

    one = _tpl("SELECT DISTINCT rig FROM boat")
    assert asks_for_two("What are the boats and their rigs?", one)
    assert asks_for_two("Show the names and lengths of boats owned by Ann.", _tpl("SELECT name FROM boat"))
    # two columns, an aggregate, or a second thing only in the conditions: nothing to say
    assert not asks_for_two("What are the boats and their rigs?", _tpl("SELECT name, rig FROM boat"))
    assert not asks_for_two("What is the count and the rig?", _tpl("SELECT count(*) FROM boat"))
    assert not asks_for_two(
        "What are the names of boats with rig A and owner B?", _tpl("SELECT name FROM boat")
    )


def test_a_measure_word_that_names_a_column():
    from ctxtool.runtime.checks.operators import named_measures

    sql = "SELECT sailor_phone FROM sailor WHERE club = $1"
    q = "What is the phone number of the sailors of club X?"
    # the words alone may already read no count here (english/content.py); the SQL decides either way
    q_ops = ops(q) | {"__count"}
    assert named_measures(q, facts_of(sql), q_ops) == {"__count"}
    # a count asked besides, or a phone the SQL does not read: a count it is
    q2 = "What is the phone number and the number of boats of sailors?"
    assert named_measures(q2, facts_of(sql), ops(q2)) == set()
    assert named_measures(q, facts_of("SELECT name FROM sailor"), q_ops) == set()
    # "the total number of" is the count; "the total sails" is a column when the SQL sums nothing
    q3 = "What is the total number of boats?"
    assert "__sum" in named_measures(q3, facts_of("SELECT count(*) FROM boat"), ops(q3) | {"__sum"})
    q4 = "What is the total sails of each boat?"
    sql4 = "SELECT name, total_sails FROM boat"
    assert named_measures(q4, facts_of(sql4), ops(q4) | {"__sum"}) == {"__sum"}


def test_not_only_but_also_says_both():
    tpl = compile_item(
        "template",
        0,
        {
            "nl_query": "Which sailors own a boat and sail in a race?",
            "sql": "SELECT id FROM boat INTERSECT SELECT sailor FROM race",
        },
        "postgres",
    )
    q = "Which sailors not only own a boat but also sail in a race?"
    factor, _ = grounded_operators(q, [], Candidate(tpl, 0, 0.6, {}), set(content_tokens(q)))
    assert factor == 1.0
    q = "Which sailors do not own a boat?"
    assert grounded_operators(q, [], Candidate(tpl, 0, 0.6, {}), set(content_tokens(q)))[0] < 1


def test_how_many_of_a_column_is_a_measure_not_a_count():
    from ctxtool.english.reading import counted_measures

    tpl = _tpl("SELECT avg(sailing_hours) FROM sailor")
    assert counted_measures("How many hours do the sailors sail on average?", tpl.column_words)
    # the things themselves (a table, no column) are counted
    assert not counted_measures("How many sailors are there?", tpl.column_words)
    assert not counted_measures("How many hours and how many boats?", tpl.column_words)
    q = "How many hours do the sailors sail on average?"
    cand = Candidate(
        _tpl("SELECT avg(sailing_hours) FROM sailor", "What is the average sailing hours?"), 0, 0.6, {}
    )
    assert grounded_operators(q, [], cand, set(content_tokens(q)))[0] == 1.0


def test_the_most_things_is_the_thing_counted_most():
    from ctxtool.runtime.checks.operators import implied_ops

    counted = "SELECT club FROM sailor GROUP BY club ORDER BY count(*) DESC LIMIT 1"
    q, t = ops("Which club has the most sailors?"), ops("Which club has the most number of sailors?")
    assert implied_ops(q, t, sql_realizes(counted)) == {"__count"}
    # no count in the SQL (the longest boat), or an aggregate the question says: nothing implied
    assert implied_ops(q, t, sql_realizes("SELECT club FROM boat ORDER BY length DESC LIMIT 1")) == set()
    assert implied_ops(ops("the club with the most average sailors"), t, sql_realizes(counted)) == set()


def test_each_of_the_rows_a_template_returns_lists_them():
    from ctxtool.runtime.checks.grouping import lists_each

    words = {"sailor": {"sailor"}, "boat": {"boat"}}
    below = _tpl("SELECT name, rating FROM sailor WHERE rating < (SELECT avg(rating) FROM sailor)")
    q = "What is the name and rating of every sailor whose rating is below average?"
    assert lists_each(q, Candidate(below, 0, 0.6, {}), words)
    # groups of another thing, or an aggregate the template does not compute: groups are asked
    assert not lists_each("What is the average rating for each boat?", Candidate(below, 0, 0.6, {}), words)
    rows = _tpl("SELECT name, rating FROM sailor")
    assert not lists_each("How many boats does each sailor have?", Candidate(rows, 0, 0.6, {}), words)


def test_more_than_n_things_of_a_template_comparing_counts_is_a_count():
    from ctxtool.runtime.checks.operators import implied_ops

    having = "SELECT club FROM sailor GROUP BY club HAVING count(*) > $1"
    q, t = (
        ops("Which clubs have more than 3 sailors?"),
        ops("Which clubs have a count of sailors more than $1?"),
    )
    assert implied_ops(q, t, sql_realizes(having)) == {"__count"}
    plain = "SELECT club FROM sailor WHERE age > $1"
    assert implied_ops(q, t, sql_realizes(plain)) == set()


def test_each_at_the_end_of_a_phrase_is_the_thing_named_before():
    from ctxtool.runtime.checks.grouping import lists_each

    words = {"sailor": {"sailor"}, "boat": {"boat"}}
    rows = _tpl("SELECT name, rating FROM sailor ORDER BY name")
    q = "What are the names of all the sailors, as well as the ratings of each, ordered alphabetically?"
    assert lists_each(q, Candidate(rows, 0, 0.6, {}), words)
    other = "What are the names of all the boats, as well as the ratings of each?"
    assert not lists_each(other, Candidate(rows, 0, 0.6, {}), words)


def test_an_aggregate_word_that_names_a_column_asks_for_no_group():
    from ctxtool.runtime.checks.grouping import lists_each

    words = {"sailor": {"sailor"}}
    rows = _tpl("SELECT name, total_wins FROM sailor ORDER BY total_wins")
    q = "What is the total wins record for each sailor, sorted ascending?"
    assert lists_each(q, Candidate(rows, 0, 0.6, {}), words)
    assert not lists_each("What is the average wins for each sailor?", Candidate(rows, 0, 0.6, {}), words)


def test_a_comparison_said_around_its_measure():
    assert content_tokens("boats more expensive than 500") == ["boat", "expensiv", "__gt", "500"]
    assert content_tokens("clubs with fewer sailors than average") == ["club", "sailor", "__lt", "__avg"]
    assert "__gt" in content_tokens("more than 5 boats")


def test_an_end_the_wording_states_of_rows_listed_in_that_order():
    from ctxtool.runtime.checks.operators import listed_ends

    listed = sql_realizes("SELECT name FROM race ORDER BY held DESC")
    q, t = (
        ops("the names of the races in descending order of date"),
        ops("the races from the most recent one"),
    )
    assert listed_ends(q, t, listed)[1] == t - {"__max_date"}
    assert (
        agreement(
            "the names of the races in descending order of date",
            "the races from the most recent one",
            "SELECT name FROM race ORDER BY held DESC",
        )
        == 1.0
    )
    # one row is not a list, and the other order is another list
    one = sql_realizes("SELECT name FROM race ORDER BY held DESC LIMIT 1")
    assert listed_ends(q, t, one)[1] == t
    assert listed_ends(ops("races in ascending order of date"), t, listed)[1] == t
    # the question's own end of a list ("the one with the greatest X") stays an end
    assert listed_ends(
        ops("the race with the latest date"), ops("races in descending order of date"), listed
    )[0] == ops("the race with the latest date")


def test_the_total_a_wording_says_in_the_question_s_own_words():
    from ctxtool.runtime.checks.operators import said_total

    summed = sql_realizes("SELECT sum(hours), count(*) FROM voyage WHERE crew < $1")
    t = ops("Show total hours and number of voyages for crews under $1.")
    assert said_total(
        "What is the total number of hours and number of voyages of crews under 20?", set(), t, summed
    )
    assert said_total("How much was paid in total for voyages?", set(), t, summed)
    # no sum computed, or another aggregate asked that the wording does not state
    assert not said_total("How much was paid in total?", set(), t, sql_realizes("SELECT hours FROM voyage"))
    assert not said_total("What is the average paid in total?", {"__avg"}, t, summed)
    assert (
        agreement(
            "How much was paid in total for voyages?",
            "Find the total paid for voyages.",
            "SELECT sum(paid) FROM voyage",
        )
        < 1
    )
