"""Server-sent events of a streamed chat completion, and the accumulation of their deltas.

Streams are read line by line: comment lines (``: OPENROUTER PROCESSING``) are keep-alives and are
ignored, ``data:`` lines of one event are joined, and ``data: [DONE]`` ends the stream. Tool-call
fragments arrive spread over many chunks and are merged by their ``index``; usage may come in a last
chunk without choices; an error can arrive mid-stream as a chunk with ``error`` and
``finish_reason: "error"``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any


def iter_sse_data(lines: Iterable[bytes | str]) -> Iterator[str]:
    """The ``data`` payload of each event in ``lines``, up to (not including) ``[DONE]``."""
    data: list[str] = []
    for raw in lines:
        line = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        line = line.rstrip("\r\n")
        if not line:
            if data:
                payload = "\n".join(data)
                data = []
                if payload.strip() == "[DONE]":
                    return
                yield payload
            continue
        if line.startswith(":"):
            continue  # comment / keep-alive
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            if value.strip() == "[DONE]" and not data:
                return
            data.append(value)
        # "event", "id", "retry" fields carry nothing a chat client needs
    if data:
        payload = "\n".join(data)
        if payload.strip() != "[DONE]":
            yield payload


class StreamAccumulator:
    """Merge streamed chunks into the pieces of one complete response."""

    def __init__(self) -> None:
        self.content_parts: list[str] = []
        self.tool_calls: dict[int, dict[str, Any]] = {}
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] | None = None
        self.model: str | None = None
        self.id: str | None = None
        self.error: dict[str, Any] | None = None
        self._last_index: int | None = None

    @property
    def content(self) -> str:
        return "".join(self.content_parts)

    def add(self, chunk: dict[str, Any]) -> str:
        """Take one parsed chunk; return the text it adds (may be empty)."""
        if not isinstance(chunk, dict):
            return ""
        self.model = chunk.get("model") or self.model
        self.id = chunk.get("id") or self.id
        if isinstance(chunk.get("usage"), dict):
            self.usage = chunk["usage"]
        if chunk.get("error") is not None:
            err = chunk["error"]
            self.error = err if isinstance(err, dict) else {"message": str(err)}
        text = ""
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or choice.get("message") or {}
            piece = delta.get("content")
            if isinstance(piece, str) and piece:
                self.content_parts.append(piece)
                text += piece
            for position, frag in enumerate(delta.get("tool_calls") or []):
                self._add_tool_fragment(frag, position)
            if choice.get("finish_reason"):
                self.finish_reason = choice["finish_reason"]
            if choice.get("error") is not None and self.error is None:
                err = choice["error"]
                self.error = err if isinstance(err, dict) else {"message": str(err)}
        return text

    def _add_tool_fragment(self, frag: dict[str, Any], position: int) -> None:
        if not isinstance(frag, dict):
            return
        index = frag.get("index")
        if not isinstance(index, int):
            # Some servers (Gemini's compatible endpoint) omit the index: a new id starts a new call.
            known = {c.get("id"): i for i, c in self.tool_calls.items()}
            if frag.get("id") and frag["id"] in known:
                index = known[frag["id"]]
            elif frag.get("id") or self._last_index is None:
                index = len(self.tool_calls)
            else:
                index = self._last_index
        self._last_index = index
        call = self.tool_calls.setdefault(index, {"id": None, "name": "", "arguments": ""})
        if frag.get("id"):
            call["id"] = frag["id"]
        fn = frag.get("function") or {}
        if fn.get("name"):
            # names arrive whole, but tolerate servers that split them
            call["name"] = fn["name"] if not call["name"] else call["name"] + fn["name"]
        args = fn.get("arguments")
        if isinstance(args, dict):
            call["arguments"] = json.dumps(args)
        elif isinstance(args, str):
            call["arguments"] += args

    def ordered_tool_calls(self) -> list[dict[str, Any]]:
        return [self.tool_calls[i] for i in sorted(self.tool_calls)]
