"""`ctxtool improve` on PostgreSQL 15 with the financial sample: an eval report's failures grouped by
cause (no template of the shape, a missing facet, an unlinked value, unknown words, a wrong answer's
check), a fix proposed for each, and `--apply` adding those that pass their checks (a proposal that
fails validation is not added) so that the evaluation gets them right afterwards."""

from __future__ import annotations

import json

from click.testing import CliRunner

from ctxtool.cli import cli
from ctxtool.connectors import connect
from ctxtool.loop.hillclimb import apply_proposals, evaluate_file
from ctxtool.loop.improve import gap_report
from tests.mcp_client import REPO

SET = REPO / "samples" / "postgres" / "financial_runtime.json"


def q(qid, nlq, sql, outcome="declined", tags=()):
    return {"id": qid, "nlq": nlq, "golden_sql": sql, "outcome": outcome, "tags": list(tags)}


QUESTIONS = [
    q("shape", "What is the mean loan amount?", "SELECT AVG(loan.amount) FROM loan"),
    q("facet", "How many loans with a duration of 36 months are there?",
      "SELECT COUNT(*) FROM loan WHERE loan.duration = 36"),
    q("region", "How many accounts are in the region north Moravia?",
      "SELECT COUNT(*) FROM account AS a JOIN district AS d ON a.district_id = d.district_id "
      "WHERE d.\"A3\" = 'north Moravia'"),
    q("words", "Tally up the accounts sitting in district Pisek",
      "SELECT COUNT(*) FROM account AS a JOIN district AS d ON a.district_id = d.district_id "
      "WHERE d.\"A2\" = 'Pisek'"),
    q("neg", "How many accounts are in the district Xyzzy?", "SELECT 1", "wrong", ["negative", "absent-value"]),
    q("badcol", "How many loans with a flavour of 3 are there?", "SELECT COUNT(*) FROM loan WHERE loan.flavour = 3"),
    q("ok", "How many loans are there?", "SELECT COUNT(*) FROM loan", "correct"),
]  # fmt: skip


def the_set(tmp_path):
    data = json.loads(SET.read_text())
    data["templates"] = [
        t for t in data["templates"] if t["nl_query"] != "What is the average amount of a loan?"
    ]
    data["value_searches"] = [v for v in data["value_searches"] if v["concept_type"] != "Region"]
    path = tmp_path / "set.json"
    path.write_text(json.dumps(data, indent=2))
    return path, data


def test_gap_report_groups_failures_by_cause_and_applies_what_passes(financial_dsn, tmp_path):
    path, data = the_set(tmp_path)
    with connect(financial_dsn) as conn:
        report = gap_report(QUESTIONS, data, conn)
        cause = {g.id: g.cause for g in report.gaps}
        assert cause == {"shape": "no-template", "facet": "missing-facet", "region": "unlinked-value",
                         "words": "unknown-word", "neg": "wrong-check", "badcol": "missing-facet"}  # fmt: skip
        assert report.correct == 1 and report.questions == len(QUESTIONS)
        gaps = {g.id: g for g in report.gaps}
        assert "tally" in gaps["words"].detail and "the value check" in gaps["neg"].detail
        props = {g.id: report.proposals[g.proposal] for g in report.gaps}
        assert props["shape"].item == {"nl_query": "What is the mean loan amount?",
                                       "sql": "SELECT AVG(loan.amount) FROM loan"}  # fmt: skip
        assert props["facet"].kind == "facets" and props["facet"].item["sql_snippet"] == "loan.duration = 36"
        assert props["region"].kind == "value_searches"
        assert "'district.A3' AS columns" in props["region"].item["query"]
        assert props["neg"].kind == "check" and props["neg"].item is None

        apply_proposals(str(path), report, conn)
        status = {g.id: report.proposals[g.proposal].status for g in report.gaps}
        assert status["shape"] == status["facet"] == status["region"] == "added", report.text()
        assert status["badcol"] == "rejected" and status["neg"] == "not applicable"
        assert report.proposals[gaps["badcol"].proposal].message.startswith("validate: ")
        after = json.loads(path.read_text())
        assert not any("flavour" in f["sql_snippet"] for f in after["facets"])  # nothing failing was added
        assert any(f["sql_snippet"] == "loan.duration = 36" for f in after["facets"])
        assert len(after["value_searches"]) == len(data["value_searches"]) + 1

        golden = tmp_path / "golden.json"
        golden.write_text(json.dumps([{"id": x["id"], "database": "", "nlq": x["nlq"],
                                       "golden_sql": x["golden_sql"], "tags": []}
                                      for x in QUESTIONS if x["id"] in ("shape", "ok")]))  # fmt: skip
        outcomes = {i.id: i.outcome for i in evaluate_file(str(path), str(golden), conn).items}
        assert outcomes == {"shape": "correct", "ok": "correct"}
        # the control: the set before improve does not answer it
        before = tmp_path / "before.json"
        before.write_text(json.dumps(data))
        assert {i.id: i.outcome for i in evaluate_file(str(before), str(golden), conn).items}[
            "shape"
        ] != "correct"


def test_cli_reads_an_eval_report(financial_dsn, tmp_path):
    path, _ = the_set(tmp_path)
    report = tmp_path / "eval.json"
    report.write_text(json.dumps({"summary": {}, "questions": QUESTIONS}))
    text = path.read_text()
    r = CliRunner().invoke(cli, ["improve", str(path), "--report", str(report), "--dsn", financial_dsn])
    assert r.exit_code == 0, r.output
    for cause in ("no-template", "missing-facet", "unlinked-value", "unknown-word", "wrong-check"):
        assert f"\n{cause} (" in r.output
    assert path.read_text() == text  # without --apply nothing is written
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"questions": [{"id": "x", "nlq": "q", "outcome": "declined"}]}))
    r = CliRunner().invoke(cli, ["improve", str(path), "--report", str(bad), "--dsn", financial_dsn])
    assert r.exit_code == 2 and "--golden" in r.output and "Traceback" not in r.output


def golden_file(path, items):
    path.write_text(json.dumps([{"id": x["id"], "database": "", "nlq": x["nlq"], "golden_sql": x["golden_sql"],
                                 "tags": x["tags"]} for x in items]))  # fmt: skip
    return path


def test_hill_climb_reports_the_heldout_file_before_and_after_and_never_tunes_on_it(financial_dsn, tmp_path):
    path, _ = the_set(tmp_path)
    by_id = {x["id"]: x for x in QUESTIONS}
    golden = golden_file(tmp_path / "golden.json", [by_id["shape"], by_id["ok"]])
    held = q("held", "What is the mean amount of the loans?", "SELECT AVG(loan.amount) FROM loan")
    absent = q("absent", "How many flights left Narnia?", "SELECT COUNT(*) FROM loan")  # no shape, held out
    heldout = golden_file(tmp_path / "golden.heldout.json", [held, absent])
    r = CliRunner().invoke(cli, ["improve", str(path), "--golden", str(golden), "--heldout", str(heldout),
                                 "--dsn", financial_dsn, "--format", "json"])  # fmt: skip
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)  # the progress lines go to stderr
    assert out["golden_before"]["correct"] == 1 and out["golden_after"]["correct"] == 2
    assert out["heldout_before"]["questions"] == out["heldout_after"]["questions"] == 2
    nlqs = [t["nl_query"] for t in json.loads(path.read_text())["templates"]]
    assert "What is the mean loan amount?" in nlqs
    assert held["nlq"] not in nlqs and absent["nlq"] not in nlqs  # the held-out file proposed nothing


def test_mcp_improve_through_the_registry(financial_dsn, tmp_path):
    from ctxtool.mcp.server import registry
    from ctxtool.mcp.tools import Defaults, call

    path, _ = the_set(tmp_path)
    report = tmp_path / "eval.json"
    report.write_text(json.dumps({"questions": QUESTIONS}))
    out = call(
        registry(),
        "improve",
        {"path": str(path), "report": str(report), "dsn": financial_dsn},
        Defaults(root=str(tmp_path)),  # the MCP file tools stay in their workspace
    )
    assert out["by_cause"] == {"no-template": 1, "missing-facet": 2, "unlinked-value": 1, "unknown-word": 1,
                               "wrong-check": 1}  # fmt: skip
    assert set(out["proposal_status"]) == {"proposed"}  # nothing applied without apply


def test_a_generated_variant_names_the_runtime_stage_instead_of_a_template(financial_dsn, tmp_path):
    """Misspellings and generated paraphrases are not questions people asked: the stage that should
    have read them is named, and no template of them is proposed; the user's own wording is."""
    _, data = the_set(tmp_path)
    pisek = (
        "SELECT COUNT(*) FROM account AS a JOIN district AS d ON a.district_id = d.district_id "
        "WHERE d.\"A2\" = 'Pisek'"
    )
    questions = [
        q("typo", "How many acounts are in the district Pisek?", pisek),
        q("para", "Tally up the accounts sitting in district Pisek", pisek, tags=["paraphrase"]),
        q("user", "Tally up the accounts sitting in district Pisek", pisek),
    ]
    with connect(financial_dsn) as conn:
        report = gap_report(questions, data, conn)
    props = {g.id: report.proposals[g.proposal] for g in report.gaps}
    assert props["typo"].kind == "check" and "'acount' as 'account'" in props["typo"].reason
    assert props["para"].kind == "check" and "synonym" in props["para"].reason
    assert props["user"].kind == "templates" and props["user"].item["nl_query"] == questions[2]["nlq"]
