"""`ctxtool test-values FILE --dsn DSN`: prove every value search against the live database."""

from __future__ import annotations

import json

import click

from ctxtool import console
from ctxtool.errors import EXIT_FINDINGS


def _pct(value: float | None) -> str:
    return "  -  " if value is None else f"{value:5.2f}"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}ms"


def _text_line(r) -> str:  # noqa: ANN001 - SearchResult
    status = "ok  " if r.ok else "FAIL"
    index = {True: "index", False: "NO INDEX", None: "-"}[r.index_used]
    parts = [
        f"{status} {r.location} {r.concept_type or '?'} ({', '.join(r.columns) or '?'})",
        f"exact {_pct(r.exact_found)} typo@5 {_pct(r.recall_misspelling)} part@5 {_pct(r.recall_partial)}",
        f"nomatch {_pct(r.precision_nomatch)} p50 {_ms(r.p50_ms)} p95 {_ms(r.p95_ms)} {index}",
    ]
    line = "  ".join(parts)
    for check in r.failed:
        line += f"\n     {check.name}: {check.message}"
    for check in r.checks:
        if check.ok and check.message:
            line += f"\n     note, {check.name}: {check.message}"
    return line


@click.command("test-values")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option(
    "--dsn", required=True, envvar="CTXTOOL_DSN", help="The database to test against ($CTXTOOL_DSN)."
)
@click.option(
    "--probe", "probe", default=None, metavar="VALUE", help="Show what each search returns for VALUE."
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "github"]), default="text", show_default=True
)
@click.option("--timeout", type=float, default=5.0, show_default=True, help="Statement timeout in seconds.")
@click.option(
    "--samples",
    type=click.IntRange(1, 1000),
    default=20,
    show_default=True,
    help="Values sampled per column.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the probe generator.")
@click.option(
    "--index-rows",
    type=click.IntRange(0),
    default=10_000,
    show_default=True,
    help="Check that the plan uses an index once the table has this many rows.",
)
@click.option(
    "--min-recall",
    type=click.FloatRange(0, 1),
    default=None,
    help="Fail a search whose recall@5 under misspellings is lower.",
)
def command(
    file: str,
    dsn: str,
    probe: str | None,
    fmt: str,
    timeout: float,
    samples: int,
    seed: int,
    index_rows: int,
    min_recall: float | None,
) -> None:
    """Run every value search in FILE with probe values bound to $value and check the answers.

    Probes: values sampled from each searched column, misspellings of them (a dropped, doubled or
    swapped letter; the case changed), partial values (one word of several) and values that must
    not match. Checks the result shape (value, columns, concept_type, distance, context; distance in
    [0, 1]; stored values found at distance 0), and the index once the table is large. Reports
    recall@5, precision and p50/p95 latency per search. Exit 1 when a check fails.
    """
    from ctxtool import contextset
    from ctxtool.connectors import connect
    from ctxtool.values.testing import probe_value, test_values

    cs = contextset.load(file)
    with connect(dsn, statement_timeout=timeout) as conn:
        if probe is not None:
            _print_probe(probe_value(cs, conn, probe), probe, fmt)
            return
        with console.make_progress() as progress:
            task = progress.add_task("testing value searches", total=len(list(cs.items("value_searches"))))

            def step(_name: str) -> None:
                progress.advance(task)

            report = test_values(
                cs,
                conn,
                samples=samples,
                seed=seed,
                index_min_rows=index_rows,
                min_recall=min_recall,
                progress=step,
            )
    if fmt == "json":
        click.echo(json.dumps(report.to_dict(), indent=2, default=str))
    elif fmt == "github":
        for r in report.results:
            for check in r.failed:
                msg = f"{r.concept_type}: {check.name}: {check.message}".replace("%", "%25").replace(
                    "\n", "%0A"
                )
                click.echo(f"::error file={r.path},line={r.line},col={r.column},title=test-values::{msg}")
        s = report.summary()
        click.echo(f"::notice title=test-values::{s['passed']} of {s['searches']} value searches passed")
    else:
        for r in report.results:
            click.echo(_text_line(r))
        s = report.summary()
        extra = "".join(
            f", {label} {s[key]:.2f}"
            for key, label in (
                ("recall_misspelling", "typo@5"),
                ("recall_partial", "part@5"),
                ("precision_nomatch", "nomatch"),
            )
            if s[key] is not None
        )
        click.echo(
            f"{s['passed']} of {s['searches']} value searches passed{extra} ({s['wall_seconds']:.2f}s)"
        )
    if not report.ok:
        click.get_current_context().exit(EXIT_FINDINGS)


def _plain(row: tuple) -> list:
    """A result row as JSON-ready values (Decimal distances as numbers)."""
    from decimal import Decimal

    return [float(v) if isinstance(v, Decimal) else v for v in row]


def _print_probe(rows, value: str, fmt: str) -> None:  # noqa: ANN001 - list[ProbeRow]
    if fmt == "json":
        out = [
            {
                "search": r.search,
                "location": r.location,
                "ms": r.ms,
                "error": r.error,
                "rows": [
                    dict(
                        zip(
                            ("value", "columns", "concept_type", "distance", "context"),
                            _plain(row),
                            strict=False,
                        )
                    )
                    for row in r.rows
                ],
            }
            for r in rows
        ]
        click.echo(json.dumps({"probe": value, "searches": out}, indent=2, default=str))
        if any(r.error for r in rows):
            click.get_current_context().exit(EXIT_FINDINGS)
        return
    from rich.table import Table

    table = Table(title=f"value searches for {value!r}", show_lines=False)
    for name in ("search", "value", "columns", "distance", "ms"):
        table.add_column(name, justify="right" if name in ("distance", "ms") else "left")
    for r in rows:
        if r.error:
            table.add_row(f"{r.search}\n{r.location}", f"[red]error: {r.error}[/red]", "", "", "")
            continue
        if not r.rows:
            table.add_row(r.search, "[dim](no match)[/dim]", "", "", _ms(r.ms))
            continue
        for i, row in enumerate(r.rows):
            d = row[3] if len(row) > 3 else None
            table.add_row(
                r.search if i == 0 else "",
                str(row[0]),
                str(row[1]) if len(row) > 1 else "",
                f"{float(d):.3f}"
                if isinstance(d, (int, float)) or hasattr(d, "as_integer_ratio")
                else str(d),
                _ms(r.ms) if i == 0 else "",
            )
    console.stdout.print(table)
    if any(r.error for r in rows):
        click.get_current_context().exit(EXIT_FINDINGS)
