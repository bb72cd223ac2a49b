"""`ctxtool eval GOLDEN.json --set NAME --dsn DSN`: execution accuracy of a set on golden questions;
with ``--compare OTHER``, two sets or two published versions side by side."""

from __future__ import annotations

import os

import click

from ctxtool import console
from ctxtool.cli._runtime_opts import make_runtime, runtime_options
from ctxtool.errors import EXIT_FINDINGS


@click.command("eval")
@click.argument("golden", type=click.Path(dir_okay=False))
@runtime_options
@click.option("--database", default=None, help="Only the golden questions of this database.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--output", "-o", default=None, help="Also write the report to this file (see --report).")
@click.option(
    "--report",
    "report_format",
    type=click.Choice(["json", "junit"]),
    default="json",
    show_default=True,
    help="The format of the --output file: JSON, or JUnit XML for a CI system.",
)
@click.option("--verbose", "-v", is_flag=True, help="List every question that was not answered correctly.")
@click.option(
    "--compare",
    "other",
    metavar="FILE|NAME[@VERSION]",
    default=None,
    help="Evaluate this set too (B; the --set/--context one is A) and show which questions changed.",
)
@click.option(
    "--fail-under",
    multiple=True,
    metavar="[GROUP=]ACC",
    help="Exit 1 when execution accuracy (of B when comparing) is under ACC: 0.8, covered=0.9, "
    "tag:paraphrase=0.5. Repeatable.",
)
@click.option(
    "--max-regressions",
    type=int,
    default=None,
    help="Exit 1 when more questions went from right to not right.",
)
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
    report_format: str,
    verbose: bool,
    other: str | None,
    fail_under: tuple[str, ...],
    max_regressions: int | None,
    min_accuracy: float | None,
    max_wrong: float | None,
    **opts,
) -> None:
    """Ask every golden question, run its golden SQL, compare the results (order-insensitive unless the
    golden SQL orders); report execution accuracy, answered and wrong-answer rates per tag. A question
    tagged ``negative`` is right only when declined."""
    import json

    from ctxtool.jsondoc import write_text_atomic
    from ctxtool.loop.compare import check_thresholds, compare, junit, parse_threshold
    from ctxtool.runtime.evaluate import dumps_report, load_golden, run_eval

    for spec in fail_under:
        parse_threshold(spec)  # a bad threshold fails before any work
    questions = load_golden(golden)

    def evaluate(**run_opts) -> object:
        with make_runtime(**run_opts) as rt:
            return run_eval(
                rt,
                questions,
                database=database,
                progress=lambda items: console.track(items, f"asking golden questions of {rt.ref}"),
            )

    report = evaluate(**opts)
    comparison = None
    if other:
        is_file = other.endswith(".json") or os.path.sep in other or os.path.isfile(other)
        b_opts = {**opts, "context_file": other if is_file else None, "set_ref": None if is_file else other}
        b = evaluate(**b_opts)
        comparison = compare(report, b)
        report = b
    if comparison is not None:
        text = json.dumps(comparison.to_dict(), indent=2, ensure_ascii=False)
        shown = text if fmt == "json" else comparison.text() + "\n\n" + report.text(verbose=verbose)
    else:
        text = dumps_report(report)
        shown = text if fmt == "json" else report.text(verbose=verbose)
    if output:
        write_text_atomic(output, junit(report, comparison) if report_format == "junit" else text + "\n")
    click.echo(shown)
    missed = check_thresholds(report, list(fail_under))
    if comparison is not None and max_regressions is not None and len(comparison.regressed) > max_regressions:
        missed.append(
            f"{len(comparison.regressed)} question(s) regressed (at most {max_regressions} allowed)"
        )
    s = report.summary()
    if min_accuracy is not None and (s["covered"]["execution_accuracy"] or 0) < min_accuracy:
        missed.append(f"covered execution accuracy under {min_accuracy:.1%}")
    if max_wrong is not None and (s["overall"]["wrong_rate"] or 0) > max_wrong:
        missed.append(f"wrong-answer rate above {max_wrong:.1%}")
    for m in missed if fmt == "text" else ():  # stdout stays one JSON document
        click.echo(f"failed: {m}", err=True)
    if missed:
        raise SystemExit(EXIT_FINDINGS)
