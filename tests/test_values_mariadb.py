"""Value searches on MariaDB (standing in for MySQL): exact, and FULLTEXT + SOUNDEX (no ngram parser)."""

from __future__ import annotations

import json

import pytest

from ctxtool import contextset
from ctxtool.connectors import connect
from ctxtool.values.testing import probe_value, test_values
from ctxtool.values.workflow import draft_values
from tests.backends import SAMPLE_SCALE, _mysql_create, _mysql_drop, unique_name

pytestmark = pytest.mark.mariadb


@pytest.fixture(scope="module")
def values_mariadb(_mariadb_available):
    from ctxtool import sampledata

    name = unique_name("ctx_values_my")
    dsn = _mysql_create(name)
    try:
        sampledata.load(dsn, scale=SAMPLE_SCALE)
        yield dsn
    finally:
        _mysql_drop(name)


def test_mariadb_drafts_fulltext_soundex_and_they_work(values_mariadb, tmp_path):
    out = draft_values(
        dsn=values_mariadb,
        columns=["airports.name", "airports.city", "airports.iata", "district.A2"],
        apply=True,
    )
    by = {r.target.label: r for r in out.recipes}
    assert by["airports.iata"].match == "exact" and by["airports.name"].match == "trigram"
    assert "ngram" not in " ".join(out.ddl) and any("SOUNDEX" in d for d in out.ddl)
    path = tmp_path / "values.json"
    path.write_text(json.dumps(out.data, indent=2))
    cs = contextset.load(str(path))
    with connect(values_mariadb) as conn:
        report = test_values(cs, conn, samples=6)
        probe = probe_value(cs, conn, "London Heathrw")
    failed = [(r.location, [(c.name, c.message) for c in r.failed]) for r in report.results if not r.ok]
    assert not failed
    recall = {r.columns[0]: r.recall_misspelling for r in report.results}
    print(f"\nMariaDB recall@5 under misspellings: {recall}")
    assert recall["airports.name"] >= 0.8 and recall["airports.city"] >= 0.7
    name_rows = next(p for p in probe if p.search == "Airport Name").rows
    assert name_rows and name_rows[0][0] == "London Heathrow"
    from click.testing import CliRunner

    from ctxtool.cli import cli

    out = CliRunner().invoke(
        cli,
        ["test-values", str(path), "--dsn", values_mariadb, "--probe", "London Heathrw", "--format", "json"],
    )
    assert out.exit_code == 0, out.output
    rows = {s["search"]: s["rows"] for s in json.loads(out.stdout)["searches"]}
    first = rows["Airport Name"][0]
    assert (
        first["value"] == "London Heathrow"
        and isinstance(first["distance"], float)
        and 0 < first["distance"] < 1
    )


def test_mysql8_ngram_query_runs_on_mariadb_fulltext(values_mariadb, tmp_path):
    """No MySQL 8 server here: run the MySQL 8 recipe's query against a plain FULLTEXT index on
    MariaDB (same MATCH ... AGAINST and window syntax; only the ngram parser is missing)."""
    from ctxtool.values.ddl import apply_ddl
    from ctxtool.values.recipes import Server, Target, build

    recipe = build(
        Server("mysql", "mysql"), Target("airlines", "name", type="varchar(100)"), "Airline Name", "trigram"
    )
    assert recipe.ddl[0].endswith("WITH PARSER ngram")
    apply_ddl(values_mariadb, [recipe.ddl[0].removesuffix(" WITH PARSER ngram")])
    path = tmp_path / "mysql8.json"
    path.write_text(json.dumps({"value_searches": [recipe.value_search()]}, indent=2))
    cs = contextset.load(str(path))
    with connect(values_mariadb) as conn:
        report = test_values(cs, conn, samples=5)
    r = report.results[0]
    assert r.ok, r.failed
    assert r.exact_found == 1.0 and r.recall_partial is not None and r.recall_partial >= 0.5
