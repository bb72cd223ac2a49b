"""`ctxtool promote SET.json`: an answer marked right, or a corrected SQL, becomes a template."""

from __future__ import annotations

import json

import click

from ctxtool.errors import EXIT_FINDINGS


@click.command("promote")
@click.argument("context_file", metavar="SET.json", type=click.Path(dir_okay=False))
@click.option("--feedback-id", type=int, default=None, help="A stored feedback (its question and SQL).")
@click.option("--question", default=None, help="Else the question the template answers.")
@click.option("--sql", default=None, help="And the SQL that answers it (a model's, a corrected one).")
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="VALUE",
    help="A value of the SQL's placeholders ($1, ?), in order: an answer's params. Repeatable.",
)
@click.option("--dsn", envvar="CTXTOOL_DSN", metavar="DSN", help="The set's database ($CTXTOOL_DSN).")
@click.option(
    "--feedback-store",
    default=None,
    help="The conversation store holding the feedback (default: $CTXTOOL_CONVERSATIONS_DSN or the data "
    "directory).",
)
@click.option(
    "--publish", "publish_as", metavar="NAME", default=None, help="Publish the file as NAME's next version."
)
@click.option("--store", default=None, help="Where published sets live (PostgreSQL DSN or SQLite file).")
@click.option("--dry-run", is_flag=True, help="Run every check; write nothing.")
@click.option("--timeout", type=float, default=5.0, show_default=True, help="Statement timeout in seconds.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def command(
    context_file: str,
    feedback_id: int | None,
    question: str | None,
    sql: str | None,
    params: tuple[str, ...],
    dsn: str | None,
    feedback_store: str | None,
    publish_as: str | None,
    store: str | None,
    dry_run: bool,
    timeout: float,
    fmt: str,
) -> None:
    """Add a right answer (--feedback-id N, or --question and --sql) to SET.json as a template:
    parameterized, validated against the database, its value searches tested, added as MCP
    mutate_set adds, published when asked. Nothing is added that fails a check (exit 1; the line
    says which check and what to do)."""
    from ctxtool.connectors import connect
    from ctxtool.errors import InputError
    from ctxtool.loop.promote import promote, promote_feedback

    if (feedback_id is not None and (question or sql)) or (feedback_id is None and not (question and sql)):
        raise InputError("name the answer with --feedback-id N, or give both --question and --sql")
    if not dsn:
        raise InputError("give the set's database with --dsn DSN (or $CTXTOOL_DSN)")
    options = {"publish_as": publish_as, "store": store, "dry_run": dry_run}
    with connect(dsn, statement_timeout=timeout) as conn:
        if feedback_id is not None:
            from ctxtool.conversations.feedback import get_feedback
            from ctxtool.conversations.store import open_store

            with open_store(feedback_store) as st:
                fb = get_feedback(st, feedback_id)
            result = promote_feedback(context_file, fb, conn, **options)
        else:
            result = promote(context_file, question, sql, conn, params=list(params), **options)
    if fmt == "json":
        click.echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False, default=str))
    elif result.ok:
        click.echo(result.message)
        for note in result.notes:
            click.echo(f"note: {note}", err=True)
    if not result.ok:
        if fmt == "text":
            click.echo(f"{context_file}: not promoted: {result.message}", err=True)
        raise SystemExit(EXIT_FINDINGS)
