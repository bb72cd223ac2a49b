"""Terminal output: rich consoles for stdout (results) and stderr (progress, messages).

Machine-readable output goes to stdout; everything meant for a person watching goes to stderr.
``NO_COLOR`` (https://no-color.org) is honoured by rich itself; ``CTXTOOL_NO_PROGRESS`` hides bars.
The consoles are made on first use (a command that prints JSON only never imports rich), and text
that rich would print as it is (a plain message, to a stream that is not a terminal) is written
without them: a command whose output goes to a pipe or a file imports no rich.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

T = TypeVar("T")
_CONSOLES: dict[str, Console] = {}


def __getattr__(name: str) -> Any:
    """``stdout`` and ``stderr``: the rich consoles, made on first use."""
    if name not in ("stdout", "stderr"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return console_for(name)


def console_for(name: str) -> Console:
    """The console of ``stdout`` or ``stderr``."""
    console = _CONSOLES.get(name)
    if console is None:
        # rich is imported when something is printed for a person, not by every command
        from rich.console import Console

        console = _CONSOLES[name] = Console(stderr=name == "stderr", soft_wrap=True, highlight=False)
    return console


def plain(name: str) -> bool:
    """Whether ``stdout`` / ``stderr`` gets no styles: no console made yet, the stream is not a
    terminal and nothing forces one (``FORCE_COLOR``, ``TTY_COMPATIBLE``, which rich honours)."""
    if name in _CONSOLES or os.environ.get("FORCE_COLOR") or os.environ.get("TTY_COMPATIBLE"):
        return False
    stream = sys.stdout if name == "stdout" else sys.stderr
    try:
        return not stream.isatty()
    except (AttributeError, ValueError):
        return False


def write(name: str, text: str) -> None:
    """``text`` and a newline on ``stdout`` / ``stderr`` as it is (see :func:`plain`)."""
    stream = sys.stdout if name == "stdout" else sys.stderr
    stream.write(text + "\n")
    stream.flush()


def progress_enabled() -> bool:
    return console_for("stderr").is_terminal and not os.environ.get("CTXTOOL_NO_PROGRESS")


def make_progress() -> Progress:
    """A progress display on stderr that stays quiet when stderr is not a terminal."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console_for("stderr"),
        transient=True,
        disable=not progress_enabled(),
    )


def track(items: Iterable[T], description: str, total: int | None = None) -> Iterator[T]:
    """Iterate ``items`` with a progress bar on stderr (hidden when not a terminal)."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with make_progress() as progress:
        task = progress.add_task(description, total=total)
        for item in items:
            yield item
            progress.advance(task)


def warn(message: str) -> None:
    from rich.markup import escape

    console_for("stderr").print(f"[yellow]warning:[/yellow] {escape(message)}", markup=True, highlight=False)


def info(message: str) -> None:
    if plain("stderr"):
        write("stderr", message)
        return
    console_for("stderr").print(message, markup=False, highlight=False)
