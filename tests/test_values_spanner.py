"""Value searches on the Spanner emulator: exact and SEARCH_NGRAMS over a TOKENLIST column."""

from __future__ import annotations

import json

import pytest

from ctxtool import contextset
from ctxtool.connectors import connect
from ctxtool.values.testing import probe_value, test_values
from ctxtool.values.workflow import draft_values
from tests.backends import SAMPLE_SCALE, _spanner_database

pytestmark = pytest.mark.spanner


@pytest.fixture(scope="module")
def values_spanner(spanner_emulator_host, spanner_instance):
    from ctxtool import sampledata, spanner_emulator

    client, name, dsn = _spanner_database(
        spanner_emulator_host, spanner_instance, "ctx_values_sp", "googlesql"
    )
    try:
        sampledata.load(dsn, scale=SAMPLE_SCALE)
        yield dsn
    finally:
        spanner_emulator.drop_database(client, spanner_instance, name)


def test_spanner_ngram_and_exact_searches(values_spanner, tmp_path):
    out = draft_values(
        dsn=values_spanner,
        columns=["airports.name", "airports.city", "airports.iata", "district.A2"],
        apply=True,
    )
    by = {r.target.label: r for r in out.recipes}
    assert by["airports.iata"].match == "exact" and by["airports.name"].match == "trigram"
    assert any(d.startswith("CREATE SEARCH INDEX") for d in out.ddl)
    with pytest.raises(Exception, match="no semantic"):
        draft_values(dsn=values_spanner, columns=["airports.name"], match="semantic")
    path = tmp_path / "values.json"
    path.write_text(json.dumps(out.data, indent=2))
    cs = contextset.load(str(path))
    with connect(values_spanner) as conn:
        report = test_values(cs, conn, samples=8)
        probe = probe_value(cs, conn, "Lndon Heathrow")
    failed = [(r.location, [(c.name, c.message) for c in r.failed]) for r in report.results if not r.ok]
    assert not failed
    recall = {r.columns[0]: r.recall_misspelling for r in report.results}
    print(f"\nSpanner recall@5 under misspellings: {recall}")
    assert recall["airports.name"] >= 0.8 and recall["airports.city"] >= 0.8 and recall["district.A2"] >= 0.8
    rows = next(p for p in probe if p.search == "Airport Name").rows
    assert rows[0][0] == "London Heathrow" and 0 < rows[0][3] < 0.5


def test_spanner_postgresql_dialect_gets_exact_searches(spanner_emulator_host, spanner_instance, tmp_path):
    from ctxtool import sampledata, spanner_emulator

    client, name, dsn = _spanner_database(
        spanner_emulator_host, spanner_instance, "ctx_values_sppg", "postgresql"
    )
    try:
        sampledata.load(dsn, datasets=("airports",), scale=SAMPLE_SCALE)
        out = draft_values(dsn=dsn, columns=["airports.name", "airports.iata"], apply=True)
        assert {r.match for r in out.recipes} == {"exact"} and out.server.is_spanner_pg
        assert '"airports"' in out.recipes[0].query
        path = tmp_path / "values.json"
        path.write_text(json.dumps(out.data, indent=2))
        with connect(dsn) as conn:
            report = test_values(contextset.load(str(path)), conn, samples=5)
        assert report.ok, [(r.location, r.failed) for r in report.results]
        assert all(r.exact_found == 1.0 for r in report.results)
    finally:
        spanner_emulator.drop_database(client, spanner_instance, name)
