"""`ctxtool feedback`: right or wrong on an answer, stored beside the conversations; listed, and
exported as a golden file."""

from __future__ import annotations

import json

import click

_store_option = click.option(
    "--store",
    default=None,
    help="PostgreSQL DSN or SQLite file (default: $CTXTOOL_CONVERSATIONS_DSN or the data directory).",
)


@click.group("feedback")
def command() -> None:
    """Feedback on answers (Select AI's semantics: positive, or negative with a corrected SQL)."""


@command.command("add")
@click.argument("kind", type=click.Choice(["positive", "negative"]))
@click.option("--prompt-id", type=int, default=None, help="The answer: a prompt of a conversation.")
@click.option("--question", default=None, help="Else the question asked (a session's answer).")
@click.option("--sql", default=None, help="And the SQL it was answered with.")
@click.option("--corrected-sql", default=None, help="The SQL that answers the question (negative).")
@click.option("--comment", default=None, help="What is wrong or right about it.")
@click.option("--set", "set_ref", default=None, help="The set that answered (recorded).")
@click.option("--database", default=None, help="The database's name (recorded; used by export).")
@_store_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def add(kind: str, prompt_id: int | None, store: str | None, fmt: str, **fields) -> None:
    """Record POSITIVE or NEGATIVE feedback on an answer."""
    from ctxtool.conversations.feedback import record_feedback
    from ctxtool.conversations.store import open_store

    with open_store(store) as st:
        fb = record_feedback(st, kind, prompt_id=prompt_id, **fields)
    if fmt == "json":
        click.echo(json.dumps(fb.to_dict(), indent=2, ensure_ascii=False))
    else:
        click.echo(f"feedback {fb.feedback_id}: {fb.feedback_type} on {fb.question!r}")


@command.command("list")
@click.option("--type", "kind", type=click.Choice(["positive", "negative"]), default=None)
@click.option("--conversation", "conversation_id", default=None)
@_store_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def list_(kind: str | None, conversation_id: str | None, store: str | None, fmt: str) -> None:
    """The stored feedback, oldest first."""
    from ctxtool.conversations.feedback import list_feedback
    from ctxtool.conversations.store import open_store

    with open_store(store) as st:
        items = list_feedback(st, feedback_type=kind, conversation_id=conversation_id)
    if fmt == "json":
        click.echo(json.dumps([f.to_dict() for f in items], indent=2, ensure_ascii=False))
        return
    for f in items:
        fix = " (corrected)" if f.corrected_sql else ""
        click.echo(f"{f.feedback_id:>5} {f.feedback_type:<8}{fix} {f.question}")


@command.command("export")
@click.option("--output", "-o", required=True, help="The golden file to write.")
@click.option("--database", default=None, help="The items' database name.")
@_store_option
def export(output: str, database: str | None, store: str | None) -> None:
    """Write the feedback that gives a reference SQL (positive, or negative with a correction) as a
    golden file for `ctxtool eval`."""
    from ctxtool.conversations.feedback import export_golden, list_feedback
    from ctxtool.conversations.store import open_store
    from ctxtool.jsondoc import write_text_atomic

    with open_store(store) as st:
        items = export_golden(list_feedback(st), database=database)
    write_text_atomic(output, json.dumps(items, indent=2, ensure_ascii=False) + "\n")
    click.echo(f"{len(items)} golden question(s) -> {output}")
