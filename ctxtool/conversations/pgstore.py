"""The conversation store on PostgreSQL (``$CTXTOOL_CONVERSATIONS_DSN=postgresql://...``).

Tables live in the schema ``ctxtool_conv`` of the given database; migrations are versioned and run
under an advisory lock, so several processes opening the store at once migrate it once. Chat vectors
use pgvector's ``vector`` type and its cosine distance ``<=>`` when the extension can be created,
else a ``double precision[]`` column scored in Python.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from ctxtool.conversations.feedback import PG_FEEDBACK_MIGRATION
from ctxtool.conversations.model import utcnow
from ctxtool.conversations.store import PROMPT_COLUMNS, ConversationStore, VectorHit
from ctxtool.errors import CtxtoolError, DatabaseError

SCHEMA = "ctxtool_conv"
_LOCK_KEY = 0x63747863  # advisory lock id for migrations ("ctxc")

PG_MIGRATIONS: list[list[str]] = [
    [
        "CREATE TABLE conversations (conversation_id text PRIMARY KEY, title text NOT NULL, description text, "
        "retention_days integer NOT NULL CHECK (retention_days >= 0), "
        "conversation_length integer NOT NULL CHECK (conversation_length > 0), "
        "created timestamptz NOT NULL, modified timestamptz NOT NULL, expires timestamptz)",
        "CREATE INDEX conversations_expires ON conversations (expires) WHERE expires IS NOT NULL",
        "CREATE TABLE prompts (prompt_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
        "conversation_id text NOT NULL REFERENCES conversations (conversation_id) ON DELETE CASCADE, "
        "profile_name text, prompt_action text NOT NULL, prompt text NOT NULL, response_sql text, "
        "result_summary text, answer text, state text, created timestamptz NOT NULL, modified timestamptz NOT NULL, "
        "client_identifier text, client_ip text, sid text, serial bigint, request_id text UNIQUE)",
        "CREATE INDEX prompts_conversation ON prompts (conversation_id, prompt_id)",
        "CREATE TABLE current_conversation (session_key text PRIMARY KEY, "
        "conversation_id text NOT NULL REFERENCES conversations (conversation_id) ON DELETE CASCADE, "
        "modified timestamptz)",
        "CREATE TABLE store_meta (key text PRIMARY KEY, value text)",
        "INSERT INTO store_meta (key, value) VALUES ('last_purge', NULL)",
        "CREATE VIEW conversations_view AS SELECT conversation_id, title AS conversation_title, description, "
        "retention_days, conversation_length FROM conversations",
        "CREATE VIEW conversation_prompts_view AS SELECT p.prompt_id AS conversation_prompt_id, p.conversation_id, "
        "c.title AS conversation_title, p.profile_name, p.prompt_action, p.prompt, "
        "COALESCE(p.answer, p.result_summary, p.response_sql) AS prompt_response, p.created, p.modified, "
        'p.client_identifier, p.client_ip, p.sid, p.serial AS "serial#" '
        "FROM prompts p JOIN conversations c ON c.conversation_id = p.conversation_id",
    ],
    [
        "CREATE TABLE message_vectors (vector_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
        "conversation_id text NOT NULL, prompt_id bigint NOT NULL REFERENCES prompts (prompt_id) ON DELETE CASCADE, "
        "role text NOT NULL, chunk_index integer NOT NULL, text text NOT NULL, embedder text NOT NULL, "
        "dim integer NOT NULL, vector {vector_type} NOT NULL)",
        "CREATE INDEX message_vectors_conversation ON message_vectors (conversation_id, embedder)",
        "CREATE INDEX message_vectors_prompt ON message_vectors (prompt_id)",
        "INSERT INTO store_meta (key, value) VALUES ('vector_type', '{vector_type}')",
    ],
    [
        "CREATE TABLE conversation_settings (conversation_id text PRIMARY KEY "
        "REFERENCES conversations (conversation_id) ON DELETE CASCADE, settings text NOT NULL)",
    ],
    # 4: feedback on answers (ctxtool.conversations.feedback)
    PG_FEEDBACK_MIGRATION,
]

_QMARK = re.compile(r"\?")


def _pg(sql: str) -> str:
    return _QMARK.sub("%s", sql)


class _PgTx:
    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.conn.execute(_pg(sql), tuple(params))


class PostgresStore(ConversationStore):
    kind = "postgres"
    _CONTEXT_SQL = (
        "SELECT c.conversation_id, c.title, c.description, c.retention_days, c.conversation_length, c.created, "
        f"c.modified, c.expires, p.* FROM conversations c LEFT JOIN LATERAL (SELECT {PROMPT_COLUMNS} FROM prompts pp "
        "WHERE pp.conversation_id = c.conversation_id ORDER BY pp.prompt_id DESC LIMIT c.conversation_length) p "
        "ON true WHERE c.conversation_id = ? ORDER BY p.prompt_id DESC"
    )

    def __init__(self, dsn: str) -> None:
        import psycopg

        from ctxtool.connectors.dsn import redact

        self._psycopg = psycopg
        self.location = redact(dsn) if callable(redact) else "postgresql"
        self._lock = threading.RLock()
        try:
            self.conn = psycopg.connect(dsn, autocommit=True, connect_timeout=10)
        except psycopg.Error as exc:
            raise DatabaseError(
                f"cannot connect to conversation store {self.location}: {exc}".strip()
            ) from None
        try:
            self._migrate()
        except psycopg.Error as exc:
            raise DatabaseError(f"conversation store {self.location}: {exc}".strip()) from None
        self.vector_type = self._read("SELECT value FROM store_meta WHERE key = 'vector_type'")[0][0]

    def _migrate(self) -> None:
        with self._lock, self.conn.transaction():
            self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            self.conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
            vector_schema = self._ensure_vector()
            path = f"{SCHEMA}, public" + (
                f", {vector_schema}" if vector_schema not in (None, "public", SCHEMA) else ""
            )
            self.conn.execute(f"SET search_path TO {path}")
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied timestamptz NOT NULL)"
            )
            done = {int(r[0]) for r in self.conn.execute("SELECT version FROM schema_migrations").fetchall()}
            vector_type = "vector" if vector_schema else "double precision[]"
            for version, statements in enumerate(PG_MIGRATIONS, start=1):
                if version in done:
                    continue
                for statement in statements:
                    self.conn.execute(statement.replace("{vector_type}", vector_type))
                self.conn.execute(
                    "INSERT INTO schema_migrations (version, applied) VALUES (%s, %s)", (version, utcnow())
                )
            if done and max(done) > len(PG_MIGRATIONS):
                raise CtxtoolError(
                    f"conversation store {self.location} has schema version {max(done)}, newer than this ctxtool: "
                    "upgrade ctxtool"
                )

    def _ensure_vector(self) -> str | None:
        """The schema of the pgvector extension, creating it when allowed; ``None`` when unavailable."""
        row = self.conn.execute(
            "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'"
        ).fetchone()
        if row:
            return row[0]
        available = self.conn.execute(
            "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"
        ).fetchone()
        if not available:
            return None
        try:
            with self.conn.transaction():
                self.conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except self._psycopg.Error:
            return None
        row = self.conn.execute(
            "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'"
        ).fetchone()
        return row[0] if row else None

    def schema_version(self) -> int:
        return int(self._read("SELECT max(version) FROM schema_migrations")[0][0])

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self._lock:
            try:
                return self.conn.execute(_pg(sql), tuple(params)).fetchall()
            except self._psycopg.Error as exc:
                raise DatabaseError(f"conversation store {self.location}: {exc}".strip()) from None

    @contextmanager
    def _write(self) -> Iterator[_PgTx]:
        with self._lock:
            try:
                with self.conn.transaction():
                    yield _PgTx(self.conn)
            except self._psycopg.errors.IntegrityError:
                raise
            except self._psycopg.Error as exc:
                raise DatabaseError(f"conversation store {self.location}: {exc}".strip()) from None

    def _to_db_time(self, dt: datetime | None) -> Any:
        return dt

    def _integrity_errors(self) -> tuple[type[BaseException], ...]:
        return (self._psycopg.errors.IntegrityError,)

    def _encode_vector(self, vector: Sequence[float]) -> Any:
        if self.vector_type == "vector":
            return "[" + ",".join(repr(float(x)) for x in vector) + "]"
        return [float(x) for x in vector]

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
        excluded = [int(p) for p in exclude_prompt_ids]
        if self.vector_type == "vector":
            qtext = self._encode_vector(query)
            rows = self._read(
                "SELECT vector_id, prompt_id, role, chunk_index, text, 1 - (vector <=> ?::vector) AS score "
                "FROM message_vectors WHERE conversation_id = ? AND embedder = ? AND dim = ? "
                "AND NOT (prompt_id = ANY(?)) AND 1 - (vector <=> ?::vector) >= ? "
                "ORDER BY vector <=> ?::vector, vector_id LIMIT ?",
                (qtext, conversation_id, embedder, len(query), excluded, qtext, threshold, qtext, limit),
            )
            return [VectorHit(int(r[0]), int(r[1]), r[2], int(r[3]), r[4], float(r[5])) for r in rows]
        from ctxtool.embeddings import cosine

        hits = []
        for vid, pid, role, idx, text, vec in self._read(
            "SELECT vector_id, prompt_id, role, chunk_index, text, vector FROM message_vectors "
            "WHERE conversation_id = ? AND embedder = ? AND dim = ? AND NOT (prompt_id = ANY(?))",
            (conversation_id, embedder, len(query), excluded),
        ):
            score = cosine(query, vec)
            if score >= threshold:
                hits.append(VectorHit(int(vid), int(pid), role, int(idx), text, score))
        hits.sort(key=lambda h: (-h.score, h.vector_id))
        return hits[:limit]

    def close(self) -> None:
        with self._lock:
            self.conn.close()
