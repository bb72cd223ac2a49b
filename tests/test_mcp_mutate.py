"""`mutate_set` keeps a file's layout: key order, indentation, escaping and the legacy `fragments`
spelling; a refused change writes nothing. Called through the registry as the server calls it."""

from __future__ import annotations

import json
import os

import pytest

from ctxtool.mcp.server import registry
from ctxtool.mcp.tools import Defaults, ToolError, call
from tests.mcp_client import REPO

TOOLS = registry()
FACET = {
    "sql_snippet": 'district."A11" < 8000',
    "intent": "districts with an average salary below 8000",
}


def mutate(path, *operations, **options):
    workspace = Defaults(root=os.path.dirname(str(path)))  # the server's workspace holds the file
    return call(
        TOOLS, "mutate_set", {"path": str(path), "operations": list(operations), **options}, workspace
    )


def test_legacy_four_space_file_keeps_its_spelling_order_and_indent(tmp_path):
    data = json.loads((REPO / "samples" / "invalid" / "CTX002-legacy-fragments.json").read_text())
    data = {"fragments": data["fragments"], "templates": data["templates"]}  # facets first
    path = tmp_path / "legacy.json"
    path.write_text(json.dumps(data, indent=4))  # no final newline
    out = mutate(path, {"op": "add", "kind": "facets", "item": FACET})
    assert out["written"] and out["changed"] == [{"kind": "facets", "index": 1, "pointer": "/facets/1"}]
    text = path.read_text()
    assert text.startswith('{\n    "fragments": [') and '"facets"' not in text
    added = json.loads(text)["fragments"][1]
    assert added["fragment"] == FACET["sql_snippet"] and "sql_snippet" not in added
    assert added["parameterized"]["parameterized_fragment"] == 'district."A11" < $1'
    assert list(json.loads(text)) == ["fragments", "templates"]


def test_update_by_text_rederives_and_delete_by_index(tmp_path):
    path = tmp_path / "set.json"
    src = json.loads((REPO / "samples" / "postgres" / "financial.json").read_text())
    path.write_text(json.dumps(src, indent=2, ensure_ascii=True) + "\n")
    first = src["templates"][0]
    new_sql = first["sql"].replace("COUNT(T1.account_id)", "COUNT(DISTINCT T1.account_id)")
    assert new_sql != first["sql"]
    out = mutate(
        path,
        {
            "op": "update",
            "kind": "templates",
            "nl_query": first["nl_query"].upper(),
            "item": {"sql": new_sql},
        },
    )
    assert out["written"], out
    now = json.loads(path.read_text())
    assert now["templates"][0]["sql"] == new_sql
    assert "COUNT(DISTINCT T1.account_id)" in now["templates"][0]["parameterized"]["parameterized_sql"]
    assert list(now["templates"][0]) == list(first)  # the item's key order is kept
    count = len(now["facets"])
    out = mutate(path, {"op": "delete", "kind": "facets", "index": 0})
    assert out["written"] and len(json.loads(path.read_text())["facets"]) == count - 1


def test_refused_and_dry_run_changes_write_nothing(tmp_path):
    path = tmp_path / "set.json"
    original = (REPO / "samples" / "postgres" / "financial.json").read_text()
    path.write_text(original)
    stamp = os.stat(path).st_mtime_ns
    bad = {"nl_query": "How many rows?", "sql": "DELETE FROM account"}
    out = mutate(path, {"op": "add", "kind": "templates", "item": bad})
    assert not out["written"] and "CTX202" in {f["code"] for f in out["blocking_findings"]}
    good = {"nl_query": "How many loans are there in all?", "sql": "SELECT COUNT(*) FROM loan"}
    assert not mutate(path, {"op": "add", "kind": "templates", "item": good}, dry_run=True)["written"]
    assert path.read_text() == original and os.stat(path).st_mtime_ns == stamp
    with pytest.raises(ToolError, match="no item of templates"):
        mutate(path, {"op": "delete", "kind": "templates", "nl_query": "not a question of this set"})
    with pytest.raises(ToolError, match="use index"):
        dup = {"nl_query": "How many loans are there in all?", "sql": "SELECT COUNT(*) FROM loan"}
        mutate(
            path,
            {"op": "add", "kind": "templates", "item": dup},
            {"op": "add", "kind": "templates", "item": dup},
            {"op": "delete", "kind": "templates", "nl_query": dup["nl_query"]},
        )
    assert path.read_text() == original


def test_a_new_file_is_created(tmp_path):
    path = tmp_path / "new.json"
    good = {"nl_query": "How many loans are there?", "sql": "SELECT COUNT(*) FROM loan"}
    out = mutate(path, {"op": "add", "kind": "templates", "item": good})
    assert out["written"] and out["created"] and path.read_text().endswith("}\n")
    assert json.loads(path.read_text())["templates"][0]["manifest"] == good["nl_query"]
