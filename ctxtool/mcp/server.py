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
from typing import Any

from ctxtool import __version__
from ctxtool.mcp.tools import Defaults, Tool, ToolError, call_json, reporting

INSTRUCTIONS = (
    "ctxtool authors, checks and serves NL-to-SQL context sets (templates, facets, value searches). "
    "Workflow: introspect the database into a snapshot, draft_templates / draft_facets / draft_values, "
    "review the drafts with the user, change the set with mutate_set, parameterize, validate (fix every "
    "error finding), test_values, eval on golden questions, improve and evaluate again; ask / "
    "query_data try the set as a user would. Paths are relative to the server's working directory."
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


def _progress_reporter(ctx: Any) -> Any:
    """A function the tool's worker thread calls to send ``notifications/progress`` to the client,
    when the request asked for them (a ``progressToken``); else None."""
    meta = ctx.meta
    token = meta.get("progress_token", meta.get("progressToken")) if isinstance(meta, dict) else None
    if token is None:
        token = getattr(meta, "progress_token", None)
    if token is None:
        return None
    from anyio import from_thread

    def report(done: float, total: float | None, message: str) -> None:
        try:
            from_thread.run(
                ctx.session.send_progress_notification, token, done, total, message or None, ctx.request_id
            )
        except Exception:  # noqa: BLE001 - progress is best effort: the call goes on without it
            pass

    return report


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
        report = _progress_reporter(ctx)

        def run() -> Any:
            reporting(report)
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
        instructions=instructions,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )
    server.middleware = []  # the SDK's default OpenTelemetry span per message: no exporter here
    return server
