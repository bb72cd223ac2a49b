"""The read-only gate (ctxtool.gate): fixture pairs of accepted and refused texts per engine
(tests/data/gate_cases.json), the findings' wording, the bounds, the cache and the declared functions."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from ctxtool import gate
from ctxtool.errors import EXIT_REFUSED, DatabaseError

CASES = json.loads((Path(__file__).parent / "data" / "gate_cases.json").read_text(encoding="utf-8"))["cases"]


def _id(case: dict) -> str:
    return f"{case['dialect']}-{'ok' if case['ok'] else case['code']}-{case['sql'][:40]}"


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_case(case):
    result = gate.check(case["sql"], case["dialect"], kind=case["kind"], functions_allowed=())
    if case["ok"]:
        assert result.ok, result.summary()
        return
    assert not result.ok
    first = result.findings[0]
    assert first.code == case["code"], result.summary()
    for word in case["mentions"]:
        assert word.lower() in first.message.lower(), first.message
    assert first.fix


def test_cases_cover_each_engine_both_ways():
    for dialect in ("postgres", "mysql", "spanner"):
        assert any(c["ok"] and c["dialect"] == dialect for c in CASES)
        assert any(not c["ok"] and c["dialect"] == dialect for c in CASES)


def test_require_raises_a_database_error_with_its_own_exit_code():
    assert gate.require("SELECT 1", "postgres").ok
    with pytest.raises(gate.GateRefused) as info:
        gate.require("SELECT lo_import('/etc/hostname')", "postgres")
    assert isinstance(info.value, DatabaseError)
    assert info.value.exit_code == EXIT_REFUSED == 4
    assert "lo_import" in str(info.value) and "CTX207" in str(info.value)
    assert "\n" not in str(info.value)


def test_declared_functions_are_allowed_but_dangerous_ones_never(monkeypatch):
    sql = "SELECT shop.price_with_tax(p) FROM item"
    assert not gate.check(sql, "postgres", functions_allowed=()).ok
    assert gate.check(sql, "postgres", functions_allowed=["shop.price_with_tax"]).ok
    monkeypatch.setenv(gate.ENV_FUNCTIONS, "shop.price_with_tax, lo_import")
    assert gate.check(sql, "postgres").ok
    assert not gate.check("SELECT lo_import('/x')", "postgres").ok


def test_hostile_texts_cost_little():
    texts = [
        "SELECT " + "+".join(["a"] * 30_000),
        "SELECT 1 FROM t WHERE " + " AND ".join(["NOT a"] * 20_000),
        "SELECT " + "(" * 5000 + "1" + ")" * 5000,
        "SELECT '" + "x" * 99_000 + "'",
        "SELECT 1 " + "/* c */" * 14_000,
        "x" * 200_000,
        "[" * 3000,
    ]
    for sql in texts:
        t = time.perf_counter()
        result = gate.check(sql, "postgres")
        assert time.perf_counter() - t < 1.0, sql[:40]
        assert not result.ok or sql.startswith("SELECT '") or sql.startswith("SELECT 1 /*")


def test_results_are_cached():
    sql = "SELECT count(*) FROM cache_probe_table WHERE a = $1"
    first = gate.check(sql, "postgres")
    assert gate.check(sql, "postgres") is first
    assert gate.check(sql, "mysql") is not first


def test_condition_and_query_kinds():
    assert gate.check('district."A11" > 5', "postgres", kind="condition").ok
    assert not gate.check('district."A11" > 5', "postgres").ok  # not a statement
