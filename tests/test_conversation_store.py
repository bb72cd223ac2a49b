"""The named-conversation store on SQLite and PostgreSQL: attributes, prompts, views, purge, vectors."""

from __future__ import annotations

from datetime import timedelta

import pytest

from ctxtool.conversations.model import ConversationNotFound, Turn, utcnow
from ctxtool.conversations.store import SQLiteStore, VectorRow, open_store
from ctxtool.errors import InputError


@pytest.fixture(params=["sqlite", "pg15", "pg18"])
def store(request, tmp_path):
    if request.param == "sqlite":
        s = SQLiteStore(tmp_path / "conv.sqlite")
    else:
        dsn = request.getfixturevalue("pg_dsn" if request.param == "pg15" else "pg18_dsn")
        s = open_store(dsn)
        # a fresh schema per test: drop what an earlier test on the same database left
        with s._write() as tx:
            for table in ("message_vectors", "current_conversation", "prompts", "conversations"):
                tx.execute(f"DELETE FROM {table}")
    yield s
    s.close()


def _turn(text: str, **kw) -> Turn:
    return Turn(prompt=text, profile_name=kw.pop("profile", "financial"), **kw)


def test_create_defaults_and_validation(store):
    conv = store.create_conversation()
    assert conv.title == "New Conversation" and conv.retention_days == 7 and conv.conversation_length == 10
    assert conv.expires - conv.created == timedelta(days=7)
    assert len(conv.conversation_id) == 36
    kept = store.create_conversation("Loans", "loan questions", retention_days=0, conversation_length=3)
    assert kept.expires is None
    got = store.get_conversation(kept.conversation_id)
    assert (got.title, got.description, got.retention_days, got.conversation_length) == (
        "Loans",
        "loan questions",
        0,
        3,
    )
    with pytest.raises(InputError, match="retention_days"):
        store.create_conversation(retention_days=-1)
    with pytest.raises(InputError, match="conversation_length"):
        store.create_conversation(conversation_length=0)
    with pytest.raises(InputError, match="title"):
        store.create_conversation(title="  ")
    assert len(store.list_conversations()) == 2


def test_update_keeps_retention_from_creation(store):
    conv = store.create_conversation("a")
    updated = store.update_conversation(
        conv.conversation_id, title="b", retention_days=30, conversation_length=4
    )
    assert updated.title == "b" and updated.expires - conv.created == timedelta(days=30)
    again = store.get_conversation(conv.conversation_id)
    assert again.conversation_length == 4 and again.title == "b"
    with pytest.raises(InputError):
        store.update_conversation(conv.conversation_id, conversation_length=-2)
    with pytest.raises(ConversationNotFound):
        store.update_conversation("missing", title="x")


def test_prompts_history_and_delete(store):
    conv = store.create_conversation(conversation_length=3)
    ids = []
    for i in range(5):
        t = store.add_prompt(
            conv.conversation_id,
            _turn(
                f"q{i}",
                sql=f"SELECT {i}",
                summary=f"{i} rows",
                answer=None if i % 2 else f"answer {i}",
                state={"i": i},
                client_identifier="pytest",
                client_ip="127.0.0.1",
                sid="s1",
                serial=i,
            ),
        )
        ids.append(t.prompt_id)
    assert ids == sorted(ids)
    c, recent = store.context(conv.conversation_id)
    assert [t.prompt for t in recent] == ["q2", "q3", "q4"]
    assert recent[-1].state == {"i": 4} and recent[-1].sql == "SELECT 4"
    store.delete_prompt(ids[3])
    assert [t.prompt for t in store.recent_prompts(conv.conversation_id, 3)] == ["q1", "q2", "q4"]
    with pytest.raises(ConversationNotFound):
        store.delete_prompt(ids[3])
    with pytest.raises(ConversationNotFound):
        store.add_prompt("no-such-conversation", _turn("x"))


def test_request_id_is_idempotent(store):
    conv = store.create_conversation()
    a = store.add_prompt(conv.conversation_id, _turn("same", request_id="r-1"))
    b = store.add_prompt(conv.conversation_id, _turn("same", request_id="r-1"))
    assert a.prompt_id == b.prompt_id
    assert len(store.list_prompts(conv.conversation_id)) == 1


def test_views_have_reference_columns(store):
    conv = store.create_conversation("Views", "d")
    store.add_prompt(
        conv.conversation_id,
        _turn(
            "how many loans",
            sql="SELECT count(*) FROM loan",
            summary="1 row",
            answer="There are 682 loans.",
            sid="42",
            serial=7,
            client_identifier="cli",
            client_ip="127.0.0.1",
        ),
    )
    assert store.conversations_view() == [
        {
            "conversation_id": conv.conversation_id,
            "conversation_title": "Views",
            "description": "d",
            "retention_days": 7,
            "conversation_length": 10,
        }
    ]
    (row,) = store.prompts_view(conv.conversation_id)
    assert list(row) == list(store.PROMPT_VIEW_COLUMNS)
    assert row["prompt_response"] == "There are 682 loans." and row["serial#"] == 7
    assert row["conversation_title"] == "Views" and row["prompt_action"] == "runsql" and row["created"]


def test_drop_with_and_without_force(store):
    conv = store.create_conversation()
    store.add_prompt(conv.conversation_id, _turn("x"))
    with pytest.raises(InputError, match="--force"):
        store.drop_conversation(conv.conversation_id)
    assert store.drop_conversation(conv.conversation_id, force=True)
    with pytest.raises(ConversationNotFound):
        store.get_conversation(conv.conversation_id)
    assert store.list_prompts() == []
    assert store.drop_conversation("missing", force=True) is False
    with pytest.raises(ConversationNotFound):
        store.drop_conversation("missing")
    empty = store.create_conversation()
    assert store.drop_conversation(empty.conversation_id)


def test_purge_removes_exactly_the_expired(store):
    now = utcnow()
    old = store.create_conversation("old", retention_days=1, now=now - timedelta(days=2))
    edge = store.create_conversation(
        "edge", retention_days=2, now=now - timedelta(days=2)
    )  # expires exactly now
    young = store.create_conversation("young", retention_days=3, now=now - timedelta(days=2))
    kept = store.create_conversation("kept", retention_days=0, now=now - timedelta(days=900))
    for c in (old, edge, young, kept):
        t = store.add_prompt(c.conversation_id, _turn(f"about {c.title}"))
        store.add_vectors(
            c.conversation_id, "hash:8", [VectorRow(t.prompt_id, "user", 0, "x", [1.0] + [0.0] * 7)]
        )
    store.set_current("cli", old.conversation_id)
    purged = store.purge_expired(now)
    assert sorted(purged) == sorted([old.conversation_id, edge.conversation_id])
    assert {c.title for c in store.list_conversations()} == {"young", "kept"}
    assert {t.prompt for t in store.list_prompts()} == {"about young", "about kept"}
    assert store.vector_stats()["vectors"] == 2
    assert store.get_current("cli") is None
    assert store.purge_expired(now) == []
    # the automatic purge runs at most once an hour
    later = store.create_conversation("later", retention_days=1, now=now - timedelta(days=5))
    assert store.auto_purge(now + timedelta(minutes=5)) == []
    assert store.auto_purge(now + timedelta(hours=2)) == [later.conversation_id]


def test_current_conversation(store):
    a = store.create_conversation("a")
    b = store.create_conversation("b")
    assert store.get_current("shell-1") is None
    store.set_current("shell-1", a.conversation_id)
    store.set_current("shell-2", b.conversation_id)
    store.set_current("shell-1", b.conversation_id)
    assert store.get_current("shell-1") == b.conversation_id
    store.clear_current("shell-1")
    assert store.get_current("shell-1") is None and store.get_current("shell-2") == b.conversation_id
    with pytest.raises(ConversationNotFound):
        store.set_current("shell-1", "nope")


def test_vectors_search_threshold_and_delete(store):
    conv = store.create_conversation()
    t1 = store.add_prompt(conv.conversation_id, _turn("one"))
    t2 = store.add_prompt(conv.conversation_id, _turn("two"))
    e = [1.0, 0.0, 0.0, 0.0]
    store.add_vectors(
        conv.conversation_id,
        "toy",
        [
            VectorRow(t1.prompt_id, "user", 0, "exact", e),
            VectorRow(t1.prompt_id, "assistant", 0, "close", [0.8, 0.6, 0.0, 0.0]),
            VectorRow(t2.prompt_id, "user", 0, "weak", [0.24, 0.9706, 0.0, 0.0]),  # cosine 0.24 < 0.25
            VectorRow(t2.prompt_id, "assistant", 0, "edge", [0.26, 0.9656, 0.0, 0.0]),
        ],
    )
    hits = store.search_vectors(conv.conversation_id, "toy", e, threshold=0.25, limit=3)
    assert [h.text for h in hits] == ["exact", "close", "edge"]
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert [
        h.text
        for h in store.search_vectors(conv.conversation_id, "toy", e, exclude_prompt_ids=[t1.prompt_id])
    ] == ["edge"]
    assert store.search_vectors(conv.conversation_id, "other-embedder", e) == []
    stats = store.vector_stats(conv.conversation_id)
    assert stats["vectors"] == 4 and stats["vectorized_prompt_ids"] == [t1.prompt_id, t2.prompt_id]
    store.delete_prompt(t1.prompt_id)  # deleting a message deletes its vectors
    assert store.vector_stats(conv.conversation_id)["vectors"] == 2
    assert store.purge_vectors(conv.conversation_id) == 2  # purging vectors keeps the messages
    assert [t.prompt for t in store.list_prompts(conv.conversation_id)] == ["two"]


def test_pg_uses_pgvector(pg18_dsn):
    s = open_store(pg18_dsn)
    try:
        assert s.vector_type == "vector"
        assert s.schema_version() == 4
    finally:
        s.close()


def test_sqlite_migrations_versioned(tmp_path):
    path = tmp_path / "m.sqlite"
    with SQLiteStore(path) as s:
        assert s.schema_version() == 4
        s.create_conversation("persist")
    with SQLiteStore(path) as s:  # reopening applies nothing twice and keeps the data
        assert s.schema_version() == 4
        assert [c.title for c in s.list_conversations()] == ["persist"]
        assert s.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    import sqlite3

    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO schema_migrations VALUES (99, 'future')")
    conn.commit()
    conn.close()
    with pytest.raises(Exception, match="upgrade ctxtool"):
        SQLiteStore(path)


def test_default_location_is_data_dir(data_home):
    with open_store() as s:
        assert s.location == str(data_home / "conversations.sqlite")
    with pytest.raises(InputError, match="postgresql://"):
        open_store("mysql://root@127.0.0.1/x")


def test_expired_conversation_is_not_used(store):
    now = utcnow()
    old = store.create_conversation("old", retention_days=1, now=now - timedelta(days=1, seconds=1))
    store.add_prompt(old.conversation_id, _turn("stale"))
    with pytest.raises(ConversationNotFound, match="expired"):
        store.context(old.conversation_id)
    assert store.list_conversations() == []  # purged on the spot
