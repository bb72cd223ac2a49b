"""The language-model and chat-vectorization flags of `ask`, `chat`, `eval`, `serve`, `mcp` and
`conversation create/update`: one flag per setting of :mod:`ctxtool.llm.settings` and
:mod:`ctxtool.conversations.vectors`, each given to the library only when the user set it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

# setting -> (flag names, click type); help texts come from the settings' own tables
_MODEL_FLAGS: dict[str, tuple[tuple[str, ...], Any]] = {
    "temperature": (("--temperature",), click.FloatRange(0, 2)),
    "max_tokens": (("--max-tokens",), click.IntRange(min=1)),
    "timeout": (("--llm-timeout",), click.FloatRange(min=0.1)),
    "retries": (("--llm-retries",), click.IntRange(min=0)),
    "sql_retries": (("--sql-retries",), click.IntRange(min=0)),
    "errors": (("--on-model-error",), click.Choice(["fail", "handle", "ignore"])),
    "messages": (("--model-messages",), click.Choice(["release", "debug", "detailed"])),
}
_ENV = {"temperature": "TEMPERATURE", "max_tokens": "MAX_TOKENS", "timeout": "TIMEOUT", "retries": "RETRIES",
        "sql_retries": "SQL_RETRIES", "errors": "ERRORS", "messages": "MESSAGES"}  # fmt: skip

_VECTOR_FLAGS: dict[str, tuple[tuple[str, ...], Any]] = {
    "enabled": (("--vectors/--no-vectors",), None),
    "chunk_size": (("--vector-chunk-size",), click.IntRange(min=1)),
    "chunk_boundary": (("--vector-chunk-boundary",), str),
    "query_messages": (("--vector-query-messages",), click.IntRange(min=1)),
    "score_threshold": (("--vector-threshold",), click.FloatRange(0, 1)),
    "insert": (("--vector-insert",), click.IntRange(min=0)),
    "retain": (("--vector-retain",), click.IntRange(min=0)),
    "position": (("--vector-position",), click.Choice(["after_main", "before_main", "in_chat"])),
    "depth": (("--vector-depth",), click.IntRange(min=0)),
    "template": (("--vector-template",), str),
    "summarize": (("--vector-summarize/--no-vector-summarize",), None),
    "summarize_query": (("--vector-summarize-query/--no-vector-summarize-query",), None),
    "summary_prompt": (("--vector-summary-prompt",), str),
    "summary_model": (("--vector-summary-model",), str),
}
MODEL_KEY = "model__"
VECTOR_KEY = "vector__"


def model_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The model flags (each also read from ``$CTXTOOL_LLM_<SETTING>``)."""
    from ctxtool.llm.settings import SETTINGS

    for name, (flags, kind) in reversed(_MODEL_FLAGS.items()):
        func = click.option(
            *flags,
            MODEL_KEY + name,
            type=kind,
            default=None,
            help=f"{SETTINGS[name][1]} [$CTXTOOL_LLM_{_ENV[name]}]",
        )(func)
    return func


def vector_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The chat-vectorization flags (a conversation's stored settings win over them)."""
    from ctxtool.conversations.vectors import SETTINGS

    for name, (flags, kind) in reversed(_VECTOR_FLAGS.items()):
        extra = {} if kind is None else {"type": kind}
        func = click.option(*flags, VECTOR_KEY + name, default=None, help=SETTINGS[name][1], **extra)(func)
    return func


def take(opts: dict[str, Any], prefix: str) -> dict[str, Any]:
    """Remove the flags of one group from ``opts``; the settings the user gave, by name."""
    out = {}
    for key in [k for k in opts if k.startswith(prefix)]:
        value = opts.pop(key)
        if value is not None:
            out[key[len(prefix) :]] = value
    return out
