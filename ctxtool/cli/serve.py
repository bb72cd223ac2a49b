"""`ctxtool serve`: the HTTP JSON API (default) or an MCP server over stdio (`--mcp`)."""

from __future__ import annotations

import click

from ctxtool.cli._runtime_opts import make_runtime, runtime_options


@click.command("serve")
@runtime_options
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=int, default=8765, show_default=True, help="Port (0 picks a free one).")
@click.option(
    "--token", envvar="CTXTOOL_SERVE_TOKEN", default=None, help="Require 'Authorization: Bearer TOKEN'."
)
@click.option("--mcp", is_flag=True, help="Speak MCP (JSON-RPC 2.0) on stdin/stdout instead of HTTP.")
@click.option(
    "--session-memory",
    is_flag=True,
    help="The profile option conversation: true -- requests without a conversation_id or session share "
    "one session memory of the last 10 prompts (never stored).",
)
@click.option(
    "--conversation-store",
    default=None,
    help="Where named conversations live (PostgreSQL DSN or SQLite file; default "
    "$CTXTOOL_CONVERSATIONS_DSN or the data directory).",
)
@click.option(
    "--write-openapi", metavar="FILE", default=None, help="Write the OpenAPI document to FILE and exit."
)
def command(
    host: str,
    port: int,
    token: str | None,
    mcp: bool,
    session_memory: bool,
    conversation_store: str | None,
    write_openapi: str | None,
    **opts,
) -> None:
    """Serve a set: ask / query data, list templates, describe the schema (HTTP with OpenAPI, or MCP).
    Requests may name a conversation (conversation_id) or an API session (session) for follow-ups."""
    if write_openapi:
        from ctxtool.jsondoc import dump_json
        from ctxtool.server.openapi import document

        dump_json(write_openapi, document())
        click.echo(f"wrote {write_openapi}")
        return
    from ctxtool.server.service import Service

    with make_runtime(**opts, conversation=session_memory) as rt:
        import gc

        gc.collect()
        gc.freeze()  # the compiled set lives as long as the server: keep it out of every GC pass
        service = Service(rt, conversation_store=conversation_store)
        try:
            if mcp:
                from ctxtool.server.mcp import serve_mcp

                serve_mcp(service)
            else:
                from ctxtool.server.http import serve_http

                serve_http(service, host, port, token=token)
        finally:
            service.close()
