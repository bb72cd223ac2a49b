"""Terminal output: rich consoles for stdout (results) and stderr (progress, messages).

Machine-readable output goes to stdout; everything meant for a person watching goes to stderr.
``NO_COLOR`` (https://no-color.org) is honoured by rich itself; ``CTXTOOL_NO_PROGRESS`` hides bars.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import TypeVar

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

T = TypeVar("T")

stdout = Console(soft_wrap=True, highlight=False)
stderr = Console(stderr=True, soft_wrap=True, highlight=False)


def progress_enabled() -> bool:
    return stderr.is_terminal and not os.environ.get("CTXTOOL_NO_PROGRESS")


def make_progress() -> Progress:
    """A progress display on stderr that stays quiet when stderr is not a terminal."""
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=stderr,
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
    stderr.print(f"[yellow]warning:[/yellow] {escape(message)}", markup=True, highlight=False)


def info(message: str) -> None:
    stderr.print(message, markup=False, highlight=False)
