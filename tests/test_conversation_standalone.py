"""A question that stands on its own (its own entity or measure) is never a follow-up: the rules on
their own, then in conversations over the financial sample on PostgreSQL."""

from __future__ import annotations

import psycopg
import pytest

from ctxtool.conversations import attach_session_memory
from ctxtool.conversations.intent import classify
from ctxtool.conversations.standalone import computes, stands_alone
from ctxtool.english.content import content_tokens
from ctxtool.runtime import Runtime
from ctxtool.runtime.templates.vocabulary import table_words
from tests.rt_support import RUNTIME_SET

WORDS = {t: set(table_words(t)) for t in ("invoice", "region", "payment")}
AVERAGE = "SELECT AVG(invoice.total) FROM invoice"
COUNT = "SELECT COUNT(*) FROM invoice WHERE invoice.status = $1"
TOP_REGION = (
    "SELECT region.name FROM invoice JOIN region ON invoice.region_id = region.id "
    "GROUP BY region.id, region.name ORDER BY COUNT(*) DESC LIMIT 1"
)
PER_REGION = (
    "SELECT region.name, COUNT(*) AS n FROM invoice JOIN region ON invoice.region_id = region.id "
    "GROUP BY region.name"
)


def _alone(question: str, previous: str) -> str | None:
    return stands_alone(content_tokens(question), previous, "postgres", WORDS, classify(question).kinds)


def test_what_a_query_computes_and_whether_it_is_one_row():
    assert computes(AVERAGE, "postgres") == ({"avg"}, True)
    assert computes(COUNT, "postgres") == ({"count"}, True)
    assert computes(TOP_REGION, "postgres") == ({"extreme"}, True)
    assert computes(PER_REGION, "postgres") == ({"count"}, False)
    assert computes("SELECT name FROM region", "postgres") == (set(), False)


@pytest.mark.parametrize(
    ("question", "previous", "why"),
    [
        # its own entity and measure: the previous query reads none of the tables it names
        ("Which region has the most payments?", AVERAGE, "does not read"),
        # its own measure: the previous query computes something else
        ("How many invoices were sent in 2001?", TOP_REGION, "count"),
        ("What is the average total by status?", COUNT, "avg"),
        # picking from a one-row result answers nothing
        ("Which region has the most invoices?", AVERAGE, "one row"),
    ],
)
def test_a_question_of_its_own(question, previous, why):
    reason = _alone(question, previous)
    assert reason is not None and why in reason


@pytest.mark.parametrize(
    ("question", "previous"),
    [
        ("How many invoices were sent in 2001?", COUNT),  # the same count, narrowed: a follow-up
        ("which region has the most?", PER_REGION),  # picks from the previous rows
        ("top 3 regions by number of invoices", PER_REGION),  # the top brings its own order
        ("break it down by region", COUNT),  # no measure of its own: elliptical
        ("2001?", AVERAGE),
        ("and what is the average?", COUNT),  # the wording leans on the previous answer
    ],
)
def test_a_follow_up_stays_one(question, previous):
    from ctxtool.conversations.intent import leans_on_previous

    assert leans_on_previous(question) or _alone(question, previous) is None


# ------------------------------------------------------------------------------ on PostgreSQL


@pytest.mark.postgres
def test_in_a_conversation_a_question_of_its_own_is_answered_on_its_own(financial_dsn, data_home):
    with Runtime(RUNTIME_SET, dsn=financial_dsn, use_llm=False) as rt:
        attach_session_memory(rt)
        first = rt.ask("What is the average loan amount?")
        assert first.source == "template" and len(first.rows) == 1
        second = rt.ask("which district has the most accounts?")
        assert second.source != "followup" and "prev_result" not in (second.sql or "")
        # the count of loans of a year narrows the count of loans ...
        assert rt.ask("How many loans are there?").source == "template"
        year = rt.ask("how many loans were issued in 1997?")
        with psycopg.connect(financial_dsn) as conn:
            (expected,) = conn.execute(
                "SELECT COUNT(*) FROM loan WHERE EXTRACT(YEAR FROM date) = 1997"
            ).fetchone()
        assert year.source == "followup" and year.params == [1997] and year.rows == [[expected]]
        # ... but an average by status is not that count broken down by status
        average = rt.ask("what is the average amount by status?")
        assert average.source != "followup" and "COUNT(" not in (average.sql or "")
        assert any("not taken as a follow-up" in w for w in average.warnings)


# ------------------------------------------------------------------------------ where users ask

SEQUENCE = (
    "How many loans are there?",
    "how many loans were issued in 1997?",
    "what is the average amount by status?",
)


def _check(answers: list[dict]) -> None:
    loans, narrowed, average = answers
    assert loans["source"] == "template"
    assert narrowed["source"] == "followup" and narrowed["params"] == [1997]
    assert average["source"] != "followup" and "COUNT(" not in (average.get("sql") or "")


@pytest.mark.postgres
def test_over_http_and_mcp_the_same_rules_hold(financial_runtime, financial_dsn, tmp_path):
    import threading

    from ctxtool.server.http import make_server
    from ctxtool.server.service import Service
    from tests.mcp_client import REPO, stdio
    from tests.serve_support import call

    server = make_server(Service(financial_runtime), "127.0.0.1", 0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/ask"
        _check([call(url, {"question": q, "session": "http"}, None, timeout=10)[1] for q in SEQUENCE])
    finally:
        server.shutdown()
        server.server_close()
    with stdio("--dsn", financial_dsn, "--context", str(REPO / RUNTIME_SET), cwd=tmp_path) as c:
        _check([c.ok("ask", {"question": q, "session": "mcp"}) for q in SEQUENCE])


@pytest.mark.postgres
def test_in_the_chat_shell_the_same_rules_hold(financial_dsn, data_home):
    from click.testing import CliRunner

    from ctxtool.cli import cli

    script = "/action showsql\n" + "\n".join(SEQUENCE) + "\n/quit\n"
    r = CliRunner().invoke(
        cli, ["chat", "--context", RUNTIME_SET, "--dsn", financial_dsn, "--no-llm"], input=script,
        catch_exceptions=False,
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "EXTRACT(YEAR FROM loan.date) = $1" in r.output  # the count narrowed by the year
    assert "GROUP BY loan.status" not in r.output  # the average is not that count by status
