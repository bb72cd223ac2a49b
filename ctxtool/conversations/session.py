"""Session (short-term) conversations: the last 10 prompts of a profile, in memory only.

Turned on by the profile option ``conversation: true``. Not configurable (10), never written to
disk, gone when the process or API session ends, and only prompts made with the same profile are
used. When a named conversation is in use, session memory is ignored (not read, not written).
"""

from __future__ import annotations

import threading
from collections import deque

from ctxtool.conversations.model import Turn

SESSION_LENGTH = 10


class SessionMemory:
    """Per-profile ring buffers of the last :data:`SESSION_LENGTH` turns."""

    def __init__(self) -> None:
        self._turns: dict[str, deque[Turn]] = {}
        self._lock = threading.Lock()

    def add(self, profile: str | None, turn: Turn) -> None:
        key = profile or ""
        with self._lock:
            self._turns.setdefault(key, deque(maxlen=SESSION_LENGTH)).append(turn)

    def history(self, profile: str | None) -> list[Turn]:
        """The remembered turns of ``profile``, oldest first (at most 10)."""
        with self._lock:
            return list(self._turns.get(profile or "", ()))

    def clear(self) -> None:
        with self._lock:
            self._turns.clear()
