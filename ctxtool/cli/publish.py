"""`ctxtool publish FILE --name NAME`: validate a set and store it as a new immutable version."""

from __future__ import annotations

import json

import click

from ctxtool import console


@click.command("publish")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--name", required=True, help="The set's name (versions accumulate under it).")
@click.option(
    "--store",
    default=None,
    help="A PostgreSQL DSN (shared store; ?schema=NAME picks the schema) or a SQLite file. "
    "Default: $CTXTOOL_STORE, else sets.sqlite in the ctxtool data directory.",
)
@click.option("--dialect", default=None, help="postgres, mysql or spanner (default: from the placeholders).")
@click.option("--note", default=None, help="A note stored with the version.")
@click.option("--who", default=None, help="Who publishes (default: $CTXTOOL_USER or the login name).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def command(
    file: str, name: str, store: str | None, dialect: str | None, note: str | None, who: str | None, fmt: str
) -> None:
    """Validate FILE and publish it as the next version of NAME (exit 1 when validation finds errors).
    Publishing the content the latest version already holds stores nothing and says which version
    that is, so a rerun never makes a duplicate."""
    from ctxtool.store import PublishRejected, publish

    try:
        version = publish(file, name, store, dialect=dialect, who=who, note=note)
    except PublishRejected as exc:
        for f in exc.findings[:20]:
            console.info(
                f"{getattr(f, 'path', file)}:{getattr(f, 'line', 1)}:{getattr(f, 'column', 1)}: "
                f"{getattr(f, 'code', '')}: {f.message}"
            )
        raise
    if fmt == "json":
        click.echo(json.dumps({**version.summary(), "already_published": version.existing}, indent=2))
    elif version.existing:
        click.echo(
            f"already published as version {version.version} ({version.ref}, {version.content_hash[:19]}, "
            f"by {version.created_by}): the same content; nothing new was stored"
        )
    else:
        click.echo(f"published {version.ref} ({version.content_hash[:19]}, by {version.created_by})")
