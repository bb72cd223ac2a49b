"""A server that follows its published set: `serve --set NAME` picks up a new version (or a rollback,
which publishes an old content as the newest version) without a restart.

A background thread asks the store for the set's head (one indexed row: number and content hash)
every ``interval`` seconds. When it changed, the thread loads and compiles the new version off the
request path and hands it to ``swap``, which replaces the runtime in one assignment: a request that
started on the old version finishes on it, the next one gets the new one. A version that fails to
load or compile is reported (``/health``, stderr) and skipped; the server keeps the one it had.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from ctxtool.errors import CtxtoolError
from ctxtool.store import LoadedSet, SetVersion, open_store

DEFAULT_INTERVAL = 2.0  # seconds between two looks at the store


class SetFollower:
    """Polls the store for the newest version of ``name`` and swaps it in."""

    def __init__(
        self,
        name: str,
        store: Any,
        *,
        current: SetVersion,
        build: Callable[[LoadedSet], Any],
        swap: Callable[[Any, SetVersion], None],
        interval: float = DEFAULT_INTERVAL,
        quiet: bool = False,
    ) -> None:
        self.name = name
        self.interval = interval
        self._store_ref = store
        self._store: Any = None  # opened by the polling thread (a SQLite store stays on its thread)
        self._build = build
        self._swap = swap
        self._quiet = quiet
        self.current = current
        self.checked_at: float | None = None  # time.time() of the last successful look
        self.error: str | None = None  # why the last look at the store failed (the store does not answer)
        self.load_error: str | None = None  # why the newest version could not be served
        self._skipped: tuple[int, str] | None = None  # a version that failed to build: not retried
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.interval > 0 and self._thread is None:
            self._thread = threading.Thread(target=self._run, name="ctxtool-set-follower", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)  # the thread closes its store
            self._thread = None
        else:
            self._drop_store()

    def _run(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                self.poll()
        finally:
            self._drop_store()

    def poll(self) -> bool:
        """Look once; True when a new version was swapped in."""
        try:
            if self._store is None:
                self._store = open_store(self._store_ref)
            head = self._store.head(self.name)
            self.checked_at = time.time()
            key = (head.version, head.content_hash)
            self.error = None
            if key in ((self.current.version, self.current.content_hash), self._skipped):
                return False
            version = self._store.get(self.name, head.version)
        except Exception as exc:  # noqa: BLE001 - a store that went away is reported, and retried
            self.error = f"cannot read the set store: {_one_line(exc)}"
            self._drop_store()
            return False
        try:
            assert version.data is not None
            runtime = self._build(LoadedSet(version.data, version.ref, version.dialect, version))
        except Exception as exc:  # noqa: BLE001 - a broken version must not take the server down
            self._skipped = key
            self.load_error = (
                f"{version.ref} was not loaded, still serving {self.current.ref}: {_one_line(exc)}"
            )
            self._say(self.load_error)
            return False
        previous, self.current = self.current, version
        self._swap(runtime, version)
        self.load_error = None
        self._say(f"now serving {version.ref} ({version.content_hash[:19]}), was {previous.ref}")
        return True

    def status(self) -> dict[str, Any]:
        return {
            "following": self.name,
            "interval_s": self.interval,
            "checked_s_ago": None if self.checked_at is None else round(time.time() - self.checked_at, 3),
            "error": self.error,
            "load_error": self.load_error,
        }

    def _drop_store(self) -> None:
        if self._store is not None:
            try:
                self._store.close()
            except Exception:  # noqa: BLE001 - a broken store connection may fail to close
                pass
            self._store = None

    def _say(self, text: str) -> None:
        if not self._quiet:
            sys.stderr.write(f"ctxtool serve: {text}\n")
            sys.stderr.flush()


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else type(exc).__name__
    return first if isinstance(exc, CtxtoolError) else f"{type(exc).__name__}: {first}"
