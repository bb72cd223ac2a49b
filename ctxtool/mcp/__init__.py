"""The authoring workflow and the runtime as MCP tools, for agents (the Gemini CLI, Claude Code, any
MCP client).

:mod:`~ctxtool.mcp.tools` is the registry and how a call runs; the tools are in
:mod:`~ctxtool.mcp.drafting`, :mod:`~ctxtool.mcp.mutate`, :mod:`~ctxtool.mcp.checks` and
:mod:`~ctxtool.mcp.runtime_tools` (with warm sessions from :mod:`~ctxtool.mcp.connections`); the server
on the MCP Python SDK is :mod:`~ctxtool.mcp.server`, served over :mod:`~ctxtool.mcp.stdio` or
streamable HTTP behind a bearer token (:mod:`~ctxtool.mcp.http`, an ASGI app).
"""

from ctxtool.mcp.tools import Defaults, Tool, ToolError, call

__all__ = ["Defaults", "Tool", "ToolError", "call"]
