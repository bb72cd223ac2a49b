"""``ctxtool introspect``: write a schema snapshot of a live database."""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import sys
import time
from collections.abc import Callable, Iterator

import click

from ctxtool.connectors.base import DEFAULT_STATEMENT_TIMEOUT


@click.command("introspect")
@click.option("--dsn", required=True, metavar="DSN", envvar="CTXTOOL_DSN",
              help="postgresql://, alloydb://, mysql:// or spanner://projects/P/instances/I/databases/D "
                   "(or $CTXTOOL_DSN).")  # fmt: skip
@click.option("--schema", "schemas", multiple=True, metavar="NAME",
              help="Only this schema (repeatable). Default: every user schema (PostgreSQL, Spanner), "
                   "the DSN's database (MySQL).")  # fmt: skip
@click.option("--profile", is_flag=True,
              help="Add per-column statistics: distinct count, null fraction, most common values, min/max.")  # fmt: skip
@click.option(
    "-o", "--output", metavar="FILE", help="Write the snapshot here (atomically) instead of stdout."
)
@click.option("--statement-timeout", type=float, default=DEFAULT_STATEMENT_TIMEOUT * 6, show_default=True,
              metavar="SECONDS", help="Longest any one catalog query may run.")  # fmt: skip
def command(
    dsn: str, schemas: tuple[str, ...], profile: bool, output: str | None, statement_timeout: float
) -> None:
    """Write a schema snapshot: tables, views, columns, keys, indexes (and with --profile, column
    statistics), in a stable order that diffs cleanly in git. Read-only: nothing is written to the
    database. Exit status: 0 written, 2 unreadable DSN, 3 the database cannot be reached or refused.

    \b
    Examples:
      ctxtool introspect --dsn postgresql://me@db:5432/shop -o shop.snapshot.json
      ctxtool introspect --dsn mysql://me@db/shop --profile -o shop.snapshot.json
      SPANNER_EMULATOR_HOST=localhost:9010 ctxtool introspect \\
          --dsn spanner://projects/p/instances/i/databases/d
    """
    from ctxtool import snapshot as snapshot_module
    from ctxtool.connectors import open_catalog

    started = time.monotonic()
    # A snapshot is tens of thousands of small dicts and lists and no cycles: the cyclic garbage
    # collector would walk them again and again while they are built (~15% of a large introspect).
    collecting = gc.isenabled()
    gc.disable()
    _skip_exit_collection()
    try:
        with _progress(dsn) as step:
            with open_catalog(dsn, statement_timeout=statement_timeout, profile=profile) as connector:
                snap = snapshot_module.build(connector, schemas or None, profile=profile, progress=step)
        text = snapshot_module.dumps(snap)
    finally:
        if collecting:
            gc.enable()
    found = {s["name"] for s in snap["schemas"]}
    for name in schemas:
        if name not in found:
            click.echo(f"warning: the database has no schema {name!r}; check --schema", err=True)
    for schema in snap["schemas"]:
        for table in schema["tables"]:
            why = snapshot_module.unreadable(table)
            if why:
                where = f"{schema['name']}.{table['name']}" if schema["name"] else table["name"]
                what = "not profiled, and drafting skips it" if profile else "drafting skips it"
                click.echo(f"warning: {where}: {why} ({what})", err=True)
    tables = sum(len(s["tables"]) for s in snap["schemas"])
    columns = sum(len(t["columns"]) for s in snap["schemas"] for t in s["tables"])
    if output and output != "-":
        from ctxtool.jsondoc import write_text_atomic

        write_text_atomic(output, text)
        where = output
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
        where = "stdout"
    click.echo(
        f"{snap['flavour']} {snap['version']}: {tables} tables and views, {columns} columns "
        f"-> {where} ({time.monotonic() - started:.2f} s)",
        err=True,
    )


def _skip_exit_collection() -> None:
    """At interpreter exit, freeze the heap (the drivers' modules, the snapshot) so the final garbage
    collection does not walk it: nothing is left to collect in a process about to end, and that walk
    costs ~20 ms once psycopg is loaded. Registered once; in-process callers (tests) keep a normal
    collector until their own exit."""
    global _exit_freeze_registered
    if not _exit_freeze_registered:
        atexit.register(gc.freeze)
        _exit_freeze_registered = True


_exit_freeze_registered = False


@contextlib.contextmanager
def _progress(dsn: str) -> Iterator[Callable[[str], None]]:
    """A progress line on stderr when it is a terminal (rich is imported only then: startup time
    counts when introspect runs in scripts and CI)."""
    if not sys.stderr.isatty() or os.environ.get("CTXTOOL_NO_PROGRESS"):
        yield lambda what: None
        return
    from ctxtool import console
    from ctxtool.connectors.dsn import redact

    with console.make_progress() as progress:
        task = progress.add_task(f"connecting to {redact(dsn)}", total=None)
        yield lambda what: progress.update(task, description=f"introspecting: {what}")
