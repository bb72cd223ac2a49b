"""`ctxtool conversation ...`, `ctxtool ask --conversation`, `ctxtool chat` through the real CLI."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from click.testing import CliRunner

from ctxtool.cli import cli
from ctxtool.conversations.model import Turn, utcnow
from ctxtool.conversations.store import open_store

SET = str(Path(__file__).parent / "data" / "conversations_financial_set.json")


def run(*args, input=None):
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def test_conversation_lifecycle(data_home):
    r = run("conversation", "create", "--title", "Loans", "--description", "loan questions", "--length", "4")
    assert r.exit_code == 0, r.output
    cid = r.output.strip()
    r = run("conversation", "list", "--format", "json")
    (conv,) = json.loads(r.output)
    assert conv["conversation_id"] == cid and conv["conversation_title"] == "Loans"
    assert conv["conversation_length"] == 4 and conv["retention_days"] == 7
    assert run("conversation", "update", cid, "--retention-days", "0").exit_code == 0
    with open_store() as st:
        assert st.get_conversation(cid).expires is None
        p = st.add_prompt(
            cid, Turn(prompt="How many loans?", sql="SELECT count(*) FROM loan", summary="1 row")
        )
    r = run("conversation", "show", cid, "--format", "json")
    shown = json.loads(r.output)
    assert shown["prompts"][0]["conversation_prompt_id"] == p.prompt_id
    assert shown["prompts"][0]["prompt_response"] == "1 row"
    assert "How many loans?" in run("conversation", "show", cid).output
    # bad attribute values are usage errors with a message, not tracebacks
    r = run("conversation", "create", "--retention-days", "-3")
    assert r.exit_code == 2 and "retention_days" in r.output
    r = run("conversation", "update", cid, "--length", "0")
    assert r.exit_code == 2 and "conversation_length" in r.output
    # use / current
    assert "no current conversation" in run("conversation", "use").output
    run("conversation", "use", cid)
    assert run("conversation", "use").output.strip() == cid
    assert "How many loans?" in run("conversation", "show").output
    run("conversation", "use", "--clear")
    assert run("conversation", "show").exit_code == 2
    # vectors
    r = run("conversation", "vectors", "vectorize-all", cid)
    assert r.exit_code == 0 and "stored 2 vector(s)" in r.output
    assert "2 vectors for 1 of 1 prompts" in run("conversation", "vectors", "stats", cid).output
    assert "purged 2 vector(s)" in run("conversation", "vectors", "purge", cid).output
    assert run("conversation", "vectors", "purge").exit_code == 2
    # delete a prompt, drop
    assert run("conversation", "delete-prompt", str(p.prompt_id)).exit_code == 0
    r = run("conversation", "delete-prompt", str(p.prompt_id))
    assert r.exit_code == 2 and "no prompt" in r.output
    with open_store() as st:
        st.add_prompt(cid, Turn(prompt="again"))
    r = run("conversation", "drop", cid)
    assert r.exit_code == 2 and "--force" in r.output
    assert run("conversation", "drop", cid, "--force").exit_code == 0
    assert run("conversation", "drop", cid).exit_code == 2
    assert "nothing dropped" in run("conversation", "drop", cid, "--force").output


def test_purge_command(data_home):
    with open_store() as st:
        old = st.create_conversation("old", retention_days=1, now=utcnow() - timedelta(days=2))
        new = st.create_conversation("new")
    r = run("conversation", "purge", "--format", "json")
    assert json.loads(r.output) == {"purged": [old.conversation_id]}
    with open_store() as st:
        assert [c.conversation_id for c in st.list_conversations()] == [new.conversation_id]


def test_ask_with_conversation(data_home, pg_samples_dsn):
    cid = run("conversation", "create", "--title", "ask").output.strip()
    base = ["ask", "--context", SET, "--dsn", pg_samples_dsn, "--no-llm", "--format", "json"]
    r = run(*base[:1], "How many clients are there?", *base[1:], "--conversation", cid)
    assert r.exit_code == 0, r.output
    r = run(*base[:1], "break out by gender", *base[1:], "--conversation", cid)
    ans = json.loads(r.output)
    assert ans["source"] == "followup" and ans["columns"][0] == "gender"
    # without a conversation the same words are not a follow-up
    r = run(*base[:1], "break out by gender", *base[1:])
    assert json.loads(r.output)["source"] != "followup"
    run("conversation", "use", cid)
    r = run(*base[:1], "keep the top 1", *base[1:], "--conversation", "current")
    assert len(json.loads(r.output)["rows"]) == 1
    with open_store() as st:
        prompts = st.prompts_view(cid)
    assert [p["prompt"] for p in prompts] == [
        "How many clients are there?",
        "break out by gender",
        "keep the top 1",
    ]
    assert all(p["client_identifier"] == "ctxtool ask" for p in prompts)
    assert all(
        p["profile_name"] and p["profile_name"].endswith("conversations_financial_set.json") for p in prompts
    )


def test_chat_shell(data_home, pg_samples_dsn):
    script = "\n".join(
        [
            "How many clients are there?",
            "break out by region",
            "/sql",
            "/new Regions",
            "How many accounts are there?",
            "by region",
            "keep the top 2 with a rank",
            "/show",
            "/list",
            "/vectors",
            "/action showsql",
            "sort by region",
            "/bogus",
            "/quit",
            "never asked",
        ]
    )
    r = CliRunner().invoke(
        cli,
        ["chat", "--context", SET, "--dsn", pg_samples_dsn, "--no-llm"],
        input=script + "\n",
        catch_exceptions=False,
    )
    assert r.exit_code == 0, r.output
    out = r.output
    assert 'GROUP BY d."A3"' in out  # /sql shows the follow-up's SQL
    assert "using new conversation" in out and "unknown command /bogus" in out
    with open_store() as st:
        (conv,) = st.list_conversations()
        prompts = st.list_prompts(conv.conversation_id)
    # the session part (before /new) was never stored; the named part was
    assert [t.prompt for t in prompts] == [
        "How many accounts are there?",
        "by region",
        "keep the top 2 with a rank",
        "sort by region",
    ]
    assert prompts[2].state["columns"][-1] == "rank" and prompts[3].action == "showsql"
    assert "never asked" not in out


def test_chat_with_named_conversation(data_home, pg_samples_dsn):
    cid = run("conversation", "create", "--title", "named chat").output.strip()
    r = CliRunner().invoke(
        cli,
        ["chat", "--context", SET, "--dsn", pg_samples_dsn, "--no-llm", "--conversation", cid],
        input="How many loans are there?\nbreak it out by year\n/session\nHow many cards are there?\n",
        catch_exceptions=False,
    )
    assert r.exit_code == 0, r.output
    with open_store() as st:
        prompts = st.list_prompts(cid)
        assert st.get_current("cli") is None  # the shell's own session key is cleared on exit
    assert [t.prompt for t in prompts] == ["How many loans are there?", "break it out by year"]
    assert prompts[1].state["source"] == "followup" and prompts[1].client_identifier == "ctxtool chat"
    r = run(
        "chat", "--context", SET, "--dsn", pg_samples_dsn, "--conversation", "no-such-id", input="/quit\n"
    )
    assert r.exit_code == 2 and "no conversation" in r.output
