"""Conversations: session memory, named long-term conversations, follow-up questions, chat vectors.

- :mod:`.model` - conversations and turns, attribute validation
- :mod:`.store` / :mod:`.pgstore` - the named-conversation store (SQLite default, PostgreSQL)
- :mod:`.session` - session (short-term) memory of the last 10 prompts of a profile
- :mod:`.chunking` / :mod:`.vectors` - chat vectorization
- :mod:`.history` - a conversation as chat messages for a model (tool results included)
- :mod:`.followup` - follow-up questions answered by rewriting the previous query
- :mod:`.runner` - :class:`ConversationRunner`: asking within a conversation over a runtime (and
  :func:`attach_session_memory`, the profile option ``conversation: true``)
- :mod:`.evaluate` - question-match / interaction-match accuracy on golden conversations
"""

from __future__ import annotations

import importlib
from typing import Any

# the package's names, from the module that defines each: a submodule (the vector settings the CLI
# declares its flags with, the store) loads without the runner, the follow-ups and the runtime
_EXPORTS = {
    "Conversation": "model",
    "ConversationNotFound": "model",
    "Turn": "model",
    "ConversationRunner": "runner",
    "attach_session_memory": "runner",
    "SessionMemory": "session",
    "ConversationStore": "store",
    "open_store": "store",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
