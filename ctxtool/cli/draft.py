"""`ctxtool draft`: draft parts of a context set (subcommands per part).

``templates`` and ``facets`` draft from the schema, the profile and the query workload (see
:mod:`ctxtool.draft`); ``values`` (:mod:`ctxtool.cli.draft_values`) drafts value searches.
"""

from __future__ import annotations

import json
import sys

import click

from ctxtool import console
from ctxtool.cli._draft_opts import apply_options, output_options, source_options
from ctxtool.cli.draft_values import command as values_command
from ctxtool.draft.ranking import DEFAULT_MAX
from ctxtool.errors import EXIT_FINDINGS, InputError


@click.group("draft")
def command() -> None:
    """Draft templates, facets and value searches from a database, a snapshot or a workload."""


command.add_command(values_command)


def _options(func):
    opts = [
        source_options(
            "Introspect this database, and execute every draft on it read-only ($CTXTOOL_DSN).",
            "Use a schema snapshot file instead (drafts are validated, not executed).",
        ),
        click.option(
            "--tables",
            default=None,
            metavar="T1,T2",
            help="Only these tables (comma-separated, repeatable).",
            multiple=True,
        ),
        click.option(
            "--exclude",
            default=None,
            metavar="T1,T2.COL",
            help="Leave out these tables and table.column columns (comma-separated, repeatable).",
            multiple=True,
        ),
        click.option("--no-views", "no_views", is_flag=True, help="Draft no views or materialized views."),
        click.option(
            "--glossary",
            default=None,
            type=click.Path(dir_okay=False),
            help='A JSON file naming cryptic tables and columns: {"tables": {...}, "columns": {"district.A3": "region"}}.',
        ),
        click.option(
            "--llm",
            "use_llm",
            is_flag=True,
            help="Ask the language model in CTXTOOL_LLM_BASE_URL / CTXTOOL_LLM_MODEL / CTXTOOL_LLM_API_KEY for more proposals and better wording (all checked).",
        ),
        output_options(
            "Write a new context set here (default: stdout).",
            "Add the drafts to this context set, skipping duplicates and keeping its order and format.",
        ),
        click.option(
            "--row-cap",
            type=click.IntRange(1, 100000),
            default=1000,
            show_default=True,
            help="The session row cap: each check run fetches at most this many rows.",
        ),
        click.option(
            "--timeout",
            type=float,
            default=10.0,
            show_default=True,
            help="Statement timeout of each check run, seconds.",
        ),
        click.option(
            "--format",
            "fmt",
            type=click.Choice(["text", "json"]),
            default="text",
            show_default=True,
            help="The report: text on stderr, or JSON on stdout (needs -o or --merge).",
        ),
    ]
    return apply_options(opts, func)


def _run(
    kind: str,
    dsn,
    snapshot_path,
    tables,
    glossary,
    use_llm,
    output,
    merge_path,
    row_cap,
    timeout,
    fmt,
    workload=None,
    max_templates=None,
    exclude=(),
    no_views=False,
) -> None:
    from ctxtool.draft import draft
    from ctxtool.draft.merge import existing_items, merge_file

    if bool(dsn) == bool(snapshot_path):
        raise InputError("give exactly one of --dsn and --snapshot")
    if output and merge_path:
        raise InputError("give at most one of -o and --merge")
    if fmt == "json" and not (output or merge_path):
        raise InputError("--format json prints the report on stdout: write the set with -o or --merge")
    names = [t.strip() for chunk in tables for t in chunk.split(",") if t.strip()] or None
    left_out = [t.strip() for chunk in exclude or () for t in chunk.split(",") if t.strip()]
    scope = {"exclude": left_out, "views": not no_views}
    llm = None
    if use_llm:
        from ctxtool.llm import ChatClient

        llm = ChatClient.from_env()
    existing = existing_items(merge_path, kind) if merge_path else []
    if dsn:
        from ctxtool import snapshot as snapshots
        from ctxtool.connectors import connect

        with connect(dsn, statement_timeout=timeout, row_cap=row_cap) as conn:
            console.info("introspecting the database (with profiles) ...")
            snap = snapshots.build(conn, profile=True)
            with console.make_progress() as bar:
                task = bar.add_task(f"checking drafted {kind}", total=None)
                result = draft(
                    kind,
                    snap,
                    connector=conn,
                    tables=names,
                    workload=workload,
                    glossary=glossary,
                    llm=llm,
                    existing=existing,
                    max_templates=max_templates,
                    progress=lambda _d: bar.advance(task),
                    **scope,
                )
    else:
        from ctxtool import snapshot as snapshots

        snap = snapshots.load(snapshot_path)
        profiled = any(
            c.get("profile")
            for sc in snap.get("schemas") or []
            for t in sc.get("tables") or []
            for c in t.get("columns") or []
        )
        if not profiled:
            console.warn(
                f"{snapshot_path} has no column profiles: categories, values and ranges need them "
                "(`ctxtool introspect --profile`)"
            )
        result = draft(
            kind,
            snap,
            tables=names,
            workload=workload,
            glossary=glossary,
            llm=llm,
            existing=existing,
            max_templates=max_templates,
            **scope,
        )
    items = result.items()
    if merge_path:
        added, skipped = merge_file(merge_path, kind, items, result.dialect)
        console.info(f"{merge_path}: added {added} {kind}, skipped {skipped + result.already} already there")
    elif output:
        from ctxtool.jsondoc import dump_json

        dump_json(output, result.to_set())
        console.info(f"{output}: wrote {len(items)} {kind}")
    else:
        from ctxtool.jsondoc import dumps_json

        sys.stdout.write(dumps_json(result.to_set()))
    report = result.report()
    if fmt == "json":
        sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False, default=str) + "\n")
    else:
        _print_report(result, report, executed=bool(dsn))
    if result.dropped and not result.kept and not result.already:
        # everything drafted failed its checks (drafts already in the set are no failure)
        raise click.exceptions.Exit(EXIT_FINDINGS)


def _print_report(result, report, executed: bool) -> None:
    checked = "validated and executed" if executed else "validated (no --dsn: not executed)"
    console.info(f"{report['kept']} of {report['drafted']} drafted {result.kind} kept, {checked}")
    for d in result.dropped:
        console.info(f"  dropped: {d.text} -- {d.reason}")
    for table, why in result.skipped_tables:
        console.info(f"  skipped table {table}: {why}")
    for column, why in result.skipped_columns:
        console.info(f"  skipped column {column}: {why}")
    left = result.left_out
    if left:
        console.info(f"left out beyond --max {result.max_templates}: {len(left)} more (--max to see them):")
        for d in left[:10]:
            console.info(f"  left out: {d.text}")
    if result.workload is not None:
        wl = result.workload
        console.info(
            f"workload: {wl.statements} statements, {wl.distinct} distinct read queries, "
            f"{len(wl.skipped)} skipped (writes, system catalogs, other tables)"
        )
    if result.coverage is not None:
        c = result.coverage
        console.info(
            f"coverage: the set answers {c.covered} of {c.distinct} distinct workload queries ({c.ratio:.0%})"
        )
        for sql in c.missing[:10]:
            console.info(f"  not covered: {sql[:150]}")
    if result.llm_note:
        console.info(result.llm_note)


@command.command("templates")
@_options
@click.option(
    "--workload",
    default=None,
    metavar="SOURCE",
    help="Also draft from the queries people run: pg_stat_statements, performance_schema, or a query-log FILE (one statement per line or ;-separated).",
)
@click.option(
    "--max",
    "max_templates",
    type=click.IntRange(1),
    default=DEFAULT_MAX,
    show_default=True,
    help="Keep the N templates most likely asked (workload queries first); the report lists the rest.",
)
def templates_command(**opts) -> None:
    """Draft templates (question -> SQL): counts, breakdowns, top-N, sums and averages, lookups by
    name, joins along foreign keys, and the workload's own queries described in words.

    Every draft is parameterized, validated and (with --dsn) executed read-only; drafts that fail or
    return nothing are dropped and listed on stderr.
    """
    _run("templates", **opts)


@command.command("facets")
@_options
def facets_command(**opts) -> None:
    """Draft facets (reusable filters, every column written table.column): numeric ranges inside the
    profiled bounds, equality on low-cardinality columns, date ranges, boolean flags, names."""
    _run("facets", **opts)


@command.command("glossary")
@source_options()
@click.option(
    "--glossary",
    default=None,
    type=click.Path(dir_okay=False),
    help="Start from this glossary (its names win).",
)
@output_options("Write the glossary here (default: stdout).")
def glossary_command(dsn, snapshot_path, glossary, output) -> None:
    """Write a starter glossary: the plain-English name drafting would use for every table and
    non-key column. Correct the ones that read badly (cryptic names such as A3 without a comment),
    then pass the file to `draft templates|facets --glossary`."""
    from ctxtool import snapshot as snapshots
    from ctxtool.draft.names import Namer, load_glossary, starter_glossary
    from ctxtool.jsondoc import dump_json, dumps_json

    if bool(dsn) == bool(snapshot_path):
        raise InputError("give exactly one of --dsn and --snapshot")
    if dsn:
        from ctxtool.connectors import connect

        with connect(dsn) as conn:
            snap = snapshots.build(conn, profile=True)
    else:
        snap = snapshots.load(snapshot_path)
    data = starter_glossary(snap, Namer(load_glossary(glossary) if glossary else None))
    if output:
        dump_json(output, data)
        console.info(f"{output}: {len(data['tables'])} tables, {len(data['columns'])} columns named")
    else:
        sys.stdout.write(dumps_json(data))
