"""Limits on what a client sends: JSON size and depth, question length, text that is not Unicode.

Every server (the HTTP API, MCP over stdio and over HTTP) reads a request through
:func:`loads_request` before anything else looks at it, and the runtime reads a question through
:func:`checked_question`. What they refuse is an :class:`InputError` with one line (a server answers
it as a 4xx or a tool error and goes on serving), never a crash: Python's JSON decoder recurses once
per nesting level (3,000 ``[`` raise RecursionError), refuses integers of more than 4,300 digits with
a ValueError, and accepts lone surrogates (``"\\ud800"``) that no encoder can write back; the
runtime's work grows with the question's length (a 100 KB question cost 41 s of CPU).
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from ctxtool.errors import InputError

MAX_JSON_BYTES = 1 << 20  # a request body or an MCP message line
MAX_JSON_DEPTH = 64  # nesting levels of a request; the tools' arguments need a handful
DEFAULT_MAX_QUESTION_CHARS = 2000
QUESTION_CHARS_ENV = "CTXTOOL_MAX_QUESTION_CHARS"

_ESCAPE = re.compile(r"\\.", re.DOTALL)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


class TooLarge(InputError):
    """A request over the size limit (HTTP 413)."""


class RejectedMessage(InputError):
    """A request refused after it was parsed; ``data`` is what was parsed (an MCP server answers the
    JSON-RPC ``id`` it carries), None when it could not be."""

    def __init__(self, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.data = data


def json_too_deep(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether the JSON ``text`` nests arrays and objects deeper than ``limit`` (brackets inside
    strings do not count). Few brackets: two counts; many: the running depth as cumulative sums over
    the bytes, outside strings (a megabyte in milliseconds)."""
    if text.count("[") + text.count("{") <= limit:
        return False
    import numpy as np  # only for a document of many brackets: vector passes, not a Python loop

    if "\\" in text:
        text = _ESCAPE.sub("", text)  # escapes out: every quote left opens or closes a string
    codes = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    steps = (codes == 91).astype(np.int32) + (codes == 123) - (codes == 93) - (codes == 125)
    steps[(np.cumsum(codes == 34) & 1).astype(bool)] = 0  # brackets inside strings do not count
    return int(np.cumsum(steps).max()) > limit


def has_lone_surrogate(data: Any) -> bool:
    """Whether a string in ``data`` (keys too) holds a surrogate code point: text no UTF-8 encoder
    writes, which JSON escapes (``\\ud800``) and undecodable command-line bytes produce."""
    if isinstance(data, str):
        return _SURROGATE.search(data) is not None
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def loads_request(
    raw: bytes | str,
    *,
    max_bytes: int = MAX_JSON_BYTES,
    max_depth: int = MAX_JSON_DEPTH,
    what: str = "the body",
) -> Any:
    """Parse a client's JSON: at most ``max_bytes`` of UTF-8, nested at most ``max_depth`` deep, numbers
    Python can read, no lone surrogate. Anything else raises an :class:`InputError` (:class:`TooLarge`
    for the size, :class:`RejectedMessage` with the parsed data for a surrogate)."""
    size = len(raw)
    if size > max_bytes:
        raise TooLarge(f"{what} is {size:,} bytes; at most {max_bytes:,} are read")
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RejectedMessage(
                f"{what} is not UTF-8 text (byte {exc.start}); send UTF-8 JSON", _best_effort(raw)
            ) from None
    else:
        text = raw
        if _SURROGATE.search(text):
            raise InputError(f"{what} is not Unicode text (a lone surrogate); send UTF-8 JSON")
    if json_too_deep(text, max_depth):
        raise InputError(f"{what} nests deeper than {max_depth} levels; send a flatter JSON document")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{what} is not JSON: {exc.msg} (line {exc.lineno} column {exc.colno})") from None
    except RecursionError:  # depth counted above; kept for a decoder that recurses on something else
        raise InputError(f"{what} nests too deeply; send a flatter JSON document") from None
    except ValueError as exc:  # int_max_str_digits: "Exceeds the limit (4300 digits) ..."
        raise InputError(f"{what} {_number_problem(exc)}") from None
    if _SURROGATE_ESCAPE.search(text) and has_lone_surrogate(data):
        raise RejectedMessage(
            f"{what} holds a lone surrogate (an unpaired \\ud800-\\udfff escape): not Unicode text", data
        )
    return data


def _best_effort(raw: bytes) -> Any:
    """What a message that is not UTF-8 says, its bad bytes replaced (for the id to answer), or None."""
    text = raw.decode("utf-8", "replace")
    if json_too_deep(text):
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _number_problem(exc: ValueError) -> str:
    """The words for the ValueError the JSON decoder raises on an integer of too many digits."""
    found = re.search(r"\((\d+) digits\)", str(exc))
    limit = f"{int(found.group(1)):,}" if found else "4,300"
    return f"holds an integer of more than {limit} digits; write such a number as a string"


def max_question_chars(value: int | None = None) -> int:
    """The longest question read: ``value``, else ``$CTXTOOL_MAX_QUESTION_CHARS``, else 2,000."""
    if value is None:
        text = os.environ.get(QUESTION_CHARS_ENV, "").strip()
        if not text:
            return DEFAULT_MAX_QUESTION_CHARS
        if not text.isdigit() or int(text) < 1:
            raise InputError(f"${QUESTION_CHARS_ENV}={text!r}: give a positive number of characters")
        return int(text)
    if value < 1:
        raise InputError(f"the maximum question length must be positive, not {value}")
    return value


def checked_question(question: Any, limit: int | None = None) -> str:
    """``question`` stripped, when it is text of at most ``limit`` characters (see
    :func:`max_question_chars`) that is valid Unicode; else a one-line :class:`InputError`."""
    if not isinstance(question, str) or not question.strip():
        raise InputError("the question is empty; ask something")
    question = question.strip()
    limit = max_question_chars(limit)
    if len(question) > limit:
        raise InputError(
            f"the question is {len(question):,} characters long; at most {limit:,} are read "
            f"(--max-question-chars or ${QUESTION_CHARS_ENV} raise the limit)"
        )
    bad = _SURROGATE.search(question)
    if bad:
        code = ord(bad.group())
        if 0xDC80 <= code <= 0xDCFF:  # how Python keeps an undecodable byte of argv or a file name
            raise InputError(
                f"the question is not UTF-8 text (byte 0x{code - 0xDC00:02x} at character {bad.start() + 1}); "
                "check the terminal's or the file's encoding"
            )
        raise InputError(
            f"the question holds a lone surrogate (U+{code:04X} at character {bad.start() + 1}): not Unicode text"
        )
    return question
