"""`ctxtool improve SET.json`: an eval report read as a gap report with fixes; `--apply` adds them."""

from __future__ import annotations

import json

import click

from ctxtool import console


@click.command("improve")
@click.argument("context_file", metavar="SET.json", type=click.Path(dir_okay=False, exists=True))
@click.option(
    "--report", "report", metavar="FILE", default=None, help="An eval report (`ctxtool eval ... -o FILE`)."
)
@click.option(
    "--golden",
    metavar="FILE",
    default=None,
    help="The golden file: its SQL for a report without it, or evaluated first when no --report.",
)
@click.option("--dsn", envvar="CTXTOOL_DSN", metavar="DSN", help="The set's database ($CTXTOOL_DSN).")
@click.option("--apply", is_flag=True, help="Add the proposals that pass their checks to SET.json.")
@click.option(
    "--heldout",
    metavar="FILE",
    default=None,
    help="Hill-climb: evaluate this held-out file before and after applying (never read for proposals). "
    "Needs --golden and implies --apply.",
)
@click.option("--rounds", type=int, default=1, show_default=True, help="Hill-climb rounds (with --heldout).")
@click.option(
    "--max-wordings", type=int, default=2, show_default=True, help="New wordings proposed per template."
)
@click.option("--timeout", type=float, default=5.0, show_default=True, help="Statement timeout in seconds.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def command(
    context_file: str,
    report: str | None,
    golden: str | None,
    dsn: str | None,
    apply: bool,
    heldout: str | None,
    rounds: int,
    max_wordings: int,
    timeout: float,
    fmt: str,
) -> None:
    """Group the questions an evaluation got wrong or declined by cause (no template of that shape,
    a missing facet, an unlinked value, unknown words, a wrong answer a check should have declined)
    and propose a fix for each: a drafted template, facet or value search, ready for mutate_set or
    promote. --apply adds those that pass validation; --heldout runs a hill-climb and reports the
    held-out accuracy before and after."""
    from ctxtool.connectors import connect
    from ctxtool.errors import InputError
    from ctxtool.loop.hillclimb import hill_climb, improve
    from ctxtool.loop.improve import dumps

    if not dsn:
        raise InputError("give the set's database with --dsn DSN (or $CTXTOOL_DSN)")
    with connect(dsn, statement_timeout=timeout) as conn:
        if heldout:
            if not golden:
                raise InputError("--heldout needs --golden (the file improve tunes on)")
            out = hill_climb(
                context_file, golden, conn, heldout=heldout, rounds=rounds, max_wordings=max_wordings,
                progress=console.info,
            )  # fmt: skip
            if fmt == "json":
                click.echo(json.dumps(out, indent=2, ensure_ascii=False, default=str))
                return

            def acc(s: dict) -> str:
                return f"{s['correct']}/{s['questions']} right, {s['wrong']} wrong"

            click.echo(f"golden: {acc(out['golden_before'])} -> {acc(out['golden_after'])}")
            click.echo(f"held-out: {acc(out['heldout_before'])} -> {acc(out['heldout_after'])}")
            for n, r in enumerate(out["rounds"], 1):
                click.echo(f"round {n}: {r['by_cause']}; proposals {r['proposal_status']}")
            return
        gaps = improve(
            context_file, conn, report=report, golden=golden, apply=apply, max_wordings=max_wordings,
            progress=console.info,
        )  # fmt: skip
    click.echo(dumps(gaps) if fmt == "json" else gaps.text())
