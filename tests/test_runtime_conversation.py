"""The runtime within conversations: the history the model gets when it writes SQL (past events, tool
calls and results), and session memory as a runtime option (``attach_session_memory(Runtime(...))``)."""

from __future__ import annotations

import pytest

from ctxtool.conversations import attach_session_memory
from ctxtool.conversations.model import Turn
from ctxtool.conversations.runner import ConversationRunner
from ctxtool.conversations.store import SQLiteStore
from ctxtool.conversations.vectors import vectorize_all
from ctxtool.runtime import AskContext, Runtime
from ctxtool.runtime.llm.prompt import history_for_model
from tests.fake_llm import reply, tool_call
from tests.rt_support import RUNTIME_SET

# ------------------------------------------------------------------------------ no database


def _call(cid: str) -> dict:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": cid, "type": "function", "function": {"name": "run_sql", "arguments": "{}"}}],
    }


def test_history_keeps_system_tool_calls_and_results_in_order():
    history = [
        {"role": "system", "content": "Past events:\nUser: loans in Pisek"},
        {"role": "user", "content": "How many loans?"},
        _call("call_1"),
        {"role": "tool", "tool_call_id": "call_1", "name": "run_sql", "content": "1 row(s); first: 7"},
        {"role": "assistant", "content": "There are 7."},
        {"role": "user", "content": ""},  # empty: dropped
        {"role": "wizard", "content": "x"},  # no such role: dropped
    ]
    out = history_for_model(history)
    assert [m["role"] for m in out] == ["system", "user", "assistant", "tool", "assistant"]
    assert out[2]["tool_calls"][0]["id"] == "call_1" and out[2]["content"] == ""  # never null
    assert out[3] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "name": "run_sql",
        "content": "1 row(s); first: 7",
    }


def test_history_drops_orphan_results_and_unanswered_calls():
    history = [
        {"role": "tool", "tool_call_id": "call_0", "name": "run_sql", "content": "orphan"},
        {"role": "user", "content": "q1"},
        _call("call_1"),  # never answered
        {"role": "assistant", "content": "a1"},
        {"role": "user", "content": "q2"},
        _call("call_2"),
        {"role": "tool", "tool_call_id": "call_2", "name": "run_sql", "content": "r2"},
    ]
    out = history_for_model(history)
    assert [m.get("content") for m in out] == ["q1", "a1", "q2", "", "r2"]
    # a cut through a turn never leaves a result without its call; the past events stay
    cut = history_for_model([{"role": "system", "content": "Past events:\nx"}, *history[4:]], limit=1)
    assert [m["role"] for m in cut] == []  # only the result would fit: it has no call, so nothing
    cut = history_for_model([{"role": "system", "content": "Past events:\nx"}, *history[4:]], limit=3)
    assert [m["role"] for m in cut] == ["system", "user", "assistant", "tool"]


@pytest.mark.parametrize("position", ["after_main", "before_main"])
def test_sql_prompt_places_past_events_where_asked(position):
    from ctxtool.runtime.llm.prompt import build_messages

    history = [
        {"role": "system", "content": "Past events:\nUser: gold cards", "position": position},
        {"role": "user", "content": "q1"},
        {"role": "assistant", "content": "a1"},
    ]
    msgs = build_messages("q2", "postgres", {"tables": []}, [], [], history=history)
    contents = [m["content"].split("\n")[0] for m in msgs]
    main = msgs[[m["role"] for m in msgs].index("system") if position == "after_main" else 1]["content"]
    assert main.startswith("You write SQL")
    if position == "after_main":
        assert contents[1:] == ["Past events:", "q1", "a1", "q2"]
    else:
        assert contents[0] == "Past events:" and contents[2:] == ["q1", "a1", "q2"]
    assert all("position" not in m for m in msgs)  # the marker never reaches the model


# ------------------------------------------------------------------------------ a database and a model


@pytest.mark.postgres
def test_model_writing_sql_gets_past_events_and_tool_results(financial_dsn, tmp_path, fake_llm):
    """A question no template covers goes to the model with the conversation: the "Past events"
    system message, the earlier runs as tool calls with their results, then the question."""
    from ctxtool.llm import ChatClient

    store = SQLiteStore(tmp_path / "c.sqlite")
    cid = store.create_conversation().conversation_id
    store.add_prompt(
        cid,
        Turn(
            prompt="Which loans are running in debt in Pisek?",
            sql="SELECT loan_id FROM loan WHERE status = 'D'",
            summary="3 row(s); columns loan_id; first: 1; 2; 3",
            answer="Three loans in Pisek run in debt.",
        ),
    )
    for i in range(6):
        store.add_prompt(
            cid,
            Turn(prompt=f"How many cards of type {i}?", sql=f"SELECT {i}", summary=f"1 row(s); first: {i}"),
        )
    client = ChatClient(fake_llm.base_url, "fake-model", timeout=5)
    sql = "SELECT COUNT(*) AS n FROM loan WHERE status = 'D'"
    with Runtime(RUNTIME_SET, dsn=financial_dsn, llm=client) as rt:
        runner = ConversationRunner(rt, store=store)
        vectorize_all(store, cid, runner.embedder)
        fake_llm.script(reply(tool_calls=[tool_call("run_sql", {"sql": sql})]))
        question = "remind me how many loans in Pisek run in debt, counted"
        ans = runner.ask(question, conversation_id=cid)
    assert ans.source == "llm" and ans.status == "answered" and ans.sql == sql and ans.executed
    sent = fake_llm.requests[0].body["messages"]
    assert fake_llm.requests[0].body["tools"][0]["function"]["name"] == "run_sql"
    roles = [m["role"] for m in sent]
    assert roles[0] == "system" and "Schema:" in sent[0]["content"]  # the main prompt first
    assert roles[1] == "system" and sent[1]["content"].startswith("Past events:\n")
    assert "Pisek" in sent[1]["content"]
    assert sent[-1] == {"role": "user", "content": question}
    calls = [m for m in sent if m.get("tool_calls")]
    results = [m for m in sent if m["role"] == "tool"]
    assert len(calls) == len(results) == 7  # every earlier run, as a call and its result
    for call, result in zip(calls, results, strict=True):
        at = sent.index(call)
        assert sent[at + 1] is result  # the result right after its call
        assert result["tool_call_id"] == call["tool_calls"][0]["id"]
        assert result["name"] == "run_sql" == call["tool_calls"][0]["function"]["name"]
    assert results[-1]["content"] == "1 row(s); first: 5"
    # the user turns go in order, oldest first, before the question
    users = [m["content"] for m in sent if m["role"] == "user"]
    assert (
        users[0] == "Which loans are running in debt in Pisek?" and users[-2] == "How many cards of type 5?"
    )
    store.close()


@pytest.mark.postgres
def test_chat_in_a_named_conversation_whose_history_holds_sql_answers(financial_dsn, tmp_path, fake_llm):
    """Five turns answered with SQL, then the chat action: the model gets every earlier run as a
    tool call (content "", never null) and its result, which a real server accepts."""
    store = SQLiteStore(tmp_path / "c.sqlite")
    cid = store.create_conversation().conversation_id
    with Runtime(RUNTIME_SET, dsn=financial_dsn) as rt:
        runner = ConversationRunner(rt, store=store)
        for question in (
            "How many accounts are there?",
            "How many loans are there?",
            "How many gold cards were issued?",
            "How many clients are there?",
            "What is the average loan amount?",
        ):
            assert runner.ask(question, conversation_id=cid).status == "answered"
        fake_llm.script(reply("You asked about accounts, loans, cards, clients and loan amounts."))
        ans = runner.ask("what did I ask so far?", "chat", conversation_id=cid)
    assert ans.status == "answered" and ans.text.startswith("You asked")
    (request,) = fake_llm.requests
    calls = [m for m in request.messages if m.get("tool_calls")]
    assert len(calls) == 5 and all(m["content"] == "" for m in calls)
    assert [m["role"] for m in request.messages].count("tool") == 5
    store.close()


@pytest.mark.postgres
def test_showprompt_shows_the_same_history(financial_dsn):
    history = [
        {"role": "system", "content": "Past events:\nUser: gold cards"},
        {"role": "user", "content": "How many loans?"},
        _call("call_9"),
        {"role": "tool", "tool_call_id": "call_9", "name": "run_sql", "content": "1 row(s)"},
    ]
    with Runtime(RUNTIME_SET, dsn=financial_dsn, use_llm=False) as rt:
        ans = rt.ask("what is the weather?", "showprompt", context=AskContext(history=history))
    assert [m["role"] for m in ans.prompt] == ["system", "system", "user", "assistant", "tool", "user"]
    assert ans.prompt[4]["tool_call_id"] == "call_9"


@pytest.mark.postgres
def test_runtime_conversation_option_is_session_memory(financial_dsn, tmp_path, data_home):
    """``attach_session_memory(runtime)`` is the profile option: asked without a context, questions
    go through session memory (follow-ups resolve, 10 prompts kept, nothing stored); a named
    conversation in use ignores it."""
    with Runtime(RUNTIME_SET, dsn=financial_dsn, use_llm=False) as rt:
        attach_session_memory(rt)
        first = rt.ask("How many accounts are there?")
        follow = rt.ask("break it down by frequency")
        assert first.source == "template" and follow.source == "followup"
        assert len(follow.rows) == 3 and sum(r[-1] for r in follow.rows) == first.rows[0][0]
        memory = rt.session.memory
        assert [t.prompt for t in memory.history(rt.ref)] == [
            "How many accounts are there?",
            "break it down by frequency",
        ]
        for _ in range(11):
            rt.ask("How many loans are there?", "showsql")
        assert len(memory.history(rt.ref)) == 10
        assert not any(data_home.glob("**/*.sqlite"))  # never written to disk
        # a named conversation is in use: the session memory is neither read nor written
        store = SQLiteStore(tmp_path / "c.sqlite")
        cid = store.create_conversation().conversation_id
        named = ConversationRunner(rt, store=store)
        ans = named.ask("break it down by frequency", conversation_id=cid)
        assert ans.source != "followup"  # the session's earlier accounts question is not used
        assert memory.history(rt.ref)[-1].prompt == "How many loans are there?"
        store.close()
    with Runtime(RUNTIME_SET, dsn=financial_dsn, use_llm=False) as plain:
        plain.ask("How many accounts are there?")
        assert plain.ask("break it down by frequency").source != "followup"


def test_a_question_with_its_own_entity_and_measure_is_not_a_followup(financial_dsn, data_home):
    """Asked after a question about loans, "which district has the most accounts?" names a table the
    previous query does not read and says what to compute: it stands alone (never an ORDER BY over
    the one-row previous result)."""
    with Runtime(RUNTIME_SET, dsn=financial_dsn, use_llm=False) as rt:
        attach_session_memory(rt)
        first = rt.ask("What is the average loan amount?")
        second = rt.ask("which district has the most accounts?")
        assert first.source == "template"
        assert second.source != "followup", second.explanation
