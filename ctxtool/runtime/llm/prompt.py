"""Questions no template covers, written by a language model with the set's help.

The prompt carries the relevant schema, the most similar templates as examples and the linked
values. The model answers with a ``run_sql`` tool call or JSON ``{"sql": ...}``; the SQL is accepted
only if it is one read-only SELECT over allowed objects that the database can plan, and the model
gets one retry with the error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from ctxtool.errors import CtxtoolError
from ctxtool.runtime.answer import jsonable
from ctxtool.runtime.templates.compiled import Compiled

SQL_TOOL = {
    "type": "function",
    "function": {
        "name": "run_sql",
        "description": "Run one read-only SELECT statement that answers the user's question.",
        "parameters": {
            "type": "object",
            "properties": {
                "sql": {"type": "string", "description": "One SELECT statement in the database's dialect."},
                "explanation": {"type": "string", "description": "One sentence: what the query computes."},
            },
            "required": ["sql"],
        },
    },
}

_DIALECT_NAMES = {"postgres": "PostgreSQL", "mysql": "MySQL 8", "spanner": "Spanner GoogleSQL"}


def _schema_text(schema: dict[str, Any], relevant: set[str]) -> str:
    tables = schema.get("tables", [])
    if len(tables) > 15 and relevant:
        tables = [t for t in tables if t["name"].lower() in relevant] or tables[:15]
    lines = []
    for t in tables:
        cols = ", ".join(
            f"{c['name']} {c.get('type') or ''}".strip() + (f" -- {c['comment']}" if c.get("comment") else "")
            for c in t.get("columns", [])
        )
        fks = "; ".join(
            f"({', '.join(fk.get('columns') or [])}) -> {fk.get('ref_table')}({', '.join(fk.get('ref_columns') or [])})"
            for fk in t.get("foreign_keys") or []
        )
        line = f"- {t['name']}({cols})"
        if fks:
            line += f" foreign keys: {fks}"
        if t.get("comment"):
            line += f" -- {t['comment']}"
        lines.append(line)
    return "\n".join(lines) or "(schema unavailable)"


def build_messages(
    question: str,
    dialect: str,
    schema: dict[str, Any],
    examples: Sequence[Compiled],
    links: Sequence[dict[str, Any]],
    *,
    history: Sequence[dict[str, Any]] = (),
    allowed: set[str] | None = None,
) -> list[dict[str, Any]]:
    """The chat messages for writing SQL (also what ``showprompt`` shows)."""
    relevant = set()
    for ex in examples:
        relevant |= ex.tables
    for lv in links:
        relevant.add(str(lv.get("column", "")).split(".")[0].lower())
    system = (
        f"You write SQL for a {_DIALECT_NAMES.get(dialect, dialect)} database. Answer with exactly one "
        "read-only SELECT statement (no INSERT/UPDATE/DELETE/DDL, no multiple statements) by calling the "
        'run_sql tool, or reply with JSON {"sql": "..."}. Use only the tables below'
        + (f" ({', '.join(sorted(allowed))})" if allowed else "")
        + ". Quote identifiers that are upper case or mixed case. Use the stored values given for the "
        "question's phrases exactly as written.\n\nSchema:\n" + _schema_text(schema, relevant)
    )
    if examples:
        system += "\n\nExamples of questions and their SQL:\n" + "\n".join(
            f"Q: {ex.data.get('nl_query') or ex.intent}\nSQL: {ex.concrete_sql or ex.sql}" for ex in examples
        )
    if links:
        system += "\n\nValues found in the database for phrases of the question:\n" + "\n".join(
            f"- {lv['phrase']!r} means {json.dumps(jsonable(lv['value']))} in {lv['column']} ({lv['concept_type']})"
            for lv in links
        )
    # chat vectorization's past events asked "before the main prompt" come first
    before = [m for m in history if isinstance(m, dict) and m.get("position") == "before_main"]
    rest = [m for m in history if not (isinstance(m, dict) and m.get("position") == "before_main")]
    messages = [*history_for_model(before), {"role": "system", "content": system}]
    messages.extend(history_for_model(rest))
    messages.append({"role": "user", "content": question})
    return messages


MAX_HISTORY_MESSAGES = 40  # 10 turns of prompt, tool call, tool result and answer


def history_for_model(history: Sequence[Any], limit: int = MAX_HISTORY_MESSAGES) -> list[dict[str, Any]]:
    """The conversation's messages as the protocol takes them, in order: user and assistant text,
    system messages (chat vectorization's "Past events"), assistant ``tool_calls`` and the ``tool``
    results answering them (``tool_call_id`` and ``name`` kept). Only the last ``limit`` messages go
    (system messages not counted);
    a tool result whose call was cut off (or never made) is dropped, since providers reject it."""
    kept: list[dict[str, Any]] = []
    for turn in history:
        if not isinstance(turn, dict):
            continue
        role = turn.get("role")
        content = turn.get("content")
        text = None if content is None else content if isinstance(content, (str, list)) else str(content)
        calls = turn.get("tool_calls") if role == "assistant" else None
        if role == "tool":
            if not turn.get("tool_call_id"):
                continue
            msg = {"role": "tool", "tool_call_id": str(turn["tool_call_id"]), "content": text or ""}
            if turn.get("name"):
                msg["name"] = str(turn["name"])
        elif role in ("user", "assistant", "system") and (text or calls):
            msg = {"role": role, "content": text or ""}  # a string, never null (see history.py)
            if calls:
                msg["tool_calls"] = [c for c in calls if isinstance(c, dict) and c.get("id")]
                if not msg["tool_calls"]:
                    if not text:
                        continue
                    del msg["tool_calls"]
        else:
            continue
        kept.append(msg)
    # the last ``limit`` messages of the chat; system messages (past events) do not count and are kept
    start, counted = len(kept), 0
    while start > 0 and (kept[start - 1]["role"] == "system" or counted < limit):
        start -= 1
        counted += kept[start]["role"] != "system"
    kept = kept[start:]
    out: list[dict[str, Any]] = []
    open_calls: set[str] = set()
    for msg in kept:
        if msg["role"] == "tool":
            if msg["tool_call_id"] not in open_calls:
                continue
        elif msg.get("tool_calls"):
            open_calls = {c["id"] for c in msg["tool_calls"]}
        out.append(msg)
    # a call must be followed by its results: drop the calls nobody answered
    for i, msg in enumerate(out):
        if msg.get("tool_calls"):
            answered = set()
            for later in out[i + 1 :]:
                if later["role"] != "tool":
                    break
                answered.add(later["tool_call_id"])
            msg["tool_calls"] = [c for c in msg["tool_calls"] if c["id"] in answered]
            if not msg["tool_calls"]:
                del msg["tool_calls"]
    return [m for m in out if m.get("content") or m.get("tool_calls") or m["role"] == "tool"]


_FENCE = re.compile(r"```(?:sql)?\s*(.*?)```", re.S | re.I)


def sql_of_reply(reply: Any) -> str | None:
    """The SQL in a reply: a ``run_sql`` tool call, JSON ``{"sql": ...}`` or a fenced SQL block."""
    for call in getattr(reply, "tool_calls", None) or []:
        if isinstance(call.arguments, dict) and isinstance(call.arguments.get("sql"), str):
            return call.arguments["sql"].strip()
    content = (getattr(reply, "content", None) or "").strip()
    if not content:
        return None
    try:
        data = reply.json()
    except Exception:
        data = None
    if isinstance(data, dict) and isinstance(data.get("sql"), str):
        return data["sql"].strip()
    m = _FENCE.search(content)
    if m:
        return m.group(1).strip()
    if re.match(r"(?is)\s*(select|with)\b", content):
        return content
    return None


def generate_sql(
    client: Any, messages: list[dict[str, Any]], check: Callable[[str], None], *, retries: int = 1
) -> tuple[str | None, list[str]]:
    """Ask for SQL; check it; retry ``retries`` times with the error. Returns (accepted SQL or None,
    the errors met)."""
    errors: list[str] = []
    convo = list(messages)
    for _attempt in range(retries + 1):
        reply = client.chat(convo, tools=[SQL_TOOL], tool_choice="auto")
        sql = sql_of_reply(reply)
        if sql is None:
            error = 'the reply holds no SQL (call run_sql or reply with JSON {"sql": ...})'
        else:
            sql = sql.rstrip().rstrip(";").strip()
            try:
                check(sql)
                return sql, errors
            except CtxtoolError as exc:
                error = str(exc)
        errors.append(error)
        convo.append(reply.message())
        feedback = f"That SQL was rejected: {error}. Reply with one corrected read-only SELECT."
        calls = getattr(reply, "tool_calls", None) or []
        if calls:
            from ctxtool.llm import tool_result_message

            for call in calls:
                convo.append(tool_result_message(call, feedback))
        else:
            convo.append({"role": "user", "content": feedback})
    return None, errors


def explain(client: Any, question: str, sql: str, dialect: str) -> str:
    reply = client.chat(
        [
            {"role": "system", "content": "Explain in two plain sentences what this SQL computes."},
            {"role": "user", "content": f"Question: {question}\nSQL ({dialect}):\n{sql}"},
        ],
    )
    return (reply.content or "").strip()


def narrate(client: Any, question: str, sql: str, columns: list[str], rows: list[list[Any]]) -> str:
    shown = [dict(zip(columns, jsonable(r), strict=False)) for r in rows[:20]]
    reply = client.chat(
        [
            {
                "role": "system",
                "content": "Answer the question in one or two sentences from the query result only. "
                "Say 'no data found' when the result is empty.",
            },
            {
                "role": "user",
                "content": f"Question: {question}\nSQL: {sql}\nResult ({len(rows)} rows): {json.dumps(shown)}",
            },
        ],
    )
    text = (reply.content or "").strip()
    if not text:
        raise CtxtoolError("the model returned an empty answer")
    return text
