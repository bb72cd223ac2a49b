"""The read-only gate on the Spanner emulator path (GoogleSQL): a template calling a function that is
not on the Spanner allow-list is refused by `ctxtool ask` before it reaches the emulator, and
`validate` reports the same finding, so the set fails CI; the ordinary template is answered.

``BIT_REVERSE`` is a GoogleSQL function the emulator runs (shown below the gate, on a read-only
snapshot): the refusal is the gate's allow-list, not the server's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli
from ctxtool.connectors import connect

pytestmark = pytest.mark.spanner

ROOT = Path(__file__).resolve().parent.parent
SPANNER_SET = ROOT / "samples" / "spanner" / "financial_runtime.json"
CONTROL_QUESTION = "How many female clients live in the south Moravia region?"
QUESTION = "Which clients have a positive bit-reversed id?"
OFF_LIST = "SELECT client_id FROM client WHERE BIT_REVERSE(client_id, TRUE) > 0 ORDER BY client_id LIMIT 5"


def _ask(question: str, context: Path, dsn: str) -> tuple[int, dict]:
    r = CliRunner().invoke(
        cli, ["ask", question, "--context", str(context), "--dsn", dsn, "--no-llm", "--format", "json"]
    )
    return r.exit_code, json.loads(r.stdout)


def test_a_function_off_the_spanner_allow_list_is_refused_by_ask_and_validate(spanner_samples_dsn, tmp_path):
    data = json.loads(SPANNER_SET.read_text())
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps(data))
    data["templates"].append(
        {
            "nl_query": QUESTION,
            "sql": OFF_LIST,
            "manifest": QUESTION,
            "parameterized": {"parameterized_intent": QUESTION, "parameterized_sql": OFF_LIST},
        }
    )
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(data))

    code, ans = _ask(QUESTION, path, spanner_samples_dsn)
    assert code == 4 and ans["status"] == "error" and not ans.get("rows")
    assert "refused by the read-only gate" in ans["error"]
    assert "CTX207" in ans["error"] and "BIT_REVERSE" in ans["error"] and "spanner" in ans["error"]
    # control: the ordinary template of the same set is answered on the same path
    code, ans = _ask(CONTROL_QUESTION, path, spanner_samples_dsn)
    assert code == 0 and ans["status"] == "answered" and ans["rows"]

    r = CliRunner().invoke(cli, ["validate", str(path), "--dialect", "spanner"])
    assert r.exit_code == 1 and "CTX207" in r.output and "BIT_REVERSE" in r.output, r.output
    r = CliRunner().invoke(cli, ["validate", str(clean), "--dialect", "spanner"])
    assert r.exit_code == 0, r.output

    # the emulator itself runs the function (read-only snapshot, below the gate): it was the gate
    with connect(spanner_samples_dsn) as conn, conn.database.snapshot() as snap:
        rows = list(snap.execute_sql(OFF_LIST))
    assert len(rows) == 5 and all(len(row) == 1 for row in rows)
