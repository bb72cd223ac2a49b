"""The published-set store: immutable, numbered versions of a context set with hash, time and who.

Two backends share this logic: a SQLite file (one user, the default) and a PostgreSQL schema (several
runtimes share it). Each backend supplies a DB-API connection, its SQL placeholder and a way to
serialise version numbering per set name (SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: a transaction-level
advisory lock), so two concurrent publishes never get the same number.
"""

from __future__ import annotations

import functools
import getpass
import hashlib
import json
import os
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, TypeVar

from ctxtool import interrupts
from ctxtool.errors import InputError, StoreDamaged

_F = TypeVar("_F", bound=Callable[..., Any])

# Versioned migrations: (version, statements). Applied in order, each recorded in ctx_store_migrations.
MIGRATIONS: list[tuple[int, list[str]]] = [
    (
        1,
        [
            "CREATE TABLE ctx_sets (name TEXT PRIMARY KEY, created_at TEXT NOT NULL)",
            "CREATE TABLE ctx_set_versions ("
            " name TEXT NOT NULL REFERENCES ctx_sets(name),"
            " version INTEGER NOT NULL,"
            " content_hash TEXT NOT NULL,"
            " content TEXT NOT NULL,"
            " created_at TEXT NOT NULL,"
            " created_by TEXT NOT NULL,"
            " dialect TEXT,"
            " note TEXT,"
            " PRIMARY KEY (name, version))",
        ],
    ),
    (
        2,
        [
            # where a version came from: a file path, "rollback of 3", an API call
            "ALTER TABLE ctx_set_versions ADD COLUMN source TEXT",
            "CREATE INDEX ctx_set_versions_hash ON ctx_set_versions (content_hash)",
        ],
    ),
]


@dataclass
class SetVersion:
    """One immutable published version of a named set."""

    name: str
    version: int
    content_hash: str
    created_at: str
    created_by: str
    dialect: str | None = None
    note: str | None = None
    source: str | None = None
    data: dict[str, Any] | None = field(default=None, repr=False)
    existing: bool = False  # publish found this version already holding the same content

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"

    def summary(self) -> dict[str, Any]:
        """The metadata (no content), for listings and JSON output."""
        out = {
            "name": self.name,
            "version": self.version,
            "content_hash": self.content_hash,
            "created_at": self.created_at,
            "created_by": self.created_by,
            "dialect": self.dialect,
            "note": self.note,
            "source": self.source,
        }
        if self.data is not None:
            out["counts"] = {
                k: len(self.data.get(k) or []) for k in ("templates", "facets", "value_searches")
            }
        return out


def canonical_text(data: Any) -> str:
    """The text a version stores and hashes: sorted keys, no insignificant whitespace."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def content_hash(data: Any) -> str:
    return "sha256:" + hashlib.sha256(canonical_text(data).encode("utf-8")).hexdigest()


def current_user() -> str:
    """Who publishes: ``$CTXTOOL_USER``, else the login name."""
    if os.environ.get("CTXTOOL_USER"):
        return os.environ["CTXTOOL_USER"]
    try:
        return getpass.getuser()
    except Exception:  # no login name in some containers
        return "unknown"


def check_name(name: str) -> str:
    """Set names are used in refs (``NAME@VERSION``) and URLs: keep them simple."""
    import re

    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}", name):
        raise InputError(
            f"invalid set name {name!r}: use letters, digits, '_', '-' and '.', starting with a letter or digit"
        )
    return name


def _reading_damage(method: _F) -> _F:
    """Errors of a damaged store (see :meth:`Store._damage`) become one :class:`StoreDamaged` line."""

    @functools.wraps(method)
    def wrapper(self: Store, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except StoreDamaged:
            raise
        except Exception as exc:
            damage = self._damage(exc)
            if damage is None:
                raise
            raise damage from None

    return wrapper  # type: ignore[return-value]


class Store(ABC):
    """Published sets in a database ctxtool owns."""

    placeholder = "?"
    location: str = ""

    def _damage(self, exc: Exception) -> StoreDamaged | None:
        """The error to raise for ``exc`` when it says the store itself is damaged, else None
        (the backends say which of their driver's errors mean that)."""
        if isinstance(exc, UnicodeDecodeError):  # text columns holding bytes that are not text
            return self._damaged("a text column holds bytes that are not text")
        return None

    def _damaged(self, what: str) -> StoreDamaged:
        # the driver's message may quote the damaged bytes: one printable line of it
        what = " ".join(what.split("with text")[0].split())  # SQLite quotes undecodable text
        what = "".join(c if " " <= c <= "~" else "?" for c in what)
        what = what if len(what) <= 100 else what[:100] + "..."
        return StoreDamaged(
            f"{self.location}: the set store is damaged ({what}); nothing was changed in it: restore it "
            "from a backup, or move it away and publish the sets again"
        )

    @abstractmethod
    def _connect(self) -> Any: ...

    @abstractmethod
    def _lock_name(self, cur: Any, name: str) -> None:
        """Serialise version numbering for ``name`` until the transaction ends."""

    @abstractmethod
    def _begin(self, conn: Any) -> None: ...

    def close(self) -> None:
        conn = getattr(self, "_conn", None)
        if conn is not None:
            conn.close()
            self._conn = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- schema ---------------------------------------------------------------------------------
    def _sql(self, sql: str) -> str:
        return sql.replace("?", self.placeholder) if self.placeholder != "?" else sql

    def _applied_migrations(self, cur: Any) -> set[int]:
        cur.execute("SELECT version FROM ctx_store_migrations")
        return {int(r[0]) for r in cur.fetchall()}

    @_reading_damage
    def migrate(self) -> list[int]:
        """Apply the migrations not yet applied; return their numbers."""
        conn = self._connect()
        cur = conn.cursor()
        self._begin(conn)
        try:
            self._migration_lock(cur)
            cur.execute(
                "CREATE TABLE IF NOT EXISTS ctx_store_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
            done = self._applied_migrations(cur)
            applied = []
            for version, statements in MIGRATIONS:
                if version in done:
                    continue
                for stmt in statements:
                    cur.execute(stmt)
                cur.execute(
                    self._sql("INSERT INTO ctx_store_migrations (version, applied_at) VALUES (?, ?)"),
                    (version, _now()),
                )
                applied.append(version)
            conn.commit()
            return applied
        except BaseException:
            conn.rollback()
            raise

    def _migration_lock(self, cur: Any) -> None:
        """Serialise migrations between processes (PostgreSQL overrides; SQLite's BEGIN IMMEDIATE does it)."""
        return None

    # -- versions -------------------------------------------------------------------------------
    @_reading_damage
    def publish(
        self,
        data: dict[str, Any],
        name: str,
        *,
        who: str | None = None,
        dialect: str | None = None,
        note: str | None = None,
        source: str | None = None,
    ) -> SetVersion:
        """Store ``data`` as the next version of ``name`` and return it; when the latest version
        already holds the same content (the same content hash: a rerun), return that version with
        ``existing`` set and store nothing."""
        check_name(name)
        # stored in the author's key order; the hash is of the canonical form
        text = json.dumps(data, ensure_ascii=False)
        digest = content_hash(data)
        who = who or current_user()
        now = _now()
        conn = self._connect()
        cur = conn.cursor()
        self._begin(conn)
        try:
            self._lock_name(cur, name)
            cur.execute(self._sql("SELECT 1 FROM ctx_sets WHERE name = ?"), (name,))
            if cur.fetchone() is None:
                cur.execute(self._sql("INSERT INTO ctx_sets (name, created_at) VALUES (?, ?)"), (name, now))
            cur.execute(
                self._sql(
                    f"SELECT {self._COLUMNS} FROM ctx_set_versions WHERE name = ? ORDER BY version DESC LIMIT 1"
                ),
                (name,),
            )
            latest = cur.fetchone()
            if latest is not None and latest[2] == digest:  # the same content: a rerun, not a new version
                conn.rollback()
                same = self._row(latest)
                same.data, same.existing = data, True
                interrupts.completed(f"{same.ref} holds this content (already published)")
                return same
            version = (int(latest[1]) if latest is not None else 0) + 1
            cur.execute(
                self._sql(
                    "INSERT INTO ctx_set_versions (name, version, content_hash, content, created_at, created_by,"
                    " dialect, note, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                ),
                (name, version, digest, text, now, who, dialect, note, source),
            )
            conn.commit()
        except BaseException:
            conn.rollback()
            raise
        interrupts.completed(f"published {name}@{version}")
        return SetVersion(name, version, digest, now, who, dialect, note, source, data)

    _COLUMNS = "name, version, content_hash, created_at, created_by, dialect, note, source"

    def _row(self, row: Any, content: str | None = None) -> SetVersion:
        v = SetVersion(*row[:8])
        v.version = int(v.version)
        if content is not None:
            try:
                v.data = json.loads(content)
            except (ValueError, RecursionError, TypeError):
                v.data = None
            if not isinstance(v.data, dict):
                raise self._damaged(f"the content of {v.ref} is not a context set")
        return v

    @_reading_damage
    def names(self) -> list[SetVersion]:
        """The latest version of every set, by name."""
        cur = self._connect().cursor()
        cur.execute(
            f"SELECT {self._COLUMNS} FROM ctx_set_versions v WHERE version ="
            " (SELECT MAX(version) FROM ctx_set_versions w WHERE w.name = v.name) ORDER BY name"
        )
        rows = [self._row(r) for r in cur.fetchall()]
        self._end_read()
        return rows

    @_reading_damage
    def versions(self, name: str) -> list[SetVersion]:
        """Every version of ``name``, oldest first."""
        cur = self._connect().cursor()
        cur.execute(
            self._sql(f"SELECT {self._COLUMNS} FROM ctx_set_versions WHERE name = ? ORDER BY version"),
            (name,),
        )
        rows = [self._row(r) for r in cur.fetchall()]
        self._end_read()
        if not rows:
            raise self._unknown(name)
        return rows

    @_reading_damage
    def head(self, name: str) -> SetVersion:
        """The latest version of ``name`` without its content: one indexed row, cheap enough for a
        server to poll (a publish or a rollback changes its number)."""
        cur = self._connect().cursor()
        cur.execute(
            self._sql(
                f"SELECT {self._COLUMNS} FROM ctx_set_versions WHERE name = ? ORDER BY version DESC LIMIT 1"
            ),
            (name,),
        )
        row = cur.fetchone()
        self._end_read()
        if row is None:
            raise self._unknown(name)
        return self._row(row)

    @_reading_damage
    def get(self, name: str, version: int | None = None) -> SetVersion:
        """A version of ``name`` with its content (the latest when ``version`` is None)."""
        cur = self._connect().cursor()
        if version is None:
            cur.execute(
                self._sql(
                    f"SELECT {self._COLUMNS}, content FROM ctx_set_versions WHERE name = ? ORDER BY version DESC LIMIT 1"
                ),
                (name,),
            )
        else:
            cur.execute(
                self._sql(
                    f"SELECT {self._COLUMNS}, content FROM ctx_set_versions WHERE name = ? AND version = ?"
                ),
                (name, int(version)),
            )
        row = cur.fetchone()
        self._end_read()
        if row is None:
            if version is not None:
                known = [v.version for v in self.versions(name)]
                raise InputError(
                    f"set {name!r} has no version {version} in {self.location}; versions: "
                    + ", ".join(map(str, known))
                )
            raise self._unknown(name)
        return self._row(row, row[8])

    def rollback(self, name: str, version: int, *, who: str | None = None) -> SetVersion:
        """Publish the content of an earlier version again as a new version (history stays immutable)."""
        old = self.get(name, version)
        assert old.data is not None
        return self.publish(
            old.data,
            name,
            who=who,
            dialect=old.dialect,
            note=f"rollback to version {old.version}",
            source=f"rollback:{old.ref}",
        )

    def _unknown(self, name: str) -> InputError:
        return InputError(
            f"no published set named {name!r} in {self.location}; run `ctxtool sets list` or `ctxtool publish FILE --name {name}`"
        )

    def _end_read(self) -> None:
        """End the implicit read transaction (PostgreSQL would otherwise keep it open)."""
        conn = getattr(self, "_conn", None)
        if conn is not None:
            conn.rollback()


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
