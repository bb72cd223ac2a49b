"""The runtime's tools over MCP: ask, query_data, list_templates, describe_schema.

Each call names its set (``context`` file or published ``set``) and database (``dsn``), or takes the
server's defaults. The compiled set and its database session stay open between calls (one
:class:`~ctxtool.server.service.Service` per set, database and file version), so a warm call costs
what the library call costs; a set file that changed on disk is compiled again on the next call.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import Any

from ctxtool.mcp.tools import DSN, SET_PATH, Defaults, Tool, ToolError, dsn_of, schema

# the runtime's actions (ctxtool.runtime.answer.ACTIONS) but chat, written out: importing the runtime
# to list them would cost `ctxtool mcp` half a second before it can answer initialize
# (tests/test_mcp_agents.py keeps the two equal)
ASK_ACTIONS = ("runsql", "showsql", "explainsql", "narrate", "showprompt")

READS = ("context", "set")  # the file arguments of the runtime tools (see ctxtool.mcp.tools.prepare_paths)
MAX_OPEN = 8  # services kept open; the least recently used is closed beyond this
_NO_SET = "<no set>"  # describe_schema of a database alone


def set_ref(context: str | None, set_name: str | None, defaults: Defaults) -> str:
    if context and set_name:
        raise ToolError("give at most one of context (a set file) and set (a published set name)")
    ref = context or set_name or defaults.context or defaults.set
    if not ref:
        raise ToolError(
            "no context set given: pass context (a set file) or set (a published NAME[@VERSION]), or "
            "start the server with `ctxtool mcp --context FILE` / `--set NAME`"
        )
    return ref


class Services:
    """Open services keyed by (set, file version, database, store)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: OrderedDict[tuple[Any, ...], Any] = OrderedDict()

    def get(
        self,
        ref: str,
        dsn: str | None,
        store: str | None,
        conversation_store: str | None,
        model: dict[str, Any] | None = None,
        max_question: int | None = None,
    ) -> Any:
        from ctxtool.llm.settings import stderr_sink
        from ctxtool.runtime import Runtime
        from ctxtool.server.service import Service

        version = os.stat(ref).st_mtime_ns if ref != _NO_SET and os.path.isfile(ref) else None
        key = (ref, version, dsn, store)
        with self._lock:
            service = self._open.pop(key, None)
            if service is None:
                stale = [k for k in self._open if k[0] == ref and k[2:] == key[2:]]
                for k in stale:
                    _close(self._open.pop(k))
                runtime = Runtime(
                    {"templates": []} if ref == _NO_SET else ref,
                    connector=_pooled(dsn),
                    store=store,
                    model_settings=model,
                    model_log=stderr_sink,
                    max_question=max_question,
                )
                service = Service(runtime, conversation_store=conversation_store)
                while len(self._open) >= MAX_OPEN:
                    _close(self._open.popitem(last=False)[1])
            self._open[key] = service
            return service

    def get_schema(self, dsn: str) -> dict[str, Any]:
        """describe_schema of a database without a set: the tables of an empty set's runtime."""
        return self.get(_NO_SET, dsn, None, None).schema()

    def close(self) -> None:
        with self._lock:
            while self._open:
                _close(self._open.popitem()[1])


def _pooled(dsn: str | None) -> Any:
    """The runtime's database: a small pool of read-only sessions, so a session the server dropped
    (a restart, a network cut) is replaced on the next call instead of failing every call after it."""
    if not dsn:
        return None
    from ctxtool.connectors.pool import PooledConnector

    return PooledConnector(dsn, size=2, wait_timeout=5.0)


def _close(service: Any) -> None:
    service.close()
    service.runtime.close()
    if service.runtime.connector is not None:
        service.runtime.connector.close()


SERVICES = Services()
CONVERSATION_STORE: dict[str, str | None] = {"ref": None}  # `ctxtool mcp --conversation-store`


def _service(
    defaults: Defaults, context: str | None, set_name: str | None, dsn: str | None, *, need_dsn: bool = True
) -> Any:
    if defaults.service is not None and not (context or set_name or dsn):
        return defaults.service
    return SERVICES.get(
        set_ref(context, set_name, defaults),
        dsn_of(dsn, defaults, required=need_dsn),
        defaults.store,
        CONVERSATION_STORE["ref"],
        defaults.model,
        defaults.max_question_chars,
    )


def _conversation(conversation_id: str | None, session: str | None) -> dict[str, str]:
    return {k: v for k, v in (("conversation_id", conversation_id), ("session", session)) if v is not None}


def ask(
    *,
    defaults: Defaults,
    question: str,
    action: str = "runsql",
    context: str | None = None,
    set: str | None = None,  # noqa: A002 - the argument's name in the schema
    dsn: str | None = None,
    conversation_id: str | None = None,
    session: str | None = None,
    model_settings: dict[str, Any] | None = None,
) -> dict[str, Any]:
    body = {"question": question, "action": action, **_conversation(conversation_id, session)}
    if model_settings:
        body["model_settings"] = model_settings
    return _service(defaults, context, set, dsn).ask(body)


def query_data(
    *,
    defaults: Defaults,
    question: str,
    context: str | None = None,
    set: str | None = None,  # noqa: A002
    dsn: str | None = None,
    conversation_id: str | None = None,
    session: str | None = None,
    model_settings: dict[str, Any] | None = None,
) -> dict[str, Any]:
    body = {"question": question, **_conversation(conversation_id, session)}
    if model_settings:
        body["model_settings"] = model_settings
    return _service(defaults, context, set, dsn).query(body)


def list_templates(
    *,
    defaults: Defaults,
    context: str | None = None,
    set: str | None = None,  # noqa: A002
    dsn: str | None = None,
    offset: int = 0,
    limit: int = 50,
    compact: bool = False,
) -> dict[str, Any]:
    """A page of the set's templates; the set alone is enough (no database is needed to list it)."""
    templates = _service(defaults, context, set, dsn, need_dsn=False).templates()["templates"]
    page = templates[offset : offset + limit]
    if compact:
        page = [{"index": t["index"], "question": t.get("nl_query") or t["intent"]} for t in page]
    following = offset + len(page)
    return {
        "total": len(templates),
        "offset": offset,
        "limit": limit,
        "next_offset": following if following < len(templates) else None,
        "templates": page,
    }


def describe_schema(
    *,
    defaults: Defaults,
    context: str | None = None,
    set: str | None = None,  # noqa: A002
    dsn: str | None = None,
) -> dict[str, Any]:
    """The database's tables; the database alone is enough (without a set, every table is shown)."""
    if not (context or set or defaults.context or defaults.set or defaults.service is not None):
        return SERVICES.get_schema(dsn_of(dsn, defaults))
    return _service(defaults, context, set, dsn).schema()


CONVERSATION = {
    "conversation_id": {
        "type": "string",
        "maxLength": 200,
        "description": "A named conversation (see `ctxtool conversation create`): its earlier prompts resolve "
        "follow-ups such as 'break it down by region', and this prompt is stored in it.",
    },
    "session": {
        "type": "string",
        "maxLength": 200,
        "description": "A session id of your choosing: without conversation_id, the session remembers its "
        "last 10 prompts (in memory only) so follow-ups work.",
    },
}

QUESTION = {"type": "string", "minLength": 1, "description": "The question in natural language."}


def _model_settings() -> dict[str, Any]:
    from ctxtool.llm.settings import json_schema

    return json_schema()


ACTION = {
    "type": "string",
    "enum": list(ASK_ACTIONS),
    "default": "runsql",
    "description": "runsql runs the query and returns rows; showsql returns the SQL only.",
}


def where(preconfigured: bool) -> dict[str, Any]:
    """The set and database arguments (none when the server serves one set: ``serve --mcp``)."""
    if preconfigured:
        return {}
    return {
        "context": {**SET_PATH, "description": SET_PATH["description"] + " Default: the server's --context."},
        "set": {"type": "string", "description": "A published set NAME[@VERSION] instead of context."},
        "dsn": DSN,
    }


def tools(preconfigured: bool = False) -> list[Tool]:
    """The runtime tools; ``preconfigured`` drops the set/database arguments."""
    w = where(preconfigured)
    return [
        Tool(
            "ask",
            "Answer a question about the database from the context set. Returns the SQL, an explanation "
            "of how the question was understood, the rows and a short answer; or 'Did you mean' "
            "questions (status disambiguate) when it is not confident, or status declined. Use it to "
            "try the set as a user would.",
            schema(
                {
                    "question": QUESTION,
                    "action": ACTION,
                    **CONVERSATION,
                    "model_settings": _model_settings(),
                    **w,
                },
                ("question",),
            ),
            ask,
            reads=READS,
        ),
        Tool(
            "query_data",
            "Run the query that answers a question and return its rows (read-only, row-capped), with the SQL.",
            schema(
                {"question": QUESTION, **CONVERSATION, "model_settings": _model_settings(), **w},
                ("question",),
            ),
            query_data,
            reads=READS,
        ),
        Tool(
            "list_templates",
            "The questions this context set answers with curated SQL (its templates): index, intent, "
            "parameterized intent, manifest and slots, a page at a time (offset, limit; next_offset is "
            "where the next page starts, null after the last). compact gives index and question only. "
            "The set alone is enough: no database needed.",
            schema(
                {
                    **w,
                    "offset": {
                        "type": "integer",
                        "minimum": 0,
                        "default": 0,
                        "description": "First template.",
                    },
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 500,
                        "default": 50,
                        "description": "Templates per page.",
                    },
                    "compact": {
                        "type": "boolean",
                        "default": False,
                        "description": "Index and question only.",
                    },
                }
            ),
            list_templates,
            reads=READS,
        ),
        Tool(
            "describe_schema",
            "Tables, columns (types, comments) and keys of the database the set answers from. The "
            "database alone is enough (dsn, or the server's): without a set, every table is shown.",
            schema(w),
            describe_schema,
            bulky=("tables",),
            reads=READS,
        ),
    ]
