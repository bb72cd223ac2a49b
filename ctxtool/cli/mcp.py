"""`ctxtool mcp`: the authoring workflow and the runtime as MCP tools, over stdio or streamable HTTP."""

from __future__ import annotations

import os

import click

from ctxtool.cli._model_opts import MODEL_KEY, model_options, take
from ctxtool.errors import InputError


def _host_port(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    if not port.isdigit():
        raise InputError(f"--http {value!r}: write HOST:PORT, e.g. 127.0.0.1:8766 (or :8766 for loopback)")
    return (host.strip("[]") or "127.0.0.1"), int(port)


@click.command("mcp")
@click.option("--dsn", envvar="CTXTOOL_DSN", default=None, metavar="DSN",
              help="Default database of the tools that take dsn ($CTXTOOL_DSN).")  # fmt: skip
@click.option("--context", "context_file", default=None, metavar="FILE",
              help="Default context-set file of ask / query_data / eval.")  # fmt: skip
@click.option("--set", "set_ref", default=None, metavar="NAME[@VERSION]",
              help="Default published set of ask / query_data / eval.")  # fmt: skip
@click.option("--store", default=None, help="Where published sets live (PostgreSQL DSN or SQLite file).")
@click.option("--conversation-store", default=None,
              help="Where named conversations live (default $CTXTOOL_CONVERSATIONS_DSN or the data directory).")  # fmt: skip
@click.option("--http", "http", default=None, metavar="HOST:PORT",
              help="Serve streamable HTTP on HOST:PORT instead of stdio (loopback when HOST is empty).")  # fmt: skip
@click.option("--token", envvar="CTXTOOL_SERVE_TOKEN", default=None,
              help="With --http: require 'Authorization: Bearer TOKEN' ($CTXTOOL_SERVE_TOKEN; required).")  # fmt: skip
@click.option("--root", default=None, metavar="DIR", type=click.Path(file_okay=False),
              help="The workspace: the tools read and write files only under DIR (default: the current directory).")  # fmt: skip
@click.option("--allowed-host", "allowed_hosts", multiple=True, metavar="NAME",
              help="With --http: another name clients reach the server by (Host header); '*' for any.")  # fmt: skip
@click.option("--max-question-chars", "max_question", type=click.IntRange(min=1), default=None,
              help="Longest question ask / query_data read ($CTXTOOL_MAX_QUESTION_CHARS, else 2000).")  # fmt: skip
@model_options
def command(
    dsn: str | None,
    context_file: str | None,
    set_ref: str | None,
    store: str | None,
    conversation_store: str | None,
    http: str | None,
    token: str | None,
    root: str | None,
    allowed_hosts: tuple[str, ...],
    max_question: int | None,
    **model_flags: object,
) -> None:
    """Serve MCP tools for agents: introspect, draft_templates, draft_facets, draft_values,
    parameterize, validate, test_values, mutate_set, eval, ask, query_data, list_templates,
    describe_schema. Starts with nothing configured: every tool takes its database and files as
    arguments (the options here are defaults). Over stdio by default (what the Gemini CLI extension
    starts); --http HOST:PORT serves streamable HTTP behind a bearer token.

    \b
    Examples:
      ctxtool mcp
      gemini mcp add ctxtool ctxtool mcp
      claude mcp add ctxtool -- ctxtool mcp --dsn postgresql://me@db/shop
      CTXTOOL_SERVE_TOKEN=s3cret ctxtool mcp --http 127.0.0.1:8766
    """
    from ctxtool.connectors.dsn import parse
    from ctxtool.mcp import runtime_tools
    from ctxtool.mcp.connections import CONNECTIONS
    from ctxtool.mcp.server import registry, warm_up
    from ctxtool.mcp.tools import Defaults

    if context_file and set_ref:
        raise InputError("give at most one of --context FILE and --set NAME")
    if root is not None:
        if not os.path.isdir(root):
            raise InputError(f"--root {root}: no such folder; name the folder the tools may work in")
        os.chdir(root)  # relative paths (of the calls and of --context) are relative to the workspace
    secrets = [parse(dsn).password or ""] if dsn else []
    model = take(model_flags, MODEL_KEY)
    defaults = Defaults(
        dsn=dsn,
        context=context_file,
        set=set_ref,
        store=store,
        secrets=secrets,
        model=model,
        max_question_chars=max_question,
        root=os.getcwd(),
    )
    runtime_tools.CONVERSATION_STORE["ref"] = conversation_store
    if dsn:
        _warn_about_privileges(dsn)
    tools = registry()
    try:
        if http:
            from ctxtool.mcp.http import asgi_app, serve_http

            host, port = _host_port(http)
            warm_up()
            app = asgi_app(
                token=token or "", defaults=defaults, tools=tools, host=host, allowed_hosts=allowed_hosts
            )
            serve_http(app, host, port)
        else:
            from ctxtool.mcp.stdio import serve_stdio

            serve_stdio(tools, defaults, after_initialize=warm_up)  # imports once initialize is answered
    finally:
        runtime_tools.SERVICES.close()
        CONNECTIONS.forget()


def _warn_about_privileges(dsn: str) -> None:
    """The privilege warning (a role that can write), checked on its own connection in the
    background: the server answers its client at once, the line comes on stderr when known."""
    import threading

    from ctxtool.connectors.privileges import startup_warning

    def check() -> None:
        warning = startup_warning(dsn)
        if warning:
            click.echo(f"ctxtool mcp: {warning}", err=True)

    threading.Thread(target=check, name="ctxtool-privileges", daemon=True).start()
