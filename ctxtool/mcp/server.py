"""The MCP server on the MCP Python SDK (low-level ``Server``): ``tools/list`` and ``tools/call`` over
the registry of :mod:`ctxtool.mcp.tools`, on stdio (:func:`serve_stdio`) or streamable HTTP
(:mod:`ctxtool.mcp.http`).

Tool functions are plain blocking library calls: each runs in a worker thread so the event loop keeps
answering pings and other clients. Over stdio the calls of the one client run one at a time in the
order they arrived (a model's follow-up relies on the call before it); over HTTP clients run side by
side. A failing call is a tool result with ``isError`` and a one-line message; the server lives on.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from ctxtool import __version__
from ctxtool.mcp.tools import Defaults, Tool, ToolError, call_json

INSTRUCTIONS = (
    "ctxtool authors, checks and serves NL-to-SQL context sets (templates, facets, value searches). "
    "Workflow: introspect the database into a snapshot, draft_templates / draft_facets / draft_values, "
    "review the drafts with the user, change the set with mutate_set, parameterize, validate (fix every "
    "error finding), test_values, eval on golden questions, improve and evaluate again; ask / "
    "query_data try the set as a user would. Paths are relative to the server's working directory."
)


def registry(*, authoring: bool = True, preconfigured_runtime: bool = False) -> dict[str, Tool]:
    """Every tool by name: the authoring workflow (unless ``authoring`` is false) and the runtime's."""
    from ctxtool.mcp import runtime_tools

    tools: list[Tool] = []
    if authoring:
        from ctxtool.mcp import authoring as authoring_tools
        from ctxtool.mcp import mutate

        tools += authoring_tools.TOOLS + mutate.TOOLS
    tools += runtime_tools.tools(preconfigured_runtime)
    return {t.name: t for t in tools}


def build_server(tools: dict[str, Tool], defaults: Defaults, *, serialize: bool) -> Any:
    """An SDK ``Server`` offering ``tools``; ``serialize`` runs calls one at a time, in arrival order."""
    import anyio
    import mcp_types as types
    from anyio import to_thread
    from mcp.server.lowlevel import Server

    listed = types.ListToolsResult(tools=[types.Tool.model_validate(t.spec()) for t in tools.values()])
    lock = anyio.Lock() if serialize else None

    async def on_list_tools(ctx: Any, params: Any) -> Any:
        return listed

    async def on_call_tool(ctx: Any, params: Any) -> Any:
        def run() -> Any:
            return call_json(tools, params.name, params.arguments, defaults)

        try:
            if lock is not None:
                async with lock:
                    text = await to_thread.run_sync(run)
            else:
                text = await to_thread.run_sync(run)
        except ToolError as exc:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=str(exc))], is_error=True
            )
        data = json.loads(text)
        failed = isinstance(data, dict) and data.get("status") == "error"
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content=data if isinstance(data, dict) else None,
            is_error=failed,
        )

    server = Server(
        "ctxtool",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )
    server.middleware = []  # the SDK's default OpenTelemetry span per message: no exporter here
    return server


class _LineReader:
    """Lines of a pipe read on the event loop (the SDK's default reads each line in a worker thread)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.reader: Any = None

    def __aiter__(self) -> _LineReader:
        return self

    async def __anext__(self) -> str:
        import asyncio

        if self.reader is None:
            loop = asyncio.get_running_loop()
            self.reader = asyncio.StreamReader(limit=1 << 26, loop=loop)
            pipe = os.fdopen(self.fd, "rb", buffering=0, closefd=False)
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(self.reader), pipe)
        line = await self.reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


class _LineWriter:
    """Writes whole messages to a pipe at once (small and sequential: no worker thread needed)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    async def write(self, text: str) -> None:
        data = memoryview(text.encode("utf-8"))
        while data:
            data = data[os.write(self.fd, data) :]

    async def flush(self) -> None:
        return None


def serve_stdio(tools: dict[str, Tool], defaults: Defaults) -> None:
    """Serve over stdin/stdout until the client closes the pipe. Messages for people go to stderr;
    while serving, file descriptors 0 and 1 point at /dev/null and stderr, so nothing a library
    prints can corrupt the protocol."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server(tools, defaults, serialize=True)
    wire_in, wire_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    os.close(devnull)

    async def main() -> None:
        async with stdio_server(_LineReader(wire_in), _LineWriter(wire_out)) as (read, write):  # type: ignore[arg-type]
            await server.run(read, write, server.create_initialization_options())

    sys.stderr.write(f"ctxtool MCP server ({len(tools)} tools) on stdio\n")
    sys.stderr.flush()
    anyio.run(main)
