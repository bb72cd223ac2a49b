"""What both servers offer, over one Runtime: ask, query data, list templates, describe schema.

A request may name a conversation: ``conversation_id`` (a named, stored conversation: its history
resolves follow-ups and the prompt is stored) and/or ``session`` (an API session: with no named
conversation, the session's memory of its last 10 prompts is used, never stored). Each session key
(and each named conversation asked without a session) has its own
:class:`ctxtool.conversations.ConversationRunner`; prompts are recorded with the client identifier
"ctxtool serve" and the client's IP address.

Requests run side by side on several threads. The compiled set is shared read-only; each request
reads the served runtime once (a hot reload swaps it in one assignment, so a request sees one
version throughout); the database statements run on pooled sessions
(:class:`ctxtool.connectors.pool.PooledConnector`). What must stay in order is ordered by its own
lock: the turns of one session or conversation, and the shared session memory of ``--session-memory``.
A runtime on one plain connector (not thread-safe) still has its requests take turns on it.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from ctxtool.errors import DatabaseError, InputError
from ctxtool.limits import checked_question
from ctxtool.runtime import ACTIONS, AskContext, Runtime

CLIENT_IDENTIFIER = "ctxtool serve"
MAX_SESSIONS = 1000  # the least recently used session memories are dropped beyond this
READY_TIMEOUT = 2.0  # seconds each readiness check may take
HEALTH_TIMEOUT = 1.0  # seconds /health waits for the database's answer


class _Runner:
    """A conversation runner and the lock that keeps its turns in order."""

    __slots__ = ("runner", "lock")

    def __init__(self, runner: Any) -> None:
        self.runner = runner
        self.lock = threading.Lock()


class Service:
    def __init__(self, runtime: Runtime, *, conversation_store: Any = None, set_version: Any = None) -> None:
        """``conversation_store``: an open ``ConversationStore``, or a DSN / SQLite path, or None for
        the default store (opened when a request first names a conversation). ``set_version``: the
        published :class:`ctxtool.store.SetVersion` the runtime answers from (shown by /health)."""
        self._served: tuple[Runtime, Any] = (runtime, set_version)
        self._one_session = threading.Lock()  # only for a runtime on a connector that is not thread-safe
        self._profile_memory = threading.Lock()  # the runtime's own session memory (--session-memory)
        self._store_ref = conversation_store
        self._store: Any = None
        self._store_lock = threading.Lock()
        self._own_store = False
        self._spare_stores: list[Any] = []  # conversation stores between two requests
        self._runners: OrderedDict[str, _Runner] = OrderedDict()  # session key -> runner, LRU last
        self._runners_lock = threading.Lock()
        self.follower: Any = None  # a ctxtool.server.follow.SetFollower when the server follows the store
        self.started = time.time()

    @property
    def runtime(self) -> Runtime:
        """The runtime answering now (read it once per request)."""
        return self._served[0]

    def swap(self, runtime: Runtime, set_version: Any = None) -> None:
        """Serve ``runtime`` from the next request on (one assignment: requests in flight keep theirs)."""
        self._served = (runtime, set_version)

    def close(self) -> None:
        if self.follower is not None:
            self.follower.stop()
        with self._store_lock:
            spare, self._spare_stores = self._spare_stores, []
            primary, self._store = self._store, None
        for store in spare:
            store.close()
        if self._own_store and primary is not None:
            primary.close()

    def _turns(self, rt: Runtime) -> Any:
        """The lock a request on ``rt`` takes around its database work: none on a pooled connector."""
        connector = rt.connector
        return (
            nullcontext()
            if connector is None or getattr(connector, "thread_safe", False)
            else self._one_session
        )

    def _ping(self, rt: Runtime, timeout: float) -> None:
        """Raise unless the database answers ``SELECT 1`` within about ``timeout`` seconds."""
        connector = rt.connector
        if connector is None:
            raise DatabaseError("no database is configured")
        ping = getattr(connector, "ping", None)
        if callable(ping):
            ping(timeout)
            return
        with self._turns(rt):
            connector.query("SELECT 1")

    def health(self) -> dict[str, Any]:
        """Liveness (always answers) and what is served; ``database``: whether the database answered
        ``SELECT 1`` within :data:`HEALTH_TIMEOUT` seconds just now (``database_error`` says why not)."""
        rt, version = self._served
        out = {
            "status": "ok",
            "set": rt.ref,
            "version": getattr(version, "version", None),
            "content_hash": getattr(version, "content_hash", None),
            "dialect": rt.dialect,
            "templates": len(rt.templates),
            "facets": len(rt.facets),
            "value_searches": len(rt.linker.value_searches),
            "database": False,
            "session_memory": bool(getattr(rt, "conversation", False)),
            "pid": os.getpid(),
            "uptime_s": round(time.time() - self.started, 1),
        }
        try:  # a cheap query, a short timeout: what the server says about its database is true
            self._ping(rt, HEALTH_TIMEOUT)
            out["database"] = True
        except Exception as exc:  # noqa: BLE001 - health reports the failure, never raises
            out["database_error"] = _first_line(exc)
        if self.follower is not None:
            out["follow"] = self.follower.status()
        stats = getattr(rt.connector, "stats", None)
        if callable(stats):
            out["pool"] = stats()
        return out

    def ready(self) -> tuple[bool, dict[str, Any]]:
        """Whether this server can answer: the database, the conversation store and the set store
        respond. ``(ready, {"set": ..., "checks": {name: {"ok": bool, "error"?: str}}})``."""
        rt, _ = self._served
        checks: dict[str, dict[str, Any]] = {}

        def check(name: str, probe: Any) -> None:
            t = time.perf_counter()
            try:
                probe()
                checks[name] = {"ok": True}
            except Exception as exc:  # noqa: BLE001 - readiness reports every failure, never raises
                checks[name] = {"ok": False, "error": _first_line(exc)}
            checks[name]["ms"] = round((time.perf_counter() - t) * 1000, 1)

        if rt.connector is not None:
            check("database", lambda: self._ping(rt, READY_TIMEOUT))

        def conversation_store() -> None:
            with self._leased_store(True) as store:
                store.get_current("ctxtool-ready-probe")

        check("conversation_store", conversation_store)
        if self.follower is not None:
            error = self.follower.error
            checks["set_store"] = {"ok": error is None, **({"error": error} if error else {})}
        ok = all(c["ok"] for c in checks.values())
        return ok, {"status": "ready" if ok else "not ready", "set": rt.ref, "checks": checks}

    def ask(self, body: Any, *, client_ip: str | None = None) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise InputError("the request body must be a JSON object with a 'question'")
        question = body.get("question")
        if not isinstance(question, str) or not question.strip():
            raise InputError("'question' must be a non-empty string")
        rt = self.runtime  # this request's version, whatever a reload does meanwhile
        question = checked_question(question, getattr(rt, "max_question_chars", None))
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
        from ctxtool.llm.settings import requested

        settings = body.get("model_settings")
        if settings is not None and not isinstance(settings, dict):
            raise InputError("'model_settings' must be an object (temperature, max_tokens, ..., messages)")
        with self._turns(rt), requested(settings):
            if conversation_id or session:
                ans = self._ask_in_conversation(rt, question, action, conversation_id, session, client_ip)
                out = ans.to_dict()
                out["conversation"] = {
                    "conversation_id": conversation_id,
                    "session": session,
                    "memory": "named" if conversation_id else "session",
                }
                return out
            context = AskContext(history=[h for h in history if isinstance(h, dict)]) if history else None
            memory = self._profile_memory if rt.conversation and context is None else nullcontext()
            with memory:  # one shared session memory: its turns are taken in order
                return rt.ask(question, action=action, context=context).to_dict()

    def _ask_in_conversation(
        self,
        rt: Runtime,
        question: str,
        action: str,
        conversation_id: str | None,
        session: str | None,
        client_ip: str | None,
    ) -> Any:
        entry = self._runner(rt, session, conversation_id)
        with self._leased_store(bool(conversation_id) or self._store is not None) as store:
            if conversation_id:
                store.get_conversation(conversation_id, count=False)  # ConversationNotFound -> 404
            with entry.lock:  # one turn at a time per session / conversation; others run meanwhile
                runner = entry.runner
                if runner.runtime is not rt:  # a new version was published: its memory starts afresh
                    runner.runtime = rt
                    runner.profile = rt.ref
                runner.client_ip = client_ip
                if store is None:
                    return runner.ask(question, action, conversation_id=conversation_id)
                runner.store = store
                try:
                    return runner.ask(question, action, conversation_id=conversation_id)
                finally:
                    runner.store = self._store

    @contextmanager
    def _leased_store(self, needed: bool) -> Iterator[Any]:
        """The conversation store for one request. A store the service opened itself (from a DSN or
        a path) has one connection, so requests get one each from a small stock of them, opened on
        demand (at most one per request thread) and dropped when their database connection failed:
        conversations are written side by side and a restarted store database is reconnected."""
        if not needed:
            yield None
            return
        primary = self.store()
        if not self._own_store:
            yield primary
            return
        with self._store_lock:
            store = self._spare_stores.pop() if self._spare_stores else None
        if store is None:
            from ctxtool.conversations.store import open_store

            store = open_store(self._store_ref, auto_purge=False)
        dead: list[Any] = []
        try:
            yield store
        except DatabaseError:  # its database went away: so did the others' connections, likely
            with self._store_lock:
                dead, self._spare_stores = [store, *self._spare_stores], []
            raise
        finally:  # given back after a 404 or a bad request too
            if not dead:
                with self._store_lock:
                    if self._store is not None:
                        self._spare_stores.append(store)
                    else:  # the service was closed meanwhile
                        dead = [store]
            for other in dead:
                other.close()

    def _runner(self, rt: Runtime, session: str | None, conversation_id: str | None) -> _Runner:
        """The runner of ``session``, else of the named conversation (least recently used first out)."""
        from ctxtool.conversations.runner import ConversationRunner

        key = f"s:{session}" if session else f"c:{conversation_id}"
        with self._runners_lock:
            entry = self._runners.pop(key, None)
            if entry is None:
                entry = _Runner(
                    ConversationRunner(
                        rt,
                        store=self._store,
                        profile=rt.ref,
                        session_conversation=bool(session),  # session memory only for a named API session
                        session_key=session,
                        client_identifier=CLIENT_IDENTIFIER,
                    )
                )
                if len(self._runners) >= MAX_SESSIONS:
                    self._runners.popitem(last=False)
            self._runners[key] = entry  # most recently used last
            return entry

    def store(self) -> Any:
        """The conversation store (opened on first use; stores lock their own connection)."""
        if self._store is None:
            with self._store_lock:
                if self._store is None:
                    ref = self._store_ref
                    if ref is not None and not isinstance(ref, str):
                        self._store = ref
                    else:
                        from ctxtool.conversations.store import open_store

                        self._store = open_store(ref)
                        self._own_store = True
        return self._store

    def feedback(self, body: Any, *, client_ip: str | None = None) -> dict[str, Any]:
        """``POST /feedback``: right or wrong on an answer (a stored ``prompt_id``, or the ``question``
        and its ``sql``), with an optional ``corrected_sql`` and ``comment``."""
        from ctxtool.conversations.feedback import record_feedback

        if not isinstance(body, dict):
            raise InputError("the request body must be a JSON object with 'feedback' (positive or negative)")
        kind = body.get("feedback")
        if not isinstance(kind, str):
            raise InputError("'feedback' must be positive or negative")
        prompt_id = body.get("prompt_id")
        if prompt_id is not None and (not isinstance(prompt_id, int) or isinstance(prompt_id, bool)):
            raise InputError("'prompt_id' must be an integer (the answer's conversation_prompt_id)")
        fields = {}
        for key in ("question", "sql", "corrected_sql", "comment"):
            value = body.get(key)
            if value is not None and (not isinstance(value, str) or len(value) > 20_000):
                raise InputError(f"'{key}' must be a string of at most 20,000 characters")
            fields[key] = value.strip() if isinstance(value, str) and value.strip() else None
        params = body.get("params") or []
        if not isinstance(params, list):
            raise InputError("'params' must be the answer's list of parameters")
        rt = self.runtime
        with self._leased_store(True) as store:
            fb = record_feedback(
                store, kind, prompt_id=prompt_id, params=params, dialect=rt.dialect, set_ref=rt.ref, **fields
            )
        return fb.to_dict()

    def query(self, body: Any, *, client_ip: str | None = None) -> dict[str, Any]:
        if isinstance(body, dict):
            body = {**body, "action": "runsql"}
        return self.ask(body, client_ip=client_ip)

    def templates(self) -> dict[str, Any]:
        return {"templates": self.runtime.list_templates()}

    def schema(self) -> dict[str, Any]:
        rt = self.runtime
        with self._turns(rt):
            return rt.describe_schema()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _optional_text(body: dict[str, Any], key: str) -> str | None:
    value = body.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) > 200:
        raise InputError(f"'{key}' must be a string of at most 200 characters")
    return value.strip() or None
