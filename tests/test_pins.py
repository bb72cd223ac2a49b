"""The runtime's answers without a database stay as pinned (``bench/pins.py``, part ``offline``):
every sample set's golden, template and conversation questions, on the PostgreSQL, MySQL and
Spanner twins. A change that means to change answers records the pins again and says why in its
commit (``.venv/bin/python bench/pins.py record --part offline``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

# bench/ is no package and must not go on sys.path (its mcp.py would shadow the MCP SDK)
_SPEC = importlib.util.spec_from_file_location(
    "pins", Path(__file__).resolve().parent.parent / "bench" / "pins.py"
)
pins = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(pins)


def test_offline_answers_are_as_pinned():
    pinned = pins.load("offline")
    now = pins.record_offline()
    diffs = pins.differences(pinned, now)
    assert len(now) == len(pinned) > 700
    assert not diffs, "\n".join(pins.describe(d) for d in diffs[:20])


def test_a_changed_answer_is_reported():
    pinned = {"q": ["answered", "SELECT 1", [], 0.91, []], "r": ["declined", None, [], 0.3, []]}
    now = {"q": ["answered", "SELECT 2", [], 0.91, []]}
    diffs = pins.differences(pinned, now)
    assert [d[0] for d in diffs] == ["q", "r"]
    assert pins.describe(diffs[0]) == "q: sql 'SELECT 1' -> 'SELECT 2'"
    assert pins.describe(diffs[1]) == "r: only pinned"
