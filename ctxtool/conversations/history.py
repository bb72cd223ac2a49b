"""A conversation's history as chat messages for a language model (oldest first).

Each stored turn becomes: the user's prompt; when SQL ran, an assistant message calling the
``run_sql`` tool and the ``tool`` message with its result (``tool_call_id`` and ``name`` set, as the
OpenAI-compatible protocol requires); then the assistant's answer. Every ``content`` is a string:
the tool-calling message sends ``""``, never ``null``, which llama.cpp's chat templates cannot
render (the server answers HTTP 500).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ctxtool.conversations.model import Turn

SQL_TOOL = "run_sql"


def tool_call_id(turn: Turn, index: int) -> str:
    """A stable id for the tool call of a stored turn (the same on every request)."""
    base = turn.prompt_id if turn.prompt_id is not None else f"s{index}"
    return f"call_{base}"


def turn_to_messages(turn: Turn, index: int = 0) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": turn.prompt}]
    if turn.sql:
        call_id = tool_call_id(turn, index)
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": SQL_TOOL, "arguments": json.dumps({"sql": turn.sql})},
                    }
                ],
            }
        )
        messages.append(
            {
                "role": "tool",
                "tool_call_id": call_id,
                "name": SQL_TOOL,
                "content": turn.summary or "(no rows)",
            }
        )
    if turn.answer:
        messages.append({"role": "assistant", "content": turn.answer})
    elif not turn.sql and turn.summary:
        messages.append({"role": "assistant", "content": turn.summary})
    return messages


def history_messages(turns: Sequence[Turn]) -> list[dict[str, Any]]:
    """Chat messages for ``turns`` (oldest first)."""
    out: list[dict[str, Any]] = []
    for i, turn in enumerate(turns):
        out.extend(turn_to_messages(turn, i))
    return out
