"""A follow-up naming another entity than the previous query ("what about loans in Prague?" after
questions about accounts) is a new question about that entity, not a filter on the previous query
(the quickstart answered it with the number of accounts in Prague)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxtool.conversations.intent import classify
from ctxtool.conversations.runner import ConversationRunner
from ctxtool.conversations.session import SessionMemory
from ctxtool.runtime.templates import sqlparts

pytestmark = pytest.mark.postgres

SET = Path(__file__).parent / "data" / "conversations_financial_set.json"


@pytest.fixture(scope="module")
def runtime(pg_samples_dsn):
    from ctxtool.runtime.core import Runtime

    with Runtime(json.loads(SET.read_text()), dsn=pg_samples_dsn, use_llm=False) as rt:
        yield rt


def _count(runtime, sql, params=()):
    return runtime.connector.query(sql, list(params)).rows[0][0]


def _runner(runtime):
    return ConversationRunner(runtime, profile="entities", session_conversation=True, memory=SessionMemory())


PRAGUE_LOANS = (
    "SELECT count(*) FROM loan l JOIN account a ON a.account_id = l.account_id "
    "JOIN district d ON d.district_id = a.district_id WHERE d.\"A3\" = 'Prague'"
)


def test_loans_in_prague_after_accounts_is_about_loans(runtime):
    runner = _runner(runtime)
    assert runner.ask("How many accounts are there?").source == "template"
    accounts = runner.ask("what about in Prague?")
    assert accounts.status == "answered"
    assert "loan" not in sqlparts.tables_of(accounts.sql, "postgres")
    loans = runner.ask("what about loans in Prague?")
    assert loans.status == "answered", loans.explanation
    assert "loan" in sqlparts.tables_of(loans.sql, "postgres")
    assert "Prague" in loans.params and "Prague" not in loans.sql  # bound, never pasted
    expected = _count(runtime, PRAGUE_LOANS)
    assert expected != accounts.rows[0][0]  # the test tells the two apart
    assert loans.rows == [[expected]]
    # and on to clients: the count the conversation started with, about clients, in Pisek
    clients = runner.ask("what about clients in Pisek?")
    assert clients.status == "answered", clients.explanation
    assert "client" in sqlparts.tables_of(clients.sql, "postgres")
    expected = _count(
        runtime,
        "SELECT count(*) FROM client c JOIN district d ON d.district_id = c.district_id WHERE d.\"A2\" = 'Pisek'",
    )
    assert clients.rows == [[expected]]


def test_a_new_entity_without_a_value_is_its_own_question(runtime):
    runner = _runner(runtime)
    runner.ask("How many accounts are there?")
    runner.ask("what about in Prague?")
    ans = runner.ask("what about loans?")
    assert ans.status == "answered" and sqlparts.tables_of(ans.sql, "postgres") == {"loan"}
    assert ans.rows == [[_count(runtime, "SELECT count(*) FROM loan")]]


def test_a_word_describing_the_value_is_still_a_filter(runtime):
    runner = _runner(runtime)
    runner.ask("How many clients are there?")
    ans = runner.ask("what about the district Pisek?")  # "district" says what Pisek is
    assert ans.source == "followup" and ans.status == "answered"
    assert classify("what about the district Pisek?").kinds == ["filter"]
    assert "client" in sqlparts.tables_of(ans.sql, "postgres")
    assert ans.params == ["Pisek"]
