"""Large sets are validated a few items at a time (``ctxtool.validate.CHUNK``) so that their parse
trees are freed as validation goes: the findings must be exactly those of one pass over the set."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest
from sqlglot import exp

from ctxtool import contextset, validate
from ctxtool.contextset import KINDS
from ctxtool.validate import validate_set, validate_text

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
INVALID = sorted((SAMPLES / "invalid").glob("*.json"))
VALID = sorted(p for d in ("postgres", "mysql", "spanner") for p in (SAMPLES / d).glob("*.json"))


def _items_of(paths: list[Path]) -> dict[str, list]:
    merged: dict[str, list] = {kind: [] for kind in KINDS}
    for path in paths:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            continue  # the JSON-syntax sample
        for kind in KINDS:
            spelled = "fragments" if kind == "facets" and "fragments" in data else kind
            if isinstance(data.get(spelled), list):
                merged[kind].extend(data[spelled])
    return merged


def _mixed_set() -> str:
    """Every item of every invalid and PostgreSQL sample, twice (duplicates across chunks)."""
    merged = _items_of(INVALID + [p for p in VALID if p.parent.name == "postgres"])
    twice = {kind: items + items for kind, items in merged.items() if items}
    return json.dumps(twice, indent=2)


def _findings(text: str, chunk: int | None, dialect: str = "postgres") -> list:
    old = validate.CHUNK, validate.CHUNKED_FROM
    try:
        if chunk is None:
            validate.CHUNKED_FROM = 10**9
        else:
            validate.CHUNK, validate.CHUNKED_FROM = chunk, 0
        return validate_text(text, "set.json", dialect=dialect)
    finally:
        validate.CHUNK, validate.CHUNKED_FROM = old


@pytest.mark.parametrize("chunk", [1, 2, 3, 7])
def test_chunks_find_exactly_what_one_pass_finds(chunk):
    text = _mixed_set()
    whole = _findings(text, None)
    codes = {f.code for f in whole}
    # the set is a real mix: duplicates across chunks and every layer's rules
    assert {"CTX201", "CTX202", "CTX301", "CTX401", "CTX501", "CTX602", "CTX701", "CTX702", "CTX703"} <= codes
    assert _findings(text, chunk) == whole


@pytest.mark.parametrize("path", INVALID + VALID, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_sample_chunked_as_unchunked(path):
    dialect = path.parent.name if path.parent.name in ("postgres", "mysql", "spanner") else "postgres"
    text = path.read_text(encoding="utf-8")
    assert _findings(text, 1, dialect) == _findings(text, None, dialect)


def test_small_sets_keep_one_pass_and_the_shared_cache():
    # below CHUNKED_FROM items nothing changes: every layer sees the whole set
    seen = []

    def layer(ctx):
        seen.append(len(ctx.items()))

    validate.LAYERS.append(("probe", layer))
    try:
        validate_text(_mixed_set(), "set.json")
    finally:
        validate.LAYERS.pop()
    assert len(seen) == 1 and seen[0] > validate.CHUNK


def _live_trees() -> int:
    return sum(1 for o in gc.get_objects() if isinstance(o, exp.Select))


def test_chunked_validation_frees_trees_as_it_goes():
    """The point of chunks: after validation no parse tree is left for the garbage collector."""
    sample = json.loads((SAMPLES / "postgres" / "financial.json").read_text(encoding="utf-8"))
    template = sample["templates"][0]
    items = []
    for i in range(validate.CHUNKED_FROM + 50):
        t = json.loads(json.dumps(template))
        t["nl_query"] += f" ({i})"
        t["sql"] = t["sql"].replace("SELECT ", f"SELECT {i} AS n, ", 1)
        t["parameterized"]["parameterized_sql"] = t["parameterized"]["parameterized_sql"].replace(
            "SELECT ", f"SELECT {i} AS n, ", 1
        )
        items.append(t)
    cs = contextset.loads(json.dumps({"templates": items}), "big.json")
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()  # as in ctxtool validate: only what validation frees itself is freed
    try:
        before = _live_trees()
        findings = validate_set(cs)
        chunked_left = _live_trees() - before
        old = validate.CHUNKED_FROM
        validate.CHUNKED_FROM = 10**9
        try:
            assert validate_set(cs) == findings
        finally:
            validate.CHUNKED_FROM = old
        one_pass_left = _live_trees() - before - chunked_left
    finally:
        if was_enabled:
            gc.enable()
        gc.collect()
    assert findings == []  # the copies are valid, distinct templates
    assert one_pass_left >= len(items)  # one pass leaves every tree to the collector ...
    assert chunked_left <= validate.CHUNK * 2  # ... chunks leave (almost) none
