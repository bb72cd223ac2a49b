"""The OpenAPI 3.1 document of the HTTP API (served at ``/openapi.json``, copied to docs/openapi.json)."""

from __future__ import annotations

from typing import Any

from ctxtool import __version__
from ctxtool.runtime.answer import ACTIONS


def _json(schema: dict[str, Any], description: str = "OK") -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


ERROR = {"$ref": "#/components/schemas/Error"}


CONVERSATION_ID = {
    "type": "string",
    "description": "Answer within this named conversation (`ctxtool conversation create`): its last "
    'conversation_length prompts resolve follow-ups ("break it down by frequency"), and the prompt is '
    'stored with the client identifier "ctxtool serve" and the client\'s IP. Unknown: 404.',
}
SESSION = {
    "type": "string",
    "maxLength": 200,
    "description": "An API session id of the client's choosing. Without conversation_id, the session keeps "
    "its last 10 prompts in memory (never stored) so follow-ups resolve; each session has its own memory.",
}


HEALTH = {
    "type": "object",
    "properties": {
        "status": {"const": "ok"},
        "set": {"type": "string", "description": "NAME@VERSION or the file served"},
        "version": {"type": ["integer", "null"], "description": "The published version served"},
        "content_hash": {"type": ["string", "null"]},
        "dialect": {"type": "string"},
        "templates": {"type": "integer"},
        "facets": {"type": "integer"},
        "value_searches": {"type": "integer"},
        "database": {
            "type": "boolean",
            "description": "Whether the database answered SELECT 1 within a second, just now",
        },
        "database_error": {"type": "string", "description": "Why the database did not answer"},
        "pid": {"type": "integer", "description": "The worker process that answered"},
        "follow": {"type": "object", "description": "With --set NAME: the last look at the set store"},
        "pool": {"type": "object", "description": "Database sessions: size, open, idle"},
    },
}
READY = {
    "type": "object",
    "properties": {
        "status": {"enum": ["ready", "not ready"]},
        "set": {"type": "string"},
        "checks": {
            "type": "object",
            "description": "database, conversation_store and (with --set NAME) set_store",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "ok": {"type": "boolean"},
                    "error": {"type": "string"},
                    "ms": {"type": "number"},
                },
            },
        },
    },
}


def document() -> dict[str, Any]:
    from ctxtool.llm.settings import json_schema as model_json_schema

    ask_body = {
        "type": "object",
        "required": ["question"],
        "properties": {
            "question": {"type": "string", "description": "The question in natural language."},
            "action": {"type": "string", "enum": list(ACTIONS), "default": "runsql"},
            "conversation_id": CONVERSATION_ID,
            "session": SESSION,
            "model_settings": model_json_schema(),
            "history": {
                "type": "array",
                "description": "Earlier chat messages, oldest first, sent to the language model (not with "
                "conversation_id or session, which keep their own history). Tool results need tool_call_id.",
                "items": {
                    "type": "object",
                    "properties": {
                        "role": {"type": "string", "enum": ["system", "user", "assistant", "tool"]},
                        "content": {"type": ["string", "null"]},
                        "tool_calls": {"type": "array", "items": {"type": "object"}},
                        "tool_call_id": {"type": "string"},
                        "name": {"type": "string"},
                    },
                    "required": ["role"],
                },
            },
        },
    }
    answer = {
        "type": "object",
        "required": ["question", "action", "status"],
        "properties": {
            "question": {"type": "string"},
            "action": {"type": "string", "enum": list(ACTIONS)},
            "status": {"type": "string", "enum": ["answered", "disambiguate", "declined", "error"]},
            "source": {"type": ["string", "null"], "enum": ["template", "llm", "followup", "model", None]},
            "sql": {
                "type": ["string", "null"],
                "description": "The SQL, with placeholders; values are in params.",
            },
            "params": {
                "type": "array",
                "description": "Parameter values bound to the placeholders, in order.",
            },
            "dialect": {"type": "string"},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "template": {
                "type": ["object", "null"],
                "description": "The template used (index, intent, score, filled intent).",
            },
            "facets": {"type": "array", "items": {"type": "object"}},
            "linked_values": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "phrase": {"type": "string"},
                        "value": {},
                        "column": {"type": "string"},
                        "concept_type": {"type": "string"},
                        "distance": {"type": "number"},
                    },
                },
            },
            "bindings": {"type": "object"},
            "explanation": {
                "type": "string",
                "description": "Which template, facets and values were used, and why.",
            },
            "columns": {"type": "array", "items": {"type": "string"}},
            "rows": {"type": "array", "items": {"type": "array"}},
            "truncated": {"type": "boolean", "description": "The row cap cut the result."},
            "executed": {"type": "boolean"},
            "text": {"type": "string", "description": "The natural-language answer."},
            "disambiguation": {
                "type": "array",
                "items": {"type": "string"},
                "description": '"Did you mean ...?" questions.',
            },
            "error": {"type": ["string", "null"]},
            "warnings": {"type": "array", "items": {"type": "string"}},
            "timings_ms": {"type": "object"},
            "model_calls": {
                "type": "array",
                "items": {"type": "object"},
                "description": "The model calls made, at the message level debug or detailed.",
            },
            "conversation": {
                "type": "object",
                "description": "Present when the request named a conversation or a session.",
                "properties": {
                    "conversation_id": {"type": ["string", "null"]},
                    "session": {"type": ["string", "null"]},
                    "memory": {"type": "string", "enum": ["named", "session"]},
                },
            },
        },
    }
    refused = {  # what a question request is refused for (ctxtool.limits, ctxtool.server.guard)
        "400": _json(
            ERROR,
            "Bad request: not JSON, nested deeper than 64 levels, not UTF-8, "
            "a question over the maximum length (2,000 characters by default)",
        ),
        "403": _json(ERROR, "A browser's cross-origin request (a foreign Origin)"),
        "413": _json(ERROR, "The body is over 1 MiB"),
        "415": _json(ERROR, "The body is not sent as application/json"),
        "421": _json(ERROR, "The Host header names no address this server answers for"),
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "ctxtool runtime",
            "version": __version__,
            "description": "Answer questions in natural language from a context set (templates, facets, value "
            "searches) against a read-only database session. Start it with `ctxtool serve`.",
        },
        "servers": [{"url": "http://127.0.0.1:8765"}],
        "paths": {
            "/health": {
                "get": {
                    "summary": "Liveness and which set is served (no token needed)",
                    "operationId": "health",
                    "responses": {"200": _json(HEALTH)},
                }
            },
            "/ready": {
                "get": {
                    "summary": "Readiness: the database, the conversation store and the set store answer "
                    "(no token needed)",
                    "operationId": "ready",
                    "responses": {
                        "200": _json(READY, "Ready to answer"),
                        "503": _json(READY, "Not ready: see the failed checks"),
                    },
                }
            },
            "/ask": {
                "post": {
                    "summary": "Answer a question with an action (runsql, showsql, explainsql, narrate, chat, showprompt)",
                    "operationId": "ask",
                    "requestBody": {"required": True, "content": {"application/json": {"schema": ask_body}}},
                    "responses": {
                        "200": _json({"$ref": "#/components/schemas/Answer"}, "The answer; see its status"),
                        **refused,
                        "401": _json(ERROR, "Missing or wrong bearer token"),
                        "404": _json(ERROR, "No conversation with that conversation_id"),
                        "503": _json(ERROR, "The database does not answer (or no session is free)"),
                    },
                }
            },
            "/query": {
                "post": {
                    "summary": "Query data: the rows answering a question (runsql), with the SQL",
                    "operationId": "queryData",
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "required": ["question"],
                                    "properties": {
                                        "question": {"type": "string"},
                                        "conversation_id": CONVERSATION_ID,
                                        "session": SESSION,
                                        "model_settings": model_json_schema(),
                                    },
                                }
                            }
                        },
                    },
                    "responses": {
                        "200": _json({"$ref": "#/components/schemas/Answer"}),
                        **refused,
                        "404": _json(ERROR, "No conversation with that conversation_id"),
                        "503": _json(ERROR, "The database does not answer (or no session is free)"),
                    },
                }
            },
            "/feedback": {
                "post": {
                    "summary": "Feedback on an answer: positive, or negative with a corrected SQL or a comment",
                    "operationId": "feedback",
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "required": ["feedback"],
                                    "properties": {
                                        "feedback": {"type": "string", "enum": ["positive", "negative"]},
                                        "prompt_id": {
                                            "type": "integer",
                                            "description": "The answer's conversation_prompt_id (a stored prompt).",
                                        },
                                        "question": {
                                            "type": "string",
                                            "description": "Else the question asked.",
                                        },
                                        "sql": {
                                            "type": "string",
                                            "description": "And the SQL it was answered with.",
                                        },
                                        "corrected_sql": {"type": "string"},
                                        "comment": {"type": "string"},
                                    },
                                }
                            }
                        },
                    },
                    "responses": {
                        "200": _json({"type": "object"}),
                        "400": _json(ERROR, "Bad request"),
                        "404": _json(ERROR, "No prompt with that prompt_id"),
                    },
                }
            },
            "/templates": {
                "get": {
                    "summary": "The templates of the set (intent, parameterized intent, manifest, slots)",
                    "operationId": "listTemplates",
                    "responses": {
                        "200": _json({"type": "object", "properties": {"templates": {"type": "array"}}})
                    },
                }
            },
            "/schema": {
                "get": {
                    "summary": "Tables, columns, keys and comments of the database",
                    "operationId": "describeSchema",
                    "responses": {"200": _json({"type": "object"}), "400": _json(ERROR)},
                }
            },
            "/openapi.json": {
                "get": {
                    "summary": "This document",
                    "operationId": "openapi",
                    "responses": {"200": _json({"type": "object"})},
                }
            },
        },
        "components": {
            "schemas": {
                "Answer": answer,
                "Error": {
                    "type": "object",
                    "required": ["error"],
                    "properties": {
                        "error": {
                            "type": "object",
                            "properties": {"code": {"type": "integer"}, "message": {"type": "string"}},
                        }
                    },
                },
            },
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }
