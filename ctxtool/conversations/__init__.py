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

from ctxtool.conversations.model import Conversation, ConversationNotFound, Turn
from ctxtool.conversations.runner import ConversationRunner, attach_session_memory
from ctxtool.conversations.session import SessionMemory
from ctxtool.conversations.store import ConversationStore, open_store

__all__ = [
    "Conversation",
    "ConversationNotFound",
    "ConversationRunner",
    "ConversationStore",
    "SessionMemory",
    "Turn",
    "attach_session_memory",
    "open_store",
]
