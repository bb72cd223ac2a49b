"""Four checks of the matcher and its reviews, on our own small sets (no database, no model):
the column a question sorts by (matching.py), a word said after a copula (columnnames.py), a
run-together column name (rivals.py) and the rows a bare count counts (answershape.py)."""

from __future__ import annotations

import pytest

from ctxtool.english.content import content_tokens
from ctxtool.english.reading import counted_words, order_key_words
from ctxtool.runtime import Runtime
from ctxtool.runtime.decide.ranking import decided_against
from ctxtool.runtime.matching.candidate import Candidate
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.templates.compile import compile_item, facts_of
from tests.checks_support import check_on
from tests.rt_support import offline_runtime


def counted_thing(question: str, tpl) -> str | None:
    return check_on("counted_other", question, tpl)


SORTS_OTHER = "the question sorts by another column than the template"
NOT_READ = "the template does not read: "


def _runtime(templates: list[dict]) -> Runtime:
    return offline_runtime({"templates": templates})


def _best(rt: Runtime, question: str) -> Candidate:
    return rt.understand(question)[1][0]


def _template(i: int, sql: str, wording: str | None = None):
    return compile_item("template", i, {"nl_query": wording or f"q{i}", "sql": sql}, "postgres")


def _cand(i: int, sql: str) -> Candidate:
    return Candidate(_template(i, sql), 0, 0.9, {}, evidence=0.9, lexical=0.9, similarity=0.85)


# 1. matching.py: "in order of last name" is not answered by rows sorted by first name

BY_NAMES = "List the first and last names of members in order of last name."


def _members(order_by: str) -> Runtime:
    return _runtime(
        [
            {
                "nl_query": "List the first and last names of members in order of their names.",
                "sql": f"SELECT first_name, last_name FROM members ORDER BY {order_by}",
            },
            {"nl_query": "How many shops are there?", "sql": "SELECT count(*) FROM shops"},
        ]
    )


def test_order_key_words_are_the_column_the_question_sorts_by():
    assert order_key_words(BY_NAMES) == set(content_tokens("last name"))
    assert order_key_words("Show the widgets sorted by their weight, heaviest first.") == {"weight"}
    assert order_key_words("List the first and last names of members.") == set()


def test_rows_sorted_by_another_column_do_not_answer_the_order_asked():
    rt = _members("first_name, last_name")
    best = _best(rt, BY_NAMES)
    assert best.template.index == 0
    assert SORTS_OTHER in best.reasons and "order" in best.factors
    assert rt.ask(BY_NAMES, "showsql").status != "answered"


def test_rows_sorted_by_the_column_asked_are_the_answer():
    rt = _members("last_name")
    best = _best(rt, BY_NAMES)
    assert best.template.index == 0
    assert SORTS_OTHER not in best.reasons and "order" not in best.factors
    answer = rt.ask(BY_NAMES, "showsql")
    assert answer.status == "answered" and "ORDER BY last_name" in answer.sql


# 2. columnnames.py: a word said after a copula names a column; a verb in passing does not


@pytest.fixture(scope="module")
def conditions() -> Runtime:
    return _runtime(
        [
            {"nl_query": "How many widgets are there?", "sql": "SELECT count(*) FROM widgets"},
            {
                "nl_query": "List the names of the members who left.",
                "sql": "SELECT name FROM members WHERE date_retired IS NOT NULL",
            },
            {"nl_query": "How many shops are there?", "sql": "SELECT count(*) FROM shops"},
            {"nl_query": "List the closing dates of the leases.", "sql": "SELECT closing_date FROM leases"},
        ]
    )


def _unread(rt: Runtime, question: str, index: int) -> list[str]:
    best = _best(rt, question)
    assert best.template.index == index
    return [r for r in best.reasons if r.startswith(NOT_READ)]


def test_a_word_after_a_copula_names_the_column_of_another_table(conditions):
    retired = content_tokens("retired")[0]
    assert _unread(conditions, "How many widgets are retired?", 0) == [NOT_READ + retired]
    assert _unread(conditions, "How many widgets were not retired?", 0) == [NOT_READ + retired]
    closing = content_tokens("closing")[0]
    assert _unread(conditions, "How many shops that are closing are there?", 2) == [NOT_READ + closing]


def test_a_verb_in_passing_names_no_column(conditions):
    assert _unread(conditions, "How many widgets retired last year?", 0) == []
    assert _unread(conditions, "How many shops keep closing?", 2) == []


# 3. rivals.py: a run-together column name (widgettype) is named by its words ("widget types")


def test_a_run_together_column_is_named_by_its_words():
    question = "Show all widget types."
    q = Question(question)
    both = _cand(0, "SELECT widgets.widget, widgets.widgettype FROM widgets")
    types = _cand(1, "SELECT DISTINCT widgets.widgettype FROM widgets")
    # "widget types" names what both return: the question does not tell them apart
    assert decided_against(q, both, types) is None
    assert decided_against(q, types, both) is None
    # a rival returning neither word is told apart by them (only with the words of ``widgettype``)
    plain = _cand(2, "SELECT widgets.weight FROM widgets")
    assert decided_against(q, types, plain)


# 4. answershape.py: a bare COUNT(*) counts the head noun of its table


def test_counted_rows_of_a_bare_count_is_its_tables_head_noun():
    assert facts_of("SELECT COUNT(*) FROM widget_parts").counted_rows == {"part"}
    assert facts_of("SELECT count(*) FROM widget_parts WHERE weight > 3").counted_rows == {"part"}
    assert not facts_of(
        "SELECT count(*) FROM widget_parts AS p JOIN widgets AS w ON p.wid = w.id"
    ).counted_rows
    assert not facts_of("SELECT wid, count(*) FROM widget_parts GROUP BY wid").counted_rows
    assert not facts_of("SELECT count(DISTINCT wid) FROM widget_parts").counted_rows


def test_count_the_total_number_of_counts_what_follows():
    assert counted_words("Count the total number of widgets.") == {"widget"}
    assert counted_words("Count the number of widgets.") == {"widget"}


def test_a_question_counting_another_table_of_the_template_is_another_question():
    tpl = _template(0, "SELECT count(*) FROM widget_parts", "How many widget parts are there?")
    reason = counted_thing("How many widgets have parts?", tpl)
    assert reason and "widget" in reason and "part" in reason
    assert counted_thing("How many widget parts are there?", tpl) is None
    # a word no table of the template names may be a synonym: nothing is decided
    assert counted_thing("How many gadgets have parts?", tpl) is None
    assert counted_thing("How many components are there?", tpl) is None
