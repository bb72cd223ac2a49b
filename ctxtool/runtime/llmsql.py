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
from ctxtool.runtime.compiled import Compiled

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
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
    for turn in history[-10:]:
        if isinstance(turn, dict) and turn.get("role") in ("user", "assistant") and turn.get("content"):
            messages.append({"role": turn["role"], "content": str(turn["content"])})
    messages.append({"role": "user", "content": question})
    return messages


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
        reply = client.chat(convo, tools=[SQL_TOOL], tool_choice="auto", temperature=0)
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
        temperature=0,
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
        temperature=0,
    )
    text = (reply.content or "").strip()
    if not text:
        raise CtxtoolError("the model returned an empty answer")
    return text
