"""`ctxtool ask "QUESTION" --set NAME --dsn DSN`: answer one question from a context set."""

from __future__ import annotations

import csv
import io
import json

import click

from ctxtool import console
from ctxtool.cli._runtime_opts import make_runtime, runtime_options
from ctxtool.cli.conversation import ask_in_conversation, conversation_options
from ctxtool.errors import EXIT_DATABASE, EXIT_FINDINGS, EXIT_REFUSED
from ctxtool.runtime.answer import ACTIONS, Answer, jsonable


def _print_table(ans: Answer) -> None:
    from rich.table import Table

    table = Table(*ans.columns, show_lines=False)
    for row in ans.rows:
        table.add_row(*("" if v is None else str(jsonable(v)) for v in row))
    console.stdout.print(table)


def render(ans: Answer, fmt: str) -> None:
    """Print an answer: JSON, CSV rows, or a table with the SQL and explanation on stderr."""
    if fmt == "json":
        click.echo(json.dumps(ans.to_dict(), indent=2, ensure_ascii=False, default=str))
        return
    for warning in ans.warnings:  # what was read otherwise ("read 'deparment' as 'department'")
        console.warn(warning)
    if ans.status != "answered":
        click.echo(ans.text)
        for q in ans.disambiguation:
            click.echo(f"  - {q}")
        if ans.explanation:
            console.info(ans.explanation)
        if ans.error:
            console.info(ans.error)
        return
    if ans.action == "showprompt":
        for m in ans.prompt or []:
            click.echo(f"--- {m['role']}\n{m.get('content') or ''}")
        return
    if ans.action == "chat":
        click.echo(ans.text)
        return
    if fmt == "csv" and ans.executed:
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(ans.columns)
        for r in ans.rows:
            w.writerow(jsonable(r))
        click.echo(buf.getvalue(), nl=False)
        return
    if ans.action in ("showsql", "explainsql"):
        click.echo(ans.sql)
        if ans.params:
            click.echo(f"-- parameters: {json.dumps(jsonable(ans.params), ensure_ascii=False)}")
        if ans.action == "explainsql":
            click.echo(ans.text)
        console.info(f"understood: {ans.explanation}")
        return
    console.info(f"sql: {ans.sql}  params: {json.dumps(jsonable(ans.params), ensure_ascii=False)}")
    console.info(f"understood: {ans.explanation}")
    if ans.action == "narrate":
        click.echo(ans.text)
        return
    if ans.rows:
        _print_table(ans)
    click.echo(ans.text) if not ans.rows else console.info(ans.text)


@click.command("ask")
@click.argument("question")
@runtime_options
@click.option("--action", type=click.Choice(ACTIONS), default="runsql", show_default=True)
@click.option(
    "--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True
)
@conversation_options
def command(
    question: str, action: str, fmt: str, conversation_id: str | None, conversation_store: str | None, **opts
) -> None:
    """Answer QUESTION from a context set (exit 1 when there is no confident answer, 3 on a database error,
    4 when the read-only gate refused the SQL)."""
    need_dsn = action not in ("showsql", "explainsql", "showprompt", "chat")
    with make_runtime(**opts, need_dsn=need_dsn) as rt:
        if rt.connector is not None and opts.get("dsn"):
            from ctxtool.connectors.privileges import startup_warning

            warning = startup_warning(opts["dsn"], rt.connector)  # one query on the open session
            if warning:
                click.echo(warning, err=True)
        if conversation_id:
            ans = ask_in_conversation(rt, question, action, conversation_id, conversation_store)
        else:
            ans = rt.ask(question, action=action)
    render(ans, fmt)
    if ans.status == "error":
        raise SystemExit(EXIT_REFUSED if ans.refused else EXIT_DATABASE)
    if ans.status != "answered":
        raise SystemExit(EXIT_FINDINGS)
