"""The MCP server on the MCP Python SDK (low-level ``Server``): ``tools/list`` and ``tools/call`` over
the registry of :mod:`ctxtool.mcp.tools`, on stdio (:mod:`ctxtool.mcp.stdio`) or streamable HTTP
(:mod:`ctxtool.mcp.http`).

Tool functions are plain blocking library calls: each runs in a worker thread so the event loop keeps
answering pings and other clients. Over stdio the calls of the one client run one at a time in the
order they arrived (a model's follow-up relies on the call before it); over HTTP clients run side by
side. A failing call is a tool result with ``isError`` and a one-line message; the server lives on.
"""

from __future__ import annotations

import json
import time
from typing import Any

from ctxtool import __version__
from ctxtool.mcp.tools import Defaults, Tool, ToolError, call_json, reporting

INSTRUCTIONS = (
    "ctxtool authors, checks and serves NL-to-SQL context sets (templates, facets, value searches). "
    "Workflow: introspect the database into a snapshot, draft_templates / draft_facets / draft_values, "
    "review the drafts with the user, change the set with mutate_set, parameterize, validate (fix every "
    "error finding), test_values, eval on golden questions, improve and evaluate again; ask / "
    "query_data try the set as a user would. Paths are relative to the server's working directory, "
    "and files are read and written only under it."
)


# What the tools import on their first call (the Spanner client, slow to import, stays lazy).
WARM_MODULES = (
    "jsonschema",
    "ctxtool.snapshot",
    "ctxtool.connectors.postgres",
    "ctxtool.connectors.mysql",
    "ctxtool.validate",
    "ctxtool.parameterize",
    "ctxtool.draft",
    "ctxtool.values.workflow",
    "ctxtool.values.testing",
    "ctxtool.runtime",
    "ctxtool.runtime.evaluate",
    "ctxtool.server.service",
)


def warm_up() -> None:
    """Import what the tools use, then freeze the heap: the first call pays no import, and the cyclic
    garbage collector never walks the server's long-lived objects again (as ``ctxtool serve`` does)."""
    import gc
    import importlib

    for name in WARM_MODULES:
        importlib.import_module(name)
    gc.collect()
    gc.freeze()


def registry(*, authoring: bool = True, preconfigured_runtime: bool = False) -> dict[str, Tool]:
    """Every tool by name: the authoring workflow (unless ``authoring`` is false) and the runtime's."""
    from ctxtool.mcp import runtime_tools

    tools: list[Tool] = []
    if authoring:
        from ctxtool.mcp import checks, drafting, mutate

        tools += drafting.TOOLS + mutate.TOOLS + checks.TOOLS  # in the workflow's order
    tools += runtime_tools.tools(preconfigured_runtime)
    return {t.name: t for t in tools}


HEARTBEAT = 1.5  # seconds of silence after which a running call reports that it is still running


class _Progress:
    """``notifications/progress`` for one call that asked for them (a ``progressToken``): what the
    tool reports from its worker thread, and a heartbeat while it is silent, so a client that waits
    hears at least every :data:`HEARTBEAT` seconds that the call is alive (the values only grow)."""

    def __init__(self, ctx: Any, token: Any) -> None:
        self.ctx = ctx
        self.token = token
        self.done = 0.0
        self.total: float | None = None
        self.message = "working"
        self.last = time.monotonic()
        self.started = self.last

    async def send(self, done: float, total: float | None, message: str, *, beat: bool = False) -> None:
        self.done, self.total, self.last = max(done, self.done), total, time.monotonic()
        if message and not beat:
            self.message = message
        try:
            await self.ctx.session.send_progress_notification(
                self.token, self.done, total, message or None, self.ctx.request_id
            )
        except Exception:  # noqa: BLE001 - progress is best effort: the call goes on without it
            pass

    def report(self, done: float, total: float | None, message: str) -> None:
        """From the tool's worker thread."""
        from anyio import from_thread

        from_thread.run(self.send, done, total, message)

    async def heartbeat(self) -> None:
        import anyio

        while True:
            await anyio.sleep(0.25)
            if time.monotonic() - self.last >= HEARTBEAT:
                seconds = time.monotonic() - self.started
                # a hair more each time: progress must increase; a total is never reached this way
                done = self.done + 0.001 if self.total is None else min(self.done + 0.001, self.total - 0.001)
                await self.send(
                    done, self.total, f"{self.message} (still running, {seconds:.0f} s)", beat=True
                )


def _progress(ctx: Any) -> _Progress | None:
    meta = ctx.meta
    token = meta.get("progress_token", meta.get("progressToken")) if isinstance(meta, dict) else None
    if token is None:
        token = getattr(meta, "progress_token", None)
    return None if token is None else _Progress(ctx, token)


def build_server(
    tools: dict[str, Tool], defaults: Defaults, *, serialize: bool, instructions: str = INSTRUCTIONS
) -> Any:
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
        progress = _progress(ctx)

        def run() -> Any:
            reporting(progress.report if progress is not None else None)
            return call_json(tools, params.name, params.arguments, defaults)

        async def run_reporting() -> Any:
            if progress is None:
                return await to_thread.run_sync(run)
            async with anyio.create_task_group() as tg:
                tg.start_soon(progress.heartbeat)
                try:
                    return await to_thread.run_sync(run)
                finally:
                    tg.cancel_scope.cancel()

        try:
            if lock is not None:
                async with lock:
                    text = await run_reporting()
            else:
                text = await run_reporting()
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
        instructions=instructions,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )
    server.middleware = []  # the SDK's default OpenTelemetry span per message: no exporter here
    return server
