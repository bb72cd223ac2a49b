"""Model and chat-vectorization settings where users set them, against the scripted OpenAI-compatible
server (tests/fake_llm.py): temperature, max tokens, timeout, retries, the error-handling level and
the message level from the environment, the CLI, HTTP bodies and MCP calls; the vector settings from
the CLI and a conversation's stored settings; vector summarization."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ctxtool.conversations.model import Turn
from ctxtool.conversations.runner import ConversationRunner
from ctxtool.conversations.store import SQLiteStore
from ctxtool.conversations.vectors import DEFAULT_SUMMARY_PROMPT, VectorSettings
from ctxtool.errors import InputError
from ctxtool.llm import LLMError
from ctxtool.llm.settings import ModelSettings, effective, requested
from ctxtool.runtime import Runtime
from tests.fake_llm import error, reply
from tests.rt_support import RUNTIME_SET

UNCOVERED = "what is the weather on the moon?"  # no template covers it: the model is asked


# ------------------------------------------------------------------------------ no database


def test_settings_from_environment_profile_and_request(monkeypatch):
    monkeypatch.setenv("CTXTOOL_LLM_TEMPERATURE", "0.4")
    monkeypatch.setenv("CTXTOOL_LLM_ERRORS", "Fail")
    assert effective() == ModelSettings(temperature=0.4, errors="fail")
    # a profile's explicit values win over the environment, a request's over both
    assert effective({"temperature": 0.2}).temperature == 0.2
    with requested({"temperature": 1.5, "messages": "debug"}):
        s = effective({"temperature": 0.2, "max_tokens": 64})
    assert (s.temperature, s.max_tokens, s.messages, s.errors) == (1.5, 64, "debug", "fail")
    monkeypatch.setenv("CTXTOOL_LLM_MESSAGES", "loud")
    with pytest.raises(InputError, match="messages 'loud' is invalid"):
        effective()
    with pytest.raises(InputError, match="unknown model setting 'temprature'"):
        ModelSettings().merged({"temprature": 1})
    with pytest.raises(InputError, match="out of range"):
        ModelSettings(temperature=3)


def test_vector_settings_merge_and_validation():
    s = VectorSettings().merged({"insert": 5, "position": "in_chat", "summarize": True})
    assert (s.insert, s.position, s.summarize) == (5, "in_chat", True)
    assert s.stored() == {"insert": 5, "position": "in_chat", "summarize": True}
    with pytest.raises(InputError, match="position 'nowhere'"):
        VectorSettings().merged({"position": "nowhere"})
    with pytest.raises(InputError, match="unknown vector setting"):
        VectorSettings().merged({"inserts": 5})


# ------------------------------------------------------------------------------ with the fake model


@pytest.mark.postgres
def test_temperature_max_tokens_and_message_levels_reach_the_model(financial_dsn, fake_llm, capsys):
    fake_llm.default = lambda r: reply("It is cold.")
    profile = {"temperature": 0.3, "max_tokens": 77, "messages": "debug"}
    from ctxtool.llm.settings import stderr_sink

    with Runtime(RUNTIME_SET, dsn=financial_dsn, model_settings=profile, model_log=stderr_sink) as rt:
        ans = rt.ask(UNCOVERED, "chat")
        body = fake_llm.requests[-1].body
        assert (body["temperature"], body["max_tokens"]) == (0.3, 77)
        (call,) = ans.model_calls
        assert call["model"] == "fake-model" and call["finish_reason"] == "stop" and "request" not in call
        assert "model call: fake-model, 1 message(s), temperature 0.3" in capsys.readouterr().err
        with requested({"messages": "detailed", "temperature": 0.9}):
            ans = rt.ask(UNCOVERED, "chat")
        assert fake_llm.requests[-1].body["temperature"] == 0.9
        (call,) = ans.model_calls
        assert call["request"][-1]["content"] == UNCOVERED and call["reply"]["content"] == "It is cold."
        assert "sk-fake-secret" not in json.dumps(ans.to_dict())  # the key never shows
    with Runtime(RUNTIME_SET, dsn=financial_dsn) as rt:  # the default level: release, nothing recorded
        ans = rt.ask(UNCOVERED, "chat")
        assert ans.model_calls is None and "model_calls" not in ans.to_dict()
        assert (
            fake_llm.requests[-1].body["temperature"] == 0 and "max_tokens" not in fake_llm.requests[-1].body
        )


@pytest.mark.postgres
def test_error_levels_fail_handle_ignore(financial_dsn, fake_llm):
    fake_llm.default = lambda r: error(503, "overloaded")
    base = {"retries": 1}
    with Runtime(RUNTIME_SET, dsn=financial_dsn, model_settings={**base, "errors": "fail"}) as rt:
        with pytest.raises(LLMError, match="503"):
            rt.ask(UNCOVERED)
        assert len(fake_llm.requests) == 2  # one retry, as set
    with Runtime(RUNTIME_SET, dsn=financial_dsn, model_settings={**base, "errors": "handle"}) as rt:
        ans = rt.ask(UNCOVERED)
        assert ans.status != "answered" and any(
            "language model failed writing SQL" in w for w in ans.warnings
        )
        chat = rt.ask(UNCOVERED, "chat")
        assert chat.status == "error" and "503" in chat.error
        # a covered question never needs the model: answered whatever the model does
        assert rt.ask("How many accounts are there?").status == "answered"
    with Runtime(RUNTIME_SET, dsn=financial_dsn, model_settings={**base, "errors": "ignore"}) as rt:
        ans = rt.ask(UNCOVERED)
        assert not any("language model" in w for w in ans.warnings)
        chat = rt.ask(UNCOVERED, "chat")
        assert chat.status == "declined" and chat.error is None


@pytest.mark.postgres
def test_timeout_setting(financial_dsn, fake_llm):
    from tests.fake_llm import delay

    fake_llm.default = lambda r: delay(1.5, reply("late"))
    settings = {"timeout": 0.3, "retries": 0, "errors": "fail"}
    with Runtime(RUNTIME_SET, dsn=financial_dsn, model_settings=settings) as rt:
        with pytest.raises(LLMError, match="0.3s"):
            rt.ask(UNCOVERED, "chat")


@pytest.mark.postgres
def test_sql_retries_setting(financial_dsn, fake_llm):
    """The model's SQL goes through the read-only gate; it may correct a rejected one sql_retries times."""
    from tests.fake_llm import tool_call

    bad = reply(tool_calls=[tool_call("run_sql", {"sql": "DELETE FROM loan"})])
    fake_llm.default = lambda r: bad
    with Runtime(RUNTIME_SET, dsn=financial_dsn, model_settings={"sql_retries": 2}) as rt:
        ans = rt.ask("which loans are the oddest?")
    assert len(fake_llm.requests) == 3 and ans.status != "answered"
    assert sum("model SQL rejected" in w for w in ans.warnings) == 3


@pytest.mark.postgres
def test_cli_flags_and_environment(financial_dsn, fake_llm, monkeypatch, data_home):
    from ctxtool.cli import cli as main

    fake_llm.default = lambda r: reply("Nobody knows.")
    monkeypatch.setenv("CTXTOOL_LLM_MAX_TOKENS", "40")
    args = ["ask", UNCOVERED, "--action", "chat", "--context", RUNTIME_SET, "--dsn", financial_dsn]
    result = CliRunner().invoke(main, [*args, "--temperature", "0.5", "--model-messages", "debug"])
    assert result.exit_code == 0, result.output
    body = fake_llm.requests[-1].body
    assert body["temperature"] == 0.5 and body["max_tokens"] == 40  # the flag and the environment
    assert "model call: fake-model" in result.stderr
    result = CliRunner().invoke(main, [*args, "--temperature", "7"])
    assert result.exit_code == 2 and "--temperature" in result.output
    monkeypatch.setenv("CTXTOOL_LLM_ERRORS", "sometimes")
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and "errors 'sometimes' is invalid" in result.output


@pytest.mark.postgres
def test_http_body_and_mcp_call_set_the_request(financial_dsn, fake_llm):
    from ctxtool.mcp.server import registry
    from ctxtool.mcp.tools import Defaults, ToolError, call
    from ctxtool.server.service import Service

    fake_llm.default = lambda r: reply("Cold.")
    with Runtime(RUNTIME_SET, dsn=financial_dsn) as rt:
        service = Service(rt)
        out = service.ask(
            {
                "question": UNCOVERED,
                "action": "chat",
                "model_settings": {"temperature": 1.1, "messages": "debug"},
            }
        )
        assert fake_llm.requests[-1].body["temperature"] == 1.1 and len(out["model_calls"]) == 1
        with pytest.raises(InputError, match="unknown model setting"):
            service.ask({"question": UNCOVERED, "model_settings": {"heat": 1}})
    tools = registry()
    defaults = Defaults(dsn=financial_dsn, context=RUNTIME_SET, model={"max_tokens": 33})
    out = call(
        tools,
        "ask",
        {"question": UNCOVERED, "action": "runsql", "model_settings": {"temperature": 0.7}},
        defaults,
    )
    sent = fake_llm.requests[-1].body
    assert (sent["temperature"], sent["max_tokens"]) == (0.7, 33)  # the call's and the server's
    assert out["status"] != "answered"
    with pytest.raises(ToolError, match="model_settings"):
        call(tools, "ask", {"question": UNCOVERED, "model_settings": {"temperature": "hot"}}, defaults)


# ------------------------------------------------------------------------------ chat vectorization


def _summaries(request) -> str:
    """The fake model: summarization requests get a summary naming the message's last word."""
    first = request.messages[0]
    if first.get("role") == "system" and first.get("content") == DEFAULT_SUMMARY_PROMPT:
        return "SUMMARY about " + request.messages[-1]["content"].split()[-1].strip("?.")
    return "plain answer"


@pytest.mark.postgres
def test_conversation_settings_win_and_summarization_inserts_originals(financial_dsn, tmp_path, fake_llm):
    from ctxtool.conversations.vectors import vector_space
    from ctxtool.embeddings import get_embedder

    fake_llm.default = _summaries
    store = SQLiteStore(tmp_path / "c.sqlite")
    cid = store.create_conversation().conversation_id
    store.set_settings(
        cid, {"vectors": {"summarize": True, "summarize_query": True, "retain": 2, "insert": 2}}
    )
    with Runtime(RUNTIME_SET, dsn=financial_dsn, vector_settings={"insert": 1, "retain": 4}) as rt:
        runner = ConversationRunner(rt, store=store, embedder=get_embedder("hash"))
        s = runner.vector_settings(cid)
        assert (s.insert, s.retain, s.summarize) == (2, 2, True)  # the conversation's own win
        assert runner.vector_settings(None).insert == 1  # the profile's (CLI / serve flags)
        for q in (
            "How many accounts are there?",
            "How many loans are there?",
            "How many gold cards were issued?",
        ):
            assert runner.ask(q, conversation_id=cid).status == "answered"
        summaries = [r for r in fake_llm.requests if r.messages[0].get("content") == DEFAULT_SUMMARY_PROMPT]
        assert len(summaries) >= 6  # each prompt and each response, and the query messages
        stats = store.vector_stats(cid)
        assert stats["embedders"] == [vector_space(runner.embedder, s)] and stats["embedders"][0].endswith(
            "+summary"
        )
        texts = [
            r[0] for r in store._read("SELECT text FROM message_vectors WHERE conversation_id = ?", (cid,))
        ]
        assert all(t.startswith("SUMMARY about") for t in texts)  # summaries are what is searched
        messages = runner.model_history("accounts again?", store.recent_prompts(cid, 10), cid)
    past = [m for m in messages if m["role"] == "system"]
    assert past and "SUMMARY" not in past[0]["content"]  # the original message is inserted
    assert "User: How many accounts are there?" in past[0]["content"]
    store.close()


def test_summarization_without_a_model_is_a_clear_error(tmp_path):
    from ctxtool.conversations.vectors import vectorize_turn
    from ctxtool.embeddings import get_embedder

    store = SQLiteStore(tmp_path / "c.sqlite")
    cid = store.create_conversation().conversation_id
    turn = store.add_prompt(cid, Turn(prompt="How many loans?", summary="1 row(s)"))
    with pytest.raises(InputError, match="needs a language model"):
        vectorize_turn(store, cid, turn, get_embedder("hash"), VectorSettings(summarize=True))
    store.close()


def test_conversation_cli_stores_vector_settings(data_home):
    from ctxtool.cli import cli as main

    runner = CliRunner()
    out = runner.invoke(
        main, ["conversation", "create", "--vector-insert", "4", "--vector-summarize", "--format", "json"]
    )
    assert out.exit_code == 0, out.output
    created = json.loads(out.output)
    cid = created["conversation_id"]
    assert created["settings"] == {"vectors": {"insert": 4, "summarize": True}}
    out = runner.invoke(
        main, ["conversation", "update", cid, "--vector-position", "in_chat", "--format", "json"]
    )
    assert json.loads(out.output)["settings"]["vectors"] == {
        "insert": 4,
        "summarize": True,
        "position": "in_chat",
    }
    out = runner.invoke(
        main, ["conversation", "update", cid, "--reset-vectors", "--vector-depth", "3", "--format", "json"]
    )
    assert json.loads(out.output)["settings"] == {"vectors": {"depth": 3}}
    out = runner.invoke(main, ["conversation", "update", cid, "--vector-template", "no placeholder"])
    assert out.exit_code == 2 and "{{text}}" in out.output
    shown = runner.invoke(main, ["conversation", "show", cid])
    assert "vectors: depth=3" in shown.output
