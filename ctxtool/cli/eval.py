"""`ctxtool eval GOLDEN.json --set NAME --dsn DSN`: execution accuracy of a set on golden questions."""

from __future__ import annotations

import click

from ctxtool import console
from ctxtool.cli._runtime_opts import make_runtime, runtime_options
from ctxtool.errors import EXIT_FINDINGS


@click.command("eval")
@click.argument("golden", type=click.Path(dir_okay=False))
@runtime_options
@click.option("--database", default=None, help="Only the golden questions of this database.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--output", "-o", default=None, help="Also write the JSON report to this file.")
@click.option("--verbose", "-v", is_flag=True, help="List every question that was not answered correctly.")
@click.option(
    "--min-accuracy",
    type=float,
    default=None,
    help="Exit 1 when execution accuracy on covered questions is below this (0..1).",
)
@click.option(
    "--max-wrong", type=float, default=None, help="Exit 1 when the wrong-answer rate is above this (0..1)."
)
def command(
    golden: str,
    database: str | None,
    fmt: str,
    output: str | None,
    verbose: bool,
    min_accuracy: float | None,
    max_wrong: float | None,
    **opts,
) -> None:
    """Ask every golden question, run its golden SQL, compare the results (order-insensitive unless the
    golden SQL orders); report execution accuracy, answered and wrong-answer rates per tag."""
    from ctxtool.jsondoc import write_text_atomic
    from ctxtool.runtime.evaluate import dumps_report, load_golden, run_eval

    questions = load_golden(golden)
    with make_runtime(**opts) as rt:
        report = run_eval(
            rt,
            questions,
            database=database,
            progress=lambda items: console.track(items, "asking golden questions"),
        )
    text = dumps_report(report)
    if output:
        write_text_atomic(output, text + "\n")
    click.echo(text if fmt == "json" else report.text(verbose=verbose))
    s = report.summary()
    if min_accuracy is not None and (s["covered"]["execution_accuracy"] or 0) < min_accuracy:
        raise SystemExit(EXIT_FINDINGS)
    if max_wrong is not None and (s["overall"]["wrong_rate"] or 0) > max_wrong:
        raise SystemExit(EXIT_FINDINGS)
