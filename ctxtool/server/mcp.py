"""``ctxtool serve --mcp``: an MCP server over stdio for the one set being served, for agent tools such
as the Gemini CLI. Its tools are the runtime tools of :mod:`ctxtool.mcp` (``ask``, ``query_data``,
``list_templates``, ``describe_schema``; ``ask`` and ``query_data`` take ``conversation_id`` /
``session``) without set and database arguments, on the same MCP SDK server and stdio transport as
``ctxtool mcp``. Only JSON-RPC goes to stdout; messages for people go to stderr.
"""

from __future__ import annotations

from ctxtool.server.service import Service


def serve_mcp(service: Service) -> None:
    """Serve ``service`` until end of input."""
    from ctxtool.mcp.server import registry
    from ctxtool.mcp.stdio import serve_stdio
    from ctxtool.mcp.tools import Defaults

    serve_stdio(
        registry(authoring=False, preconfigured_runtime=True),
        Defaults(service=service),
        instructions=f"Answers questions from the context set {service.runtime.ref}.",
    )
