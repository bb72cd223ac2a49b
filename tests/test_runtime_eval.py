"""`ctxtool eval`: golden questions against the runtime set; the accuracy goals of issue 7."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli
from ctxtool.errors import InputError
from ctxtool.runtime import Runtime
from ctxtool.runtime.evaluate import golden_orders, load_golden, results_match, run_eval
from tests.rt_support import GOLDEN, RUNTIME_SET


def test_result_comparison():
    assert results_match([(1, "a"), (2, "b")], [[2, "b"], [1, "a"]], ordered=False)
    assert not results_match([(1, "a"), (2, "b")], [[2, "b"], [1, "a"]], ordered=True)
    assert results_match([(Decimal("9736.00"),)], [[9736]], ordered=False)
    assert results_match([(date(1995, 3, 1),)], [["1995-03-01"]], ordered=False)
    assert results_match([("Pisek", 12)], [[12, "Pisek"]], ordered=False)  # column order may differ
    assert not results_match([(1,), (1,)], [[1]], ordered=False)  # multisets, not sets
    assert not results_match([(0,)], [[1]], ordered=False)
    assert golden_orders("SELECT a FROM t ORDER BY a", "postgres")
    assert not golden_orders("SELECT a FROM (SELECT a FROM t ORDER BY a LIMIT 3) s", "postgres")


def test_golden_file_shape():
    questions = load_golden(GOLDEN)
    assert len(questions) >= 60
    assert {"misspelled", "facet", "paraphrase", "other-value", "uncovered"} <= {
        t for q in questions for t in q.tags
    }
    template_questions = {t["nl_query"].lower() for t in json.load(open(RUNTIME_SET))["templates"]}
    assert not [q.nlq for q in questions if q.nlq.lower() in template_questions]  # worded differently


def test_bad_golden_file(tmp_path):
    p = tmp_path / "g.json"
    p.write_text(
        '[{"id": "a", "nlq": "x", "golden_sql": "SELECT 1"},\n {"id": "a", "nlq": "y", "golden_sql": "SELECT 2"}]'
    )
    with pytest.raises(InputError, match=r"g.json:2:\d+: duplicate id"):
        load_golden(str(p))
    p.write_text('[{"id": "a", "nlq": ""}]')
    with pytest.raises(InputError, match="non-empty 'nlq'"):
        load_golden(str(p))


@pytest.mark.postgres
def test_golden_accuracy_without_a_model(financial_runtime):
    report = run_eval(financial_runtime, load_golden(GOLDEN))
    s = report.summary()
    assert not [i for i in report.items if i.outcome in ("golden_error", "error")], report.text()
    assert s["covered"]["questions"] >= 50
    assert s["covered"]["execution_accuracy"] >= 0.95, report.text()
    assert s["overall"]["wrong_rate"] <= 0.02, report.text()
    assert s["uncovered"]["answered"] == s["uncovered"]["correct"]  # declined, not answered wrongly
    assert set(s["by_tag"]) >= {"misspelled", "facet", "uncovered"}


@pytest.mark.postgres
def test_eval_catches_wrong_answers(financial_dsn):
    data = json.load(open(RUNTIME_SET))
    # sabotage: the accounts-per-district template counts one too many
    tpl = data["templates"][0]
    tpl["parameterized"]["parameterized_sql"] = tpl["parameterized"]["parameterized_sql"].replace(
        "COUNT(*)", "COUNT(*) + 1"
    )
    with Runtime(data, dsn=financial_dsn, use_llm=False) as rt:
        report = run_eval(rt, [q for q in load_golden(GOLDEN) if q.id in ("fin-001", "fin-002", "fin-010")])
    outcomes = {i.id: i.outcome for i in report.items}
    assert (
        outcomes["fin-001"] == "wrong" and outcomes["fin-002"] == "wrong" and outcomes["fin-010"] == "correct"
    )
    assert report.summary()["overall"]["wrong"] == 2


@pytest.mark.postgres
def test_eval_cli_text_and_json(financial_dsn, tmp_path):
    out = tmp_path / "report.json"
    run = CliRunner().invoke
    args = ["eval", GOLDEN, "--context", RUNTIME_SET, "--dsn", financial_dsn, "--no-llm"]
    r = run(cli, [*args, "--min-accuracy", "0.95", "--max-wrong", "0.02", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "exec acc" in r.output and "tag:misspelled" in r.output
    data = json.loads(out.read_text())
    assert data["summary"]["overall"]["questions"] == len(load_golden(GOLDEN))
    assert {q["outcome"] for q in data["questions"]} <= {"correct", "wrong", "declined", "disambiguate"}
    r = run(cli, [*args, "--format", "json", "--min-accuracy", "1.01"])
    assert r.exit_code == 1 and json.loads(r.output)["summary"]["covered"]["execution_accuracy"] >= 0.95
