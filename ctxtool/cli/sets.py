"""`ctxtool sets list|show|diff|rollback`: the published sets and their versions."""

from __future__ import annotations

import json

import click

from ctxtool.jsondoc import dumps_json

_store_option = click.option(
    "--store",
    default=None,
    help="PostgreSQL DSN or SQLite file (default: $CTXTOOL_STORE or the data directory).",
)
_format_option = click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)


@click.group("sets")
def command() -> None:
    """List, show, compare and roll back published context sets."""


@command.command("list")
@click.argument("name", required=False)
@_store_option
@_format_option
def list_cmd(name: str | None, store: str | None, fmt: str) -> None:
    """Every set (latest version), or every version of NAME."""
    from ctxtool.store import open_store

    with open_store(store) as st:
        rows = st.versions(name) if name else st.names()
    if fmt == "json":
        click.echo(json.dumps([r.summary() for r in rows], indent=2))
        return
    if not rows:
        click.echo("no published sets; run `ctxtool publish FILE --name NAME`")
    for r in rows:
        extra = f"  {r.note}" if r.note else ""
        click.echo(f"{r.ref:<30} {r.created_at}  {r.created_by:<12} {r.content_hash[:19]}{extra}")


@command.command("show")
@click.argument("ref")
@_store_option
@click.option("--meta", is_flag=True, help="Show the version's metadata instead of its content.")
def show_cmd(ref: str, store: str | None, meta: bool) -> None:
    """Print the content of NAME or NAME@VERSION as JSON."""
    from ctxtool.store import open_store, parse_ref

    name, version = parse_ref(ref)
    with open_store(store) as st:
        v = st.get(name, version)
    click.echo(json.dumps(v.summary(), indent=2) if meta else dumps_json(v.data), nl=meta)


@command.command("diff")
@click.argument("name")
@click.argument("old", type=int)
@click.argument("new", type=int, required=False)
@_store_option
@_format_option
def diff_cmd(name: str, old: int, new: int | None, store: str | None, fmt: str) -> None:
    """Item changes from version OLD to NEW (default: the latest). Exit 1 when they differ."""
    from ctxtool.store import diff_sets, open_store

    with open_store(store) as st:
        a = st.get(name, old)
        b = st.get(name, new)
    changes = diff_sets(a.data or {}, b.data or {})
    if fmt == "json":
        click.echo(json.dumps({"from": a.ref, "to": b.ref, "changes": changes}, indent=2))
    else:
        if not changes:
            click.echo(f"{a.ref} and {b.ref} have the same items")
        for c in changes:
            sign = {"added": "+", "removed": "-", "changed": "~"}[c["change"]]
            fields = f" ({', '.join(c['fields'])})" if c["fields"] else ""
            click.echo(f"{sign} {c['kind']}: {c['key']}{fields}")
    if changes:
        raise SystemExit(1)


@command.command("rollback")
@click.argument("name")
@click.argument("version", type=int)
@_store_option
@click.option("--who", default=None, help="Who rolls back (default: $CTXTOOL_USER or the login name).")
def rollback_cmd(name: str, version: int, store: str | None, who: str | None) -> None:
    """Publish the content of VERSION again as the newest version of NAME."""
    from ctxtool.store import open_store

    with open_store(store) as st:
        v = st.rollback(name, version, who=who)
    click.echo(f"published {v.ref} (content of {name}@{version})")
