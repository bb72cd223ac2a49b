"""The SQLite conversation store, the default: one file in the user's data directory, WAL mode with a
busy timeout, every write one ``BEGIN IMMEDIATE`` transaction (concurrent writers from many
processes neither lose nor duplicate prompts; a process killed mid-write leaves the last committed
state), versioned migrations run on open, and vectors of chat messages in ``message_vectors``."""

from __future__ import annotations

import os
import sqlite3
import threading
from array import array
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from ctxtool import paths
from ctxtool.conversations.feedback import SQLITE_FEEDBACK_MIGRATION
from ctxtool.conversations.model import utcnow
from ctxtool.conversations.store import (
    CONVERSATION_COLUMNS,
    PROMPT_COLUMNS,
    SQLITE_FILE,
    ConversationStore,
    VectorHit,
    _iso,
)
from ctxtool.errors import CtxtoolError, DatabaseError

# ----------------------------------------------------------------------------------------------
# SQLite
# ----------------------------------------------------------------------------------------------

SQLITE_MIGRATIONS: list[list[str]] = [
    # 1: conversations, prompts, current conversation, metadata, views
    [
        "CREATE TABLE conversations (conversation_id TEXT PRIMARY KEY, title TEXT NOT NULL, description TEXT, "
        "retention_days INTEGER NOT NULL CHECK (retention_days >= 0), "
        "conversation_length INTEGER NOT NULL CHECK (conversation_length > 0), "
        "created TEXT NOT NULL, modified TEXT NOT NULL, expires TEXT)",
        "CREATE INDEX conversations_expires ON conversations (expires) WHERE expires IS NOT NULL",
        "CREATE TABLE prompts (prompt_id INTEGER PRIMARY KEY AUTOINCREMENT, "
        "conversation_id TEXT NOT NULL REFERENCES conversations (conversation_id) ON DELETE CASCADE, "
        "profile_name TEXT, prompt_action TEXT NOT NULL, prompt TEXT NOT NULL, response_sql TEXT, "
        "result_summary TEXT, answer TEXT, state TEXT, created TEXT NOT NULL, modified TEXT NOT NULL, "
        "client_identifier TEXT, client_ip TEXT, sid TEXT, serial INTEGER, request_id TEXT UNIQUE)",
        "CREATE INDEX prompts_conversation ON prompts (conversation_id, prompt_id)",
        "CREATE TABLE current_conversation (session_key TEXT PRIMARY KEY, "
        "conversation_id TEXT NOT NULL REFERENCES conversations (conversation_id) ON DELETE CASCADE, modified TEXT)",
        "CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT)",
        "INSERT INTO store_meta (key, value) VALUES ('last_purge', NULL)",
        "CREATE VIEW conversations_view AS SELECT conversation_id, title AS conversation_title, description, "
        "retention_days, conversation_length FROM conversations",
        "CREATE VIEW conversation_prompts_view AS SELECT p.prompt_id AS conversation_prompt_id, p.conversation_id, "
        "c.title AS conversation_title, p.profile_name, p.prompt_action, p.prompt, "
        "COALESCE(p.answer, p.result_summary, p.response_sql) AS prompt_response, p.created, p.modified, "
        'p.client_identifier, p.client_ip, p.sid, p.serial AS "serial#" '
        "FROM prompts p JOIN conversations c ON c.conversation_id = p.conversation_id",
    ],
    # 2: chat vectors
    [
        "CREATE TABLE message_vectors (vector_id INTEGER PRIMARY KEY AUTOINCREMENT, conversation_id TEXT NOT NULL, "
        "prompt_id INTEGER NOT NULL REFERENCES prompts (prompt_id) ON DELETE CASCADE, role TEXT NOT NULL, "
        "chunk_index INTEGER NOT NULL, text TEXT NOT NULL, embedder TEXT NOT NULL, dim INTEGER NOT NULL, "
        "vector BLOB NOT NULL)",
        "CREATE INDEX message_vectors_conversation ON message_vectors (conversation_id, embedder)",
        "CREATE INDEX message_vectors_prompt ON message_vectors (prompt_id)",
    ],
    # 3: a conversation's own settings (chat vectorization), JSON
    [
        "CREATE TABLE conversation_settings (conversation_id TEXT PRIMARY KEY "
        "REFERENCES conversations (conversation_id) ON DELETE CASCADE, settings TEXT NOT NULL)",
    ],
    # 4: feedback on answers (ctxtool.conversations.feedback)
    SQLITE_FEEDBACK_MIGRATION,
]


class _SQLiteTx:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, params)


class _SQLiteOneTx(_SQLiteTx):
    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        cur = self.conn.execute(sql, params)
        rows = cur.fetchall()  # step to the end so the implicit transaction commits now
        return _Rows(rows, cur.rowcount)


class _Rows:
    def __init__(self, rows: list[tuple], rowcount: int) -> None:
        self.rows = rows
        self.rowcount = rowcount

    def fetchone(self) -> tuple | None:
        return self.rows[0] if self.rows else None

    def fetchall(self) -> list[tuple]:
        return self.rows


class SQLiteStore(ConversationStore):
    """The default store: one SQLite file (WAL, busy timeout, one transaction per write)."""

    kind = "sqlite"
    _CONTEXT_SQL = (
        f"WITH c AS (SELECT {CONVERSATION_COLUMNS} FROM conversations WHERE conversation_id = ?1) "
        f"SELECT c.*, p.* FROM c LEFT JOIN (SELECT {PROMPT_COLUMNS} FROM prompts WHERE conversation_id = ?1 "
        "ORDER BY prompt_id DESC LIMIT (SELECT conversation_length FROM c)) p ON 1 = 1 ORDER BY p.prompt_id DESC"
    )

    def __init__(self, path: str | os.PathLike[str] | None = None, *, busy_timeout: float = 30.0) -> None:
        self.path = Path(path) if path is not None else paths.data_dir() / SQLITE_FILE
        self.location = str(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        try:
            self.conn = sqlite3.connect(
                str(self.path), timeout=busy_timeout, isolation_level=None, check_same_thread=False
            )
            self.conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            self.conn.execute("PRAGMA journal_mode = WAL")
            self.conn.execute("PRAGMA synchronous = NORMAL")
            self.conn.execute("PRAGMA foreign_keys = ON")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise DatabaseError(f"cannot open conversation store {self.path}: {exc}") from None

    def _migrate(self) -> None:
        with self._write() as tx:
            tx.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied TEXT NOT NULL)"
            )
            done = {int(r[0]) for r in tx.execute("SELECT version FROM schema_migrations").fetchall()}
            for version, statements in enumerate(SQLITE_MIGRATIONS, start=1):
                if version in done:
                    continue
                for statement in statements:
                    tx.execute(statement)
                tx.execute(
                    "INSERT INTO schema_migrations (version, applied) VALUES (?, ?)",
                    (version, _iso(utcnow())),
                )
            newer = [v for v in done if v > len(SQLITE_MIGRATIONS)]
            if newer:
                raise CtxtoolError(
                    f"conversation store {self.path} has schema version {max(newer)}, newer than this ctxtool "
                    f"({len(SQLITE_MIGRATIONS)}): upgrade ctxtool"
                )

    def schema_version(self) -> int:
        return int(self._read("SELECT max(version) FROM schema_migrations")[0][0])

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self._lock:
            try:
                return self.conn.execute(sql, params).fetchall()
            except sqlite3.OperationalError as exc:
                raise DatabaseError(f"conversation store {self.path}: {exc}") from None

    @contextmanager
    def _write(self) -> Iterator[_SQLiteTx]:
        with self._lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise DatabaseError(f"conversation store {self.path} is busy: {exc}") from None
            try:
                yield _SQLiteTx(self.conn)
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            else:
                self.conn.execute("COMMIT")

    def _to_db_time(self, dt: datetime | None) -> Any:
        return _iso(dt)

    @contextmanager
    def _write_one(self) -> Iterator[_SQLiteTx]:
        # one statement in autocommit mode is its own transaction: atomic, and two round trips cheaper
        with self._lock:
            yield _SQLiteOneTx(self.conn)

    def _integrity_errors(self) -> tuple[type[BaseException], ...]:
        return (sqlite3.IntegrityError,)

    def _encode_vector(self, vector: Sequence[float]) -> Any:
        return array("f", vector).tobytes()

    def search_vectors(
        self,
        conversation_id: str,
        embedder: str,
        query: Sequence[float],
        *,
        exclude_prompt_ids: Sequence[int] = (),
        threshold: float = 0.25,
        limit: int = 3,
    ) -> list[VectorHit]:
        from ctxtool.embeddings import cosine

        excluded = set(exclude_prompt_ids)
        hits = []
        for vid, pid, role, idx, text, blob in self._read(
            "SELECT vector_id, prompt_id, role, chunk_index, text, vector FROM message_vectors "
            "WHERE conversation_id = ? AND embedder = ? AND dim = ?",
            (conversation_id, embedder, len(query)),
        ):
            if pid in excluded:
                continue
            vec = array("f")
            vec.frombytes(blob)
            score = cosine(query, vec)
            if score >= threshold:
                hits.append(VectorHit(int(vid), int(pid), role, int(idx), text, score))
        hits.sort(key=lambda h: (-h.score, h.vector_id))
        return hits[:limit]

    def close(self) -> None:
        with self._lock:
            self.conn.close()
