"""``ctxtool validate``: check context-set files for the CLI, CI and pre-commit."""

from __future__ import annotations

import sys

import click

from ctxtool import console
from ctxtool.dialects import normalize
from ctxtool.errors import CtxtoolError, InputError


def _load_snapshot(path: str):  # type: ignore[no-untyped-def]
    try:
        from ctxtool import snapshot as snapshot_module
    except ModuleNotFoundError as exc:
        if exc.name != "ctxtool.snapshot":
            raise
        raise InputError("--snapshot needs ctxtool.snapshot, which this build does not have yet") from None
    return snapshot_module.load(path)


def _connect(dsn: str):  # type: ignore[no-untyped-def]
    try:
        from ctxtool.connectors import connect
    except ImportError:
        raise InputError("--dsn needs ctxtool.connectors, which this build does not have yet") from None
    return connect(dsn)


@click.command("validate")
@click.argument("paths", nargs=-1, metavar="PATH...")
@click.option(
    "--dialect",
    "-d",
    default="postgres",
    show_default=True,
    help="SQL dialect of the files: postgres (alloydb), mysql or spanner.",
)
@click.option(
    "--format",
    "-f",
    "fmt",
    type=click.Choice(["text", "json", "github", "sarif"]),
    default="text",
    show_default=True,
    help="text for people, json for machines, github for workflow annotations, sarif for code scanning.",
)
@click.option("--strict", is_flag=True, help="Treat warnings as errors.")
@click.option(
    "--snapshot",
    "snapshot_path",
    metavar="FILE",
    help="Also check that tables and columns exist in this schema snapshot (from `ctxtool introspect`).",
)
@click.option("--dsn", metavar="DSN", help="Also plan every query on this database (read-only EXPLAIN).")
@click.option("--quiet", "-q", is_flag=True, help="Print findings only, no summary line.")
def command(
    paths: tuple[str, ...],
    dialect: str,
    fmt: str,
    strict: bool,
    snapshot_path: str | None,
    dsn: str | None,
    quiet: bool,
) -> None:
    """Check context-set files: JSON, schema, SQL, placeholders, consistency, facets, value searches
    and duplicates.

    PATH is a file, a directory (every *.json below it), a glob, or - for standard input.
    Exit status: 0 no errors, 1 errors found (warnings too with --strict), 2 usage error or unreadable input,
    3 the --dsn database cannot be reached. With --snapshot or --dsn the dialect is taken from it.

    \b
    Examples:
      ctxtool validate samples/postgres
      ctxtool validate --dialect mysql 'contexts/**/*.json'
      ctxtool validate --format github --strict contexts/
    """
    from ctxtool.validate import report, validate_paths

    if not paths:
        raise click.UsageError("name at least one PATH (a file, a directory, a glob, or - for stdin)")
    snapshot = _load_snapshot(snapshot_path) if snapshot_path else None
    connector = _connect(dsn) if dsn else None
    if click.get_current_context().get_parameter_source("dialect") == click.core.ParameterSource.DEFAULT:
        # with a database (or its snapshot) the dialect is the one it speaks
        if connector is not None:
            dialect = connector.dialect
        elif snapshot is not None and snapshot.get("dialect"):
            dialect = snapshot["dialect"]
    dialect = normalize(dialect)
    try:
        result = validate_paths(paths, dialect=dialect, strict=strict, snapshot=snapshot, connector=connector)
    finally:
        if connector is not None:
            connector.close()

    if fmt == "json":
        sys.stdout.write(report.render_json(result.findings, result.files, result.unreadable))
    elif fmt == "github":
        sys.stdout.write(report.render_github(result.findings))
    elif fmt == "sarif":
        sys.stdout.write(report.render_sarif(result.findings))
    else:
        report.print_text(result.findings)
    sys.stdout.flush()
    for message in result.unreadable:
        click.echo(f"error: {message}", err=True)
    if not quiet and fmt in ("text", "github"):
        console.info(report.summary(result.findings, len(result.files)))
    if not result.files and not result.unreadable:
        raise CtxtoolError("no context-set file found under the given paths (looked for *.json)")
    sys.exit(result.exit_code)
