"""MCP file tools stay in their workspace (issue 24): the directory the server started in, or
``ctxtool mcp --root DIR``. Absolute paths and ``..`` (and symbolic links) leading out of it are
refused with a one-line tool error, and nothing outside is read, created or changed; a file the
call would write over must be a context set (a snapshot for introspect). Each refusal has its
control: the same call on a path inside the workspace works. Through the MCP SDK client."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tests.mcp_client import REPO, stdio
from tests.rt_support import GOLDEN, RUNTIME_SET

pytestmark = pytest.mark.postgres
QUESTION = "How many gold cards were issued?"
ADD = [{"op": "add", "kind": "facets", "item": {"sql_snippet": "card.type = 'gold'", "intent": "gold cards"}}]


@pytest.fixture
def places(tmp_path):
    """(workspace, outside): a project folder and a sibling holding files the server must not touch."""
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    for folder in (work, outside):
        shutil.copy(REPO / RUNTIME_SET, folder / "set.json")
    (outside / "notes.txt").write_text("not JSON: keep me\n")
    (outside / "config.json").write_text('{"name": "keep me"}\n')
    (work / "notes.txt").write_text("not JSON: keep me\n")
    (work / "config.json").write_text('{"name": "keep me"}\n')
    os.symlink(outside, work / "link")
    return work, outside


def _listing(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def test_paths_outside_the_workspace_are_refused(financial_dsn, places):
    work, outside = places
    before = _listing(outside)
    escapes = [str(outside / "x.json"), "../outside/x.json", "link/x.json", "sub/../../outside/x.json"]
    with stdio(cwd=work) as c:
        for path in escapes:
            message = c.error("introspect", {"dsn": financial_dsn, "output": path})
            assert "outside the workspace" in message and "\n" not in message, message
            message = c.error("mutate_set", {"path": path, "operations": ADD})
            assert "outside the workspace" in message
            message = c.error("draft_templates", {"dsn": financial_dsn, "output": path})
            assert "outside the workspace" in message
        outside_set = str(outside / "set.json")  # a readable, valid set: reading it is refused too
        for tool, args in [
            ("ask", {"question": QUESTION, "context": outside_set, "dsn": financial_dsn}),
            ("ask", {"question": QUESTION, "set": "../outside/set.json", "dsn": financial_dsn}),
            ("list_templates", {"context": "link/set.json"}),
            ("validate", {"paths": [outside_set]}),
            ("validate", {"paths": ["../outside/*.json"]}),
            ("validate", {"paths": ["set.json"], "snapshot": "/etc/hostname"}),
            ("parameterize", {"path": outside_set, "write": True}),
            ("test_values", {"path": outside_set, "dsn": financial_dsn}),
            ("eval", {"golden": str(REPO / GOLDEN), "context": "set.json", "dsn": financial_dsn}),
            ("draft_templates", {"snapshot": "/etc/passwd", "output": "drafts.json"}),
        ]:
            message = c.error(tool, args)
            assert "outside the workspace" in message, (tool, message)
        assert _listing(outside) == before  # nothing created or changed
        assert not (work / "drafts.json").exists()
        # controls: the same tools inside the workspace
        assert (
            c.ok("ask", {"question": QUESTION, "context": "set.json", "dsn": financial_dsn})["status"]
            == "answered"
        )
        assert c.ok("validate", {"paths": ["set.json", "*.json"]})["summary"]["files"] >= 1
        snap = c.ok("introspect", {"dsn": financial_dsn, "output": "context/db.snapshot.json"})
        assert snap and json.loads((work / "context" / "db.snapshot.json").read_text())["schemas"]
        c.ok("introspect", {"dsn": financial_dsn, "output": str(work / "context" / "db.snapshot.json")})
        out = c.ok("mutate_set", {"path": "new/set.json", "operations": ADD})
        assert out is not None and (work / "new").is_dir()


def test_only_files_of_their_kind_are_written_over(financial_dsn, places):
    work, _ = places
    with stdio(cwd=work) as c:
        for path in ("notes.txt", "config.json"):
            message = c.error("introspect", {"dsn": financial_dsn, "output": path})
            assert "left as it is" in message, message
            message = c.error("mutate_set", {"path": path, "operations": ADD})
            assert "left as it is" in message, message
            message = c.error("parameterize", {"path": path, "write": True})
            assert "left as it is" in message, message
        assert (work / "notes.txt").read_text() == "not JSON: keep me\n"
        assert (work / "config.json").read_text() == '{"name": "keep me"}\n'
        # a snapshot is not a context set, and the other way round
        c.ok("introspect", {"dsn": financial_dsn, "output": "db.snapshot.json"})
        snapshot_text = (work / "db.snapshot.json").read_text()
        message = c.error("draft_templates", {"snapshot": "db.snapshot.json", "output": "db.snapshot.json"})
        assert "is a JSON file that is not a context set" in message
        assert (work / "db.snapshot.json").read_text() == snapshot_text
        set_text = (work / "set.json").read_text()
        assert "not a snapshot" in c.error("introspect", {"dsn": financial_dsn, "output": "set.json"})
        assert (work / "set.json").read_text() == set_text
        # controls: a context set is written over, an empty file too
        drafted = c.ok("draft_templates", {"snapshot": "db.snapshot.json", "output": "set.json"})
        assert drafted and (work / "set.json").read_text() != set_text
        (work / "empty.json").write_text("")
        c.ok("introspect", {"dsn": financial_dsn, "output": "empty.json"})
        assert json.loads((work / "empty.json").read_text())["schemas"]


def test_root_option_names_the_workspace(financial_dsn, places, tmp_path):
    work, outside = places
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with stdio("--root", str(work), "--dsn", financial_dsn, cwd=elsewhere) as c:
        assert c.ok("ask", {"question": QUESTION, "context": "set.json"})["status"] == "answered"
        assert "outside the workspace" in c.error("list_templates", {"context": str(outside / "set.json")})
        c.ok("introspect", {"output": "db.snapshot.json"})
    assert (work / "db.snapshot.json").is_file() and not (elsewhere / "db.snapshot.json").exists()
