"""`ctxtool draft values`: draft value searches per engine (and the DDL they need)."""

from __future__ import annotations

import click

from ctxtool import console
from ctxtool.cli._draft_opts import output_options, source_options
from ctxtool.errors import InputError


@click.command("values")
@source_options()
@click.option(
    "--column",
    "columns",
    multiple=True,
    metavar="TABLE.COLUMN",
    help="Draft for exactly these columns (repeatable).",
)
@click.option(
    "--match",
    type=click.Choice(["exact", "trigram", "fuzzy", "semantic"]),
    default=None,
    help="Force one kind of match (default: exact for codes, the engine's fuzzy search otherwise).",
)
@output_options(
    "Write a new context set here.",
    "Add the searches to this context set (replacing ones on the same column).",
)
@click.option(
    "--emit-ddl", is_flag=True, help="Print the indexes and columns the searches need (SQL, on stdout)."
)
@click.option(
    "--apply-ddl",
    is_flag=True,
    help="Apply that DDL to --dsn through a separate write connection (the only write ctxtool makes).",
)
@click.option(
    "--yes",
    is_flag=True,
    help="With --apply-ddl: add the helper columns the DDL puts in your tables without asking.",
)
@click.option(
    "--write-snapshot",
    "snapshot_output",
    default=None,
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="With --apply-ddl: write the schema snapshot taken again after the DDL here.",
)
@click.option(
    "--embedding-function",
    default=None,
    metavar="NAME",
    help="PostgreSQL semantic: a SQL function text -> vector to embed with (default: ctxtool's hashing embedder, or google_ml.embedding on AlloyDB).",
)
@click.option(
    "--embedding-dim",
    type=click.IntRange(1),
    default=None,
    help="Dimension of --embedding-function's vectors.",
)
@click.option(
    "--limit",
    type=click.IntRange(1, 1000),
    default=10,
    show_default=True,
    help="Rows each search returns at most.",
)
@click.option(
    "--timeout",
    type=float,
    default=30.0,
    show_default=True,
    help="Statement timeout for introspection, seconds.",
)
def command(
    dsn: str | None,
    snapshot_path: str | None,
    columns: tuple[str, ...],
    match: str | None,
    output: str | None,
    merge_path: str | None,
    emit_ddl: bool,
    apply_ddl: bool,
    yes: bool,
    snapshot_output: str | None,
    embedding_function: str | None,
    embedding_dim: int | None,
    limit: int,
    timeout: float,
) -> None:
    """Draft value searches for the columns where users name things.

    Without --column, picks text columns of names, codes and categories from the profile (not free
    text, ids or hashes) and names each concept from its table and column (airports.name ->
    Airport Name). The query follows the engine's recipe (PostgreSQL pg_trgm / pgvector, MySQL
    FULLTEXT ngram, MariaDB FULLTEXT + SOUNDEX, Spanner SEARCH_NGRAMS). The context set goes to
    stdout unless -o or --merge names a file.

    --apply-ddl prints what it will run first, checks every statement before running any, and
    asks before adding columns to your tables (MariaDB/MySQL/Spanner SOUNDEX columns) unless --yes.
    """
    from ctxtool.values.workflow import draft_values

    if bool(dsn) == bool(snapshot_path):
        raise InputError("give exactly one of --dsn and --snapshot")
    if output and merge_path:
        raise InputError("give at most one of -o and --merge")
    if apply_ddl and not dsn:
        raise InputError("--apply-ddl needs --dsn (the database to change)")
    result = draft_values(
        dsn=dsn,
        snapshot_path=snapshot_path,
        columns=columns,
        match=match,
        output=output,
        merge_path=merge_path,
        apply=apply_ddl,
        confirm=lambda plan: _confirm(plan, yes),
        snapshot_output=snapshot_output,
        timeout=timeout,
        log=console.info,
        limit=limit,
        embedding_function=embedding_function,
        embedding_dim=embedding_dim,
    )
    for note in result.notes:
        console.info(note)
    if emit_ddl:
        click.echo(result.ddl_script, nl=False)
    elif not (output or merge_path):
        click.echo(result.text, nl=False)
    where = output or merge_path
    if where:
        console.info(f"{where}: {result.summary}")


def _confirm(plan, yes: bool) -> bool:
    """Print what --apply-ddl will run; ask before it adds columns to the user's tables."""
    import sys

    for p in plan:
        mark = "CHANGES YOUR TABLE: " if p.changes_table else ""
        console.info(f"will run ({mark}{p.describe()}): {p.statement.splitlines()[0]}")
    columns = [p for p in plan if p.changes_table]
    if not columns or yes:
        return True
    tables = sorted({str(p.table) for p in columns})
    question = f"add {len(columns)} generated column(s) to {len(tables)} table(s) ({', '.join(tables)})?"
    if sys.stdin.isatty():
        return click.confirm(question, default=False, err=True)
    raise InputError(
        f"--apply-ddl would {question[:-1]}: they change the tables people query; add --yes to allow "
        "it, or review --emit-ddl and run what you choose"
    )
