"""The authoring workflow and the runtime as MCP tools, for agents (the Gemini CLI, Claude Code, any
MCP client): :mod:`~ctxtool.mcp.tools` (the registry and how a call runs), the tools themselves
(:mod:`~ctxtool.mcp.authoring`, :mod:`~ctxtool.mcp.mutate`, :mod:`~ctxtool.mcp.runtime_tools`), and the
transports on the MCP Python SDK: :mod:`~ctxtool.mcp.server` (stdio) and :mod:`~ctxtool.mcp.http`
(streamable HTTP with a bearer token, as an ASGI app)."""

from ctxtool.mcp.tools import Defaults, Tool, ToolError, call

__all__ = ["Defaults", "Tool", "ToolError", "call"]
