"""``ctxtool doctor --dsn DSN``: say whether the DSN's role can do more than read."""

from __future__ import annotations

import json

import click

from ctxtool.errors import EXIT_FINDINGS


@click.command("doctor")
@click.option("--dsn", required=True, metavar="DSN", envvar="CTXTOOL_DSN",
              help="The database and role ctxtool will use (or $CTXTOOL_DSN).")  # fmt: skip
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def command(dsn: str, fmt: str) -> None:
    """Check that the DSN's role can only read: no INSERT/UPDATE/DELETE/TRUNCATE/CREATE privilege,
    not a superuser, no server files or programs (PostgreSQL pg_read_server_files,
    pg_write_server_files, pg_execute_server_program; MySQL FILE, SUPER, any non-SELECT privilege;
    Spanner IAM write permissions). ctxtool runs every statement read-only anyway; a read-only role
    is the second line of defence. docs/serving.md shows the role to create on each engine.

    Exit status: 0 the role can only read; 1 it can do more, or the engine cannot tell (the
    Spanner emulator, no IAM answer): the report says which; 2 unreadable DSN; 3 the database cannot
    be reached or refused.

    \b
    Examples:
      ctxtool doctor --dsn postgresql://ctxtool_reader@db:5432/shop
      ctxtool doctor --dsn mysql://reader@db/shop --format json
    """
    from ctxtool.connectors import connect
    from ctxtool.connectors.privileges import check_privileges

    with connect(dsn) as connector:
        report = check_privileges(connector)
    if fmt == "json":
        click.echo(json.dumps(report.to_json(), indent=2))
    else:
        for finding in report.findings:
            click.echo(f"{finding.code}: {finding.detail}")
        click.echo(("ok: " if report.ok else "") + report.summary())
    if not report.ok:
        raise SystemExit(EXIT_FINDINGS)
