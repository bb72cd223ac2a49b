"""JSON documents with source positions, read and written the way people keep them in git.

``load_json`` parses with the C decoder (fast) and keeps the text; the line and column of any JSON
pointer are computed on demand by :meth:`JsonDoc.position`, with one regex pass over the text, so
clean files never pay for positions. ``dump_json`` writes 2-space indentation, UTF-8 without
escapes, the key order kept and a trailing newline, so a no-op rewrite changes nothing.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxtool.errors import InputError
from ctxtool.limits import has_lone_surrogate

_TOKEN = re.compile(
    r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|\S',
    re.DOTALL,
)


def escape_pointer_token(token: str | int) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def pointer(*tokens: str | int) -> str:
    """``pointer("templates", 0, "sql")`` -> ``/templates/0/sql``."""
    return "".join("/" + escape_pointer_token(t) for t in tokens)


@dataclass
class JsonDoc:
    """A parsed JSON document: its data, its text and where it came from."""

    path: str  # as the user named it; "<stdin>" for standard input
    text: str
    data: Any
    _positions: dict[str, tuple[int, int]] | None = field(default=None, repr=False)

    def position(self, ptr: str) -> tuple[int, int]:
        """1-based ``(line, column)`` of the value at JSON pointer ``ptr`` (of its nearest existing
        ancestor when the pointer names something missing)."""
        if self._positions is None:
            self._positions = _index_positions(self.text)
        while ptr and ptr not in self._positions:
            ptr = ptr.rsplit("/", 1)[0]
        return self._positions.get(ptr, (1, 1))


def _index_positions(text: str) -> dict[str, tuple[int, int]]:
    """Map every JSON pointer in ``text`` to the 1-based line and column where its value starts."""
    line_starts = [0]
    for m in re.finditer("\n", text):
        line_starts.append(m.end())
    positions: dict[str, tuple[int, int]] = {}
    # stack entries: [pointer, is_object, next_key_or_index]
    stack: list[list[Any]] = []
    pending_key: str | None = None
    import bisect

    def where(offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(line_starts, offset) - 1
        return line + 1, offset - line_starts[line] + 1

    def current_pointer() -> str:
        if not stack:
            return ""
        top = stack[-1]
        if top[1]:
            return top[0] + "/" + escape_pointer_token(pending_key or "")
        return top[0] + "/" + str(top[2])

    expect_key = False
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok in ",:":
            if tok == "," and stack:
                if stack[-1][1]:
                    expect_key = True
                else:
                    stack[-1][2] += 1
            continue
        if tok in "}]":
            if stack:
                stack.pop()
            expect_key = False
            continue
        if expect_key and tok.startswith('"'):
            try:
                pending_key = json.loads(tok)
            except ValueError:
                pending_key = tok.strip('"')
            expect_key = False
            continue
        ptr = current_pointer()
        positions.setdefault(ptr, where(m.start()))
        if tok == "{":
            stack.append([ptr, True, 0])
            expect_key = True
        elif tok == "[":
            stack.append([ptr, False, 0])
    return positions


def read_text(path: str) -> str:
    """Read a file (or standard input for ``-``) as UTF-8, with errors a person can act on."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file; check the path") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory; name a JSON file") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied; check the file's permissions") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start}); save the file as UTF-8") from None


def parse_json(text: str, path: str = "<string>") -> JsonDoc:
    """Parse ``text``; a syntax error raises :class:`JsonSyntaxError` with its line and column."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonSyntaxError(path, exc.lineno, exc.colno, exc.msg) from None
    except RecursionError:
        raise JsonSyntaxError(path, 1, 1, "nested too deeply") from None
    except ValueError:  # an integer of more digits than Python reads (sys.get_int_max_str_digits)
        line, column, digits = _long_integer(text)
        raise JsonSyntaxError(
            path,
            line,
            column,
            f"an integer of {digits:,} digits (more than {sys.get_int_max_str_digits():,}); write it as a string",
        ) from None
    if _SURROGATE_ESCAPES.search(text) and has_lone_surrogate(data):  # escapes of surrogates: rare
        line, column, escape = _lone_surrogate(text)
        raise JsonSyntaxError(
            path, line, column, f"{escape} is half of a UTF-16 pair with no other half: not text; remove it"
        )
    return JsonDoc(path=path, text=text, data=data)


_SURROGATE_ESCAPES = re.compile(
    r"\\u[dD]([89abAB])[0-9a-fA-F]{2}(?:\\u[dD][c-fC-F][0-9a-fA-F]{2})?|\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)


def _lone_surrogate(text: str) -> tuple[int, int, str]:
    """Line, column and text of the first escape of half a surrogate pair (a pair is one character)."""
    for m in _SURROGATE_ESCAPES.finditer(text):
        if len(m.group()) == 6:  # a high half alone, or a low half
            line = text.count("\n", 0, m.start()) + 1
            return line, m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1, m.group()
    return 1, 1, "\\ud800"


def _long_integer(text: str) -> tuple[int, int, int]:
    """Line, column and length of the first integer longer than Python reads, outside strings."""
    limit = sys.get_int_max_str_digits()
    for m in _TOKEN.finditer(text):
        tok = m.group()
        digits = len(tok.lstrip("-").split(".")[0].split("e")[0].split("E")[0])
        if tok[:1] in "-0123456789" and digits > limit:
            line = text.count("\n", 0, m.start()) + 1
            return line, m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1, digits
    return 1, 1, limit + 1


def load_json(path: str) -> JsonDoc:
    return parse_json(read_text(path), "<stdin>" if path == "-" else path)


class JsonSyntaxError(InputError):
    def __init__(self, path: str, line: int, column: int, message: str) -> None:
        self.path, self.line, self.column, self.msg = path, line, column, message
        super().__init__(f"{path}:{line}:{column}: invalid JSON: {message}")


def dumps_json(data: Any) -> str:
    """The canonical text ctxtool writes: 2-space indent, UTF-8, key order kept, final newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename, so an interruption never
    leaves a half-written file behind."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        if target.exists():
            os.chmod(tmp, target.stat().st_mode & 0o777)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def dump_json(path: str | os.PathLike[str], data: Any) -> None:
    write_text_atomic(path, dumps_json(data))
