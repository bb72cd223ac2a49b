"""The runtime: value linking, template matching, facets, thresholds, actions, the model fallback."""

from __future__ import annotations

import json
from datetime import date

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtool import gate
from ctxtool.cli import cli
from ctxtool.english.content import content_tokens
from ctxtool.english.literals import find_literals
from ctxtool.errors import InputError
from ctxtool.placeholders import find_sql_placeholders
from ctxtool.runtime import AskContext, ModelRequired, Runtime
from ctxtool.runtime.decide.confidence import LEAD_CREDIT
from ctxtool.runtime.templates import sqlparts
from ctxtool.runtime.templates.compile import compile_item
from tests.fake_llm import reply, tool_call
from tests.rt_support import RUNTIME_SET

pytestmark = pytest.mark.postgres


# ------------------------------------------------------------------------------------- no database


def test_literals_numbers_dates_quotes():
    lits = find_literals(
        'loans over 100,000 after 5 March 1996, in "Pisek", 1995 and 2.5 million on 1996-02-29'
    )
    assert [(lit.kind, lit.value) for lit in lits] == [
        ("number", 100000),
        ("date", date(1996, 3, 5)),
        ("quoted", "Pisek"),
        ("number", 1995),
        ("number", 2500000),
        ("date", date(1996, 2, 29)),
    ]
    assert lits[3].is_year and not lits[0].is_year
    assert [(lit.kind, lit.value) for lit in find_literals("the ten largest and 'the two'")] == [
        ("number", 10),
        ("quoted", "the two"),
    ]


def test_content_tokens_canonicalise_what_decides_the_query():
    # lemmas from a general English lexicon, no hand-made synonyms (customers is not clients here)
    assert content_tokens("How many customers?") == content_tokens("number of customer")
    assert content_tokens("the children of the women") == ["child", "woman"]
    assert content_tokens("regions other than Denmark") == content_tokens("regions except Denmark")
    # both ends of one order are a listing in that order, not its first row
    assert content_tokens("the boats from the most recent to the oldest") == ["boat", "__desc", "__order"]
    assert content_tokens("sailors by wage from least to greatest")[-2:] == ["__asc", "__order"]
    assert "__max_date" in content_tokens("the most recent boat")
    assert "__superlative" in content_tokens("the cheapest room")
    assert "__comparative" in content_tokens("rooms cheaper than 5")
    assert "__avg" in content_tokens("the mean loan amount") and "__count" not in content_tokens(
        "mean loan amount"
    )
    assert content_tokens("accounts not in Prague")[1] == "__not"
    assert "__gt" in content_tokens("loans above 5") and "__lt" in content_tokens("loans below 5")


def test_compiled_template_knows_what_each_slot_wants():
    t = compile_item(
        "template",
        0,
        {
            "nl_query": "How many accounts in Pisek were opened after 1995?",
            "sql": "SELECT COUNT(*) FROM account a JOIN district d ON a.district_id = d.district_id "
            "WHERE d.\"A2\" = 'Pisek' AND EXTRACT(YEAR FROM a.date) > 1995",
            "manifest": "How many accounts in a given district name were opened after a given year?",
            "parameterized": {
                "parameterized_intent": "How many accounts in $1 were opened after $2?",
                "parameterized_sql": "SELECT COUNT(*) FROM account a JOIN district d ON a.district_id = d.district_id "
                'WHERE d."A2" = $1 AND EXTRACT(YEAR FROM a.date) > $2',
            },
        },
        "postgres",
    )
    (s1, s2) = t.slots
    assert (s1.kind, s1.type_label, s1.column, s1.example) == (
        "text",
        "district name",
        "district.a2",
        "Pisek",
    )
    assert (s2.kind, s2.column, s2.operator, s2.example) == ("year", "account.date", "gt", 1995)
    assert t.tables == {"account", "district"}


def test_facet_injection_renumbers_and_never_pastes_values():
    sql, params = sqlparts.inject_conditions(
        'SELECT COUNT(*) FROM client c JOIN district d ON c.district_id = d.district_id WHERE d."A2" = $1 LIMIT $2',
        "postgres",
        ["Kladno", 5],
        [("client.gender = $1", ["F"]), ('district."A11" > $1', [9000])],
    )
    assert "Kladno" not in sql and "9000" not in sql
    assert "c.gender = $" in sql and 'd."A11" > $' in sql
    numbered = find_sql_placeholders(sql, "postgres")
    assert sorted({int(p.name) for p in numbered}) == [1, 2, 3, 4]
    # each number binds the value that belongs there
    by_number = {int(p.name): sql[p.start - 12 : p.start] for p in numbered}
    assert params[int(next(n for n, ctx in by_number.items() if "gender" in ctx)) - 1] == "F"
    assert params[int(next(n for n, ctx in by_number.items() if "LIMIT" in ctx)) - 1] == 5
    # qmark dialects: parameters follow the order of the ? in the final text
    sql, params = sqlparts.inject_conditions(
        "SELECT COUNT(*) FROM client WHERE client.district_id = ? ORDER BY 1 LIMIT ?",
        "mysql",
        [3, 10],
        [("client.gender = ?", ["F"])],
    )
    assert sql.count("?") == 3 and params == [3, "F", 10]


def test_facet_on_a_table_the_template_does_not_read_is_refused():
    with pytest.raises(sqlparts.InjectError):
        sqlparts.inject_conditions("SELECT COUNT(*) FROM loan", "postgres", [], [("client.gender = 'F'", [])])


@pytest.mark.parametrize(
    "sql, message",
    [
        ("DELETE FROM account", "not a query"),
        ("SELECT 1; DROP TABLE account", "more than one statement"),
        ("SELECT * FROM account FOR UPDATE", "locks"),
        ("SELECT (1 FROM", "does not parse"),
        ("SELEC nothing", "not a query"),
        ("WITH x AS (DELETE FROM account RETURNING *) SELECT * FROM x", "not read-only"),
    ],
)
def test_model_sql_guard(sql, message):
    # the model's SQL passes the one read-only gate (ctxtool.gate), then the allowed-objects check
    with pytest.raises(gate.GateRefused, match=message):
        gate.require(sql, "postgres")


def test_model_sql_reads_only_allowed_objects():
    with pytest.raises(InputError, match="not in the allowed objects"):
        sqlparts.check_allowed_objects("SELECT * FROM secrets", "postgres", {"account", "district"})


def test_guard_accepts_ctes_and_unions_over_allowed_tables():
    sql = "WITH x AS (SELECT account_id FROM account) SELECT * FROM x UNION SELECT district_id FROM district"
    assert gate.require(sql, "postgres").ok
    sqlparts.check_allowed_objects(sql, "postgres", {"account", "district"})


def test_value_searches_per_question_are_bounded(financial_dsn):
    from ctxtool.connectors import connect
    from ctxtool.runtime.question.linking import MAX_PHRASES, ValueLinker

    class Counting:
        def __init__(self, conn):
            self.conn, self.phrases = conn, []

        def query(self, sql, params=(), max_rows=None):
            self.phrases.append(params["value"])
            return self.conn.query(sql, params, max_rows=max_rows)

    with connect(financial_dsn) as conn:
        counting = Counting(conn)
        linker = ValueLinker(
            [
                {
                    "query": "SELECT $value::text AS value, 't.c' AS columns, 'X' AS concept_type, 0.5 AS distance, '' AS context"
                }
            ],
            counting,
        )
        q = 'foo bar baz qux quux corge grault garply waldo fred plugh xyzzy thud "Benesov" Kolin'
        linker.link(q, find_literals(q))
    assert len(counting.phrases) == MAX_PHRASES
    assert "Benesov" in counting.phrases and "Kolin" in counting.phrases


def test_without_a_database_numbers_and_dates_still_match():
    rt = Runtime(RUNTIME_SET, use_llm=False)
    ans = rt.ask("How many loans were granted in 1996?", action="showsql")
    assert ans.status == "answered" and ans.params == [1996]
    assert ans.sql == "SELECT COUNT(*) FROM loan WHERE EXTRACT(YEAR FROM loan.date) = $1"
    ans = rt.ask("how many accounts were opened between 1996-02-01 and 1996-05-31?", action="showsql")
    # the set's SQL writes its dates as strings ('1996-02-01'): bound as the same strings, they
    # compare as the literals did, with a date column or with dates kept as text
    assert ans.params == ["1996-02-01", "1996-05-31"]
    with pytest.raises(InputError, match="no database"):
        rt.ask("How many loans were granted in 1996?")
    with pytest.raises(InputError, match="unknown action"):
        rt.ask("x", action="dance")
    with pytest.raises(ModelRequired, match="needs a language model"):
        rt.ask("hello", action="chat")


# ------------------------------------------------------------------------------------- with data


def test_linking_resolves_misspelled_values_with_column_and_distance(financial_runtime):
    ans = financial_runtime.ask("How many accounts are in Benesow?")
    assert ans.status == "answered"
    (lv,) = ans.linked_values
    assert (
        lv["value"] == "Benesov" and lv["column"] == "district.A2" and lv["concept_type"] == "District Name"
    )
    assert 0 < lv["distance"] <= 0.35
    assert ans.params == ["Benesov"] and "Benesov" not in ans.sql
    assert "Benesow" in ans.explanation and "district.A2" in ans.explanation


def test_answer_matches_the_database(financial_runtime, financial_dsn):
    import psycopg

    ans = financial_runtime.ask("number of accounts in the south Moravia region")
    with psycopg.connect(financial_dsn) as conn:
        (expected,) = conn.execute(
            "SELECT COUNT(*) FROM account a JOIN district d USING (district_id) WHERE d.\"A3\" = 'south Moravia'"
        ).fetchone()
    assert ans.rows == [[expected]] and ans.template.index == 1
    assert ans.bindings["1"]["value"] == "south Moravia"


def test_facets_stated_in_the_question_are_added_with_their_parameters(financial_runtime):
    ans = financial_runtime.ask("How many loans above 150000 were granted in 1997?", action="showsql")
    assert ans.status == "answered"
    assert [f.intent for f in ans.facets] == ["loans with an amount above 100000"]
    assert ans.params == [1997, 150000] and "150000" not in ans.sql
    ans = financial_runtime.ask("How many female clients live in Kladno?")
    assert [f.intent for f in ans.facets] == ["female clients"] and "gender = 'F'" in ans.sql
    assert ans.executed


def test_ambiguous_value_asks_did_you_mean(financial_runtime):
    ans = financial_runtime.ask("What is the average salary in Praha?")
    assert ans.status == "disambiguate" and not ans.executed and ans.sql is None
    assert len(ans.disambiguation) == 3
    assert all(q.startswith("Did you mean") for q in ans.disambiguation)
    assert any("Hl.m. Praha" in q for q in ans.disambiguation)


def test_uncovered_question_is_declined_not_guessed(financial_runtime):
    ans = financial_runtime.ask("How many flights depart from London Heathrow?")
    assert ans.status == "declined" and ans.sql is None and not ans.executed
    assert "No confident answer" in ans.text
    # a value no template uses is a condition added to the closest template's query (composition),
    # never dropped: the accounts opened in 1996 in Pisek, and the answer says how it was built
    ans = financial_runtime.ask("How many accounts in Pisek were opened in 1996?")
    assert ans.status == "answered" and ans.source == "composed"
    assert sorted(map(str, ans.params)) == ["1996", "Pisek"]
    assert "How many accounts were opened in $1?" in ans.explanation and "'Pisek'" in ans.explanation
    gold = financial_runtime.connector.query(
        "SELECT COUNT(*) FROM account a JOIN district d USING (district_id) "
        "WHERE d.\"A2\" = 'Pisek' AND EXTRACT(YEAR FROM a.date) = 1996",
        None,
    )
    assert ans.executed and [list(r) for r in ans.rows] == [list(r) for r in gold.rows]
    # a month of no year cannot be used: asked back or declined, never answered without it
    ans = financial_runtime.ask("How many accounts in Pisek were opened in March?")
    assert ans.status in ("disambiguate", "declined") and not ans.executed


def test_actions(financial_runtime):
    q = "What is the average salary in the district Beroun?"
    show = financial_runtime.ask(q, action="showsql")
    assert show.sql and not show.executed and show.text == show.sql
    explain = financial_runtime.ask(q, action="explainsql")
    assert (
        "What is the average salary in the district Beroun" in explain.text
        and "bound as parameters" in explain.text
    )
    narrate = financial_runtime.ask(q, action="narrate")
    assert narrate.executed and str(narrate.rows[0][0])[:2] in narrate.text.replace(",", "")
    prompt = financial_runtime.ask(q, action="showprompt")
    assert prompt.prompt[0]["role"] == "system" and "district" in prompt.prompt[0]["content"]
    assert prompt.prompt[-1] == {"role": "user", "content": q}
    empty = financial_runtime.ask("How many loans were granted in 1990?")
    assert empty.executed and empty.rows == [[0]]
    none = financial_runtime.ask("List the districts of the region Bavaria")
    assert none.status != "answered"


def test_row_cap_and_timeout(financial_dsn):
    data = {
        "templates": [
            {
                "nl_query": "List all transactions",
                "sql": "SELECT trans_id FROM trans ORDER BY trans_id",
                "manifest": "List all transactions",
            },
            {
                "nl_query": "Wait for the database",
                "sql": "SELECT pg_sleep(3)",
                "manifest": "Wait for the database",
            },
        ]
    }
    with Runtime(data, dsn=financial_dsn, row_cap=7, statement_timeout=0.5, use_llm=False) as rt:
        ans = rt.ask("List all transactions")
        assert len(ans.rows) == 7 and ans.truncated
        slow = rt.ask("Wait for the database")
        assert slow.status == "error" and slow.error


def test_follow_up_reuses_the_previous_template(financial_runtime):
    first = financial_runtime.ask("How many clients live in the district Kladno?")
    follow = financial_runtime.ask("and in Pisek?", context=AskContext(previous=first))
    assert follow.status == "answered" and follow.source == "followup"
    assert follow.template.index == first.template.index and follow.params == ["Pisek"]
    alone = financial_runtime.ask("and in Pisek?")
    assert alone.status != "answered"


def test_cli_ask_formats_and_exit_codes(financial_dsn):
    run = CliRunner().invoke
    base = ["--context", RUNTIME_SET, "--dsn", financial_dsn, "--no-llm"]
    r = run(cli, ["ask", "How many gold cards were issued?", *base, "--format", "json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["status"] == "answered" and data["params"] == ["gold"] and isinstance(data["rows"][0][0], int)
    r = run(cli, ["ask", "list the districts of the region east Bohemia", *base, "--format", "csv"])
    assert r.exit_code == 0 and r.output.splitlines()[0] == "A2" and len(r.output.splitlines()) > 5
    r = run(cli, ["ask", "What is the capital of France?", *base])
    assert r.exit_code == 1 and "No confident answer" in r.output
    r = run(
        cli, ["ask", "How many cards were issued in 1997?", "--context", RUNTIME_SET, "--action", "showsql"]
    )
    assert r.exit_code == 0 and "EXTRACT(YEAR FROM card.issued) = $1" in r.output and "[1997]" in r.output
    r = run(cli, ["ask", "hi", "--context", RUNTIME_SET, "--action", "chat", "--no-llm"])
    assert r.exit_code == 2 and "needs a language model" in r.output
    r = run(cli, ["ask", "x", "--dsn", financial_dsn])
    assert r.exit_code == 2 and "exactly one of --set" in r.output


def test_ask_a_published_set(financial_dsn, data_home):
    from ctxtool.store import publish

    publish(RUNTIME_SET, "fin")
    with Runtime("fin@1", dsn=financial_dsn, use_llm=False) as rt:
        assert rt.ref == "fin@1"
        assert rt.ask("How many loans are there?").executed


# ------------------------------------------------------------------------------------- a model


def test_uncovered_question_goes_to_the_model_and_bad_sql_is_retried(fake_llm, financial_dsn):
    fake_llm.script(
        reply(tool_calls=[tool_call("run_sql", {"sql": "DELETE FROM loan"})]),
        reply('{"sql": "SELECT AVG(duration) FROM loan"}'),
    )
    with Runtime(RUNTIME_SET, dsn=financial_dsn) as rt:
        ans = rt.ask("What is the average loan duration in months?")
    assert ans.status == "answered" and ans.source == "llm"
    assert ans.sql == "SELECT AVG(duration) FROM loan" and ans.executed and ans.rows[0][0] is not None
    assert any("not a query" in w and "CTX202" in w for w in ans.warnings)
    first, second = fake_llm.requests
    system = first.messages[0]["content"]
    assert "loan(" in system and "Examples of questions" in system
    # the retry carries the error back to the model as the tool's result
    assert second.messages[-1]["role"] == "tool" and "not a query" in second.messages[-1]["content"]


def test_model_sql_outside_the_object_list_is_refused_after_one_retry(fake_llm, financial_dsn):
    fake_llm.script(
        reply(tool_calls=[tool_call("run_sql", {"sql": "SELECT COUNT(*) FROM flights"})]),
        reply(tool_calls=[tool_call("run_sql", {"sql": "SELECT COUNT(*) FROM airports"})]),
    )
    with Runtime(RUNTIME_SET, dsn=financial_dsn, object_list=["loan", "account"]) as rt:
        ans = rt.ask("How many flights depart from London Heathrow?")
    assert ans.status == "declined" and not ans.executed
    assert sum("not in the allowed objects" in w for w in ans.warnings) == 2
    assert len(fake_llm.requests) == 2


def test_model_sql_the_database_cannot_plan_is_retried(fake_llm, financial_dsn):
    fake_llm.script(
        reply('{"sql": "SELECT AVG(no_such_column) FROM loan"}'),
        reply("```sql\nSELECT MAX(duration) FROM loan\n```"),
    )
    with Runtime(RUNTIME_SET, dsn=financial_dsn) as rt:
        ans = rt.ask("What is the longest loan duration in months?", action="showsql")
    assert ans.sql == "SELECT MAX(duration) FROM loan" and not ans.executed
    assert "no_such_column" in fake_llm.requests[1].messages[-1]["content"]


def test_chat_and_narrate_with_a_model(fake_llm, financial_dsn):
    fake_llm.script(reply("Hello! Ask me about the bank."), reply("There are exactly that many loans."))
    with Runtime(RUNTIME_SET, dsn=financial_dsn) as rt:
        chat = rt.ask(
            "hi", action="chat", context=AskContext(history=[{"role": "user", "content": "earlier"}])
        )
        assert chat.text == "Hello! Ask me about the bank." and chat.source == "model"
        assert [m["content"] for m in fake_llm.requests[0].messages] == ["earlier", "hi"]
        narr = rt.ask("How many loans are there?", action="narrate")
        assert narr.source == "template" and narr.text == "There are exactly that many loans."
        assert "Result (1 rows)" in fake_llm.requests[1].last_user


@settings(max_examples=60, deadline=None)
@given(
    n_tpl=st.integers(0, 3),
    facets=st.lists(st.integers(0, 2), max_size=3),
    dialect=st.sampled_from(["postgres", "mysql", "spanner"]),
    data=st.data(),
)
def test_injection_keeps_every_value_bound_to_its_own_placeholder(n_tpl, facets, dialect, data):
    """Whatever the template and facets, each value ends up bound once per placeholder that names it,
    in the order the final SQL reads them, and never in the SQL text."""
    ph = (lambda i: f"${i}") if dialect == "postgres" else (lambda i: "?")
    conds = " AND ".join(f"account.c{i} = {ph(i)}" for i in range(1, n_tpl + 1)) or "1 = 1"
    sql = f"SELECT COUNT(*) FROM account WHERE {conds}"
    values = [f"T{i}-{data.draw(st.integers(0, 999))}" for i in range(1, n_tpl + 1)]
    conditions = []
    expected_facet_values = []
    for k, n in enumerate(facets):
        snippet = (
            " AND ".join(f"account.f{k}_{i} > {ph(i)}" for i in range(1, n + 1)) or f"account.flag{k} = 1"
        )
        fvals = [f"F{k}.{i}" for i in range(1, n + 1)]
        conditions.append((snippet, fvals))
        expected_facet_values += fvals
    out, params = sqlparts.inject_conditions(sql, dialect, values, conditions)
    found = find_sql_placeholders(out, dialect)
    assert not any(v in out for v in values + expected_facet_values)
    if dialect == "postgres":
        assert sorted({int(p.name) for p in found}) == list(range(1, len(params) + 1))
    else:
        assert len(found) == len(params)
    assert sorted(params) == sorted(values + expected_facet_values)
    # the value bound next to each column is the one that was written for it
    for p, value in zip(
        found, params if dialect != "postgres" else [params[int(p.name) - 1] for p in found], strict=True
    ):
        column = out[: p.start].rsplit("account.", 1)[1].split()[0]
        assert (column.startswith("c") and value.startswith(f"T{column[1:]}-")) or (
            column.startswith("f") and value == f"F{column[1:].split('_')[0]}.{column.split('_')[1]}"
        )


def test_a_failing_value_search_is_skipped_with_a_warning(financial_dsn):
    import copy

    data = copy.deepcopy(json.load(open(RUNTIME_SET)))
    data["value_searches"].insert(
        0, {"query": "SELECT $value AS value FROM no_such_table", "concept_type": "Broken"}
    )
    with Runtime(data, dsn=financial_dsn, use_llm=False) as rt:
        ans = rt.ask("How many accounts are in Benesow?")
        assert ans.status == "answered" and ans.params == ["Benesov"]
        assert any("value search #0 (Broken) failed and is skipped" in w for w in ans.warnings)
        again = rt.ask("How many accounts are in Kolin?")
        assert again.params == ["Kolin"] and not any("Broken" in w for w in again.warnings)


_OFFLINE = Runtime(RUNTIME_SET, use_llm=False)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(
                ["how many", "loans", "in", "1996", "'gold'", "between", "and", "?", "Praha", "-", "$1"]
            ),
            st.text(min_size=1, max_size=12),
        ),
        min_size=1,
        max_size=12,
    ).map(" ".join)
)
def test_any_question_gets_an_answer_object(question):
    if not question.strip():
        return
    ans = _OFFLINE.ask(question, action="showsql")
    assert ans.status in ("answered", "disambiguate", "declined")
    if ans.status == "answered":
        numbers = {int(p.name) for p in find_sql_placeholders(ans.sql, "postgres")}
        assert numbers == set(range(1, len(ans.params) + 1))  # every parameter bound, none missing
        # a clean candidate far ahead of every other reading answers LEAD_CREDIT below the threshold
        assert ans.confidence >= _OFFLINE.threshold - LEAD_CREDIT
    else:
        assert ans.sql is None
