"""The MCP server on stdin/stdout, as agents start it (``ctxtool mcp``).

Lines are read on the event loop when stdin is a pipe (the SDK's default reader spends a worker
thread on every line), straight from the file when it is one, and in a worker thread from a terminal.
At end of input the server first answers every request it has read, so ``ctxtool mcp < requests``
works in scripts. The first line is read before the MCP SDK is imported: an ``initialize`` request
is answered at once (:mod:`ctxtool.mcp.handshake`), then given to the SDK as its first line, and the
SDK's own answer to it is dropped. While it serves, file descriptors 0 and 1 point at /dev/null and stderr: nothing a
library prints can corrupt the protocol. Messages for people go to stderr.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from typing import Any

from ctxtool.errors import InputError
from ctxtool.limits import MAX_JSON_BYTES, RejectedMessage, loads_request
from ctxtool.mcp import handshake
from ctxtool.mcp.tools import Defaults, Tool

PARSE_ERROR = -32700  # JSON-RPC: not JSON (or not JSON the server reads)
INVALID_REQUEST = -32600
MAX_LINE = MAX_JSON_BYTES + 2  # a message of the largest size and its line end (CR LF)
_RESPONSE = re.compile(r'\{"jsonrpc":"2\.0","id":([^,]+),"(?:result|error)"')  # the SDK's field order


class _Pending:
    """Requests read and not yet answered (what end of input waits for)."""

    def __init__(self) -> None:
        import anyio

        self.count = 0
        self.changed = anyio.Event()

    def add(self, n: int) -> None:
        import anyio

        self.count += n
        self.changed.set()
        self.changed = anyio.Event()

    async def drained(self) -> None:
        while self.count > 0:
            await self.changed.wait()


class _LineReader:
    """Lines of stdin; a line the server refuses gets its error response here (the SDK would drop a
    line that is not JSON, die on one nested 3,000 deep, and never answer one holding a lone
    surrogate): at most :data:`~ctxtool.limits.MAX_JSON_BYTES` of UTF-8 JSON, nested at most
    :data:`~ctxtool.limits.MAX_JSON_DEPTH` deep (:func:`ctxtool.limits.loads_request`)."""

    def __init__(self, fd: int, pending: _Pending, writer: _LineWriter, first: bytes | None = b"") -> None:
        # a line read before the server started, the first one served (None: it was over the limit)
        self.first = first
        mode = os.fstat(fd).st_mode
        self.kind = (
            "pipe" if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) else "tty" if os.isatty(fd) else "file"
        )
        self.file = os.fdopen(fd, "rb", buffering=0 if self.kind == "pipe" else -1, closefd=False)
        self.pending = pending
        self.writer = writer
        self.reader: Any = None
        import mcp_types

        # the SDK's own model of a message: what it would drop without a word is answered here
        self.messages = mcp_types.jsonrpc_message_adapter

    def __aiter__(self) -> _LineReader:
        return self

    async def _readline(self) -> bytes | None:
        """The next line (b"" at end of input), or None for a line over the size limit (skipped)."""
        if self.first != b"":
            line, self.first = self.first, b""
            return line
        if self.kind == "file":
            return _bounded_readline(self.file)
        if self.kind == "tty":
            from anyio import to_thread

            return await to_thread.run_sync(_bounded_readline, self.file)
        import asyncio

        if self.reader is None:
            loop = asyncio.get_running_loop()
            self.reader = asyncio.StreamReader(limit=MAX_LINE, loop=loop)
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(self.reader), self.file)
        try:
            return await self.reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:  # end of input
            return exc.partial
        except asyncio.LimitOverrunError as exc:
            await self.reader.readexactly(exc.consumed)  # what is buffered of the line ...
            while True:  # ... and the rest of it
                try:
                    await self.reader.readuntil(b"\n")
                    return None
                except asyncio.IncompleteReadError:
                    return None
                except asyncio.LimitOverrunError as more:
                    await self.reader.readexactly(more.consumed)

    async def __anext__(self) -> str:
        while True:
            line = await self._readline()
            if line is None:
                self.writer.send(_error(None, PARSE_ERROR, f"the message is over {MAX_JSON_BYTES:,} bytes"))
                continue
            if not line:
                await self.pending.drained()
                raise StopAsyncIteration
            if not line.strip():
                continue
            try:
                message = loads_request(line, what="the message")
            except RejectedMessage as exc:
                request = exc.data if isinstance(exc.data, dict) else {}
                if "id" in request or "method" not in request:  # a notification gets no answer
                    self.writer.send(_error(_request_id(request), INVALID_REQUEST, str(exc)))
                continue
            except InputError as exc:
                self.writer.send(_error(None, PARSE_ERROR, str(exc)))
                continue
            try:
                self.messages.validate_python(message, by_name=False)
            except ValueError:  # pydantic's ValidationError: JSON, but no JSON-RPC 2.0 message
                self.writer.send(_error(_request_id(message), INVALID_REQUEST, _NOT_A_MESSAGE))
                continue
            break
        if isinstance(message, dict) and "method" in message:
            if "id" in message:
                self.pending.add(1)
            elif message["method"] == "notifications/cancelled":
                self.pending.add(-1)  # a cancelled request gets no response
        return line.decode("utf-8")


def _bounded_readline(file: Any) -> bytes | None:
    """``file.readline()`` of at most :data:`MAX_LINE` bytes; None (and the rest of the line read
    past) for a longer line."""
    line = file.readline(MAX_LINE)
    if len(line) < MAX_LINE or line.endswith(b"\n"):
        return line
    while True:
        rest = file.readline(MAX_LINE)
        if not rest or rest.endswith(b"\n"):
            return None


_NOT_A_MESSAGE = (
    'not a JSON-RPC 2.0 message: send an object {"jsonrpc": "2.0", "id": ..., "method": ..., "params": {...}}'
)


def _request_id(message: Any) -> Any:
    """The id to answer a message that is not a valid request with (null when it has none)."""
    value = message.get("id") if isinstance(message, dict) else None
    return value if isinstance(value, (str, int)) and not isinstance(value, bool) else None


def _error(request_id: Any, code: int, message: str) -> str:
    """A JSON-RPC error response line (ASCII: whatever the message quotes, it can be written)."""
    return (
        json.dumps({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}) + "\n"
    )


def _write_all(fd: int, text: str) -> None:
    data = memoryview(text.encode("utf-8", "backslashreplace"))  # a lone surrogate: as its escape
    while data:
        data = data[os.write(fd, data) :]


class _LineWriter:
    """Writes each message at once (small, sequential: no worker thread needed). ``after_first``
    runs in a thread once the first response (initialize's) is out. ``answered``: (id, response) of
    the initialize request answered before the SDK started; the SDK's answer to it is not written
    (only compared: a difference is said on stderr)."""

    def __init__(
        self, fd: int, pending: _Pending, after_first: Any = None, answered: tuple[str, str] | None = None
    ) -> None:
        self.fd = fd
        self.pending = pending
        self.after_first = after_first
        self.answered = answered

    async def write(self, text: str) -> None:
        response = _RESPONSE.match(text)
        if response is not None and self.answered is not None and response.group(1) == self.answered[0]:
            if text.rstrip("\n") != self.answered[1].rstrip("\n"):
                sys.stderr.write(
                    f"ctxtool mcp: initialize was answered early, and the SDK answers {text[:300]}\n"
                )
            self.answered = None
        else:
            self.send(text)
        if response is not None:
            self.pending.add(-1)
            if self.after_first is not None:
                import threading

                threading.Thread(target=self.after_first, name="ctxtool-warm-up", daemon=True).start()
                self.after_first = None

    def send(self, text: str) -> None:
        """Write ``text`` without counting it as an answer."""
        _write_all(self.fd, text)

    async def flush(self) -> None:
        return None


def serve_stdio(
    tools: dict[str, Tool],
    defaults: Defaults,
    *,
    after_initialize: Any = None,
    answer_early: bool = True,
    **server_options: Any,
) -> None:
    """Serve over stdin/stdout until end of input (``server_options``: of :func:`build_server`);
    ``after_initialize`` (the tools' imports) runs in a thread once initialize is answered, so the
    host that waits for initialize does not wait for them. ``answer_early``: answer ``initialize``
    before importing the SDK (false: the SDK answers it, as the test of the early answer needs)."""
    first, answered = b"", None
    if answer_early:
        first = handshake.read_line(0, MAX_LINE)
        answered = handshake.reply(
            first, instructions=server_options.get("instructions", handshake.INSTRUCTIONS)
        )
        if answered is not None:
            _write_all(1, answered[1])

    import anyio
    from mcp.server.stdio import stdio_server

    from ctxtool.mcp.server import build_server

    server = build_server(tools, defaults, serialize=True, **server_options)
    wire_in, wire_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    os.close(devnull)

    async def main() -> None:
        pending = _Pending()
        writer = _LineWriter(wire_out, pending, after_initialize, answered)
        reader = _LineReader(wire_in, pending, writer, first)
        async with stdio_server(reader, writer) as (read, write):  # type: ignore[arg-type]
            await server.run(read, write, server.create_initialization_options())

    sys.stderr.write(f"ctxtool MCP server ({len(tools)} tools) on stdio\n")
    sys.stderr.flush()
    try:
        anyio.run(main)
    finally:
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
