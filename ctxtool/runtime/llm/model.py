"""The language-model stage of the runtime: for a question no template covers, the model writes SQL
from the schema, the closest templates and the linked values; that SQL must be one read-only SELECT
over the allowed objects that the database accepts (planned, not run) before it becomes a plan. Also
the ``chat`` action (the model answers in words, no SQL) and the prompt ``showprompt`` prints."""

from __future__ import annotations

from typing import Any

from ctxtool import gate
from ctxtool.errors import CtxtoolError, DatabaseError, InputError
from ctxtool.runtime.answer import Answer
from ctxtool.runtime.llm import prompt as llmsql
from ctxtool.runtime.matching.candidate import Candidate
from ctxtool.runtime.plan import Plan


class ModelRequired(CtxtoolError):
    """An action that needs a language model was asked for without one."""


def messages(
    rt: Any, question: str, cands: list[Candidate], links: list[dict[str, Any]], history: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The chat messages asking ``rt``'s model for the SQL of ``question``."""
    examples = [c.template for c in cands[:3]]
    if len(examples) < 3:
        extra = rt.matcher.closest(question, 3)
        for i in extra:
            if rt.templates[i] not in examples:
                examples.append(rt.templates[i])
    try:
        schema = rt.describe_schema()
    except CtxtoolError:
        schema = {"dialect": rt.dialect, "tables": []}
    return llmsql.build_messages(
        question, rt.dialect, schema, examples[:3], links, history=history, allowed=rt.allowed_objects()
    )


def check_sql(rt: Any, sql: str) -> None:
    """Raise :class:`~ctxtool.gate.GateRefused` unless ``sql`` is one read-only query with allowed
    functions (the gate every statement passes), :class:`InputError` unless it reads only allowed
    objects and the database can plan it."""
    # a model's SQL is read with the SQL parser: it loads when a model writes SQL, not for every answer
    from ctxtool.runtime.templates import sqlparts

    gate.require(sql, rt.dialect)
    sqlparts.check_allowed_objects(sql, rt.dialect, rt.allowed_objects())
    if rt.connector is not None:
        try:
            rt.connector.plan(sql)
        except gate.GateRefused:
            raise
        except DatabaseError as exc:
            raise InputError(f"the database rejects it: {exc}") from None


def plan(
    rt: Any,
    question: str,
    cands: list[Candidate],
    links: list[dict[str, Any]],
    history: list[dict[str, Any]],
    ans: Answer,
) -> Plan | None:
    """The model's SQL as a plan (no parameters), or None (its failures become warnings)."""
    prompt = messages(rt, question, cands, links, history)
    model = rt.llm
    try:
        sql, errors = llmsql.generate_sql(
            model, prompt, lambda s: check_sql(rt, s), retries=model.settings.sql_retries
        )
    except CtxtoolError as exc:
        model.failed(exc, ans.warnings, "writing SQL")  # raises at the error level "fail"
        return None
    for e in errors:
        ans.warnings.append(f"model SQL rejected: {e}")
    if sql is None:
        return None
    return Plan(
        sql,
        [],
        "llm",
        0.0,
        "no template covers the question; the language model wrote the SQL from the schema, "
        f"{min(3, len(rt.templates))} similar templates and {len(links)} linked value(s); it passed the "
        "read-only and allowed-objects checks",
    )


def chat(llm: Any, question: str, history: list[dict[str, Any]], ans: Answer) -> Answer:
    """The ``chat`` action: the model's reply in words, with the conversation's history."""
    if llm is None:
        raise ModelRequired(
            "the chat action needs a language model: set CTXTOOL_LLM_BASE_URL and CTXTOOL_LLM_MODEL "
            "(e.g. http://localhost:11434/v1 for Ollama)"
        )
    try:
        reply = llm.chat([*llmsql.history_for_model(history), {"role": "user", "content": question}])
    except CtxtoolError as exc:
        llm.failed(exc, ans.warnings, "answering")  # raises at the error level "fail"
        if llm.settings.errors == "handle":
            ans.status = "error"
            ans.error = f"the language model failed: {exc}"
        ans.source = "model"
        return ans
    ans.status = "answered"
    ans.source = "model"
    ans.text = reply.content or ""
    return ans
