"""Feedback on answers, stored beside the conversations (SQLite or PostgreSQL), with Oracle Select
AI's semantics: ``positive`` (the answer was right: its SQL is the reference), or ``negative`` with an
optional corrected SQL (the response that should have been given) and a comment.

Feedback names a stored prompt of a conversation (``prompt_id``: its question and SQL are copied),
or carries the question and SQL itself (an answer of a session, which is not stored). The SQL is
kept concrete: a template's parameters are written in as literals, so an exported golden file runs
as it is. :func:`export_golden` writes the golden items of ``ctxtool eval``: a positive's SQL, a
negative's corrected SQL (a negative without one says only what is wrong and is left out).
"""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ctxtool.conversations.store import ConversationStore
from ctxtool.errors import InputError
from ctxtool.placeholders import find_sql_placeholders, substitute

__all__ = [
    "FEEDBACK_KINDS",
    "PG_FEEDBACK_MIGRATION",
    "SQLITE_FEEDBACK_MIGRATION",
    "Feedback",
    "concrete_sql",
    "export_golden",
    "get_feedback",
    "list_feedback",
    "record_feedback",
]

FEEDBACK_KINDS = ("positive", "negative")

SQLITE_FEEDBACK_MIGRATION = [
    "CREATE TABLE feedback (feedback_id INTEGER PRIMARY KEY AUTOINCREMENT, "
    "prompt_id INTEGER REFERENCES prompts (prompt_id) ON DELETE SET NULL, conversation_id TEXT, "
    "feedback_type TEXT NOT NULL CHECK (feedback_type IN ('positive', 'negative')), question TEXT NOT NULL, "
    "response_sql TEXT, corrected_sql TEXT, comment TEXT, set_ref TEXT, database TEXT, created TEXT NOT NULL)",
    "CREATE INDEX feedback_prompt ON feedback (prompt_id)",
]
PG_FEEDBACK_MIGRATION = [
    "CREATE TABLE feedback (feedback_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
    "prompt_id bigint REFERENCES prompts (prompt_id) ON DELETE SET NULL, conversation_id text, "
    "feedback_type text NOT NULL CHECK (feedback_type IN ('positive', 'negative')), question text NOT NULL, "
    "response_sql text, corrected_sql text, comment text, set_ref text, database text, "
    "created timestamptz NOT NULL)",
    "CREATE INDEX feedback_prompt ON feedback (prompt_id)",
]
_COLUMNS = (
    "feedback_id, prompt_id, conversation_id, feedback_type, question, response_sql, corrected_sql, comment, "
    "set_ref, database, created"
)


@dataclass
class Feedback:
    feedback_id: int
    prompt_id: int | None
    conversation_id: str | None
    feedback_type: str
    question: str
    response_sql: str | None
    corrected_sql: str | None
    comment: str | None
    set_ref: str | None
    database: str | None
    created: str

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))

    @property
    def reference_sql(self) -> str | None:
        """The SQL that answers the question: the answer's when positive, the correction's when negative."""
        return self.response_sql if self.feedback_type == "positive" else self.corrected_sql


def _sql_literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float, decimal.Decimal)):
        return str(value)
    if isinstance(value, (dt.date, dt.datetime)):
        return "'" + value.isoformat() + "'"
    return "'" + str(value).replace("'", "''") + "'"


def concrete_sql(sql: str, params: Sequence[Any], dialect: str) -> str:
    """``sql`` with its placeholders replaced by its parameters as SQL literals."""
    found = find_sql_placeholders(sql, dialect)
    if not found or not params:
        return sql
    values = [_sql_literal(v) for v in params]
    if max((int(p.name) for p in found if p.kind == "numbered"), default=0) > len(values) or sum(
        p.kind == "qmark" for p in found
    ) > len(values):
        return sql  # parameters missing: kept as stored
    return substitute(sql, found, values)


def _row(row: tuple) -> Feedback:
    values = list(row)
    created = values[10]
    values[10] = created if isinstance(created, str) else created.isoformat()
    return Feedback(*values)


def record_feedback(
    store: ConversationStore,
    feedback_type: str,
    *,
    prompt_id: int | None = None,
    question: str | None = None,
    sql: str | None = None,
    params: Sequence[Any] = (),
    dialect: str = "postgres",
    corrected_sql: str | None = None,
    comment: str | None = None,
    set_ref: str | None = None,
    database: str | None = None,
) -> Feedback:
    """Store feedback on a stored prompt (``prompt_id``) or on a question and its SQL (with the
    answer's ``params``, written into it as literals); returns it."""
    if sql and params:
        sql = concrete_sql(sql, params, dialect)
    feedback_type = (feedback_type or "").lower()
    if feedback_type not in FEEDBACK_KINDS:
        raise InputError(f"feedback is positive or negative, not {feedback_type!r}")
    conversation_id = None
    if prompt_id is not None:
        turn = store.get_prompt(prompt_id)  # raises ConversationNotFound for an unknown id
        conversation_id = turn.conversation_id
        question = question or turn.prompt
        st = turn.state or {}
        if sql is None and st.get("sql"):
            sql = concrete_sql(st["sql"], st.get("params") or [], st.get("dialect") or "postgres")
        sql = sql or turn.sql
    if not question:
        raise InputError("feedback needs the answer it is about: a prompt id, or the question (and its SQL)")
    if feedback_type == "positive" and not sql:
        raise InputError("positive feedback needs the SQL that was right: the prompt had none; give --sql")
    if feedback_type == "negative" and not (corrected_sql or comment):
        raise InputError(
            "negative feedback needs a corrected SQL (--corrected-sql) or a comment saying what is wrong"
        )
    row = store.write_returning(
        f"INSERT INTO feedback (prompt_id, conversation_id, feedback_type, question, response_sql, corrected_sql, "
            f"comment, set_ref, database, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING {_COLUMNS}",
        (prompt_id, conversation_id, feedback_type, question, sql, corrected_sql, comment, set_ref, database,
         store.db_time(dt.datetime.now(dt.timezone.utc))),
    )  # fmt: skip
    assert row is not None
    return _row(row)


def list_feedback(
    store: ConversationStore, *, feedback_type: str | None = None, conversation_id: str | None = None
) -> list[Feedback]:
    """Stored feedback, oldest first."""
    where, params = [], []
    if feedback_type:
        where.append("feedback_type = ?")
        params.append(feedback_type)
    if conversation_id:
        where.append("conversation_id = ?")
        params.append(conversation_id)
    sql = f"SELECT {_COLUMNS} FROM feedback" + (" WHERE " + " AND ".join(where) if where else "")
    return [_row(r) for r in store.read_rows(sql + " ORDER BY feedback_id", params)]


def get_feedback(store: ConversationStore, feedback_id: int) -> Feedback:
    """One stored feedback by its id; :class:`~ctxtool.errors.InputError` when there is none."""
    rows = store.read_rows(f"SELECT {_COLUMNS} FROM feedback WHERE feedback_id = ?", [feedback_id])
    if not rows:
        raise InputError(f"no feedback {feedback_id}: `ctxtool feedback list` shows the stored ones")
    return _row(rows[0])


def export_golden(items: Sequence[Feedback], *, database: str | None = None) -> list[dict[str, Any]]:
    """Golden items (``{id, database, nlq, golden_sql, tags}``) of the feedback that gives a reference SQL."""
    out = []
    for f in items:
        ref = f.reference_sql
        if not ref:
            continue
        tags = ["feedback", f.feedback_type] + (["corrected"] if f.feedback_type == "negative" else [])
        out.append(
            {
                "id": f"feedback-{f.feedback_id}",
                "database": database or f.database or "",
                "nlq": f.question,
                "golden_sql": ref,
                "tags": tags,
            }
        )
    return out
