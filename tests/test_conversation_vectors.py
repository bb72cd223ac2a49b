"""Chat vectorization: chunking, retrieval (threshold, retain, top-k), placement, token budget."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtool.conversations.chunking import chunk_text
from ctxtool.conversations.model import Turn
from ctxtool.conversations.store import SQLiteStore, VectorHit, open_store
from ctxtool.conversations.vectors import (
    VectorSettings,
    build_messages,
    estimate_tokens,
    render_past_events,
    retrieve,
    vectorize_all,
    vectorize_turn,
)
from ctxtool.embeddings import HashingEmbedder
from ctxtool.errors import InputError


def test_chunks_at_natural_boundaries():
    para = "First paragraph about loans. " * 10  # ~290 chars
    text = para.strip() + "\n\n" + "Second paragraph about cards. " * 10
    chunks = chunk_text(text, 400)
    assert chunks[0] == para.strip()  # split at the paragraph break, not mid-sentence
    assert all(len(c) <= 400 for c in chunks)
    lines = "\n".join(f"line {i} " + "x" * 50 for i in range(20))
    assert all(c.startswith("line ") for c in chunk_text(lines, 120))  # line boundaries
    words = chunk_text("alpha beta gamma delta epsilon", 11)
    assert words == ["alpha beta", "gamma delta", "epsilon"]  # spaces
    assert chunk_text("a" * 25, 10) == ["a" * 10, "a" * 10, "a" * 5]  # one long word is cut
    custom = chunk_text("part one ---- part two ---- part three", 30, boundary="----")
    assert custom == ["part one ---- part two", "part three"]  # the last custom boundary that fits
    assert chunk_text("aa bb ---- cc dd", 12, boundary="----") == ["aa bb", "cc dd"]  # before spaces
    assert chunk_text("   ", 400) == []
    with pytest.raises(InputError):
        chunk_text("x", 0)


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab \n-"), max_size=600), st.integers(min_value=3, max_value=60))
def test_chunks_never_exceed_size_and_keep_words(text, size):
    chunks = chunk_text(text, size, boundary="--")
    assert all(0 < len(c) <= size for c in chunks)
    squash = lambda s: "".join(s.split()).replace("-", "")  # noqa: E731
    assert squash("".join(chunks)) == squash(text)


@pytest.fixture(params=["sqlite", "pg18"])
def store(request, tmp_path):
    if request.param == "sqlite":
        s = SQLiteStore(tmp_path / "v.sqlite")
    else:
        s = open_store(request.getfixturevalue("pg18_dsn"))
        assert s.vector_type == "vector"
        with s._write() as tx:
            for table in ("message_vectors", "current_conversation", "prompts", "conversations"):
                tx.execute(f"DELETE FROM {table}")
    yield s
    s.close()


TOPICS = [
    (
        "How many loans in Pisek are running in debt?",
        "Three loans in the district Pisek are running in debt.",
    ),
    ("What is the average salary in Prague?", "The average salary in Prague is 12,541 CZK."),
    ("How many gold cards were issued?", "88 gold cards were issued."),
    ("Which region has the most clients?", "south Moravia has the most clients."),
    ("List the weekly statement accounts", "There are 12 accounts with weekly statements."),
    ("How many transactions were withdrawals?", "4,102 transactions were withdrawals."),
    ("What is the unemployment rate in Kladno?", "The unemployment rate in Kladno was 2.8 percent."),
    ("Count the female clients", "There are 2,724 female clients."),
]


def _conversation(store):
    conv = store.create_conversation("vectors")
    emb = HashingEmbedder()
    turns = []
    for q, a in TOPICS:
        t = store.add_prompt(conv.conversation_id, Turn(prompt=q, answer=a))
        vectorize_turn(store, conv.conversation_id, t, emb, VectorSettings())
        turns.append(t)
    return conv.conversation_id, turns, emb


def test_retrieve_threshold_retain_and_top3(store):
    cid, turns, emb = _conversation(store)
    settings = VectorSettings()
    hits = retrieve(store, cid, turns, "and the loans in Pisek running in debt again?", emb, settings)
    assert hits and hits[0].prompt_id == turns[0].prompt_id  # the old, relevant turn
    assert len(hits) <= 3 and all(h.score >= 0.25 for h in hits)
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    # the 5 most recent messages (question included) are never returned: the last 2 turns are in them
    recent_ids = {turns[-1].prompt_id, turns[-2].prompt_id}
    assert not recent_ids & {h.prompt_id for h in hits}
    # the threshold is applied for real: nothing unrelated comes back at 0.9
    strict = retrieve(
        store,
        cid,
        turns,
        "and the loans in Pisek running in debt again?",
        emb,
        VectorSettings(score_threshold=0.9),
    )
    assert strict == []
    # the query is the last 2 messages: the newest answer ("female clients") finds "most clients"
    assert any("clients" in h.text for h in retrieve(store, cid, turns, "zzz qqq", emb, settings))
    assert retrieve(store, cid, turns, "zzz qqq", emb, VectorSettings(query_messages=1)) == []
    assert retrieve(store, cid, turns, "loans in Pisek", emb, VectorSettings(enabled=False)) == []


def test_stats_vectorize_all_purge(store):
    cid, turns, emb = _conversation(store)
    stats = store.vector_stats(cid)
    assert stats["vectorized_prompts"] == len(TOPICS) and stats["vectors"] == 2 * len(TOPICS)
    assert store.purge_vectors(cid) == 2 * len(TOPICS)
    assert len(store.list_prompts(cid)) == len(TOPICS)  # messages are kept
    assert vectorize_all(store, cid, emb) == 2 * len(TOPICS)
    assert vectorize_all(store, cid, emb) == 0  # nothing left to do
    store.delete_prompt(turns[0].prompt_id)  # deleting a message deletes its vectors
    assert store.vector_stats(cid)["vectors"] == 2 * (len(TOPICS) - 1)


def _hits():
    return [
        VectorHit(1, 10, "user", 0, "loans in Pisek", 0.9),
        VectorHit(2, 11, "assistant", 0, "salary in Prague", 0.5),
        VectorHit(3, 12, "user", 0, "gold cards", 0.3),
    ]


def test_render_most_relevant_last_with_sender():
    text = render_past_events(_hits(), VectorSettings())
    assert text == "Past events:\nUser: gold cards\nAssistant: salary in Prague\nUser: loans in Pisek"
    custom = render_past_events(
        _hits()[:1], VectorSettings(template="[Memory]\n{{text}}\n[/Memory]", sender_names={"user": "Ana"})
    )
    assert custom == "[Memory]\nAna: loans in Pisek\n[/Memory]"
    with pytest.raises(InputError):
        VectorSettings(template="no text here")
    with pytest.raises(InputError):
        VectorSettings(position="middle")


@pytest.mark.parametrize("position", ["after_main", "before_main", "in_chat"])
def test_positions(position):
    history = [
        {"role": "user", "content": "q1"},
        {"role": "assistant", "content": "a1"},
        {"role": "user", "content": "q2"},
        {"role": "assistant", "content": "a2"},
    ]
    msgs = build_messages("MAIN", history, "q3", _hits(), VectorSettings(position=position))
    roles = [m["content"][:11] if m["role"] == "system" else m["content"] for m in msgs]
    if position == "after_main":
        assert roles == ["MAIN", "Past events", "q1", "a1", "q2", "a2", "q3"]
    elif position == "before_main":
        assert roles == ["Past events", "MAIN", "q1", "a1", "q2", "a2", "q3"]
    else:  # depth 2: before the last two messages of the chat
        assert roles == ["MAIN", "q1", "a1", "q2", "Past events", "a2", "q3"]


def test_token_budget_keeps_recent_turns():
    long = "word " * 400  # ~500 tokens each
    history = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"{i} {long}"} for i in range(6)]
    hits = [VectorHit(i, i, "user", 0, "old relevant text " * 40, 0.9 - i / 10) for i in range(3)]
    settings = VectorSettings(token_budget=2200, insert_budget=600)
    msgs = build_messages("MAIN", history, "question", hits, settings)
    kept = [m for m in msgs if m["role"] != "system"]
    # the most recent history that fits comes first; past events only take what is left
    assert kept[-1]["content"] == "question" and kept[-2]["content"].startswith("5 ")
    total = sum(estimate_tokens(m["content"]) for m in msgs)
    assert total <= settings.token_budget + 4 * len(msgs)
    without = build_messages("MAIN", history, "question", [], settings)
    assert [m for m in without if m["role"] != "system"] == kept  # inserting never dropped a turn
    # with room to spare, the most relevant past events fit within insert_budget
    roomy = build_messages(
        "MAIN", history[-2:], "question", hits, VectorSettings(token_budget=4000, insert_budget=200)
    )
    block = [m for m in roomy if m["content"].startswith("Past events")]
    assert block and estimate_tokens(block[0]["content"]) <= 200
    assert "old relevant text" in block[0]["content"]
