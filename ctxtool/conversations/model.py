"""What a conversation and a stored prompt are, with the validation the attributes need.

Defaults follow the public SDKs of the reference system: title "New Conversation", retention 7 days
(0 keeps the conversation until it is dropped by hand, counted from creation), 10 prompts of history.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from ctxtool.errors import CtxtoolError, InputError

DEFAULT_TITLE = "New Conversation"
DEFAULT_RETENTION_DAYS = 7
DEFAULT_CONVERSATION_LENGTH = 10
ACTIONS = ("runsql", "showsql", "explainsql", "narrate", "chat", "showprompt")
CONVERSATION_ACTIONS = ("runsql", "showsql", "explainsql", "narrate", "chat")


class ConversationNotFound(CtxtoolError):
    """No conversation (or prompt) with that id."""


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def validate_attributes(
    *, title: Any = None, description: Any = None, retention_days: Any = None, conversation_length: Any = None
) -> None:
    """Raise ``InputError`` for attribute values the store must not accept."""
    if title is not None and (not isinstance(title, str) or not title.strip()):
        raise InputError("conversation title must be a non-empty string")
    if description is not None and not isinstance(description, str):
        raise InputError("conversation description must be a string")
    if retention_days is not None and (
        isinstance(retention_days, bool) or not isinstance(retention_days, int) or retention_days < 0
    ):
        raise InputError(
            f"retention_days {retention_days!r} is invalid: use a whole number of days >= 0 (0 keeps it)"
        )
    if conversation_length is not None and (
        isinstance(conversation_length, bool)
        or not isinstance(conversation_length, int)
        or conversation_length <= 0
    ):
        raise InputError(
            f"conversation_length {conversation_length!r} is invalid: use a whole number > 0 (default 10)"
        )


def expiry(created: datetime, retention_days: int) -> datetime | None:
    """When a conversation created at ``created`` expires; ``None`` for retention 0 (kept)."""
    return None if retention_days == 0 else created + timedelta(days=retention_days)


@dataclass
class Conversation:
    conversation_id: str
    title: str
    description: str | None
    retention_days: int
    conversation_length: int
    created: datetime
    modified: datetime
    expires: datetime | None = None
    prompt_count: int | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["conversation_title"] = d.pop("title")
        for k in ("created", "modified", "expires"):
            d[k] = d[k].isoformat() if d[k] is not None else None
        return d


@dataclass
class Turn:
    """One question and what came back; the unit of history (stored or in session memory).

    ``state`` carries what a follow-up needs to rewrite the previous query: the final SQL, its
    parameters, the matched template and facets, linked values and the result's column names.
    """

    prompt: str
    action: str = "runsql"
    profile_name: str | None = None
    sql: str | None = None
    summary: str | None = None
    answer: str | None = None
    state: dict[str, Any] = field(default_factory=dict)
    prompt_id: int | None = None
    conversation_id: str | None = None
    created: datetime | None = None
    modified: datetime | None = None
    client_identifier: str | None = None
    client_ip: str | None = None
    sid: str | None = None
    serial: int | None = None
    request_id: str | None = None

    @property
    def response_text(self) -> str:
        """The response as a person reads it: the answer, else the result summary, else the SQL."""
        parts = []
        if self.answer:
            parts.append(self.answer)
        elif self.summary:
            parts.append(self.summary)
        if self.sql and not self.answer:
            parts.append(f"SQL: {self.sql}")
        return "\n".join(parts)

    def state_json(self) -> str:
        return json.dumps(self.state, default=str, sort_keys=True)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for k in ("created", "modified"):
            d[k] = d[k].isoformat() if d[k] is not None else None
        d["conversation_prompt_id"] = d.pop("prompt_id")
        d["prompt_response"] = self.response_text
        return d
