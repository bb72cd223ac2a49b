"""`ctxtool review`: keep / edit / drop in the terminal, saved after every decision."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli


def make_set(path, legacy=False):
    facets_key = "fragments" if legacy else "facets"
    snippet_key = "fragment" if legacy else "sql_snippet"
    data = {
        "templates": [
            {"nl_query": "How many loans are there?", "sql": "SELECT COUNT(*) AS n FROM loan"},
            {
                "nl_query": "How many loans have status 'A'?",
                "sql": "SELECT COUNT(*) AS n FROM loan WHERE loan.status = 'A'",
            },
            {"nl_query": "Bad one", "sql": "SELECT nope FROM loan"},
        ],
        facets_key: [{"intent": "loans with status 'B'", snippet_key: "loan.status = 'B'"}],
    }
    path.write_text(json.dumps(data, indent=2) + "\n")
    return data


def test_keep_edit_drop_and_resume(tmp_path):
    path = tmp_path / "set.json"
    make_set(path)
    runner = CliRunner()
    # keep the first, edit the second, then quit
    res = runner.invoke(
        cli,
        ["review", str(path)],
        input="k\ne\nHow many loans have status 'C'?\nSELECT COUNT(*) AS n FROM loan WHERE loan.status = 'C'\nq\n",
    )
    assert res.exit_code == 0, res.output
    assert "4 of 4 items to review" in res.stderr and "stopped: 1 kept, 1 edited" in res.stderr
    data = json.loads(path.read_text())
    edited = data["templates"][1]
    assert edited["nl_query"] == "How many loans have status 'C'?"
    assert (
        edited["parameterized"]["parameterized_sql"]
        == "SELECT COUNT(*) AS n FROM loan WHERE loan.status = $1"
    )
    assert edited["manifest"] and "'C'" not in edited["manifest"]
    # the next run resumes with the two undecided items: drop the bad one, keep the facet
    res = runner.invoke(cli, ["review", str(path)], input="d\nk\n")
    assert res.exit_code == 0, res.output
    assert "2 of 4 items to review" in res.stderr
    data = json.loads(path.read_text())
    assert [t["nl_query"] for t in data["templates"]] == [
        "How many loans are there?",
        "How many loans have status 'C'?",
    ]
    assert "done: 1 kept, 0 edited, 1 dropped" in res.stderr
    assert (tmp_path / ".set.json.review.json").exists()  # the decisions are remembered
    res = runner.invoke(cli, ["review", str(path)])
    assert "all 3 items already reviewed" in res.stderr
    res = runner.invoke(cli, ["review", str(path), "--restart"], input="q\n")
    assert "3 of 3 items to review" in res.stderr


def test_interrupted_review_loses_nothing(tmp_path):
    path = tmp_path / "set.json"
    make_set(path)
    # input ends (like Ctrl-D / a killed terminal) after one drop
    res = CliRunner().invoke(cli, ["review", str(path)], input="s\nd\n")
    assert res.exit_code != 0  # aborted at the next prompt
    data = json.loads(path.read_text())
    assert len(data["templates"]) == 2 and data["templates"][1]["nl_query"] == "Bad one"
    assert path.read_text().startswith('{\n  "templates"')


def test_legacy_fragments_stay_legacy(tmp_path):
    path = tmp_path / "set.json"
    make_set(path, legacy=True)
    res = CliRunner().invoke(
        cli, ["review", str(path)], input="k\nk\nk\ne\nloans with status 'D'\nloan.status = 'D'\n"
    )
    assert res.exit_code == 0, res.output
    frag = json.loads(path.read_text())["fragments"][0]
    assert frag["fragment"] == "loan.status = 'D'"
    assert (
        frag["parameterized"]["parameterized_fragment"] == "loan.status = ?"
        or frag["parameterized"]["parameterized_fragment"] == "loan.status = $1"
    )


@pytest.mark.postgres
def test_review_shows_rows_from_the_database(tmp_path, pg_samples_dsn):
    path = tmp_path / "set.json"
    make_set(path)
    res = CliRunner().invoke(cli, ["review", str(path), "--dsn", pg_samples_dsn], input="k\nk\nd\nk\n")
    assert res.exit_code == 0, res.output
    assert "  n\n" in res.stderr  # the column header of the first result
    assert "it fails:" in res.stderr and "nope" in res.stderr
    assert "status | " in res.stderr or "loan_id" in res.stderr  # the facet's rows
    assert len(json.loads(path.read_text())["templates"]) == 2


@pytest.mark.mariadb
def test_review_rows_on_mariadb_with_a_limit(tmp_path, mariadb_samples_dsn):
    path = tmp_path / "set.json"
    path.write_text(
        json.dumps(
            {
                "templates": [
                    {
                        "nl_query": "Which 10 districts have the highest average salary?",
                        "sql": "SELECT district.`A2`, district.`A11` FROM district ORDER BY district.`A11` DESC LIMIT 10",
                    }
                ]
            }
        )
    )
    res = CliRunner().invoke(cli, ["review", str(path), "--dsn", mariadb_samples_dsn], input="k\n")
    assert res.exit_code == 0, res.output
    assert "A2 | A11" in res.stderr and "  ...\n" in res.stderr  # 5 of the 10 rows shown


BULK = {
    "templates": [
        {"nl_query": "How many loans are there?", "sql": "SELECT COUNT(*) AS n FROM loan"},
        {"nl_query": "How many loans per status?", "sql": "SELECT status, COUNT(*) FROM loan GROUP BY status"},
        {"nl_query": "Average amount of loans", "sql": "SELECT AVG(amount) FROM loan"},
        {"nl_query": "Which 10 loans are largest?", "sql": "SELECT loan_id FROM loan ORDER BY amount DESC LIMIT 10"},
        {"nl_query": "Largest loan", "sql": "SELECT loan_id FROM loan ORDER BY amount DESC LIMIT 1"},
        {"nl_query": "Largest loans", "sql": "SELECT loan_id FROM loan WHERE amount = (SELECT MAX(amount) FROM loan)"},
        {"nl_query": "Districts of all accounts", "sql": "SELECT district_id FROM account"},
        {"nl_query": "Accounts in Pisek", "sql": "SELECT a.account_id FROM account a JOIN district d ON d.district_id = a.district_id WHERE d.A2 = 'Pisek'"},
    ],
    "facets": [{"intent": "loans with status 'B'", "sql_snippet": "loan.status = 'B'"}],
}  # fmt: skip


def test_bulk_drop_and_keep_by_family_and_table(tmp_path):
    from ctxtool.draft.review import ReviewSession, family_of

    path = tmp_path / "set.json"
    path.write_text(json.dumps(BULK, indent=2) + "\n")
    session = ReviewSession(str(path))
    families = [family_of(i, "postgres") for i in session.items()]
    assert families == [
        "count", "count-per", "aggregate", "top-n", "superlative", "superlative", "list", "lookup", "filter",
    ]  # fmt: skip
    runner = CliRunner()
    r = runner.invoke(
        cli,
        [
            "review",
            str(path),
            "--drop-family",
            "superlative",
            "--keep-table",
            "district",
            "--drop-table",
            "x",
        ],
    )
    assert r.exit_code == 0, r.output
    assert "2 dropped, 1 kept; 6 left to review" in r.output
    data = json.loads(path.read_text())
    assert [t["nl_query"] for t in data["templates"]] == [
        t["nl_query"] for t in BULK["templates"] if "Largest loan" not in t["nl_query"]
    ]
    # the kept one is not asked again; a drop by table reaches facets too
    r = runner.invoke(cli, ["review", str(path), "--drop-table", "loan"])
    assert "5 dropped, 0 kept; 1 left to review" in r.output, r.output
    assert [t["nl_query"] for t in json.loads(path.read_text())["templates"]] == [
        "Districts of all accounts", "Accounts in Pisek",
    ]  # fmt: skip
    assert json.loads(path.read_text())["facets"] == []
    bad = runner.invoke(cli, ["review", str(path), "--drop-family", "nonsense"])
    assert bad.exit_code == 2 and "use one of" in bad.output
