"""Options every `ctxtool draft` subcommand shares: where the schema comes from, where drafts go."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click


def apply_options(options: list[Callable[[Any], Any]], func: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate ``func`` with ``options`` so that they show in ``--help`` in list order."""
    for option in reversed(options):
        func = option(func)
    return func


def source_options(
    dsn_help: str = "Introspect this database ($CTXTOOL_DSN).",
    snapshot_help: str = "Use a schema snapshot file instead.",
):
    """``--dsn`` (also ``$CTXTOOL_DSN``) or ``--snapshot FILE``."""
    options = [
        click.option("--dsn", default=None, envvar="CTXTOOL_DSN", help=dsn_help),
        click.option(
            "--snapshot", "snapshot_path", default=None, type=click.Path(dir_okay=False), help=snapshot_help
        ),
    ]
    return lambda func: apply_options(options, func)


def output_options(output_help: str, merge_help: str | None = None):
    """``-o/--output FILE`` and, when ``merge_help`` is given, ``--merge FILE``."""
    options = [
        click.option("-o", "--output", default=None, type=click.Path(dir_okay=False), help=output_help)
    ]
    if merge_help is not None:
        options.append(
            click.option(
                "--merge", "merge_path", default=None, type=click.Path(dir_okay=False), help=merge_help
            )
        )
    return lambda func: apply_options(options, func)
