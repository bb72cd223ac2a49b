"""How a profile calls its language model: temperature, max tokens, timeout, retries, what a model
failure does (``errors``) and how much of each call is shown (``messages``).

The levels follow the chat-completion block of the seed documents: the error-handling level is
``fail`` (the request fails: exit 3, HTTP 502, a tool error), ``handle`` (the default: the answer
goes on without the model and says why in ``warnings``, or ``status: "error"`` for the chat action)
or ``ignore`` (it goes on without the model and says nothing); the message level is ``release``
(nothing shown), ``debug`` (one line per model call: model, messages, tools, seconds, tokens,
finish) or ``detailed`` (the messages sent and the reply too). Debug and detailed calls are written
to stderr by the CLI and returned in the answer's ``model_calls`` over HTTP and MCP.

Where a setting comes from, last wins: the defaults, the environment (``CTXTOOL_LLM_TEMPERATURE``,
``..._MAX_TOKENS``, ``..._TIMEOUT``, ``..._RETRIES``, ``..._SQL_RETRIES``, ``..._ERRORS``,
``..._MESSAGES``), the profile (``Runtime(model_settings=...)``, the CLI flags of ``ask``, ``chat``,
``eval`` and ``serve``), and one request (``model_settings`` in an HTTP body or an MCP call, applied
with :func:`requested`).
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ctxtool.errors import CtxtoolError, InputError

ERROR_LEVELS = ("fail", "handle", "ignore")
MESSAGE_LEVELS = ("release", "debug", "detailed")
ENV_PREFIX = "CTXTOOL_LLM_"

# each setting: (type, description) -- the CLI flags, the HTTP schema and the MCP schema come from here
SETTINGS: dict[str, tuple[type, str]] = {
    "temperature": (float, "Sampling temperature, 0 to 2 (default 0: the same answer every time)."),
    "max_tokens": (int, "Longest reply in tokens (default: the server's)."),
    "timeout": (float, "Seconds to wait for one reply (default 60)."),
    "retries": (int, "Retries of a failed request: 429, 5xx, network (default 3)."),
    "sql_retries": (
        int,
        "Times the model may correct SQL the read-only gate or the database rejected (default 1).",
    ),
    "errors": (
        str,
        "When the model fails: fail (the request fails), handle (default: go on, say why), ignore.",
    ),
    "messages": (str, "What is shown of each model call: release (default, nothing), debug, detailed."),
}


@dataclass(frozen=True)
class ModelSettings:
    temperature: float = 0.0
    max_tokens: int | None = None
    timeout: float = 60.0
    retries: int = 3
    sql_retries: int = 1
    errors: str = "handle"
    messages: str = "release"

    def __post_init__(self) -> None:
        if not 0 <= self.temperature <= 2:
            raise InputError(f"temperature {self.temperature:g} is out of range: use 0 to 2")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise InputError(f"max_tokens {self.max_tokens} is invalid: use a positive number")
        if self.timeout <= 0:
            raise InputError(f"timeout {self.timeout:g} is invalid: use a number of seconds > 0")
        if self.retries < 0 or self.sql_retries < 0:
            raise InputError("retries and sql_retries are counts: use 0 or more")
        if self.errors not in ERROR_LEVELS:
            raise InputError(f"errors {self.errors!r} is invalid: use one of {', '.join(ERROR_LEVELS)}")
        if self.messages not in MESSAGE_LEVELS:
            raise InputError(f"messages {self.messages!r} is invalid: use one of {', '.join(MESSAGE_LEVELS)}")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ModelSettings:
        """The defaults with what ``CTXTOOL_LLM_<SETTING>`` variables set."""
        env = os.environ if env is None else env
        given = {
            name: env[ENV_PREFIX + name.upper()] for name in SETTINGS if env.get(ENV_PREFIX + name.upper())
        }
        return cls().merged(given, source="$" + ENV_PREFIX + "*")

    def merged(self, overrides: Mapping[str, Any] | None, *, source: str = "model settings") -> ModelSettings:
        """These settings with ``overrides`` applied (None values are skipped; text is converted)."""
        if not overrides:
            return self
        if not isinstance(overrides, Mapping):
            raise InputError(f"{source}: give an object of settings ({', '.join(SETTINGS)})")
        values = asdict(self)
        for name, value in overrides.items():
            if name not in SETTINGS:
                raise InputError(
                    f"{source}: unknown model setting {name!r}; the settings are {', '.join(SETTINGS)}"
                )
            if value is None:
                continue
            kind = SETTINGS[name][0]
            try:
                if isinstance(value, bool) or (kind is str and not isinstance(value, str)):
                    raise ValueError
                values[name] = (
                    kind(value.strip().lower()) if isinstance(value, str) and kind is str else kind(value)
                )
                if kind is int and isinstance(value, float) and not value.is_integer():
                    raise ValueError
            except (TypeError, ValueError):
                raise InputError(f"{source}: {name} {value!r} is not a {kind.__name__}") from None
        return ModelSettings(**values)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def json_schema() -> dict[str, Any]:
    """The settings as a JSON Schema object (HTTP bodies, MCP tool arguments)."""
    types = {float: "number", int: "integer", str: "string"}
    props: dict[str, Any] = {}
    for name, (kind, text) in SETTINGS.items():
        prop: dict[str, Any] = {"type": types[kind], "description": text}
        if name == "errors":
            prop["enum"] = list(ERROR_LEVELS)
        elif name == "messages":
            prop["enum"] = list(MESSAGE_LEVELS)
        elif kind is not str:
            prop["minimum"] = 0
        props[name] = prop
    return {
        "type": "object",
        "properties": props,
        "additionalProperties": False,
        "description": "How the language model is called for this request (overrides the profile's settings).",
    }


_REQUEST: contextvars.ContextVar[Mapping[str, Any] | None] = contextvars.ContextVar(
    "ctxtool_model_settings", default=None
)
_CALLS: contextvars.ContextVar[list[dict[str, Any]] | None] = contextvars.ContextVar(
    "ctxtool_model_calls", default=None
)


@contextlib.contextmanager
def requested(overrides: Mapping[str, Any] | None) -> Iterator[None]:
    """Apply one request's settings (an HTTP body's or an MCP call's ``model_settings``) to the model
    calls made inside the block, on this thread."""
    if overrides:
        ModelSettings().merged(overrides, source="model_settings")  # a bad value fails here, up front
    token = _REQUEST.set(overrides or None)
    try:
        yield
    finally:
        _REQUEST.reset(token)


def effective(profile: ModelSettings | Mapping[str, Any] | None = None) -> ModelSettings:
    """The settings in force: a profile's :class:`ModelSettings` as they are, or the environment with
    a profile's explicit values (a mapping: the CLI flags given), then the current request's."""
    if isinstance(profile, ModelSettings):
        base = profile
    else:
        base = ModelSettings.from_env().merged(profile, source="profile")
    return base.merged(_REQUEST.get(), source="model_settings")


@contextlib.contextmanager
def recording() -> Iterator[list[dict[str, Any]]]:
    """Collect the debug/detailed records of the model calls made inside the block."""
    calls: list[dict[str, Any]] = []
    token = _CALLS.set(calls)
    try:
        yield calls
    finally:
        _CALLS.reset(token)


class Model:
    """A chat client called under :class:`ModelSettings`: each call gets the temperature and max
    tokens unless it names its own, the timeout and retries, and is recorded at the message level
    (to ``sink``, a line writer, and to the records of :func:`recording`)."""

    def __init__(
        self, client: Any, settings: ModelSettings, sink: Callable[[str], None] | None = None
    ) -> None:
        self.settings = settings
        self.sink = sink
        if (
            getattr(client, "timeout", None) != settings.timeout
            or getattr(client, "max_retries", None) != settings.retries
        ):
            client = copy.copy(client)  # the shared client keeps its own timeout and retries
            client.timeout = settings.timeout
            client.max_retries = settings.retries
        self.client = client

    @property
    def model(self) -> str:
        return getattr(self.client, "model", "?")

    def with_model(self, name: str) -> Model:
        """The same endpoint and settings, another model (e.g. a small one that summarizes)."""
        client = copy.copy(self.client)
        client.model = name
        return Model(client, self.settings, self.sink)

    def chat(self, messages: Sequence[Mapping[str, Any]], **options: Any) -> Any:
        options.setdefault("temperature", self.settings.temperature)
        if self.settings.max_tokens is not None:
            options.setdefault("max_tokens", self.settings.max_tokens)
        level = self.settings.messages
        start = time.perf_counter()
        try:
            reply = self.client.chat(messages, **options)
        except CtxtoolError as exc:
            if level != "release":
                self._record(messages, options, start, error=str(exc))
            raise
        if level != "release":
            self._record(messages, options, start, reply=reply)
        return reply

    def _record(
        self,
        messages: Sequence[Mapping[str, Any]],
        options: Mapping[str, Any],
        start: float,
        *,
        reply: Any = None,
        error: str | None = None,
    ) -> None:
        record: dict[str, Any] = {
            "model": self.model,
            "messages": len(messages),
            "tools": [t.get("function", t).get("name") for t in options.get("tools") or []],
            "temperature": options.get("temperature"),
            "max_tokens": options.get("max_tokens"),
            "seconds": round(time.perf_counter() - start, 3),
        }
        if error is not None:
            record["error"] = error
        else:
            record["finish_reason"] = getattr(reply, "finish_reason", None)
            record["usage"] = getattr(reply, "usage", None) or {}
            record["tool_calls"] = [c.name for c in getattr(reply, "tool_calls", None) or []]
        if self.settings.messages == "detailed":
            record["request"] = [dict(m) for m in messages]
            if reply is not None:
                record["reply"] = {
                    "content": getattr(reply, "content", None),
                    "tool_calls": [c.as_dict() for c in getattr(reply, "tool_calls", None) or []],
                }
        calls = _CALLS.get()
        if calls is not None:
            calls.append(record)
        if self.sink is not None:
            self.sink(_line(record))

    def failed(self, exc: CtxtoolError, warnings: list[str], what: str) -> None:
        """A model call failed while ``what``: raise it (``fail``), note it in ``warnings``
        (``handle``) or let the answer go on silently (``ignore``)."""
        if self.settings.errors == "fail":
            raise exc
        if self.settings.errors == "handle":
            warnings.append(f"the language model failed {what}: {exc}")


def _line(record: Mapping[str, Any]) -> str:
    head = (
        f"model call: {record['model']}, {record['messages']} message(s)"
        + (f", tools {','.join(record['tools'])}" if record["tools"] else "")
        + f", temperature {record['temperature']}, {record['seconds']:.2f} s"
    )
    if "error" in record:
        head += f": failed: {record['error']}"
    else:
        usage = record.get("usage") or {}
        head += f", tokens {usage.get('prompt_tokens', '?')} in / {usage.get('completion_tokens', '?')} out"
        head += f", finish {record.get('finish_reason')}"
        if record.get("tool_calls"):
            head += f", called {','.join(record['tool_calls'])}"
    if "request" in record:
        head += "\n  request: " + json.dumps(record["request"], ensure_ascii=False, default=str)
        if "reply" in record:
            head += "\n  reply: " + json.dumps(record["reply"], ensure_ascii=False, default=str)
    return head


def stderr_sink(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
