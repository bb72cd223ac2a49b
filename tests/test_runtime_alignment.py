"""Alignment (ctxtool.runtime.matching.rewording): question words the template's SQL explains when its
wording does not ("different" of a SELECT DISTINCT, "for each game" of a GROUP BY game, "sorted" of
an ORDER BY). Our own small templates and a matcher over them, no database."""

from __future__ import annotations

from ctxtool.runtime.checks.schema import compound_columns
from ctxtool.runtime.matching.matcher import Matcher
from ctxtool.runtime.matching.rewording import groups_what_is_asked, sql_words
from ctxtool.runtime.templates.compile import compile_item, facts_of
from tests.checks_support import rank


def test_the_constructs_explain_their_words():
    assert sql_words("the different rigs", facts_of("SELECT DISTINCT rig FROM boat")) == {"__distinct"}
    # a COUNT(DISTINCT x) counts one column's values: what it counts is another check's business
    assert (
        sql_words("the number of different rigs", facts_of("SELECT count(DISTINCT rig) FROM boat")) == set()
    )
    assert "__order" in sql_words("boats sorted by length", facts_of("SELECT name FROM boat ORDER BY length"))


def test_each_is_explained_by_a_grouping_of_what_it_names():
    sql = "SELECT T1.club, count(*) FROM sailor AS T1 JOIN boat AS T2 ON T1.id = T2.owner GROUP BY T1.club"
    assert groups_what_is_asked("How many boats for each club?", facts_of(sql))
    assert not groups_what_is_asked("How many clubs for each boat?", facts_of(sql))
    # the table's words of an aliased column: GROUP BY T2.id of table boat groups boats
    sql = "SELECT T2.id, count(*) FROM sailor AS T1 JOIN boat AS T2 ON T1.id = T2.owner GROUP BY T2.id"
    assert groups_what_is_asked("How many sailors per boat?", facts_of(sql))


def _candidate(question: str, sql: str, nl: str, *others: tuple[str, str]):
    tpl = compile_item("template", 0, {"nl_query": nl, "sql": sql}, "postgres")
    more = [
        compile_item("template", i + 1, {"nl_query": n, "sql": s}, "postgres")
        for i, (n, s) in enumerate(others)
    ]
    matcher = Matcher([tpl, *more], [], semantic=None)
    return next(c for c in rank(matcher, question) if c.template.index == 0)


def test_a_clean_candidate_rises_by_the_words_its_sql_explains():
    q = "What are the different rigs of the boats?"
    cand = _candidate(q, "SELECT DISTINCT rig FROM boat", "Show the rigs of all boats.")
    assert cand.explained_by.get("__distinct") == "sql" and "__distinct" not in cand.unexplained
    assert not cand.findings


def test_a_candidate_a_check_spoke_against_is_left_as_it_is():
    # "sailors" names a table the template does not read: the SQL explains no word of it
    q = "What are the different rigs of the boats of the sailors?"
    other = ("How many sailors are there?", "SELECT count(*) FROM sailor")
    cand = _candidate(q, "SELECT DISTINCT rig FROM boat", "Show the rigs of all boats.", other)
    assert cand.finding("entities") and "__distinct" in cand.unexplained


def test_a_kind_word_after_a_column_word_is_that_column():
    from ctxtool.english.content import content_tokens

    read = set(content_tokens("phone address"))
    assert compound_columns("What are the address and phone number of the sailors?", {"number"}, read) == {
        "number"
    }
    # after a word of no column the template reads: another column ("the room number")
    assert compound_columns("What is the room number of the sailors?", {"number"}, read) == set()
