"""``ctxtool rules``: the validation rules with their codes, explanations and fixes."""

from __future__ import annotations

import json
import sys

import click


@click.command("rules")
@click.argument("codes", nargs=-1, metavar="[CODE]...")
@click.option(
    "--format",
    "-f",
    "fmt",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
    help="text for people, json for machines, markdown for docs/rules.md.",
)
def command(codes: tuple[str, ...], fmt: str) -> None:
    """List the rules `ctxtool validate` checks (or only the given CODEs, e.g. CTX401)."""
    from ctxtool.errors import InputError
    from ctxtool.validate.report import render_rules_markdown
    from ctxtool.validate.rules import all_rules

    rules = all_rules()
    if codes:
        wanted = {c.upper() for c in codes}
        unknown = sorted(wanted - {r.code for r in rules})
        if unknown:
            raise InputError(f"unknown rule code {', '.join(unknown)}; run `ctxtool rules` for the list")
        rules = [r for r in rules if r.code in wanted]
    if fmt == "json":
        payload = [
            {"code": r.code, "name": r.name, "severity": r.severity, "summary": r.summary, "fix": r.fix}
            for r in rules
        ]
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
    elif fmt == "markdown":
        sys.stdout.write(render_rules_markdown())
    else:
        for r in rules:
            click.echo(f"{r.code}  {r.name} ({r.severity})\n    {r.summary}\n    fix: {r.fix}")
