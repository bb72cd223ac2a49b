"""The ``ctxtool`` command line: a thin layer over the library API.

Each subcommand lives in its own module ``ctxtool/cli/<module>.py`` that defines a click command
(or group) called ``command``. Modules are imported only when their command runs, so
``ctxtool validate`` in a pre-commit hook does not pay for the database drivers.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

import click

from ctxtool import __version__, interrupts
from ctxtool.errors import EXIT_INTERRUPTED, CtxtoolError

# command name -> module under ctxtool.cli (listed in the order `--help` shows them)
COMMANDS: dict[str, str] = {
    "quickstart": "quickstart",
    "introspect": "introspect",
    "schema-diff": "schema_diff",
    "draft": "draft",
    "parameterize": "parameterize",
    "validate": "validate",
    "rules": "rules",
    "test-values": "test_values",
    "review": "review",
    "publish": "publish",
    "sets": "sets",
    "ask": "ask",
    "eval": "eval",
    "dataset": "dataset",
    "feedback": "feedback",
    "promote": "promote",
    "improve": "improve",
    "serve": "serve",
    "mcp": "mcp",
    "conversation": "conversation",
    "chat": "chat",
    "doctor": "doctor",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [
            name
            for name, module in COMMANDS.items()
            if importlib.util.find_spec(f"ctxtool.cli.{module}") is not None
        ]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMANDS.get(cmd_name)
        if module is None or importlib.util.find_spec(f"ctxtool.cli.{module}") is None:
            return None
        return importlib.import_module(f"ctxtool.cli.{module}").command

    def invoke(self, ctx: click.Context):  # noqa: D401 - click API
        interrupts.reset()
        try:
            return super().invoke(ctx)
        except CtxtoolError as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(exc.exit_code)
        except KeyboardInterrupt:
            # what was committed before Ctrl-C, or that nothing was (no write is ever half-done)
            click.echo(interrupts.interrupted_message(), err=True)
            ctx.exit(EXIT_INTERRUPTED)
        except BrokenPipeError:
            sys.stderr.close()
            ctx.exit(0)


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog="Exit codes: 0 success, 1 findings or failed checks, 2 usage error or unreadable input, "
    "3 database error, 4 refused by the read-only gate, 5 a set store that is damaged, "
    "130 interrupted (it says what was stored).",
)
@click.version_option(__version__, prog_name="ctxtool")
def cli() -> None:
    """Author, check and serve NL-to-SQL context sets for PostgreSQL/AlloyDB, MySQL and Spanner."""


def main() -> None:
    cli(prog_name="ctxtool")
