"""`ctxtool eval --compare`: two sets (files or published versions) on one golden file on PostgreSQL
15: the questions that went from right to not right and back, per tag and per template, the
--fail-under and --max-regressions exits, and the JSON and JUnit reports."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli
from ctxtool.errors import InputError
from ctxtool.loop.compare import check_thresholds, compare, junit, parse_threshold
from ctxtool.runtime import Runtime
from ctxtool.runtime.evaluate import load_golden, run_eval
from tests.mcp_client import REPO, stdio
from tests.rt_support import GOLDEN, RUNTIME_SET


@pytest.fixture(scope="module")
def smaller(tmp_path_factory) -> str:
    """The runtime set without its templates about loans: the loan questions lose their answers."""
    data = json.loads(open(RUNTIME_SET).read())
    data["templates"] = [t for t in data["templates"] if "loan" not in t["sql"].lower()]
    path = tmp_path_factory.mktemp("cmp") / "smaller.json"
    path.write_text(json.dumps(data))
    return str(path)


@pytest.fixture(scope="module")
def golden(tmp_path_factory) -> str:
    items = json.loads(open(GOLDEN).read())
    for q in items:  # the generated files' optional field
        q["template"] = "loans" if "loan" in q["golden_sql"].lower() else "other"
    path = tmp_path_factory.mktemp("cmp") / "golden.json"
    path.write_text(json.dumps(items))
    return str(path)


def test_compare_lists_regressions_per_tag_and_template(financial_dsn, smaller, golden):
    questions = load_golden(golden)
    with Runtime(RUNTIME_SET, dsn=financial_dsn, use_llm=False) as rt:
        a = run_eval(rt, questions)
    with Runtime(smaller, dsn=financial_dsn, use_llm=False) as rt:
        b = run_eval(rt, questions)
    cmp = compare(a, b)
    assert cmp.regressed and all(c.template == "loans" for c in cmp.regressed)
    assert not cmp.fixed and not cmp.only_in_one
    assert cmp.by_template["loans"]["correct_b"] < cmp.by_template["loans"]["correct_a"]
    assert cmp.by_template["other"]["correct_b"] == cmp.by_template["other"]["correct_a"]
    back = compare(b, a)  # the other way round: the same questions are fixed
    assert {c.id for c in back.fixed} == {c.id for c in cmp.regressed} and not back.regressed
    assert "regressed" in cmp.text() and "template:loans" in cmp.text()
    xml = ET.fromstring(junit(b, cmp))
    failures = [c for c in xml.iter("testcase") if c.find("failure") is not None]
    assert int(xml.get("tests")) == len(questions) and len(failures) >= len(cmp.regressed)
    assert check_thresholds(a, ["covered=0.9"]) == [] and check_thresholds(b, ["covered=0.9"])


def test_thresholds_are_checked_before_any_work():
    assert parse_threshold("0.8") == ("overall", 0.8)
    assert parse_threshold("tag:paraphrase=0.5") == ("tag:paraphrase", 0.5)
    for bad in ("eighty", "1.5", "nothing=0.5"):
        with pytest.raises(InputError, match="--fail-under"):
            parse_threshold(bad)
    report = run_eval(None, [])  # nothing asked: every threshold is missed, never met by default
    assert check_thresholds(report, ["0.1"]) == ["overall execution accuracy no questions is under 10.0%"]


def test_cli_compare_exits_1_on_regressions_and_writes_junit(financial_dsn, smaller, golden, tmp_path):
    out = tmp_path / "report.xml"
    args = [
        "eval",
        golden,
        "--context",
        RUNTIME_SET,
        "--dsn",
        financial_dsn,
        "--no-llm",
        "--compare",
        smaller,
    ]
    res = CliRunner().invoke(cli, [*args, "--max-regressions", "0", "-o", str(out), "--report", "junit"])
    assert res.exit_code == 1, res.output
    assert "regressed" in res.output and "failed:" in res.stderr
    assert ET.parse(out).getroot().tag == "testsuite"
    ok = CliRunner().invoke(cli, [*args, "--format", "json", "--fail-under", "0.2"])
    assert ok.exit_code == 0, ok.output
    data = json.loads(ok.output)
    assert data["regressed"] and data["a"]["set"] == RUNTIME_SET and data["b"]["set"] == smaller
    bad = CliRunner().invoke(cli, [*args, "--fail-under", "lots"])
    assert bad.exit_code == 2 and "--fail-under" in bad.output


def test_mcp_eval_compares(financial_dsn, smaller, golden, tmp_path):
    for name, source in (
        ("golden.json", golden),
        ("set.json", REPO / RUNTIME_SET),
        ("smaller.json", smaller),
    ):
        shutil.copy(source, tmp_path / name)  # the MCP file tools stay in their workspace
    with stdio(cwd=tmp_path) as client:
        out = client.ok(
            "eval",
            {"golden": "golden.json", "context": "set.json", "dsn": financial_dsn, "compare": "smaller.json"},
        )
        assert out["comparison"]["regressed"] and out["summary"]["set"] == "smaller.json"
