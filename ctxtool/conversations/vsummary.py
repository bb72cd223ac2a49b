"""Vector summarization: a model request that summarizes one chat message before it is vectorized
(the seed's "Summarize chat messages for vector generation"), or the query messages before the
search ("Summarize chat messages when sending"). The summary only serves the search: the original
message stays in the conversation and is what a match inserts into the prompt.
"""

from __future__ import annotations

from typing import Any

from ctxtool.conversations.vectors import Summarizer, VectorSettings
from ctxtool.errors import CtxtoolError, InputError


def summarizer(model: Any, settings: VectorSettings) -> Summarizer | None:
    """A function summarizing one text with ``model`` (the runtime's :class:`ctxtool.llm.settings.Model`,
    or the ``summary_model`` on the same endpoint) under ``settings.summary_prompt``; None when the
    settings summarize nothing."""
    if not (settings.summarize or settings.summarize_query):
        return None
    if model is None:
        raise InputError(
            "vector summarization needs a language model: set CTXTOOL_LLM_BASE_URL and CTXTOOL_LLM_MODEL "
            "(summary_model names another model on the same endpoint)"
        )
    if settings.summary_model:
        model = model.with_model(settings.summary_model)

    def summarize(text: str) -> str:
        reply = model.chat(
            [{"role": "system", "content": settings.summary_prompt}, {"role": "user", "content": text}]
        )
        summary = (reply.content or "").strip()
        if not summary:
            raise CtxtoolError(f"the summarization model {model.model} returned an empty summary")
        return summary

    return summarize
