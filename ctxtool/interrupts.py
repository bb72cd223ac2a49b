"""What a command had finished writing when it was interrupted, so Ctrl-C is answered truthfully.

A write that completes (a published version committed, a conversation prompt stored) says so with
:func:`completed`; the CLI's Ctrl-C handler reads :func:`completed_writes` and tells the user either
what is stored ("interrupted after: published bank@3") or that nothing was written, instead of one
message for both. The record is per thread and is started by each command (:func:`reset`); threads
that never start one (a server's request threads) record nothing.
"""

from __future__ import annotations

import threading

_local = threading.local()


def reset() -> None:
    """Start a new command: nothing completed yet."""
    _local.writes = []


def completed(what: str) -> None:
    """A write finished and is durable (committed): ``what`` says what, for a person. Kept only in
    a thread that runs a command (:func:`reset` was called): a server's threads keep nothing."""
    writes = getattr(_local, "writes", None)
    if writes is not None:
        writes.append(what)


def completed_writes() -> list[str]:
    """What this thread's command finished writing since :func:`reset`."""
    return list(getattr(_local, "writes", None) or [])


def interrupted_message() -> str:
    """The one line Ctrl-C prints: what was written, or that nothing was."""
    done = completed_writes()
    if not done:
        return "interrupted: nothing was written; run the command again"
    return f"interrupted after it completed: {'; '.join(done)}"
