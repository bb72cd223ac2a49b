"""`ctxtool serve`: the HTTP JSON API (default; `--workers N` processes) or an MCP server over stdio
(`--mcp`). Both answer on pooled read-only database sessions and follow a published set (`--set
NAME`) to its newest version without a restart."""

from __future__ import annotations

import click

from ctxtool.cli._runtime_opts import runtime_options
from ctxtool.errors import InputError


@click.command("serve")
@runtime_options
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=int, default=8765, show_default=True, help="Port (0 picks a free one).")
@click.option(
    "--token", envvar="CTXTOOL_SERVE_TOKEN", default=None, help="Require 'Authorization: Bearer TOKEN'."
)
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    metavar="NAME",
    help="Another name clients reach the server by (its Host header); repeatable; '*' for any. "
    "Default: the address it binds (and localhost on loopback).",
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
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Server processes (a dead one is replaced; SIGTERM lets in-flight requests finish).",
)
@click.option(
    "--pool-size",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Database sessions per worker (and request threads: a slow query holds one of them).",
)
@click.option(
    "--pool-timeout",
    type=click.FloatRange(min=0.1),
    default=10.0,
    show_default=True,
    help="Seconds a request waits for a free database session before it fails.",
)
@click.option(
    "--reload-interval",
    type=click.FloatRange(min=0),
    default=2.0,
    show_default=True,
    help="With --set NAME: seconds between looks for a newly published version (0: never reload).",
)
@click.option(
    "--drain-timeout",
    type=click.FloatRange(min=0),
    default=30.0,
    show_default=True,
    help="Seconds in-flight requests get to finish on SIGTERM / Ctrl-C.",
)
@click.option("--quiet", is_flag=True, help="No access log.")
@click.option(
    "--write-openapi", metavar="FILE", default=None, help="Write the OpenAPI document to FILE and exit."
)
def command(
    host: str,
    port: int,
    token: str | None,
    allowed_hosts: tuple[str, ...],
    mcp: bool,
    session_memory: bool,
    conversation_store: str | None,
    workers: int,
    pool_size: int,
    pool_timeout: float,
    reload_interval: float,
    drain_timeout: float,
    quiet: bool,
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
    from ctxtool.server.workers import ServeConfig, build_service, check_database, close_service, run

    config = ServeConfig(
        runtime=opts,
        session_memory=session_memory,
        conversation_store=conversation_store,
        token=token,
        pool_size=pool_size,
        pool_timeout=pool_timeout,
        reload_interval=reload_interval,
        quiet=quiet,
        host=host,
        allowed_hosts=list(allowed_hosts),
        # MCP over streamable HTTP beside the API, behind the same bearer token (never without one)
        mounts={"/mcp": "ctxtool.server.mcp:http_app"} if token and not mcp else {},
    )
    if not opts.get("dsn"):
        raise InputError("give the database with --dsn DSN (or $CTXTOOL_DSN)")
    check_database(config)
    if not mcp:
        run(config, host, port, workers=workers, drain_timeout=drain_timeout)
        return
    if workers > 1:
        raise InputError("--workers applies to the HTTP server; an MCP client starts one --mcp process")
    from ctxtool.server.mcp import serve_mcp

    service = build_service(config)
    try:
        if service.follower is not None:
            service.follower.start()
        serve_mcp(service)
    finally:
        close_service(service)
