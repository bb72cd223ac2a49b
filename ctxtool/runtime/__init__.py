"""Answering questions from a context set: value linking, template index and matching, facets,
actions, the language-model fallback, and evaluation against golden questions.

    from ctxtool.runtime import Runtime
    with Runtime("financial@3", dsn="postgresql://...") as rt:
        answer = rt.ask("How many accounts are in Prague?")
        answer.sql, answer.params, answer.rows, answer.text, answer.explanation
"""

from __future__ import annotations

from ctxtool.runtime.answer import ACTIONS, Answer, FacetApplied, TemplateUse
from ctxtool.runtime.core import ModelRequired, Runtime
from ctxtool.runtime.pipeline import AskContext
from ctxtool.runtime.question.linking import LinkedValue

__all__ = [
    "ACTIONS",
    "Answer",
    "AskContext",
    "FacetApplied",
    "LinkedValue",
    "ModelRequired",
    "Runtime",
    "TemplateUse",
]
