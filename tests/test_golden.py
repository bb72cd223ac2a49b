"""`ctxtool dataset generate` (library, CLI, MCP) on the financial sample in PostgreSQL 15: the items
of each template, their tags, the golden SQL checked on the database, the held-out split, the seed;
and `ctxtool eval` on a generated file (negatives must be declined)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli
from ctxtool.connectors import connect
from ctxtool.errors import InputError
from ctxtool.golden import NEGATIVE_TAG, generate_dataset, heldout_path, wording
from ctxtool.readonly import run_read_only
from ctxtool.runtime.evaluate import load_golden, run_eval
from tests.mcp_client import stdio
from tests.rt_support import RUNTIME_SET


@pytest.fixture(scope="module")
def runtime_set() -> dict:
    return json.loads(open(RUNTIME_SET).read())


@pytest.fixture(scope="module")
def dataset(financial_dsn, runtime_set):
    with connect(financial_dsn) as conn:
        return generate_dataset(runtime_set, conn, seed=7, split=0.2)


def test_wordings_keep_the_values_and_change_the_words():
    rng = random.Random(1)
    q = "How many flights depart from London Heathrow?"
    keep = [(q.index("London"), q.index("?"))]
    assert wording.other_form(q, keep, rng).startswith(("What is the number of", "Count the", "Give me"))
    assert wording.reordered(q, keep, rng) == "From London Heathrow, how many flights depart?"
    assert wording.terse(q, keep, rng) == "number of flights depart from London Heathrow"
    slipped = wording.misspelled(q, keep, rng)
    assert "London Heathrow" in slipped and slipped != q
    in_value = wording.misspelled(q, keep, rng, in_value=True)
    assert "London Heathrow" not in in_value and in_value.startswith("How many flights depart from ")
    assert wording.other_form("How many cards are there?", [], random.Random(0)) in {
        "What is the number of cards?", "Count the cards?", "Give me the number of cards?"
    }  # fmt: skip
    para = {wording.paraphrased("What is the price of each film?", [], random.Random(s)) for s in range(20)}
    assert any(p and "movie" in p for p in para)  # a thesaurus synonym
    assert all(p is None or "What is the" in p for p in para)  # frame words are never replaced


def test_each_template_gets_items_of_every_kind_and_golden_sql_that_runs(dataset, financial_dsn, runtime_set):
    report = dataset.report
    every = dataset.items + dataset.heldout
    assert report["templates"] == len(runtime_set["templates"])
    assert report["min_items_per_template"] >= 5
    tags = report["by_tag"]
    for kind in ("original", "paraphrase", "question-form", "terse", "misspelling", "distraction", "value"):
        assert tags.get(kind, 0) > 0, kind
    assert tags[NEGATIVE_TAG] >= report["templates"]  # one per template, and the out-of-scope requests
    assert {"absent-value", "absent-column", "out-of-scope"} <= set(tags)
    assert len({i.id for i in every}) == len(every)  # unique ids
    by_template = {}
    for i in every:
        by_template.setdefault(i.template, []).append(i)
    with connect(financial_dsn) as conn:
        for item in (i for i in every if "value" in i.tags):
            rows = run_read_only(conn, item.golden_sql).rows
            assert rows and any(v not in (None, 0) for r in rows for v in r), item.golden_sql
            own = next(i for i in by_template[item.template] if "original" in i.tags)
            assert item.golden_sql != own.golden_sql and item.nlq != own.nlq
        for item in (i for i in every if "absent-value" in i.tags):
            own = next(i for i in by_template[item.template] if "original" in i.tags)
            assert item.nlq != own.nlq and item.golden_sql == own.golden_sql


def test_split_holds_out_whole_templates_and_the_seed_decides(dataset, financial_dsn, runtime_set, tmp_path):
    held = {i.template for i in dataset.heldout if i.template}
    kept = {i.template for i in dataset.items if i.template}
    assert held and not held & kept
    assert dataset.report["heldout_templates"] == len(held) == -(-len(runtime_set["templates"]) * 2 // 10)
    with connect(financial_dsn) as conn:
        again = generate_dataset(runtime_set, conn, seed=7, split=0.2)
        other = generate_dataset(runtime_set, conn, seed=8, split=0.2)
    assert [i.to_dict() for i in again.items] == [i.to_dict() for i in dataset.items]
    assert [i.to_dict() for i in other.items] != [i.to_dict() for i in dataset.items]
    with pytest.raises(InputError, match="--split"):
        generate_dataset(runtime_set, None, split=1.5)


def test_cli_writes_the_files_and_eval_reads_them(financial_dsn, tmp_path):
    out = tmp_path / "golden.json"
    res = CliRunner().invoke(
        cli,
        ["dataset", "generate", "--context", RUNTIME_SET, "--dsn", financial_dsn, "-o", str(out),
         "--split", "0.25", "--seed", "3", "--format", "json"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    assert report["written"] == [str(out), heldout_path(str(out))]
    items = load_golden(str(out))
    held = load_golden(heldout_path(str(out)))
    assert len(items) == report["items"] and len(held) == report["heldout_items"] > 0
    assert set(json.loads(out.read_text())[0]) >= {"id", "database", "nlq", "golden_sql", "tags"}
    bad = CliRunner().invoke(
        cli, ["dataset", "generate", "--context", RUNTIME_SET, "-o", str(out)], env={"CTXTOOL_DSN": ""}
    )
    assert bad.exit_code == 2 and "--dsn" in bad.output


def test_eval_scores_negatives_by_declining(financial_runtime, dataset):
    negatives = [i for i in dataset.items if NEGATIVE_TAG in i.tags and "out-of-scope" in i.tags]
    originals = [i for i in dataset.items if i.tags == ["original"]][:5]
    report = run_eval(financial_runtime, load_golden_items(negatives + originals))
    by_id = {i.id: i for i in report.items}
    for n in negatives:  # a write request or a chat question is declined: right, and not "answered"
        assert by_id[n.id].outcome == "correct" and not by_id[n.id].answered, by_id[n.id]
    assert sum(by_id[o.id].outcome == "correct" for o in originals) >= 4
    summary = report.summary()
    assert summary["by_tag"][NEGATIVE_TAG]["answered"] == 0


def load_golden_items(items):
    from ctxtool.runtime.evaluate import GoldenQuestion

    return [GoldenQuestion(i.id, i.database, i.nlq, i.golden_sql, list(i.tags), i.template) for i in items]


def test_golden_sql_that_writes_is_never_run(financial_runtime, financial_dsn):
    from ctxtool.runtime.evaluate import GoldenQuestion

    with connect(financial_dsn) as conn:
        before = run_read_only(conn, "SELECT count(*) FROM account").rows[0][0]
    asked = "how many accounts does Pisek have"
    gold = "SELECT COUNT(a.account_id) FROM account a JOIN district d ON a.district_id = d.district_id WHERE d.\"A2\" = 'Pisek'"
    q = [
        GoldenQuestion("w", "", asked, "DELETE FROM account", []),
        GoldenQuestion("ok", "", asked, gold, []),
    ]
    report = run_eval(financial_runtime, q)
    assert report.items[0].outcome == "golden_error" and "only a SELECT" in report.items[0].detail
    assert report.items[1].outcome == "correct"  # the control: the ordinary path runs
    with connect(financial_dsn) as conn:
        assert run_read_only(conn, "SELECT count(*) FROM account").rows[0][0] == before > 0


def test_mcp_generate_dataset(financial_dsn, tmp_path):
    with stdio(cwd=tmp_path) as client:
        assert "generate_dataset" in client.tools()
        out = client.ok(
            "generate_dataset",
            {"output": "g/golden.json", "context": str(Path(RUNTIME_SET).resolve()),
             "dsn": financial_dsn, "split": 0.2},
        )  # fmt: skip
        assert out["written"] == ["g/golden.json", "g/golden.heldout.json"]
        assert len(json.loads((tmp_path / "g" / "golden.json").read_text())) == out["items"] > 0
        assert "split" in client.error("generate_dataset", {"output": "x.json", "split": 2})
