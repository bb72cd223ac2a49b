"""The default store: one SQLite file in the user's data directory."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from ctxtool.errors import DatabaseError, InputError, StoreDamaged
from ctxtool.store.base import Store


class SqliteStore(Store):
    placeholder = "?"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.location = str(self.path)
        self._conn: sqlite3.Connection | None = None
        self.migrate()

    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                # autocommit mode: transactions are begun explicitly (BEGIN IMMEDIATE takes the write lock
                # up front, so two publishers never read the same MAX(version))
                self._conn = sqlite3.connect(str(self.path), timeout=30.0, isolation_level=None)
            except (sqlite3.Error, OSError) as exc:
                raise InputError(f"{self.path}: cannot open the set store ({exc}); check the path") from None
            self._conn.execute("PRAGMA foreign_keys = ON")
        return self._conn

    def _damage(self, exc: Exception) -> StoreDamaged | None:
        """SQLite's errors that say the file is not a sound store of ours: not a database, a
        malformed image, missing tables or columns. A locked database is not damage (busy)."""
        if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
            raise DatabaseError(
                f"{self.path}: the set store is busy (another process holds it); try again"
            ) from None
        if isinstance(exc, sqlite3.DatabaseError):
            return self._damaged(str(exc))
        return super()._damage(exc)

    def _begin(self, conn: Any) -> None:
        conn.execute("BEGIN IMMEDIATE")

    def _lock_name(self, cur: Any, name: str) -> None:
        """BEGIN IMMEDIATE already holds the database's write lock."""
        return None
