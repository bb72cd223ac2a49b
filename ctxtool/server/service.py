"""What both servers offer, over one Runtime: ask, query data, list templates, describe schema.

A request may name a conversation: ``conversation_id`` (a named, stored conversation: its history
resolves follow-ups and the prompt is stored) and/or ``session`` (an API session: with no named
conversation, the session's memory of its last 10 prompts is used, never stored). Each session key
has its own :class:`ctxtool.conversations.ConversationRunner`; prompts are recorded with the client
identifier "ctxtool serve" and the client's IP address.

The runtime's database session is not thread-safe, so requests take turns on it (one lock).
"""

from __future__ import annotations

import threading
from typing import Any

from ctxtool.errors import InputError
from ctxtool.runtime import ACTIONS, AskContext, Runtime

CLIENT_IDENTIFIER = "ctxtool serve"
MAX_SESSIONS = 1000  # the least recently used session memories are dropped beyond this


class Service:
    def __init__(self, runtime: Runtime, *, conversation_store: Any = None) -> None:
        """``conversation_store``: an open ``ConversationStore``, or a DSN / SQLite path, or None for
        the default store (opened when a request first names a conversation)."""
        self.runtime = runtime
        self._lock = threading.Lock()
        self._store_ref = conversation_store
        self._store: Any = None
        self._own_store = False
        self._runners: dict[str, Any] = {}  # session key ("" without one) -> ConversationRunner

    def close(self) -> None:
        if self._own_store and self._store is not None:
            self._store.close()
        self._store = None

    def health(self) -> dict[str, Any]:
        rt = self.runtime
        return {
            "status": "ok",
            "set": rt.ref,
            "dialect": rt.dialect,
            "templates": len(rt.templates),
            "facets": len(rt.facets),
            "value_searches": len(rt.linker.value_searches),
            "database": rt.connector is not None,
            "session_memory": bool(getattr(rt, "conversation", False)),
        }

    def ask(self, body: Any, *, client_ip: str | None = None) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise InputError("the request body must be a JSON object with a 'question'")
        question = body.get("question")
        if not isinstance(question, str) or not question.strip():
            raise InputError("'question' must be a non-empty string")
        action = body.get("action", "runsql")
        if action not in ACTIONS:
            raise InputError(f"'action' must be one of {', '.join(ACTIONS)}")
        history = body.get("history") or []
        if not isinstance(history, list):
            raise InputError("'history' must be a list of chat messages {role, content, ...}")
        conversation_id = _optional_text(body, "conversation_id")
        session = _optional_text(body, "session")
        if (conversation_id or session) and history:
            raise InputError(
                "give either 'history' or a conversation ('conversation_id' / 'session'), not both: "
                "a conversation keeps its own history"
            )
        with self._lock:
            if conversation_id or session:
                ans = self._ask_in_conversation(question, action, conversation_id, session, client_ip)
                out = ans.to_dict()
                out["conversation"] = {
                    "conversation_id": conversation_id,
                    "session": session,
                    "memory": "named" if conversation_id else "session",
                }
                return out
            context = AskContext(history=[h for h in history if isinstance(h, dict)]) if history else None
            return self.runtime.ask(question, action=action, context=context).to_dict()

    def _ask_in_conversation(
        self,
        question: str,
        action: str,
        conversation_id: str | None,
        session: str | None,
        client_ip: str | None,
    ) -> Any:
        runner = self._runner(session)
        if conversation_id:
            store = self.store()
            store.get_conversation(conversation_id, count=False)  # ConversationNotFound -> 404
            runner.store = store
        runner.client_ip = client_ip
        return runner.ask(question, action, conversation_id=conversation_id)

    def _runner(self, session: str | None) -> Any:
        """The conversation runner of ``session`` (one per session key; least recently used first out)."""
        from ctxtool.conversations.runner import ConversationRunner

        key = session or ""
        runner = self._runners.pop(key, None)
        if runner is None:
            runner = ConversationRunner(
                self.runtime,
                store=self._store,
                profile=self.runtime.ref,
                session_conversation=bool(session),  # session memory only for a named API session
                session_key=session,
                client_identifier=CLIENT_IDENTIFIER,
            )
            if len(self._runners) >= MAX_SESSIONS:
                self._runners.pop(next(iter(self._runners)))
        self._runners[key] = runner  # most recently used last
        return runner

    def store(self) -> Any:
        """The conversation store (opened on first use)."""
        if self._store is None:
            ref = self._store_ref
            if ref is not None and not isinstance(ref, str):
                self._store = ref
            else:
                from ctxtool.conversations.store import open_store

                self._store = open_store(ref)
                self._own_store = True
        return self._store

    def query(self, body: Any, *, client_ip: str | None = None) -> dict[str, Any]:
        if isinstance(body, dict):
            body = {**body, "action": "runsql"}
        return self.ask(body, client_ip=client_ip)

    def templates(self) -> dict[str, Any]:
        return {"templates": self.runtime.list_templates()}

    def schema(self) -> dict[str, Any]:
        with self._lock:
            return self.runtime.describe_schema()


def _optional_text(body: dict[str, Any], key: str) -> str | None:
    value = body.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) > 200:
        raise InputError(f"'{key}' must be a string of at most 200 characters")
    return value.strip() or None
