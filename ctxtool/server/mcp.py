"""``ctxtool serve --mcp``: an MCP server over stdio for the one set being served, for agent tools such
as the Gemini CLI (and :func:`http_app`, the same over streamable HTTP at ``/mcp`` of ``ctxtool serve
--token``). Its tools are the runtime tools of :mod:`ctxtool.mcp` (``ask``, ``query_data``,
``list_templates``, ``describe_schema``; ``ask`` and ``query_data`` take ``conversation_id`` /
``session``) without set and database arguments, on the same MCP SDK server and stdio transport as
``ctxtool mcp``. Only JSON-RPC goes to stdout; messages for people go to stderr.
"""

from __future__ import annotations

from typing import Any

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


def http_app(service: Service) -> Any:
    """The same tools over MCP's streamable HTTP transport, as the ASGI app ``ctxtool serve --token``
    mounts at ``/mcp`` in each worker (the server's bearer-token check covers it)."""
    from ctxtool.mcp.http import asgi_app
    from ctxtool.mcp.server import registry
    from ctxtool.mcp.tools import Defaults

    return asgi_app(
        token=None,
        checked_by_host=True,
        host=None,
        defaults=Defaults(service=service),
        tools=registry(authoring=False, preconfigured_runtime=True),
    )
