"""What both servers offer, over one Runtime: ask, query data, list templates, describe schema.

The runtime's database session is not thread-safe, so requests take turns on it (one lock).
"""

from __future__ import annotations

import threading
from typing import Any

from ctxtool.errors import InputError
from ctxtool.runtime import ACTIONS, AskContext, Runtime


class Service:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self._lock = threading.Lock()

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
        }

    def ask(self, body: Any) -> dict[str, Any]:
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
            raise InputError("'history' must be a list of {role, content}")
        context = AskContext(history=[h for h in history if isinstance(h, dict)]) if history else None
        with self._lock:
            return self.runtime.ask(question, action=action, context=context).to_dict()

    def query(self, body: Any) -> dict[str, Any]:
        if isinstance(body, dict):
            body = {**body, "action": "runsql"}
        return self.ask(body)

    def templates(self) -> dict[str, Any]:
        return {"templates": self.runtime.list_templates()}

    def schema(self) -> dict[str, Any]:
        with self._lock:
            return self.runtime.describe_schema()
