"""Follow-ups as edits of the previous answer's query (issue 30), data-driven: the conversations of
``tests/data/conversations/followup_edits.json`` on a shop schema of our own, asked through the
conversation runner on PostgreSQL, each answered turn compared by its rows with its golden SQL."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from ctxtool.conversations.runner import ConversationRunner
from ctxtool.conversations.store import SQLiteStore
from ctxtool.conversations.vectors import VectorSettings
from ctxtool.runtime.templates import sqlparts
from tests.backends import pg_loaded

CASES = json.loads((Path(__file__).parent / "data" / "conversations" / "followup_edits.json").read_text())


@pytest.fixture(scope="module")
def runtime(_pg15_admin):
    from ctxtool.runtime.core import Runtime

    with pg_loaded(_pg15_admin, "ctx_edits", CASES["schema_sql"]) as dsn:
        with Runtime(CASES["set"], dsn=dsn, use_llm=False) as rt:
            yield rt


def _cell(v):
    if isinstance(v, (int, float, Decimal)):
        return round(float(v), 2)
    return str(v)


def _rows(rows):
    return sorted(tuple(sorted(map(_cell, r), key=repr)) for r in rows)


@pytest.mark.parametrize("conv", CASES["conversations"], ids=[c["id"] for c in CASES["conversations"]])
def test_follow_up_edits(runtime, tmp_path, conv):
    store = SQLiteStore(tmp_path / "c.sqlite")
    cid = store.create_conversation("edits").conversation_id
    runner = ConversationRunner(runtime, store=store, vectors=VectorSettings(enabled=False))
    try:
        for turn in conv["turns"]:
            ans = runner.ask(turn["question"], conversation_id=cid)
            where = f"{conv['id']}: {turn['question']!r}"
            if turn.get("expect") == "decline":
                assert ans.status != "answered" and ans.sql is None, f"{where} answered: {ans.sql}"
                if turn.get("says"):
                    assert turn["says"] in ans.text, where
                continue
            assert ans.status == "answered", f"{where}: {ans.explanation}"
            golden = runtime.connector.query(turn["golden_sql"], []).rows
            assert _rows(ans.rows) == _rows(golden), f"{where}: {ans.sql} {ans.params}"
            if turn.get("edit"):
                assert ans.source == "followup" and f"({turn['edit']}" in ans.explanation, where
                # every edited query is one read-only SELECT of the schema's tables
                sqlparts.check_read_only_select(ans.sql, "postgres", runtime.allowed_objects())
    finally:
        store.close()
