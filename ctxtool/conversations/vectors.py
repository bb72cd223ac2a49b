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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxtool.conversations.chunking import DEFAULT_CHUNK_SIZE, chunk_text
from ctxtool.conversations.model import Turn
from ctxtool.conversations.store import ConversationStore, VectorHit, VectorRow
from ctxtool.embeddings import Embedder
from ctxtool.errors import InputError

POSITIONS = ("after_main", "before_main", "in_chat")
DEFAULT_SUMMARY_PROMPT = (
    "Summarize the message below in one or two sentences for a search index: keep the names, values, "
    "tables and measures it mentions; no preamble."
)

# every setting a user may set (the CLI flags, `serve`, a conversation's stored settings): its type
# and what it does -- the seed's Chat Vectorization options
SETTINGS: dict[str, tuple[type, str]] = {
    "enabled": (bool, "Insert relevant past messages into the model's prompt (default on)."),
    "chunk_size": (int, "Characters per stored chunk (default 400)."),
    "chunk_boundary": (str, "An extra chunk boundary, e.g. ---- (default: paragraph, line, space)."),
    "query_messages": (int, "Most recent messages that form the search (default 2)."),
    "score_threshold": (float, "Least relevance (cosine, 0..1) of an inserted message (default 0.25)."),
    "insert": (int, "Past messages inserted (Insert#, default 3)."),
    "retain": (int, "Most recent messages never inserted (Retain#, default 5)."),
    "position": (str, "after_main (default), before_main or in_chat (at depth)."),
    "depth": (int, "With position in_chat: messages from the end (default 2)."),
    "template": (
        str,
        "The injection template; {{text}} is the messages (default 'Past events:\\n{{text}}').",
    ),
    "summarize": (bool, "Summarize each message with the model before vectorizing it (originals inserted)."),
    "summarize_query": (bool, "Summarize the query messages with the model when sending."),
    "summary_prompt": (str, "The instruction the summarization request sends."),
    "summary_model": (str, "Model that summarizes (same endpoint; default: the main model)."),
}


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
    summarize: bool = False  # summarize messages before vectorizing them (the original is inserted)
    summarize_query: bool = False  # summarize the query messages when sending
    summary_prompt: str = DEFAULT_SUMMARY_PROMPT
    summary_model: str | None = None  # None: the main model

    def merged(self, overrides: dict[str, Any] | None, *, source: str = "vector settings") -> VectorSettings:
        """These settings with ``overrides`` (a setting's name -> value; None values skipped)."""
        import dataclasses

        values: dict[str, Any] = {}
        for name, value in (overrides or {}).items():
            if name not in SETTINGS:
                raise InputError(
                    f"{source}: unknown vector setting {name!r}; the settings are {', '.join(SETTINGS)}"
                )
            if value is None:
                continue
            kind = SETTINGS[name][0]
            if kind is bool and not isinstance(value, bool):
                raise InputError(f"{source}: {name} {value!r} is not true or false")
            try:
                values[name] = kind(value)
            except (TypeError, ValueError):
                raise InputError(f"{source}: {name} {value!r} is not a {kind.__name__}") from None
        return dataclasses.replace(self, **values) if values else self

    def stored(self) -> dict[str, Any]:
        """The user-settable values that differ from the defaults (what a conversation stores)."""
        default = VectorSettings()
        return {n: getattr(self, n) for n in SETTINGS if getattr(self, n) != getattr(default, n)}

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


Summarizer = Callable[[str], str]  # a message -> its summary (one model request)


def vector_space(embedder: Embedder, settings: VectorSettings) -> str:
    """The name vectors are stored under: summaries are searched apart from raw messages."""
    return embedder.name + ("+summary" if settings.summarize else "")


def vectorize_turn(
    store: ConversationStore,
    conversation_id: str,
    turn: Turn,
    embedder: Embedder,
    settings: VectorSettings,
    summarizer: Summarizer | None = None,
) -> int:
    """Chunk, embed and store the prompt and the response of one stored turn; returns the chunk count.

    With ``settings.summarize`` each message is first summarized by ``summarizer`` and the summary is
    what is chunked, embedded and stored (the message itself stays in the conversation and is what a
    match inserts)."""
    if turn.prompt_id is None:
        raise ValueError("vectorize_turn needs a stored turn (with prompt_id)")
    if settings.summarize and summarizer is None:
        raise InputError(
            "vector summarization needs a language model (CTXTOOL_LLM_BASE_URL, CTXTOOL_LLM_MODEL)"
        )
    pieces: list[tuple[str, int, str]] = []
    for role, text in (("user", turn.prompt), ("assistant", turn.response_text)):
        if settings.summarize and text and summarizer is not None:
            text = summarizer(text)
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
    space = vector_space(embedder, settings)
    for role in ("user", "assistant"):
        total += store.add_vectors(conversation_id, space, [r for r in rows if r.role == role])
    return total


def vectorize_all(
    store: ConversationStore,
    conversation_id: str,
    embedder: Embedder,
    settings: VectorSettings | None = None,
    summarizer: Summarizer | None = None,
) -> int:
    """Vectorize every prompt of the conversation that has no vectors for this embedder yet."""
    settings = settings or VectorSettings()
    store.get_conversation(conversation_id)
    return sum(
        vectorize_turn(store, conversation_id, t, embedder, settings, summarizer)
        for t in store.prompts_missing_vectors(conversation_id, vector_space(embedder, settings))
    )


def retrieve(
    store: ConversationStore,
    conversation_id: str,
    all_turns_recent: Sequence[Turn],
    question: str,
    embedder: Embedder,
    settings: VectorSettings,
    summarizer: Summarizer | None = None,
) -> list[VectorHit]:
    """Chunks of older messages relevant to the newest messages (best first, threshold applied).

    ``all_turns_recent`` are the most recent stored turns (oldest first); the new ``question`` is the
    newest message. The ``retain`` most recent messages, the question included, are never returned.
    With ``summarize_query`` the query messages are summarized first; with ``summarize`` the stored
    summaries are searched and each hit carries its original message's text.
    """
    if not settings.enabled:
        return []
    if (settings.summarize or settings.summarize_query) and summarizer is None:
        raise InputError(
            "vector summarization needs a language model (CTXTOOL_LLM_BASE_URL, CTXTOOL_LLM_MODEL)"
        )
    messages = turn_messages(all_turns_recent) + [Message(None, "user", question)]
    query_text = "\n".join(m.text for m in messages[-settings.query_messages :])
    if settings.summarize_query and summarizer is not None:
        query_text = summarizer(query_text)
    retained = (
        {m.prompt_id for m in messages[-settings.retain :] if m.prompt_id is not None}
        if settings.retain
        else set()
    )
    (query,) = embedder.embed([query_text])
    hits = store.search_vectors(
        conversation_id,
        vector_space(embedder, settings),
        query,
        exclude_prompt_ids=sorted(retained),
        threshold=settings.score_threshold,
        limit=settings.insert,
    )
    if settings.summarize:  # the summary matched: the original message goes into the prompt
        originals: dict[int, Turn] = {}
        for hit in hits:
            if hit.prompt_id not in originals:
                originals[hit.prompt_id] = store.get_prompt(hit.prompt_id)
            turn = originals[hit.prompt_id]
            hit.text = turn.prompt if hit.role == "user" else turn.response_text
        unique: dict[tuple[int, str], VectorHit] = {}
        for hit in hits:  # one insertion per message, at its best chunk's score
            unique.setdefault((hit.prompt_id, hit.role), hit)
        hits = list(unique.values())
    return hits


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
