"""Where named conversations and their prompts live: SQLite by default, PostgreSQL when configured.

``open_store()`` opens ``conversations.sqlite`` in the user's data directory (``ctxtool.paths``), or
the PostgreSQL database named by ``$CTXTOOL_CONVERSATIONS_DSN`` / the ``dsn`` argument. Both run
versioned schema migrations on open, keep every prompt permanently (until its conversation expires
or is dropped), and expose the listing views ``conversations_view`` and ``conversation_prompts_view``
with the column names of the reference system.

SQLite runs in WAL mode with a busy timeout; every write is one ``BEGIN IMMEDIATE`` transaction, so
concurrent writers from many processes neither lose nor duplicate prompts, and a process killed
mid-write leaves the last committed state. Vectors of chat messages live in the same store
(``message_vectors``; pgvector on PostgreSQL when the extension is available).
"""

from __future__ import annotations

import json
import os
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from typing import Any

from ctxtool import interrupts
from ctxtool.conversations.model import (
    DEFAULT_CONVERSATION_LENGTH,
    DEFAULT_RETENTION_DAYS,
    DEFAULT_TITLE,
    Conversation,
    ConversationNotFound,
    Turn,
    expiry,
    utcnow,
    validate_attributes,
)
from ctxtool.errors import DatabaseError, InputError

AUTO_PURGE_INTERVAL = timedelta(hours=1)
SQLITE_FILE = "conversations.sqlite"

CONVERSATION_COLUMNS = (
    "conversation_id, title, description, retention_days, conversation_length, created, modified, expires"
)
PROMPT_COLUMNS = (
    "prompt_id, conversation_id, profile_name, prompt_action, prompt, response_sql, result_summary, "
    "answer, state, created, modified, client_identifier, client_ip, sid, serial, request_id"
)


@dataclass
class VectorHit:
    """One stored chunk that matched a chat-vectorization query."""

    vector_id: int
    prompt_id: int
    role: str
    chunk_index: int
    text: str
    score: float


@dataclass
class VectorRow:
    prompt_id: int
    role: str  # "user" (the prompt) | "assistant" (the response)
    chunk_index: int
    text: str
    vector: list[float]


def _iso(dt: datetime | None) -> str | None:
    if dt is None:
        return None
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _parse_dt(value: Any) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    return _parse_iso(value)


@lru_cache(maxsize=4096)
def _parse_state(text: str) -> dict[str, Any]:
    """Parsed turn state, cached: a conversation's context is loaded again for every new prompt.
    Callers get a shallow copy and must not mutate nested values."""
    value = json.loads(text)
    return value if isinstance(value, dict) else {}


@lru_cache(maxsize=8192)
def _parse_iso(value: str) -> datetime:
    # fromisoformat is C code (strptime is 20x slower); Python 3.10 does not read a trailing Z
    return datetime.fromisoformat(value[:-1] + "+00:00" if value.endswith("Z") else value)


class ConversationStore(ABC):
    """The named-conversation store API; :class:`SQLiteStore` and ``PostgresStore`` implement it."""

    kind: str
    location: str

    # -- plumbing each backend provides -------------------------------------------------------
    @abstractmethod
    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]: ...

    @abstractmethod
    @contextmanager
    def _write(self) -> Iterator[Any]:
        """A write transaction; yields an object with ``execute(sql, params) -> cursor``."""

    @contextmanager
    def _write_one(self) -> Iterator[Any]:
        """A transaction for a single statement (backends may run it in autocommit, still atomic)."""
        with self._write() as tx:
            yield tx

    @abstractmethod
    def _to_db_time(self, dt: datetime | None) -> Any: ...

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> ConversationStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- conversations ------------------------------------------------------------------------
    def _conversation(self, row: tuple) -> Conversation:
        return Conversation(
            conversation_id=row[0],
            title=row[1],
            description=row[2],
            retention_days=int(row[3]),
            conversation_length=int(row[4]),
            created=_parse_dt(row[5]),
            modified=_parse_dt(row[6]),
            expires=_parse_dt(row[7]),
            prompt_count=int(row[8]) if len(row) > 8 and row[8] is not None else None,
        )

    def create_conversation(
        self,
        title: str | None = None,
        description: str | None = None,
        retention_days: int | None = None,
        conversation_length: int | None = None,
        *,
        now: datetime | None = None,
    ) -> Conversation:
        """Create a conversation and return it (its id is a new UUID)."""
        title = DEFAULT_TITLE if title is None else title
        retention_days = DEFAULT_RETENTION_DAYS if retention_days is None else retention_days
        conversation_length = (
            DEFAULT_CONVERSATION_LENGTH if conversation_length is None else conversation_length
        )
        validate_attributes(
            title=title,
            description=description,
            retention_days=retention_days,
            conversation_length=conversation_length,
        )
        now = now or utcnow()
        conv = Conversation(
            conversation_id=str(uuid.uuid4()),
            title=title,
            description=description,
            retention_days=retention_days,
            conversation_length=conversation_length,
            created=now,
            modified=now,
            expires=expiry(now, retention_days),
        )
        with self._write() as tx:
            tx.execute(
                f"INSERT INTO conversations ({CONVERSATION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    conv.conversation_id,
                    conv.title,
                    conv.description,
                    conv.retention_days,
                    conv.conversation_length,
                    self._to_db_time(conv.created),
                    self._to_db_time(conv.modified),
                    self._to_db_time(conv.expires),
                ),
            )
        return conv

    def get_conversation(self, conversation_id: str, *, count: bool = True) -> Conversation:
        count_sql = (
            "(SELECT count(*) FROM prompts p WHERE p.conversation_id = c.conversation_id)"
            if count
            else "NULL"
        )
        rows = self._read(
            f"SELECT {CONVERSATION_COLUMNS}, {count_sql} FROM conversations c WHERE conversation_id = ?",
            (conversation_id,),
        )
        if not rows:
            raise ConversationNotFound(
                f"no conversation {conversation_id!r}: run `ctxtool conversation list` to see the ids"
            )
        return self._conversation(rows[0])

    def list_conversations(self) -> list[Conversation]:
        rows = self._read(
            f"SELECT {CONVERSATION_COLUMNS}, (SELECT count(*) FROM prompts p WHERE p.conversation_id = c.conversation_id) "
            "FROM conversations c ORDER BY created, conversation_id"
        )
        return [self._conversation(r) for r in rows]

    def update_conversation(
        self,
        conversation_id: str,
        *,
        title: str | None = None,
        description: str | None = None,
        retention_days: int | None = None,
        conversation_length: int | None = None,
        now: datetime | None = None,
    ) -> Conversation:
        """Change the given attributes; retention still counts from the conversation's creation."""
        validate_attributes(
            title=title,
            description=description,
            retention_days=retention_days,
            conversation_length=conversation_length,
        )
        conv = self.get_conversation(conversation_id)
        if title is not None:
            conv.title = title
        if description is not None:
            conv.description = description
        if conversation_length is not None:
            conv.conversation_length = conversation_length
        if retention_days is not None:
            conv.retention_days = retention_days
            conv.expires = expiry(conv.created, retention_days)
        conv.modified = now or utcnow()
        with self._write() as tx:
            tx.execute(
                "UPDATE conversations SET title = ?, description = ?, retention_days = ?, conversation_length = ?, "
                "modified = ?, expires = ? WHERE conversation_id = ?",
                (
                    conv.title,
                    conv.description,
                    conv.retention_days,
                    conv.conversation_length,
                    self._to_db_time(conv.modified),
                    self._to_db_time(conv.expires),
                    conversation_id,
                ),
            )
        return conv

    def drop_conversation(self, conversation_id: str, *, force: bool = False) -> bool:
        """Drop a conversation with its prompts and vectors. Without ``force`` a missing id or a
        conversation that still holds prompts is an error; with it, both are dropped/ignored.
        Returns whether something was dropped."""
        with self._write() as tx:
            rows = tx.execute(
                "SELECT (SELECT count(*) FROM prompts WHERE conversation_id = ?), "
                "(SELECT count(*) FROM conversations WHERE conversation_id = ?)",
                (conversation_id, conversation_id),
            ).fetchall()
            prompts, exists = int(rows[0][0]), int(rows[0][1])
            if not exists:
                if force:
                    return False
                raise ConversationNotFound(
                    f"no conversation {conversation_id!r}: run `ctxtool conversation list` to see the ids"
                )
            if prompts and not force:
                raise InputError(
                    f"conversation {conversation_id} holds {prompts} prompt(s): pass --force (force=True) to drop it"
                )
            self._delete_conversations(tx, [conversation_id])
        return True

    def get_settings(self, conversation_id: str) -> dict[str, Any]:
        """A conversation's own settings (``{"vectors": {...}}``; empty when it has none)."""
        rows = self._read(
            "SELECT settings FROM conversation_settings WHERE conversation_id = ?", (conversation_id,)
        )
        value = json.loads(rows[0][0]) if rows else {}
        return value if isinstance(value, dict) else {}

    def set_settings(self, conversation_id: str, settings: dict[str, Any]) -> None:
        """Replace a conversation's own settings (an empty dict removes them)."""
        self.get_conversation(conversation_id, count=False)
        with self._write() as tx:
            tx.execute("DELETE FROM conversation_settings WHERE conversation_id = ?", (conversation_id,))
            if settings:
                tx.execute(
                    "INSERT INTO conversation_settings (conversation_id, settings) VALUES (?, ?)",
                    (conversation_id, json.dumps(settings, sort_keys=True)),
                )

    def _delete_conversations(self, tx: Any, ids: Sequence[str]) -> None:
        for cid in ids:
            tx.execute("DELETE FROM conversation_settings WHERE conversation_id = ?", (cid,))
            tx.execute("DELETE FROM message_vectors WHERE conversation_id = ?", (cid,))
            tx.execute("DELETE FROM prompts WHERE conversation_id = ?", (cid,))
            tx.execute("DELETE FROM current_conversation WHERE conversation_id = ?", (cid,))
            tx.execute("DELETE FROM conversations WHERE conversation_id = ?", (cid,))

    def purge_expired(self, now: datetime | None = None) -> list[str]:
        """Delete every conversation whose retention has run out; return their ids."""
        now = now or utcnow()
        with self._write() as tx:
            ids = [
                r[0]
                for r in tx.execute(
                    "SELECT conversation_id FROM conversations WHERE expires IS NOT NULL AND expires <= ? "
                    "ORDER BY conversation_id",
                    (self._to_db_time(now),),
                ).fetchall()
            ]
            self._delete_conversations(tx, ids)
            tx.execute("UPDATE store_meta SET value = ? WHERE key = 'last_purge'", (_iso(now),))
        return ids

    def auto_purge(self, now: datetime | None = None) -> list[str]:
        """Purge expired conversations at most once per hour (called when a store is opened)."""
        now = now or utcnow()
        rows = self._read("SELECT value FROM store_meta WHERE key = 'last_purge'")
        last = _parse_dt(rows[0][0]) if rows and rows[0][0] else None
        if last is not None and now - last < AUTO_PURGE_INTERVAL:
            return []
        return self.purge_expired(now)

    # -- prompts ------------------------------------------------------------------------------
    # -- for the stores' companions (feedback): one read, one write, the store's time ----------------
    def read_rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        """The rows of one read of the store (``?`` placeholders on either backend)."""
        return self._read(sql, params)

    def write_returning(self, sql: str, params: Sequence[Any] = ()) -> tuple | None:
        """Run one write in its own transaction; the first row it returns."""
        with self._write() as tx:
            return tx.execute(sql, params).fetchone()

    def db_time(self, when: datetime) -> Any:
        """``when`` as the store keeps time."""
        return self._to_db_time(when)

    def _turn(self, row: tuple) -> Turn:
        state = row[8]
        if isinstance(state, str):
            state = dict(_parse_state(state)) if state not in ("", "{}") else {}
        return Turn(
            prompt_id=int(row[0]),
            conversation_id=row[1],
            profile_name=row[2],
            action=row[3],
            prompt=row[4],
            sql=row[5],
            summary=row[6],
            answer=row[7],
            state=state or {},
            created=_parse_dt(row[9]),
            modified=_parse_dt(row[10]),
            client_identifier=row[11],
            client_ip=row[12],
            sid=row[13],
            serial=row[14],
            request_id=row[15],
        )

    def add_prompt(self, conversation_id: str, turn: Turn, *, now: datetime | None = None) -> Turn:
        """Store one prompt and its response; returns it with ``prompt_id`` and timestamps set.
        A ``request_id`` makes the write idempotent: storing the same request again returns the
        stored prompt instead of a duplicate."""
        now = now or utcnow()
        ts = self._to_db_time(now)
        try:
            with self._write_one() as tx:
                row = tx.execute(
                    "INSERT INTO prompts (conversation_id, profile_name, prompt_action, prompt, response_sql, "
                    "result_summary, answer, state, created, modified, client_identifier, client_ip, sid, serial, "
                    "request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING prompt_id",
                    (
                        conversation_id,
                        turn.profile_name,
                        turn.action,
                        turn.prompt,
                        turn.sql,
                        turn.summary,
                        turn.answer,
                        turn.state_json(),
                        ts,
                        ts,
                        turn.client_identifier,
                        turn.client_ip,
                        turn.sid,
                        turn.serial,
                        turn.request_id,
                    ),
                ).fetchone()
        except self._integrity_errors() as exc:
            text = str(exc).lower()
            if turn.request_id and ("request_id" in text or "unique" in text):
                existing = self._read(
                    f"SELECT {PROMPT_COLUMNS} FROM prompts WHERE request_id = ?", (turn.request_id,)
                )
                if existing:
                    return self._turn(existing[0])
            self.get_conversation(conversation_id)  # raises ConversationNotFound when that is the cause
            raise DatabaseError(f"cannot store prompt in {self.location}: {exc}") from None
        turn.prompt_id = int(row[0])
        turn.conversation_id = conversation_id
        turn.created = turn.modified = now
        interrupts.completed(f"stored prompt {turn.prompt_id} in conversation {conversation_id}")
        return turn

    @abstractmethod
    def _integrity_errors(self) -> tuple[type[BaseException], ...]: ...

    def recent_prompts(self, conversation_id: str, limit: int) -> list[Turn]:
        """The ``limit`` most recent prompts of a conversation, oldest first (the history to send)."""
        rows = self._read(
            f"SELECT {PROMPT_COLUMNS} FROM prompts WHERE conversation_id = ? ORDER BY prompt_id DESC LIMIT ?",
            (conversation_id, int(limit)),
        )
        return [self._turn(r) for r in reversed(rows)]

    _CONTEXT_SQL: str

    def context(self, conversation_id: str) -> tuple[Conversation, list[Turn]]:
        """A conversation and its last ``conversation_length`` prompts (oldest first), in one statement."""
        rows = self._read(self._CONTEXT_SQL, (conversation_id,))
        if not rows:
            raise ConversationNotFound(
                f"no conversation {conversation_id!r}: run `ctxtool conversation list` to see the ids"
            )
        conv = self._conversation(rows[0][:8])
        if conv.expires is not None and conv.expires <= utcnow():
            self.purge_expired()
            raise ConversationNotFound(
                f"conversation {conversation_id} expired on {conv.expires:%Y-%m-%d %H:%M} UTC and was purged: "
                "create a new one (retention_days 0 keeps a conversation)"
            )
        turns = [self._turn(r[8:]) for r in rows if r[8] is not None]
        turns.reverse()
        return conv, turns

    def get_prompt(self, prompt_id: int) -> Turn:
        rows = self._read(f"SELECT {PROMPT_COLUMNS} FROM prompts WHERE prompt_id = ?", (int(prompt_id),))
        if not rows:
            raise ConversationNotFound(
                f"no prompt {prompt_id}: run `ctxtool conversation show ID` to see prompt ids"
            )
        return self._turn(rows[0])

    def list_prompts(self, conversation_id: str | None = None) -> list[Turn]:
        if conversation_id is None:
            rows = self._read(f"SELECT {PROMPT_COLUMNS} FROM prompts ORDER BY prompt_id")
        else:
            rows = self._read(
                f"SELECT {PROMPT_COLUMNS} FROM prompts WHERE conversation_id = ? ORDER BY prompt_id",
                (conversation_id,),
            )
        return [self._turn(r) for r in rows]

    def delete_prompt(self, prompt_id: int) -> None:
        """Delete one prompt and the vectors of its chunks (never any other message)."""
        with self._write() as tx:
            tx.execute("DELETE FROM message_vectors WHERE prompt_id = ?", (int(prompt_id),))
            cur = tx.execute("DELETE FROM prompts WHERE prompt_id = ?", (int(prompt_id),))
            if cur.rowcount == 0:
                raise ConversationNotFound(
                    f"no prompt {prompt_id}: run `ctxtool conversation show ID` to see prompt ids"
                )

    def count_prompts(self) -> int:
        return int(self._read("SELECT count(*) FROM prompts")[0][0])

    # -- views --------------------------------------------------------------------------------
    def conversations_view(self) -> list[dict[str, Any]]:
        cols = [
            "conversation_id",
            "conversation_title",
            "description",
            "retention_days",
            "conversation_length",
        ]
        rows = self._read(f"SELECT {', '.join(cols)} FROM conversations_view ORDER BY conversation_id")
        return [dict(zip(cols, r, strict=False)) for r in rows]

    PROMPT_VIEW_COLUMNS = (
        "conversation_prompt_id",
        "conversation_id",
        "conversation_title",
        "profile_name",
        "prompt_action",
        "prompt",
        "prompt_response",
        "created",
        "modified",
        "client_identifier",
        "client_ip",
        "sid",
        "serial#",
    )

    def prompts_view(self, conversation_id: str | None = None) -> list[dict[str, Any]]:
        cols = ", ".join(f'"{c}"' for c in self.PROMPT_VIEW_COLUMNS)
        sql = f"SELECT {cols} FROM conversation_prompts_view"
        params: tuple = ()
        if conversation_id is not None:
            sql += " WHERE conversation_id = ?"
            params = (conversation_id,)
        rows = self._read(sql + " ORDER BY conversation_prompt_id", params)
        out = []
        for r in rows:
            d = dict(zip(self.PROMPT_VIEW_COLUMNS, r, strict=False))
            for k in ("created", "modified"):
                if isinstance(d[k], datetime):
                    d[k] = _iso(d[k])
            out.append(d)
        return out

    # -- current conversation of a CLI shell or API session ------------------------------------
    def set_current(self, session_key: str, conversation_id: str) -> None:
        self.get_conversation(conversation_id)
        with self._write() as tx:
            tx.execute("DELETE FROM current_conversation WHERE session_key = ?", (session_key,))
            tx.execute(
                "INSERT INTO current_conversation (session_key, conversation_id, modified) VALUES (?, ?, ?)",
                (session_key, conversation_id, self._to_db_time(utcnow())),
            )

    def get_current(self, session_key: str) -> str | None:
        rows = self._read(
            "SELECT conversation_id FROM current_conversation WHERE session_key = ?", (session_key,)
        )
        return rows[0][0] if rows else None

    def clear_current(self, session_key: str) -> None:
        with self._write() as tx:
            tx.execute("DELETE FROM current_conversation WHERE session_key = ?", (session_key,))

    # -- chat vectors ---------------------------------------------------------------------------
    @abstractmethod
    def _encode_vector(self, vector: Sequence[float]) -> Any: ...

    def add_vectors(self, conversation_id: str, embedder: str, rows: Sequence[VectorRow]) -> int:
        """Store chunk vectors (replacing those of the same prompt, role and embedder)."""
        if not rows:
            return 0
        with self._write() as tx:
            for key in {(r.prompt_id, r.role) for r in rows}:
                tx.execute(
                    "DELETE FROM message_vectors WHERE prompt_id = ? AND role = ? AND embedder = ?",
                    (key[0], key[1], embedder),
                )
            exists = tx.execute(
                "SELECT count(*) FROM prompts WHERE prompt_id = ?", (rows[0].prompt_id,)
            ).fetchone()
            if not int(exists[0]):  # the prompt was deleted meanwhile: store nothing
                return 0
            for r in rows:
                tx.execute(
                    "INSERT INTO message_vectors (conversation_id, prompt_id, role, chunk_index, text, embedder, dim, "
                    "vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        conversation_id,
                        r.prompt_id,
                        r.role,
                        r.chunk_index,
                        r.text,
                        embedder,
                        len(r.vector),
                        self._encode_vector(r.vector),
                    ),
                )
        return len(rows)

    @abstractmethod
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
        """Chunks of this conversation scoring at least ``threshold`` (cosine), best first."""

    def vector_stats(self, conversation_id: str | None = None) -> dict[str, Any]:
        where, params = ("WHERE conversation_id = ?", (conversation_id,)) if conversation_id else ("", ())
        vec = self._read(f"SELECT count(*), count(DISTINCT prompt_id) FROM message_vectors {where}", params)[
            0
        ]
        prompts = self._read(f"SELECT count(*) FROM prompts {where}", params)[0][0]
        vectorized = sorted(
            int(r[0]) for r in self._read(f"SELECT DISTINCT prompt_id FROM message_vectors {where}", params)
        )
        embedders = [
            r[0] for r in self._read(f"SELECT DISTINCT embedder FROM message_vectors {where}", params)
        ]
        return {
            "conversation_id": conversation_id,
            "vectors": int(vec[0]),
            "vectorized_prompts": int(vec[1]),
            "prompts": int(prompts),
            "vectorized_prompt_ids": vectorized,
            "embedders": sorted(embedders),
        }

    def purge_vectors(self, conversation_id: str | None = None) -> int:
        """Delete the vectors (of one conversation, or all); never a message."""
        with self._write() as tx:
            if conversation_id is None:
                cur = tx.execute("DELETE FROM message_vectors", ())
            else:
                cur = tx.execute("DELETE FROM message_vectors WHERE conversation_id = ?", (conversation_id,))
            return int(cur.rowcount)

    def prompts_missing_vectors(self, conversation_id: str, embedder: str) -> list[Turn]:
        rows = self._read(
            f"SELECT {PROMPT_COLUMNS} FROM prompts p WHERE conversation_id = ? AND NOT EXISTS "
            "(SELECT 1 FROM message_vectors v WHERE v.prompt_id = p.prompt_id AND v.embedder = ?) ORDER BY prompt_id",
            (conversation_id, embedder),
        )
        return [self._turn(r) for r in rows]


def open_store(dsn: str | None = None, *, auto_purge: bool = True) -> ConversationStore:
    """The configured store: ``dsn`` (``postgresql://...`` or a SQLite path / ``sqlite:///path``),
    else ``$CTXTOOL_CONVERSATIONS_DSN``, else SQLite in the user's data directory. Expired
    conversations are purged on open (at most once an hour)."""
    from ctxtool.conversations.sqlitestore import SQLiteStore

    dsn = dsn or os.environ.get("CTXTOOL_CONVERSATIONS_DSN") or None
    store: ConversationStore
    if dsn and dsn.split(":", 1)[0].lower() in ("postgres", "postgresql"):
        from ctxtool.conversations.pgstore import PostgresStore

        store = PostgresStore(dsn)
    elif dsn:
        path = dsn[len("sqlite:///") :] if dsn.startswith("sqlite:///") else dsn
        if "://" in path:
            raise InputError(
                f"conversation store {dsn!r}: use a postgresql:// DSN, a sqlite:///path or a file path"
            )
        store = SQLiteStore(path)
    else:
        store = SQLiteStore()
    if auto_purge:
        store.auto_purge()
    return store


def __getattr__(name: str) -> Any:
    # ``from ctxtool.conversations.store import SQLiteStore`` keeps working (the SQLite store has
    # its own module, which imports this one)
    if name in ("SQLiteStore", "SQLITE_MIGRATIONS"):
        from ctxtool.conversations import sqlitestore

        return getattr(sqlitestore, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
