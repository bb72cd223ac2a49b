"""`ctxtool dataset generate`: a golden file made from a set and its database."""

from __future__ import annotations

import json

import click

from ctxtool import console


@click.group("dataset")
def command() -> None:
    """Golden datasets for `ctxtool eval` and `ctxtool improve`."""


@command.command("generate")
@click.option("--set", "set_ref", metavar="NAME[@VERSION]", help="A published set (see `ctxtool sets list`).")
@click.option(
    "--context", "context_file", metavar="FILE", help="A context-set file instead of a published set."
)
@click.option("--store", default=None, help="Where published sets live (PostgreSQL DSN or SQLite file).")
@click.option("--dsn", envvar="CTXTOOL_DSN", metavar="DSN", help="The set's database ($CTXTOOL_DSN).")
@click.option("--output", "-o", required=True, metavar="FILE", help="The golden file to write.")
@click.option("--database", default=None, help="The items' database name (default: the database's own).")
@click.option("--seed", type=int, default=0, show_default=True, help="The same seed writes the same file.")
@click.option(
    "--split",
    type=float,
    default=0.0,
    show_default=True,
    help="Put the items of this fraction of the templates in a held-out file (FILE.heldout.json) "
    "that `improve` never reads.",
)
@click.option("--heldout", default=None, metavar="FILE", help="Where the held-out items go.")
@click.option(
    "--workload", default=None, metavar="FILE", help="Also describe the queries of this log as questions."
)
@click.option("--values-per-slot", type=int, default=2, show_default=True, help="Other values per slot.")
@click.option("--timeout", type=float, default=5.0, show_default=True, help="Statement timeout in seconds.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def generate(
    set_ref: str | None,
    context_file: str | None,
    store: str | None,
    dsn: str | None,
    output: str,
    database: str | None,
    seed: int,
    split: float,
    heldout: str | None,
    workload: str | None,
    values_per_slot: int,
    timeout: float,
    fmt: str,
) -> None:
    """For each template: its question in other words, misspelled, distracted, with other values
    from the data (golden SQL checked non-empty) and a negative that must be declined; every item
    tagged by how it was made. The audit report goes to stdout."""
    from ctxtool.connectors import connect
    from ctxtool.errors import InputError
    from ctxtool.golden import generate_dataset
    from ctxtool.store import load_set

    if bool(set_ref) == bool(context_file):
        raise InputError("name the set with exactly one of --set NAME[@VERSION] or --context FILE")
    if not dsn:
        raise InputError("give the set's database with --dsn DSN (or $CTXTOOL_DSN)")
    loaded = load_set(context_file or set_ref, store)
    with connect(dsn, statement_timeout=timeout) as conn:
        ds = generate_dataset(
            loaded.data,
            conn,
            database=database,
            seed=seed,
            split=split,
            workload=workload,
            values_per_slot=values_per_slot,
            progress=lambda items: console.track(items, "generating golden questions"),
        )
    written = ds.write(output, heldout)
    report = {**ds.report, "written": written}
    if fmt == "json":
        click.echo(json.dumps(report, indent=2, ensure_ascii=False))
        return
    click.echo(
        f"{report['items']} golden question(s) from {report['templates']} template(s) "
        f"({report['items_per_template']} per template) -> {written[0]}"
    )
    if len(written) > 1:
        click.echo(f"{report['heldout_items']} held-out question(s) -> {written[1]}")
    click.echo("by tag: " + ", ".join(f"{k} {v}" for k, v in report["by_tag"].items()))
    for key, what in (("own_sql_failed", "SQL fails"), ("own_sql_empty", "SQL returns nothing")):
        if report[key]:
            click.echo(f"{len(report[key])} template(s) whose {what}: {report[key][0]!r}...")
