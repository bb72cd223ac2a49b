"""The chat-completions client against the scripted local server (tests/fake_llm.py)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtool.llm import ChatClient, LLMError, ToolCall, tool_result_message
from ctxtool.llm.client import _retry_after
from ctxtool.llm.sse import StreamAccumulator, iter_sse_data
from tests.fake_llm import FAKE_KEY, delay, error, raw, reply, respond, stream, tool_call

SQL_TOOL = {
    "type": "function",
    "function": {
        "name": "run_sql",
        "description": "Run a read-only SQL query",
        "parameters": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"sql": {"type": "string"}},
            "required": ["sql"],
            "additionalProperties": False,
        },
        "strict": True,
    },
}


def make_client(fake, **kw) -> tuple[ChatClient, list[float]]:
    sleeps: list[float] = []
    kw.setdefault("timeout", 5)
    client = ChatClient(fake.base_url, "fake-model", FAKE_KEY, sleep=sleeps.append, **kw)
    return client, sleeps


def test_plain_reply_and_request_shape(fake_llm):
    client, _ = make_client(fake_llm)
    fake_llm.script(reply("Hi there", usage={"prompt_tokens": 4, "completion_tokens": 2, "total_tokens": 6}))
    r = client.chat(
        [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello"}],
        temperature=0.2,
        max_tokens=50,
        response_format={"type": "json_object"},
    )
    assert r.content == "Hi there" and r.finish_reason == "stop" and r.usage["total_tokens"] == 6
    req = fake_llm.requests[0]
    assert req.path == "/v1/chat/completions"
    assert req.headers["Authorization"] == f"Bearer {FAKE_KEY}"
    assert req.body["model"] == "fake-model"
    assert req.body["temperature"] == 0.2 and req.body["max_tokens"] == 50
    assert req.body["response_format"] == {"type": "json_object"}
    assert "stream" not in req.body


def test_config_from_environment(fake_llm):
    client = ChatClient.from_env()
    assert client.base_url == fake_llm.base_url and client.model == "fake-model"
    assert FAKE_KEY not in repr(client)
    fake_llm.script(reply("ok"))
    assert client.chat([{"role": "user", "content": "x"}]).content == "ok"


def test_missing_config_is_a_usage_error(monkeypatch):
    for var in ("CTXTOOL_LLM_BASE_URL", "CTXTOOL_LLM_MODEL", "CTXTOOL_LLM_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(LLMError, match="CTXTOOL_LLM_BASE_URL") as exc:
        ChatClient()
    assert exc.value.exit_code == 2
    with pytest.raises(LLMError, match="not an http"):
        ChatClient("localhost:11434", "m")


def test_tool_calls_parsed_and_history_round_trip(fake_llm):
    client, _ = make_client(fake_llm)
    fake_llm.script(
        reply(tool_calls=[tool_call("run_sql", {"sql": "SELECT 1"}, id="call_9")]),
        reply("The answer is 1."),
    )
    messages = [{"role": "user", "content": "what is one?"}]
    r = client.chat(messages, tools=[SQL_TOOL], tool_choice="auto")
    assert r.finish_reason == "tool_calls"
    assert [c.as_dict() for c in r.tool_calls] == [
        {"id": "call_9", "name": "run_sql", "arguments": {"sql": "SELECT 1"}}
    ]
    messages += [r.message(), tool_result_message(r.tool_calls[0], [[1]])]
    r2 = client.chat(messages, tools=[SQL_TOOL])
    assert r2.content == "The answer is 1."
    sent = fake_llm.requests[1].body["messages"]
    assert sent[1]["tool_calls"][0]["function"] == {"name": "run_sql", "arguments": '{"sql": "SELECT 1"}'}
    assert sent[2] == {"role": "tool", "tool_call_id": "call_9", "name": "run_sql", "content": "[[1]]"}
    assert fake_llm.requests[0].body["tool_choice"] == "auto"
    assert fake_llm.requests[0].body["tools"][0]["function"]["parameters"]["required"] == ["sql"]


def test_bad_tool_arguments_are_reported_not_raised(fake_llm):
    client, _ = make_client(fake_llm)
    fake_llm.script(reply(tool_calls=[tool_call("run_sql", '{"sql": ')]))
    r = client.chat([{"role": "user", "content": "x"}], tools=[SQL_TOOL])
    assert r.tool_calls[0].arguments == {} and "not valid JSON" in r.tool_calls[0].arguments_error


def test_message_and_tool_validation():
    client = ChatClient("http://127.0.0.1:9/v1", "m")
    with pytest.raises(LLMError, match="role"):
        client.chat([{"role": "robot", "content": "x"}])
    with pytest.raises(LLMError, match="tool_call_id"):
        client.chat([{"role": "tool", "content": "x"}])
    with pytest.raises(LLMError, match="tool name"):
        client.chat(
            [{"role": "user", "content": "x"}], tools=[{"type": "function", "function": {"name": "bad name"}}]
        )
    with pytest.raises(LLMError, match="temperature"):
        client.chat([{"role": "user", "content": "x"}], temperature=3)


def test_retries_on_429_and_5xx_honour_retry_after(fake_llm):
    client, sleeps = make_client(fake_llm, backoff=0.5)
    fake_llm.script(
        error(429, "rate limited", headers={"Retry-After": "7"}),
        error(503, "no provider"),
        error(502, "model down"),
        reply("finally"),
    )
    r = client.chat([{"role": "user", "content": "x"}])
    assert r.content == "finally"
    assert len(fake_llm.requests) == 4
    assert sleeps[0] == 7
    assert 0.75 <= sleeps[1] <= 1.25 and 1.5 <= sleeps[2] <= 2.5  # exponential with jitter


def test_retry_after_capped_and_gives_up(fake_llm):
    client, sleeps = make_client(fake_llm, max_retries=2, max_backoff=3)
    fake_llm.script(*[error(429, "slow down", headers={"Retry-After": "100"})] * 3)
    with pytest.raises(LLMError, match=r"rate limited \(429: slow down\) after 3 attempts") as exc:
        client.chat([{"role": "user", "content": "x"}])
    assert exc.value.status == 429 and sleeps == [3, 3]


def test_retry_after_http_date():
    assert _retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert _retry_after("2.5") == 2.5
    assert _retry_after("soon") is None


@pytest.mark.parametrize(
    "status,needle",
    [
        (401, "refused the API key"),
        (402, "out of credits"),
        (403, "moderation or permission (flagged: hate"),
        (404, "CTXTOOL_LLM_MODEL"),
        (400, "rejected the request (400: bad thing)"),
    ],
)
def test_client_errors_are_one_line_and_not_retried(fake_llm, status, needle):
    client, sleeps = make_client(fake_llm)
    meta = {"reasons": ["flagged: hate"]} if status == 403 else None
    message = f"bad thing with key {FAKE_KEY}" if status == 401 else "bad thing"
    fake_llm.script(error(status, message, metadata=meta))
    with pytest.raises(LLMError) as exc:
        client.chat([{"role": "user", "content": "x"}])
    text = str(exc.value)
    assert needle in text and "\n" not in text and FAKE_KEY not in text
    assert sleeps == [] and len(fake_llm.requests) == 1
    assert exc.value.status == status


def test_error_body_as_json_array(fake_llm):
    client, _ = make_client(fake_llm)
    fake_llm.script(error(401, "API key not valid. Please pass a valid API key.", as_array=True))
    with pytest.raises(LLMError, match=r"refused the API key \(401: API key not valid"):
        client.chat([{"role": "user", "content": "x"}])


def test_non_json_error_body(fake_llm):
    client, _ = make_client(fake_llm)
    fake_llm.script(raw("<html>Bad gateway</html>", status=400, content_type="text/html"))
    with pytest.raises(LLMError, match="<html>Bad gateway</html>"):
        client.chat([{"role": "user", "content": "x"}])


def test_schema_keywords_stripped_and_retried(fake_llm):
    client, _ = make_client(fake_llm)
    fake_llm.script(
        error(400, "Invalid JSON payload received. Unknown name \"additionalProperties\" at 'tools[0]'"),
        reply(tool_calls=[tool_call("run_sql", {"sql": "SELECT 2"})]),
        reply(tool_calls=[tool_call("run_sql", {"sql": "SELECT 3"})]),
    )
    r = client.chat([{"role": "user", "content": "x"}], tools=[SQL_TOOL])
    assert r.tool_calls[0].arguments == {"sql": "SELECT 2"}
    first, second = fake_llm.requests[0].body, fake_llm.requests[1].body
    assert "additionalProperties" in json.dumps(first["tools"])
    text = json.dumps(second["tools"])
    assert "additionalProperties" not in text and "strict" not in text and "$schema" not in text
    assert second["tools"][0]["function"]["parameters"]["required"] == ["sql"]
    # learnt: later requests are stripped from the start
    client.chat([{"role": "user", "content": "y"}], tools=[SQL_TOOL])
    assert "strict" not in json.dumps(fake_llm.requests[2].body["tools"])
    assert len(fake_llm.requests) == 3


def test_forced_tool_choice_ignored_is_recovered_or_reported(fake_llm):
    client, _ = make_client(fake_llm)
    fake_llm.script(
        reply('```json\n{"sql": "SELECT 4"}\n```'),
        reply("I would rather chat."),
        reply(tool_calls=[tool_call("run_sql", {"sql": "SELECT 5"})]),
    )
    msgs = [{"role": "user", "content": "x"}]
    r = client.chat(msgs, tools=[SQL_TOOL], tool_choice="run_sql")
    assert fake_llm.requests[0].body["tool_choice"] == {"type": "function", "function": {"name": "run_sql"}}
    assert r.tool_choice_ignored and r.tool_calls[0].as_dict()["arguments"] == {"sql": "SELECT 4"}
    with pytest.raises(LLMError, match="ignored tool_choice"):
        client.chat(msgs, tools=[SQL_TOOL], tool_choice="run_sql")
    r3 = client.chat(msgs, tools=[SQL_TOOL], tool_choice="none")
    assert r3.tool_calls == [] and r3.tool_choice_ignored


def test_tool_choice_field_refused_is_dropped(fake_llm):
    client, _ = make_client(fake_llm)
    fake_llm.script(
        error(400, "Unrecognized request argument supplied: tool_choice"),
        reply(tool_calls=[tool_call("run_sql", {"sql": "SELECT 6"})]),
    )
    r = client.chat([{"role": "user", "content": "x"}], tools=[SQL_TOOL], tool_choice="required")
    assert r.tool_calls[0].arguments == {"sql": "SELECT 6"}
    assert "tool_choice" not in fake_llm.requests[1].body


def test_server_needing_a_tools_flag(fake_llm):
    client, _ = make_client(fake_llm)
    fake_llm.script(
        error(400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set')
    )
    with pytest.raises(LLMError, match="tool calling turned off.*--enable-auto-tool-choice"):
        client.chat([{"role": "user", "content": "x"}], tools=[SQL_TOOL], tool_choice="auto")
    assert len(fake_llm.requests) == 1


def test_stream_text_tool_calls_and_usage(fake_llm):
    client, _ = make_client(fake_llm)
    usage = {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}
    calls = [tool_call("run_sql", {"sql": "SELECT 7"}, id="a"), tool_call("lookup", {"q": "Praha"}, id="b")]
    fake_llm.script(stream("Hello, streaming world", tool_calls=calls, usage=usage))
    pieces: list[str] = []
    r = client.chat([{"role": "user", "content": "x"}], tools=[SQL_TOOL], stream=True, on_text=pieces.append)
    assert "".join(pieces) == "Hello, streaming world" and len(pieces) > 3
    assert r.content == "Hello, streaming world"
    assert [c.as_dict() for c in r.tool_calls] == [
        {"id": "a", "name": "run_sql", "arguments": {"sql": "SELECT 7"}},
        {"id": "b", "name": "lookup", "arguments": {"q": "Praha"}},
    ]
    assert r.usage == usage and r.finish_reason == "tool_calls"
    body = fake_llm.requests[0].body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert fake_llm.requests[0].headers["Accept"] == "text/event-stream"


def test_stream_without_tool_indexes(fake_llm):
    client, _ = make_client(fake_llm)
    calls = [
        tool_call("run_sql", {"sql": "SELECT 8"}, id="x1"),
        tool_call("run_sql", {"sql": "SELECT 9"}, id="x2"),
    ]
    fake_llm.script(stream("", tool_calls=calls, tool_index=False))
    r = client.stream([{"role": "user", "content": "x"}], tools=[SQL_TOOL]).collect()
    assert [c.arguments["sql"] for c in r.tool_calls] == ["SELECT 8", "SELECT 9"]


def test_stream_error_mid_stream(fake_llm):
    client, _ = make_client(fake_llm)
    fake_llm.script(stream("abcdefghijkl", error_after=2, error_message="upstream died"))
    s = client.stream([{"role": "user", "content": "x"}])
    got: list[str] = []
    with pytest.raises(LLMError, match="mid-stream: upstream died"):
        for t in s:
            got.append(t)
    assert got == ["abcd", "efgh"]


def test_stream_stops_at_done_and_server_ignoring_stream(fake_llm):
    client, _ = make_client(fake_llm)
    fake_llm.script(stream("ok", comments=True), reply("whole reply"))
    assert client.stream([{"role": "user", "content": "x"}]).collect().content == "ok"
    assert client.chat([{"role": "user", "content": "x"}], stream=True).content == "whole reply"


def test_stream_error_status_before_stream_retries(fake_llm):
    client, sleeps = make_client(fake_llm)
    fake_llm.script(error(503, "warming up", headers={"Retry-After": "1"}), stream("fine"))
    assert client.chat([{"role": "user", "content": "x"}], stream=True).content == "fine"
    assert sleeps == [1]


def test_timeout_is_retried_then_reported(fake_llm):
    client, sleeps = make_client(fake_llm, timeout=0.3, max_retries=1)
    fake_llm.script(delay(1.0, reply("late")), delay(1.0, reply("late")))
    with pytest.raises(LLMError, match="within 0.3s|timeout 0.3s"):
        client.chat([{"role": "user", "content": "x"}])
    assert len(sleeps) == 1


def test_connection_refused_is_clear():
    client = ChatClient("http://127.0.0.1:9/v1", "m", "secret-key", max_retries=0)
    with pytest.raises(LLMError, match="cannot reach the language model at 127.0.0.1:9") as exc:
        client.chat([{"role": "user", "content": "x"}])
    assert "secret-key" not in str(exc.value)


def test_responder_function_and_json_helper(fake_llm):
    client, _ = make_client(fake_llm)
    fake_llm.script(respond(lambda req: json.dumps({"echo": req.last_user})))
    r = client.chat([{"role": "user", "content": "ping"}])
    assert r.json() == {"echo": "ping"}


def test_sse_parser_edge_cases():
    lines = [
        b": comment\n",
        b'data: {"a":\n',
        b"data: 1}\n",
        b"\n",
        b"event: x\n",
        b"data: [DONE]\n",
        b"\n",
        b"data: 2\n\n",
    ]
    assert list(iter_sse_data(lines)) == ['{"a":\n1}']
    acc = StreamAccumulator()
    acc.add(
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {"index": 0, "id": "c", "function": {"name": "f", "arguments": '{"x"'}}
                        ]
                    },
                }
            ]
        }
    )
    acc.add(
        {
            "choices": [
                {"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": ": 1}"}}]}}
            ]
        }
    )
    acc.add({"choices": [], "usage": {"total_tokens": 3}})
    assert acc.ordered_tool_calls() == [{"id": "c", "name": "f", "arguments": '{"x": 1}'}]
    assert acc.usage == {"total_tokens": 3}


def test_tool_call_dataclass_message_part():
    call = ToolCall("id1", "f", {"a": 1})
    assert call.to_message_part()["function"]["arguments"] == '{"a": 1}'


@settings(max_examples=80, deadline=None)
@given(
    text=st.text(min_size=0, max_size=40),
    args=st.dictionaries(st.text(min_size=1, max_size=5), st.integers(), max_size=3),
    cuts=st.lists(st.integers(min_value=1, max_value=7), min_size=1, max_size=30),
)
def test_stream_accumulation_does_not_depend_on_chunking(text, args, cuts):
    """However the server splits content and tool-call arguments, the reply is the same."""
    raw = json.dumps(args)
    pieces, i, k = [], 0, 0
    while i < len(raw):
        n = cuts[k % len(cuts)]
        pieces.append(raw[i : i + n])
        i, k = i + n, k + 1
    acc = StreamAccumulator()
    lines: list[bytes] = [b": keep-alive\n", b"\n"]
    chunks = [
        {"choices": [{"index": 0, "delta": {"content": text[j : j + 3]}}]} for j in range(0, len(text), 3)
    ]
    for n, part in enumerate(pieces or [""]):
        frag = {"index": 0, "function": {"arguments": part}}
        if n == 0:
            frag.update(id="c1", function={"name": "f", "arguments": part})
        chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [frag]}}]})
    for c in chunks:
        lines += [f"data: {json.dumps(c)}\n".encode(), b"\n"]
    lines += [b"data: [DONE]\n", b"\n", b'data: {"ignored": true}\n', b"\n"]
    for payload in iter_sse_data(lines):
        acc.add(json.loads(payload))
    assert acc.content == text
    [call] = acc.ordered_tool_calls()
    assert call["name"] == "f" and json.loads(call["arguments"]) == args


_CALL = {"id": "c1", "type": "function", "function": {"name": "run_sql", "arguments": '{"sql": "SELECT 1"}'}}


@pytest.mark.parametrize(
    "messages, needle",
    [
        (
            [{"role": "user", "content": "q"}, {"role": "assistant", "content": None, "tool_calls": [_CALL]}],
            "null",
        ),
        ([{"role": "user", "content": "q"}, {"role": "tool", "content": "r"}], "tool_call_id"),
        (
            [{"role": "user", "content": "q"}, {"role": "tool", "tool_call_id": "c9", "content": "r"}],
            "answers no",
        ),
        (
            [
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": "", "tool_calls": [_CALL]},
                {"role": "user", "content": "next"},
            ],
            "no tool message answering",
        ),
        ([{"role": "assistant", "content": "hello"}, {"role": "user", "content": "q"}], "first message"),
        ([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}], "last message"),
        ([{"role": "user"}], "content is missing"),
        ([{"role": "user", "content": 3}], "must be a string"),
        ([{"role": "robot", "content": "q"}], "role"),
    ],
)
def test_the_fake_server_rejects_what_real_servers_reject(messages, needle):
    """The scripted server validates requests like llama.cpp's server and OpenAI's: each of these
    would fail against a real server, so it fails here too (and its reply stays queued)."""
    from tests.fake_llm import FakeLLM, request_problems

    assert any(needle in p for p in request_problems({"model": "m", "messages": messages}))
    good = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "", "tool_calls": [_CALL]},
        {"role": "tool", "tool_call_id": "c1", "name": "run_sql", "content": "1 row"},
        {"role": "assistant", "content": "one"},
        {"role": "user", "content": "and?"},
    ]
    assert request_problems({"model": "m", "messages": good}) == []  # the control: a valid request
    import urllib.error
    import urllib.request

    with FakeLLM() as fake:
        fake.script(reply("ok"))
        body = json.dumps({"model": "m", "messages": messages}).encode()
        request = urllib.request.Request(fake.base_url + "/chat/completions", data=body, method="POST")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=5)
        assert refused.value.code == 400 and needle in refused.value.read().decode()
        assert fake.pending == 1 and fake.rejected
        client = ChatClient(fake.base_url, "fake-model", timeout=5, sleep=lambda s: None)
        assert client.chat(good).content == "ok"
