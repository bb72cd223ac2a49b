"""Small inconsistencies a user trips on (issue 12): the reference's ``conversation_length`` is
accepted as an option, and ``parameterize`` defaults to PostgreSQL like ``validate``."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.mark.parametrize("option", ["--length", "--conversation-length", "--conversation_length"])
def test_conversation_length_spellings(data_home, option):
    r = run("conversation", "create", "--title", "t", option, "3")
    assert r.exit_code == 0, r.output
    cid = r.output.strip()
    assert run("conversation", "update", cid, option, "5").exit_code == 0
    (conv,) = json.loads(run("conversation", "list", "--format", "json").output)
    assert conv["conversation_length"] == 5


def test_parameterize_defaults_to_postgres(tmp_path):
    path = tmp_path / "set.json"
    path.write_text(
        json.dumps({"templates": [{"nl_query": "How many orders have status 'shipped'?",
                                   "sql": "SELECT COUNT(*) FROM orders WHERE status = 'shipped'"}]})
    )  # fmt: skip
    r = run("parameterize", str(path), "--in-place")
    assert r.exit_code == 0, r.output
    item = json.loads(path.read_text())["templates"][0]
    assert item["parameterized"]["parameterized_sql"] == "SELECT COUNT(*) FROM orders WHERE status = $1"
    assert run("validate", str(path)).exit_code == 0
