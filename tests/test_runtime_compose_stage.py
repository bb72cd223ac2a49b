"""The runtime's compose stage end to end, on a rentals database of our own in PostgreSQL: a
question that is a template's shape plus a time, another month or a value is answered by the template
plus edits on its AST (the rows the gold query returns), explained; a time or a value the answer
cannot use is asked back or declined, naming it, never answered with the template's own month.
The cases are data (``tests/data/runtime_compose.json``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxtool.parameterize import parameterize_set
from ctxtool.runtime import Runtime
from tests.backends import _pg_create, _pg_drop, unique_name

DATA = json.loads((Path(__file__).parent / "data" / "runtime_compose.json").read_text())
CASES = DATA["cases"]


@pytest.fixture(scope="module")
def rt(_pg15_admin: str):
    import psycopg

    name = unique_name("ctx_compose")
    dsn = _pg_create(_pg15_admin, name)
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            for stmt in DATA["ddl"] + DATA["rows"]:
                conn.execute(stmt)
        from ctxtool.connectors import connect

        with connect(dsn) as c:
            snapshot = c.introspect()
        data, _ = parameterize_set(DATA["set"], "postgres", snapshot)
        with Runtime(data, dsn=dsn, use_llm=False) as runtime:
            yield runtime
    finally:
        _pg_drop(_pg15_admin, name)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_compose_stage(rt: Runtime, case: dict[str, Any]) -> None:
    ans = rt.ask(case["question"])
    if not case["answered"]:
        assert ans.status in ("disambiguate", "declined") and not ans.executed, ans.sql
        if "says" in case:
            assert case["says"] in f"{ans.text} {ans.explanation}"
        return
    assert ans.status == "answered", f"{ans.text} {ans.explanation}"
    if "source" in case:
        assert ans.source == case["source"]
    gold = rt.connector.query(case["gold"], None)
    assert [list(r) for r in ans.rows] == [list(r) for r in gold.rows], ans.sql
    if "explains" in case:
        assert case["explains"] in ans.explanation


def test_the_composed_sql_passes_the_read_only_check_and_binds_its_values(rt: Runtime) -> None:
    ans = rt.ask("How many customers in Lisbon are in the Gold tier?", action="showsql")
    assert ans.source == "composed" and "Lisbon" not in ans.sql and "Lisbon" in map(str, ans.params)
    # the control: the template's own question is the template's answer, not a composition
    own = rt.ask("How many customers are in the Gold tier?", action="showsql")
    assert own.status == "answered" and own.source == "template"
