"""Execution accuracy of multi-turn conversations (question match and interaction match).

A golden conversation file holds ``conversations``, each a list of ``turns`` with ``question``,
``golden_sql`` (what the question means *after* the turns before it) and ``pattern`` (``first``,
``breakdown``, ``filter``, ``topn``, ``sort``, ``result``, ``new``). Every turn is asked in order
through a :class:`ConversationRunner` on a fresh named conversation; the rows it returns are
compared with the golden SQL's rows. Question match = turns right / turns; interaction match =
conversations with every turn right / conversations (the measures of SParC and CoSQL).

Rows are compared as multisets (as lists when the golden SQL orders its result), values
normalized (decimals and floats to 6 significant places, dates as ISO text) and column order
ignored within a row, so ``region, count`` and ``count, region`` match.
"""

from __future__ import annotations

import decimal
import json
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from ctxtool.contextset import load
from ctxtool.conversations.runner import ConversationRunner
from ctxtool.conversations.store import SQLiteStore
from ctxtool.errors import CtxtoolError, InputError
from ctxtool.jsondoc import load_json
from ctxtool.runtime.answer import jsonable
from ctxtool.runtime.core import Runtime
from ctxtool.runtime.templates import sqlparts


def _norm_value(value: Any) -> Any:
    if isinstance(value, decimal.Decimal):
        value = float(value)
    value = jsonable(value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        f = float(value)
        if f.is_integer():
            return int(f)
        return float(f"{f:.6g}")
    return value


def normalize_rows(rows: Any, ordered: bool) -> Any:
    norm = [tuple(sorted(repr(_norm_value(v)) for v in row)) for row in rows]
    return norm if ordered else Counter(norm)


def _is_ordered(sql: str, dialect: str) -> bool:
    try:
        tree = sqlparts.parse(sql, dialect)
    except Exception:  # noqa: BLE001 - an unparsable golden SQL is compared unordered
        return False
    return tree.args.get("order") is not None


def load_golden(path: str) -> dict[str, Any]:
    doc = load_json(path)
    data = doc.data
    if not isinstance(data, dict) or not isinstance(data.get("conversations"), list):
        raise InputError(f"{path}:1: a golden conversation file needs a 'conversations' list")
    for i, conv in enumerate(data["conversations"]):
        for j, turn in enumerate(conv.get("turns") or []):
            if not isinstance(turn, dict) or not turn.get("question") or not turn.get("golden_sql"):
                line, _ = doc.position(f"/conversations/{i}/turns/{j}")
                raise InputError(f"{path}:{line}: each turn needs 'question' and 'golden_sql'")
    return data


def evaluate(
    golden_path: str,
    dsn: str,
    *,
    contextset: Any = None,
    store_path: str | None = None,
    verbose: bool = False,
) -> dict[str, Any]:
    """Run every golden conversation against ``dsn`` without a language model; return the figures
    and the per-turn results."""
    golden = load_golden(golden_path)
    if contextset is None:
        name = golden.get("context_set")
        if not name:
            raise InputError(
                f"{golden_path}: no context set given and none named in the file ('context_set')"
            )
        contextset = str(Path(golden_path).resolve().parent / name)
    if isinstance(contextset, str):
        contextset = load(contextset)
    dialect = golden.get("dialect") or "postgres"
    turns_out: list[dict[str, Any]] = []
    per_pattern: dict[str, list[bool]] = defaultdict(list)
    conv_ok: list[bool] = []
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(store_path or Path(tmp) / "eval-conversations.sqlite")
        with Runtime(contextset, dsn=dsn, use_llm=False) as runtime:
            runner = ConversationRunner(
                runtime, store=store, profile="eval", client_identifier="conversation-eval"
            )
            for conv in golden["conversations"]:
                cid = store.create_conversation(f"eval {conv.get('id')}").conversation_id
                all_ok = True
                for k, turn in enumerate(conv["turns"]):
                    ok, detail = _run_turn(runner, runtime, cid, turn, dialect)
                    all_ok &= ok
                    per_pattern[turn.get("pattern") or "unknown"].append(ok)
                    turns_out.append({"conversation": conv.get("id"), "turn": k + 1, "ok": ok, **detail})
                    if verbose and not ok:
                        print(json.dumps(turns_out[-1], default=str))
                conv_ok.append(all_ok)
        store.close()
    n_turns = len(turns_out)
    return {
        "conversations": len(conv_ok),
        "turns": n_turns,
        "question_match": sum(t["ok"] for t in turns_out) / n_turns if n_turns else 0.0,
        "interaction_match": sum(conv_ok) / len(conv_ok) if conv_ok else 0.0,
        "by_pattern": {
            p: {"turns": len(v), "correct": sum(v), "accuracy": sum(v) / len(v)}
            for p, v in sorted(per_pattern.items())
        },
        "results": turns_out,
    }


def _run_turn(
    runner: Any, runtime: Any, cid: str, turn: dict[str, Any], dialect: str
) -> tuple[bool, dict[str, Any]]:
    detail: dict[str, Any] = {"question": turn["question"], "pattern": turn.get("pattern")}
    golden = runtime.connector.query(turn["golden_sql"], [], max_rows=10_000)
    try:
        ans = runner.ask(turn["question"], "runsql", conversation_id=cid)
    except CtxtoolError as exc:
        detail["error"] = str(exc)
        return False, detail
    detail.update({"status": ans.status, "source": ans.source, "sql": ans.sql, "params": ans.params})
    if ans.status != "answered" or not ans.executed:
        detail["error"] = ans.error or ans.text
        return False, detail
    ordered = _is_ordered(turn["golden_sql"], dialect)
    ok = normalize_rows(ans.rows, ordered) == normalize_rows(golden.rows, ordered)
    if not ok:
        detail["got"] = [list(map(_norm_value, r)) for r in ans.rows[:5]]
        detail["expected"] = [list(map(_norm_value, r)) for r in golden.rows[:5]]
    return ok, detail
