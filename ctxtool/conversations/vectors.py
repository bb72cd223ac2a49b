"""Chat vectorization: retrieval of relevant past messages into the prompt sent to a model.

Every prompt and response is chunked (:mod:`ctxtool.conversations.chunking`), embedded and stored
with its message. For a new question, the last ``query_messages`` messages (default 2) form the
search text; chunks of older messages (outside the ``retain`` most recent, default 5) scoring at
least ``score_threshold`` (default 0.25; really applied, in SQL on pgvector) are candidates; the
``insert`` best (default 3) are put at ``position`` (after the main prompt by default, before it, or
in the chat at ``depth`` 2), most relevant last, each with its sender's name, in ``template``.
They only use the token budget left after the system prompt, the recent history and the question,
so they never push recent turns out.

This changes the prompt prefix between calls: it defeats provider-side prompt caching.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxtool.conversations.chunking import DEFAULT_CHUNK_SIZE, chunk_text
from ctxtool.conversations.model import Turn
from ctxtool.conversations.store import ConversationStore, VectorHit, VectorRow
from ctxtool.embeddings import Embedder
from ctxtool.errors import InputError

POSITIONS = ("after_main", "before_main", "in_chat")


@dataclass
class VectorSettings:
    enabled: bool = True
    chunk_size: int = DEFAULT_CHUNK_SIZE
    chunk_boundary: str | None = None
    query_messages: int = 2
    score_threshold: float = 0.25
    insert: int = 3
    retain: int = 5
    position: str = "after_main"
    depth: int = 2
    template: str = "Past events:\n{{text}}"
    token_budget: int = 4000  # the whole prompt; inserted text only uses what recent turns leave
    insert_budget: int = 600  # at most this many tokens of inserted past events
    sender_names: dict[str, str] = field(default_factory=lambda: {"user": "User", "assistant": "Assistant"})

    def __post_init__(self) -> None:
        if self.position not in POSITIONS:
            raise InputError(
                f"vector position {self.position!r} is invalid: use one of {', '.join(POSITIONS)}"
            )
        if not 0.0 <= self.score_threshold <= 1.0:
            raise InputError(f"score threshold {self.score_threshold} is invalid: use a number from 0 to 1")
        for name in ("query_messages", "insert", "retain", "depth", "chunk_size"):
            if getattr(self, name) < (1 if name in ("query_messages", "chunk_size") else 0):
                raise InputError(
                    f"vector setting {name}={getattr(self, name)} is invalid: use a positive number"
                )
        if "{{text}}" not in self.template:
            raise InputError("vector template must contain {{text}}, e.g. 'Past events:\\n{{text}}'")


def estimate_tokens(text: str) -> int:
    """A provider-neutral token estimate (about 4 characters a token)."""
    return max(1, math.ceil(len(text) / 4)) if text else 0


@dataclass
class Message:
    """One chat message of a stored conversation (a prompt is ``user``, its response ``assistant``)."""

    prompt_id: int | None
    role: str
    text: str


def turn_messages(turns: Sequence[Turn]) -> list[Message]:
    out = []
    for t in turns:
        out.append(Message(t.prompt_id, "user", t.prompt))
        if t.response_text:
            out.append(Message(t.prompt_id, "assistant", t.response_text))
    return out


def vectorize_turn(
    store: ConversationStore, conversation_id: str, turn: Turn, embedder: Embedder, settings: VectorSettings
) -> int:
    """Chunk, embed and store the prompt and the response of one stored turn; returns the chunk count."""
    if turn.prompt_id is None:
        raise ValueError("vectorize_turn needs a stored turn (with prompt_id)")
    pieces: list[tuple[str, int, str]] = []
    for role, text in (("user", turn.prompt), ("assistant", turn.response_text)):
        for i, chunk in enumerate(chunk_text(text or "", settings.chunk_size, settings.chunk_boundary)):
            pieces.append((role, i, chunk))
    if not pieces:
        return 0
    vectors = embedder.embed([p[2] for p in pieces])
    rows = [
        VectorRow(turn.prompt_id, role, i, chunk, vec)
        for (role, i, chunk), vec in zip(pieces, vectors, strict=False)
    ]
    total = 0
    for role in ("user", "assistant"):
        total += store.add_vectors(conversation_id, embedder.name, [r for r in rows if r.role == role])
    return total


def vectorize_all(
    store: ConversationStore, conversation_id: str, embedder: Embedder, settings: VectorSettings | None = None
) -> int:
    """Vectorize every prompt of the conversation that has no vectors for this embedder yet."""
    settings = settings or VectorSettings()
    store.get_conversation(conversation_id)
    return sum(
        vectorize_turn(store, conversation_id, t, embedder, settings)
        for t in store.prompts_missing_vectors(conversation_id, embedder.name)
    )


def retrieve(
    store: ConversationStore,
    conversation_id: str,
    all_turns_recent: Sequence[Turn],
    question: str,
    embedder: Embedder,
    settings: VectorSettings,
) -> list[VectorHit]:
    """Chunks of older messages relevant to the newest messages (best first, threshold applied).

    ``all_turns_recent`` are the most recent stored turns (oldest first); the new ``question`` is the
    newest message. The ``retain`` most recent messages, the question included, are never returned.
    """
    if not settings.enabled:
        return []
    messages = turn_messages(all_turns_recent) + [Message(None, "user", question)]
    query_text = "\n".join(m.text for m in messages[-settings.query_messages :])
    retained = (
        {m.prompt_id for m in messages[-settings.retain :] if m.prompt_id is not None}
        if settings.retain
        else set()
    )
    (query,) = embedder.embed([query_text])
    return store.search_vectors(
        conversation_id,
        embedder.name,
        query,
        exclude_prompt_ids=sorted(retained),
        threshold=settings.score_threshold,
        limit=settings.insert,
    )


def render_past_events(hits: Sequence[VectorHit], settings: VectorSettings) -> str:
    """The inserted block: least relevant first, most relevant last, each with its sender's name."""
    lines = [
        f"{settings.sender_names.get(h.role, h.role)}: {h.text}"
        for h in sorted(hits, key=lambda h: (h.score, -h.vector_id))
    ]
    return settings.template.replace("{{text}}", "\n".join(lines))


def fit_hits(hits: Sequence[VectorHit], used_tokens: int, settings: VectorSettings) -> list[VectorHit]:
    """The best hits whose rendered block fits in what the prompt budget leaves (recent turns first)."""
    room = min(settings.insert_budget, settings.token_budget - used_tokens)
    kept = sorted(hits, key=lambda h: (-h.score, h.vector_id))
    while kept and estimate_tokens(render_past_events(kept, settings)) > room:
        kept.pop()  # drop the least relevant first
    return kept


def build_messages(
    system_prompt: str,
    history: Sequence[dict[str, Any]],
    question: str,
    hits: Sequence[VectorHit],
    settings: VectorSettings,
) -> list[dict[str, Any]]:
    """The chat messages for a model: the main prompt, the history (oldest first), the question, and
    the past events placed where ``settings.position`` says, within the token budget.

    History that does not fit the budget is trimmed oldest first; past events only get what is left.
    """
    budget = settings.token_budget
    used = estimate_tokens(system_prompt) + estimate_tokens(question)
    kept_history: list[dict[str, Any]] = []
    for message in reversed(history):
        cost = estimate_tokens(str(message.get("content") or "")) + 4
        if used + cost > budget:
            break
        kept_history.append(message)
        used += cost
    kept_history.reverse()
    while kept_history and kept_history[0].get("role") == "tool":  # never start with an orphan tool result
        kept_history.pop(0)
    chat = kept_history + [{"role": "user", "content": question}]
    fitted = fit_hits(hits, used, settings)
    main = {"role": "system", "content": system_prompt}
    if not fitted:
        return [main, *chat]
    block = {"role": "system", "content": render_past_events(fitted, settings)}
    if settings.position == "after_main":
        return [main, block, *chat]
    if settings.position == "before_main":
        return [block, main, *chat]
    at = max(0, len(chat) - settings.depth)
    return [main, *chat[:at], block, *chat[at:]]
