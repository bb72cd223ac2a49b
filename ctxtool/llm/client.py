"""The OpenAI-compatible chat-completions client (standard library only).

Why one client: hosted routers, Gemini's compatible endpoint, Ollama, vLLM and llama.cpp's server all
speak ``POST {base_url}/chat/completions``, with small deviations this module absorbs:

- errors as a JSON object ``{"error": {...}}``, a bare string, or a JSON *array* of such objects;
- servers that reject ``strict``, ``additionalProperties`` or ``$schema`` in tool schemas: the
  schemas are stripped of them and the request is sent again (and stripped from then on);
- servers that ignore ``tool_choice`` (or refuse the field): a forced call that comes back as JSON
  text is recovered, otherwise a clear error says the server ignored it;
- servers that need a flag to enable tool calls at all (vLLM ``--enable-auto-tool-choice``,
  llama.cpp ``--jinja``, Ollama models without tool support): a one-line error names the flag.

Retries with exponential backoff on 408/429/5xx and network errors honour ``Retry-After``. The API key
is sent only in the ``Authorization`` header and never appears in messages or ``repr``.
"""

from __future__ import annotations

import email.utils
import json
import os
import random
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxtool import __version__
from ctxtool.errors import EXIT_DATABASE, EXIT_USAGE, CtxtoolError
from ctxtool.llm.sse import StreamAccumulator, iter_sse_data

ENV_BASE_URL = "CTXTOOL_LLM_BASE_URL"
ENV_MODEL = "CTXTOOL_LLM_MODEL"
ENV_API_KEY = "CTXTOOL_LLM_API_KEY"

RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
_SCHEMA_KEYS_REJECTED = ("strict", "additionalProperties", "$schema")
_ROLES = ("system", "user", "assistant", "tool", "developer")


class LLMError(CtxtoolError):
    """The language model could not be reached or refused a request (one-line message)."""

    exit_code = EXIT_DATABASE

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: Any = None,
        exit_code: int | None = None,
        retryable: bool = False,
    ) -> None:
        super().__init__(message, exit_code=exit_code)
        self.status = status
        self.code = code
        self.retryable = retryable


@dataclass
class ToolCall:
    """A tool call the model asked for; ``arguments`` is the decoded JSON object."""

    id: str
    name: str
    arguments: dict[str, Any]
    raw_arguments: str = ""
    arguments_error: str | None = None  # set when the model sent arguments that are not a JSON object

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}

    def to_message_part(self) -> dict[str, Any]:
        """The wire form, for an assistant message in the chat history."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.raw_arguments or json.dumps(self.arguments)},
        }


@dataclass
class ChatResponse:
    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    model: str | None = None
    id: str | None = None
    raw: Any = None
    tool_choice_ignored: bool = False  # the server did not honour a forced or "none" tool_choice

    def message(self) -> dict[str, Any]:
        """This reply as an assistant message to append to the chat history (content always a
        string: llama.cpp's chat templates fail on ``null``)."""
        msg: dict[str, Any] = {"role": "assistant", "content": self.content or ""}
        if self.tool_calls:
            msg["tool_calls"] = [c.to_message_part() for c in self.tool_calls]
        return msg

    def json(self) -> Any:
        """The content parsed as JSON (tolerating a Markdown code fence around it)."""
        return parse_json_content(self.content or "")


def tool_result_message(call: ToolCall | Mapping[str, Any], content: Any) -> dict[str, Any]:
    """The ``role: tool`` message that reports the result of ``call`` back to the model."""
    call_id = call.id if isinstance(call, ToolCall) else call["id"]
    name = call.name if isinstance(call, ToolCall) else call["name"]
    text = content if isinstance(content, str) else json.dumps(content, default=str)
    return {"role": "tool", "tool_call_id": call_id, "name": name, "content": text}


def parse_json_content(text: str) -> Any:
    """Parse model output as JSON, accepting a ```json fenced block or leading prose."""
    stripped = text.strip()
    if stripped.startswith("```"):
        body = stripped.split("\n", 1)[1] if "\n" in stripped else ""
        stripped = body.rsplit("```", 1)[0].strip()
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    for opener, closer in (("{", "}"), ("[", "]")):
        start, end = stripped.find(opener), stripped.rfind(closer)
        if 0 <= start < end:
            try:
                return json.loads(stripped[start : end + 1])
            except ValueError:
                continue
    raise LLMError("the model's reply is not valid JSON; try a lower temperature or another model")


def _strip_schema(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_schema(v) for k, v in value.items() if k not in _SCHEMA_KEYS_REJECTED}
    if isinstance(value, list):
        return [_strip_schema(v) for v in value]
    return value


def _retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _error_fields(body: bytes) -> tuple[Any, str, Any]:
    """``(code, message, metadata)`` from an error body in any of the shapes servers send."""
    text = body.decode("utf-8", "replace").strip()
    try:
        data: Any = json.loads(text)
    except ValueError:
        return None, " ".join(text.split())[:300], None
    if isinstance(data, list):  # one server sends [{"error": {...}}]
        data = data[0] if data else {}
    if isinstance(data, dict) and "error" in data:
        err = data["error"]
        if isinstance(err, dict):
            message = err.get("message") or err.get("status") or json.dumps(err)[:300]
            return err.get("code"), str(message), err.get("metadata")
        return data.get("code"), str(err), None
    if isinstance(data, dict):
        return data.get("code"), str(data.get("message") or data.get("detail") or text[:300]), None
    return None, text[:300], None


class ChatStream:
    """A streamed reply: iterate it for text deltas; ``response`` holds the whole reply afterwards."""

    def __init__(self, lines: Iterator[bytes], close: Callable[[], None], finish: Callable) -> None:
        self._lines = lines
        self._close = close
        self._finish = finish
        self.acc = StreamAccumulator()
        self.response: ChatResponse | None = None

    def __iter__(self) -> Iterator[str]:
        try:
            for payload in iter_sse_data(self._lines):
                try:
                    chunk = json.loads(payload)
                except ValueError:
                    raise LLMError(
                        f"the server sent a stream chunk that is not JSON: {payload[:120]!r}"
                    ) from None
                text = self.acc.add(chunk)
                if self.acc.error is not None or self.acc.finish_reason == "error":
                    err = self.acc.error or {}
                    raise LLMError(
                        f"the model failed mid-stream: {err.get('message') or 'finish_reason error'}",
                        code=err.get("code"),
                    )
                if text:
                    yield text
        except TimeoutError:
            raise LLMError("the stream stalled: no data within the timeout; raise --timeout") from None
        finally:
            self._close()
        self.response = self._finish(self.acc)

    def collect(self) -> ChatResponse:
        for _ in self:
            pass
        assert self.response is not None
        return self.response


class ChatClient:
    """A client for one model on one OpenAI-compatible endpoint."""

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        max_retries: int = 3,
        backoff: float = 1.0,
        max_backoff: float = 30.0,
        headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        base_url = base_url or os.environ.get(ENV_BASE_URL)
        model = model or os.environ.get(ENV_MODEL)
        if not base_url:
            raise LLMError(
                f"no language model configured: set {ENV_BASE_URL} (e.g. http://localhost:11434/v1 for "
                f"Ollama) and {ENV_MODEL}",
                exit_code=EXIT_USAGE,
            )
        if not model:
            raise LLMError(f"no model named: set {ENV_MODEL} or pass --llm-model", exit_code=EXIT_USAGE)
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise LLMError(
                f"{ENV_BASE_URL}={base_url!r} is not an http(s) URL; use e.g. https://openrouter.ai/api/v1",
                exit_code=EXIT_USAGE,
            )
        self.base_url = base_url.rstrip("/")
        self.model = model
        self._api_key = api_key if api_key is not None else os.environ.get(ENV_API_KEY) or None
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.headers = dict(headers or {})
        self.extra_body = dict(extra_body or {})
        self._sleep = sleep
        self.strip_schemas = False  # learnt: the server rejects strict/additionalProperties/$schema
        self.omit_tool_choice = False  # learnt: the server refuses the tool_choice field
        self.omit_stream_options = False  # learnt: the server refuses stream_options

    @classmethod
    def from_env(cls, **kwargs: Any) -> ChatClient:
        """A client configured from ``CTXTOOL_LLM_*`` (keyword arguments override)."""
        return cls(**kwargs)

    @property
    def endpoint(self) -> str:
        if self.base_url.endswith("/chat/completions"):
            return self.base_url
        return self.base_url + "/chat/completions"

    @property
    def host(self) -> str:
        return urllib.parse.urlsplit(self.base_url).netloc

    def __repr__(self) -> str:
        key = "set" if self._api_key else "none"
        return f"ChatClient(base_url={self.base_url!r}, model={self.model!r}, api_key={key})"

    # -- public API ---------------------------------------------------------------------------

    def chat(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | Mapping[str, Any] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        response_format: Mapping[str, Any] | None = None,
        stream: bool = False,
        on_text: Callable[[str], None] | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> ChatResponse:
        """Send ``messages`` (oldest first) and return the complete reply.

        With ``stream=True`` the reply is read as server-sent events and ``on_text`` receives each
        text delta as it arrives; the result is the same :class:`ChatResponse`.
        """
        if stream:
            s = self.stream(
                messages,
                tools=tools,
                tool_choice=tool_choice,
                temperature=temperature,
                max_tokens=max_tokens,
                response_format=response_format,
                extra=extra,
            )
            for text in s:
                if on_text:
                    on_text(text)
            assert s.response is not None
            return s.response
        body = self._body(
            messages, tools, tool_choice, temperature, max_tokens, response_format, False, extra
        )
        resp, _sent = self._send(body)
        try:
            raw_text = resp.read()
        except TimeoutError:
            raise LLMError(
                f"no answer from {self.host} within {self.timeout:g}s; raise the timeout"
            ) from None
        finally:
            resp.close()
        try:
            data = json.loads(raw_text)
        except ValueError:
            raise LLMError(
                f"{self.host} answered with something that is not JSON: {raw_text[:120]!r}; "
                f"check {ENV_BASE_URL} points at an OpenAI-compatible /v1 endpoint"
            ) from None
        return self._finish_response(data, body)

    def stream(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | Mapping[str, Any] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        response_format: Mapping[str, Any] | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> ChatStream:
        """Start a streamed reply; iterate the result for text deltas."""
        body = self._body(messages, tools, tool_choice, temperature, max_tokens, response_format, True, extra)
        resp, _sent = self._send(body)
        if "text/event-stream" not in (resp.headers.get("Content-Type") or "") and not _peek_is_sse(resp):
            # A server that ignores "stream" answers with one JSON body: accept it.
            try:
                data = json.loads(resp.read())
            except ValueError:
                raise LLMError(f"{self.host} sent neither an event stream nor JSON") from None
            finally:
                resp.close()
            final = self._finish_response(data, body)
            return _DoneStream(final)

        def finish(acc: StreamAccumulator) -> ChatResponse:
            data = {
                "id": acc.id,
                "model": acc.model,
                "usage": acc.usage,
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": acc.finish_reason,
                        "message": {
                            "role": "assistant",
                            "content": acc.content,
                            "tool_calls": [
                                {
                                    "id": c["id"],
                                    "type": "function",
                                    "function": {"name": c["name"], "arguments": c["arguments"]},
                                }
                                for c in acc.ordered_tool_calls()
                            ],
                        },
                    }
                ],
            }
            return self._finish_response(data, body)

        return ChatStream(_lines(resp), resp.close, finish)

    # -- request building ---------------------------------------------------------------------

    def _body(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None,
        tool_choice: str | Mapping[str, Any] | None,
        temperature: float | None,
        max_tokens: int | None,
        response_format: Mapping[str, Any] | None,
        stream: bool,
        extra: Mapping[str, Any] | None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [_check_message(m, i) for i, m in enumerate(messages)],
        }
        if not body["messages"]:
            raise LLMError("no messages to send", exit_code=EXIT_USAGE)
        if temperature is not None:
            if not 0 <= temperature <= 2:
                raise LLMError(f"temperature {temperature} is out of range: use 0 to 2", exit_code=EXIT_USAGE)
            body["temperature"] = temperature
        if max_tokens is not None:
            if max_tokens <= 0:
                raise LLMError("max_tokens must be positive", exit_code=EXIT_USAGE)
            body["max_tokens"] = max_tokens
        if tools:
            body["tools"] = [_check_tool(t) for t in tools]
            if tool_choice is not None:
                body["tool_choice"] = _tool_choice(tool_choice)
        elif tool_choice not in (None, "none", "auto"):
            raise LLMError("tool_choice names a tool but no tools were given", exit_code=EXIT_USAGE)
        if response_format is not None:
            body["response_format"] = dict(response_format)
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        body.update(self.extra_body)
        body.update(extra or {})
        return body

    def _adapt(self, body: dict[str, Any]) -> dict[str, Any]:
        """Apply what was learnt about this server's deviations."""
        body = dict(body)
        if self.strip_schemas:
            if "tools" in body:
                body["tools"] = _strip_schema(body["tools"])
            rf = body.get("response_format")
            if isinstance(rf, dict) and "json_schema" in rf:
                body["response_format"] = _strip_schema(rf)
        if self.omit_tool_choice:
            body.pop("tool_choice", None)
        if self.omit_stream_options:
            body.pop("stream_options", None)
        return body

    # -- transport ----------------------------------------------------------------------------

    def _request(self, body: dict[str, Any]) -> urllib.request.Request:
        headers = {
            "Content-Type": "application/json",
            "Accept": "text/event-stream" if body.get("stream") else "application/json",
            "User-Agent": f"ctxtool/{__version__}",
            **self.headers,
        }
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return urllib.request.Request(
            self.endpoint, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST"
        )

    def _send(self, body: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """POST ``body``, retrying transient failures and adapting to known deviations. Returns the
        open response and the body that was finally accepted."""
        attempt = 0
        adaptations = 0
        body = self._adapt(body)
        while True:
            try:
                resp = urllib.request.urlopen(self._request(body), timeout=self.timeout)
                return resp, body
            except urllib.error.HTTPError as exc:
                status = exc.code
                try:
                    raw = exc.read()
                except OSError:
                    raw = b""
                retry_after = _retry_after(exc.headers.get("Retry-After") if exc.headers else None)
                exc.close()
                code, message, metadata = _error_fields(raw)
                message = self._scrub(message)
                if status in (400, 422) and adaptations < 3:
                    adapted = self._adapt_to_rejection(body, message)
                    if adapted is not None:
                        body = adapted
                        adaptations += 1
                        continue
                if status in RETRY_STATUSES and attempt < self.max_retries:
                    self._wait(attempt, retry_after)
                    attempt += 1
                    continue
                raise self._http_error(status, code, message, metadata, attempt) from None
            except urllib.error.URLError as exc:
                reason = exc.reason
                if attempt < self.max_retries:
                    self._wait(attempt, None)
                    attempt += 1
                    continue
                if isinstance(reason, TimeoutError):
                    raise LLMError(
                        f"no answer from {self.host} within {self.timeout:g}s after {attempt + 1} attempts"
                    ) from None
                raise LLMError(
                    f"cannot reach the language model at {self.host}: {reason}; check {ENV_BASE_URL} "
                    "and that the server is running",
                    retryable=True,
                ) from None
            except (TimeoutError, ConnectionError) as exc:
                if attempt < self.max_retries:
                    self._wait(attempt, None)
                    attempt += 1
                    continue
                what = "no answer" if isinstance(exc, TimeoutError) else "connection failed"
                raise LLMError(
                    f"{what} from {self.host} (timeout {self.timeout:g}s) after {attempt + 1} attempts"
                ) from None

    def _wait(self, attempt: int, retry_after: float | None) -> None:
        if retry_after is not None:
            delay = min(retry_after, self.max_backoff)
        else:
            delay = min(self.backoff * (2**attempt), self.max_backoff)
            delay *= 0.75 + random.random() * 0.5  # jitter, so parallel clients do not retry in step
        self._sleep(delay)

    def _adapt_to_rejection(self, body: dict[str, Any], message: str) -> dict[str, Any] | None:
        """A body adapted to a 400 caused by a known deviation, or None when the 400 is real."""
        low = message.lower()
        if (
            not self.strip_schemas
            and ("tools" in body or "json_schema" in json.dumps(body.get("response_format") or {}))
            and any(k.lower() in low for k in _SCHEMA_KEYS_REJECTED + ("additional_properties",))
            and _has_schema_keys(body)
        ):
            self.strip_schemas = True
            return self._adapt(body)
        if (
            not self.omit_tool_choice
            and "tool_choice" in body
            and "tool_choice" in low
            and not _needs_flag(low)
        ):
            self.omit_tool_choice = True
            return self._adapt(body)
        if not self.omit_stream_options and "stream_options" in body and "stream_options" in low:
            self.omit_stream_options = True
            return self._adapt(body)
        return None

    def _http_error(self, status: int, code: Any, message: str, metadata: Any, attempts: int) -> LLMError:
        where = self.host
        low = message.lower()
        if status == 401:
            text = f"{where} refused the API key (401: {message}); set {ENV_API_KEY} to a valid key"
        elif status == 402:
            text = f"{where}: out of credits (402: {message}); add credits or choose a cheaper model"
        elif status == 403:
            reasons = ""
            if isinstance(metadata, dict) and metadata.get("reasons"):
                reasons = " (" + ", ".join(map(str, metadata["reasons"])) + ")"
            text = f"{where} refused the request (403, moderation or permission{reasons}: {message})"
        elif status == 404:
            text = (
                f"{where}: not found (404: {message}); check {ENV_MODEL}={self.model!r} and that "
                f"{ENV_BASE_URL} ends with the API root (e.g. /v1)"
            )
        elif status in (400, 422) and _needs_flag(low):
            text = (
                f"{where} has tool calling turned off ({status}: {message}); enable it on the server "
                "(vLLM: --enable-auto-tool-choice --tool-call-parser NAME; llama.cpp: --jinja; "
                "Ollama: a model that supports tools)"
            )
        elif status in RETRY_STATUSES:
            label = {429: "rate limited", 408: "timed out", 503: "no provider available"}.get(
                status, "model down or bad response"
            )
            text = f"{where}: {label} ({status}: {message}) after {attempts + 1} attempts; try again later"
        else:
            text = f"{where} rejected the request ({status}: {message})"
        return LLMError(text, status=status, code=code, retryable=status in RETRY_STATUSES)

    def _scrub(self, text: str) -> str:
        if self._api_key and self._api_key in text:
            text = text.replace(self._api_key, "***")
        return text

    # -- responses ----------------------------------------------------------------------------

    def _finish_response(self, data: Any, body: Mapping[str, Any]) -> ChatResponse:
        if isinstance(data, list):
            data = data[0] if data else {}
        if not isinstance(data, dict):
            raise LLMError(f"{self.host} sent an unexpected reply (not a JSON object)")
        if data.get("error") is not None and not data.get("choices"):
            code, message, _ = _error_fields(json.dumps(data).encode())
            raise LLMError(f"{self.host}: the model failed: {self._scrub(message)}", code=code)
        choices = data.get("choices") or []
        if not choices:
            raise LLMError(f"{self.host} sent a reply without choices")
        choice = choices[0]
        if choice.get("finish_reason") == "error":
            err = choice.get("error") or data.get("error") or {}
            msg = err.get("message") if isinstance(err, dict) else str(err)
            raise LLMError(f"{self.host}: the model failed: {self._scrub(str(msg or 'finish_reason error'))}")
        message = choice.get("message") or {}
        calls = [_tool_call(tc, i) for i, tc in enumerate(message.get("tool_calls") or [])]
        content = message.get("content")
        if isinstance(content, list):  # content parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        response = ChatResponse(
            content=content,
            tool_calls=calls,
            finish_reason=choice.get("finish_reason"),
            usage=data.get("usage") or {},
            model=data.get("model"),
            id=data.get("id"),
            raw=data,
        )
        return self._check_tool_choice(response, body)

    def _check_tool_choice(self, response: ChatResponse, body: Mapping[str, Any]) -> ChatResponse:
        if "tools" not in body:
            return response
        forced_name = None
        original = body.get("tool_choice")
        if isinstance(original, dict):
            forced_name = (original.get("function") or {}).get("name")
        if original == "none" and response.tool_calls:
            response.tool_calls = []
            response.tool_choice_ignored = True
            return response
        if (forced_name or original == "required") and not response.tool_calls:
            names = [t["function"]["name"] for t in body["tools"]]
            name = forced_name or (names[0] if len(names) == 1 else None)
            recovered = _recover_call(response.content or "", name, names)
            if recovered is None:
                raise LLMError(
                    f"{self.host} ignored tool_choice (asked for a call to "
                    f"{forced_name or 'a tool'}, got text); use a model or server that supports forced tool calls"
                )
            response.tool_calls = [recovered]
            response.tool_choice_ignored = True
        return response


class _DoneStream(ChatStream):
    """A stream whose reply arrived whole (the server ignored ``stream``)."""

    def __init__(self, response: ChatResponse) -> None:
        self.acc = StreamAccumulator()
        self.response = response

    def __iter__(self) -> Iterator[str]:
        if self.response and self.response.content:
            yield self.response.content


def _lines(resp: Any) -> Iterator[bytes]:
    while True:
        line = resp.readline()
        if not line:
            return
        yield line


def _peek_is_sse(resp: Any) -> bool:
    try:
        head = resp.peek(8) if hasattr(resp, "peek") else b""
    except Exception:
        return False
    return head.lstrip().startswith((b"data:", b":", b"event:"))


def _needs_flag(low: str) -> bool:
    return any(
        s in low
        for s in (
            "enable-auto-tool-choice",
            "tool-call-parser",
            "--jinja",
            "does not support tools",
            "tools are not supported",
            "tool calling is not enabled",
            "tool use is not supported",
        )
    )


def _has_schema_keys(body: Mapping[str, Any]) -> bool:
    text = json.dumps({k: body.get(k) for k in ("tools", "response_format")})
    return any(f'"{k}"' in text for k in _SCHEMA_KEYS_REJECTED)


def _check_message(message: Mapping[str, Any], index: int) -> dict[str, Any]:
    if not isinstance(message, Mapping):
        raise LLMError(f"message {index} is not an object", exit_code=EXIT_USAGE)
    role = message.get("role")
    if role not in _ROLES:
        raise LLMError(
            f"message {index}: role {role!r} is not one of {', '.join(_ROLES)}", exit_code=EXIT_USAGE
        )
    if role == "tool" and not message.get("tool_call_id"):
        raise LLMError(f"message {index}: a tool result needs tool_call_id", exit_code=EXIT_USAGE)
    out = dict(message)
    content = out.get("content")
    if content is None:
        # a string for every role: an assistant message that only calls tools gets "" (OpenAI takes
        # null, but llama.cpp's and llama-cpp-python's chat templates concatenate it: HTTP 500)
        out["content"] = ""
    elif not isinstance(content, (str, list)):
        out["content"] = json.dumps(content, default=str)
    return out


def _check_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    if "function" not in tool and "name" in tool:  # accept the bare {name, description, parameters}
        tool = {"type": "function", "function": dict(tool)}
    fn = tool.get("function") or {}
    name = fn.get("name")
    if (
        not isinstance(name, str)
        or not name
        or len(name) > 64
        or not all(c.isalnum() or c in "_-" for c in name)
    ):
        raise LLMError(
            f"tool name {name!r} is invalid: use Latin letters, digits, _ or -, at most 64 characters",
            exit_code=EXIT_USAGE,
        )
    out = {"type": "function", "function": dict(fn)}
    out["function"].setdefault("parameters", {"type": "object", "properties": {}})
    return out


def _tool_choice(choice: str | Mapping[str, Any]) -> str | dict[str, Any]:
    if isinstance(choice, Mapping):
        return dict(choice)
    if choice in ("none", "auto", "required"):
        return choice
    return {"type": "function", "function": {"name": choice}}


def _tool_call(tc: Mapping[str, Any], index: int) -> ToolCall:
    fn = tc.get("function") or {}
    raw = fn.get("arguments")
    error = None
    if isinstance(raw, dict):
        args, raw_text = raw, json.dumps(raw)
    else:
        raw_text = raw or ""
        try:
            # strict=False: llama.cpp's grammar lets raw newlines into a string (real SmolLM2 output)
            args = json.loads(raw_text, strict=False) if raw_text.strip() else {}
        except ValueError as exc:
            args, error = {}, f"arguments are not valid JSON: {exc.msg}"
        if not isinstance(args, dict) and error is None:
            args, error = {}, "arguments are not a JSON object"
    return ToolCall(
        id=str(tc.get("id") or f"call_{index}"),
        name=str(fn.get("name") or ""),
        arguments=args,
        raw_arguments=raw_text,
        arguments_error=error,
    )


def _recover_call(content: str, name: str | None, names: list[str]) -> ToolCall | None:
    """A forced tool call that a server wrote as JSON text instead (it ignored ``tool_choice``)."""
    try:
        data = parse_json_content(content)
    except LLMError:
        return None
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("name"), str) and data["name"] in names:
        args = data.get("arguments", data.get("parameters", {}))
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                return None
        if isinstance(args, dict):
            return ToolCall(
                id="call_recovered", name=data["name"], arguments=args, raw_arguments=json.dumps(args)
            )
        return None
    if name:
        return ToolCall(id="call_recovered", name=name, arguments=data, raw_arguments=json.dumps(data))
    return None
