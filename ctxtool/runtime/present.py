"""Presenting an answer: the SQL explained in words and the rows narrated, by the language model
when one is configured, else in plain sentences from the template's filled intent."""

from __future__ import annotations

from typing import Any

from ctxtool.errors import CtxtoolError
from ctxtool.runtime.answer import Answer, jsonable, narrate
from ctxtool.runtime.llm import prompt as llmsql
from ctxtool.runtime.plan import Plan


def explain_sql(llm: Any, ans: Answer, plan: Plan, dialect: str) -> str:
    """The SQL in words: the model's explanation of its own SQL, else what the template answers."""
    if llm is not None and plan.source == "llm":
        try:
            return llmsql.explain(llm, ans.question, ans.sql or "", dialect)
        except CtxtoolError as exc:
            llm.failed(exc, ans.warnings, "explaining the SQL")
    if plan.template is not None:
        words = f'This query answers "{plan.template.filled_intent}"'
        if plan.facets:
            words += ", restricted to " + " and ".join(f'"{f.intent}"' for f in plan.facets)
        if plan.params:
            words += (
                f", with the values {', '.join(repr(jsonable(p)) for p in plan.params)} bound as parameters"
            )
        return words + "."
    return "This query was written by the language model for the question."


def narrate_answer(llm: Any, ans: Answer, plan: Plan) -> str:
    """The rows in a sentence: the model's when one is configured, else a plain one."""
    understood = plan.template.filled_intent if plan.template else None
    if llm is not None:
        try:
            return llmsql.narrate(llm, ans.question, ans.sql or "", ans.columns, ans.rows)
        except CtxtoolError as exc:
            llm.failed(exc, ans.warnings, "narrating the rows (a plain sentence is given)")
    return narrate(ans.question, understood, ans.columns, ans.rows, ans.truncated)
