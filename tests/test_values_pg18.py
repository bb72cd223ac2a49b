"""Semantic value searches on the embedded PostgreSQL 18 with pgvector.

The embedding of ``$value`` must be computed inside the query, so the semantic recipe embeds with a
SQL function: here ctxtool's deterministic hashing embedder (``ctxtool_embed_256``), whose vectors
are stored in a generated column of the table and checked against its Python twin.
"""

from __future__ import annotations

import json

import pytest

from ctxtool import contextset
from ctxtool.connectors import connect
from ctxtool.values import sqlembed
from ctxtool.values.testing import probe_value, test_values
from ctxtool.values.workflow import draft_values
from tests.backends import SAMPLE_SCALE, _pg18_db_uri, _pg_drop, unique_name

pytestmark = pytest.mark.pg18


@pytest.fixture(scope="module")
def values_pg18(pg18_server_uri):
    import psycopg

    from ctxtool import sampledata

    name = unique_name("ctx_values_pg18")
    with psycopg.connect(pg18_server_uri, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    dsn = _pg18_db_uri(pg18_server_uri, name)
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        sampledata.load(dsn, datasets=("airports",), scale=SAMPLE_SCALE)
        yield dsn
    finally:
        _pg_drop(pg18_server_uri, name)


def _set(tmp_path, recipes) -> contextset.ContextSet:
    path = tmp_path / "semantic.json"
    path.write_text(json.dumps({"value_searches": [r.value_search() for r in recipes]}, indent=2))
    return contextset.load(str(path))


def test_semantic_search_with_stored_embeddings(values_pg18, tmp_path):
    import psycopg

    out = draft_values(
        dsn=values_pg18, columns=["airports.name", "airports.city"], match="semantic", apply=True
    )
    assert {r.match for r in out.recipes} == {"semantic"}
    assert any("USING hnsw" in d for d in out.ddl)
    # the stored embeddings are exactly the deterministic embedder's vectors
    with psycopg.connect(values_pg18) as conn:
        rows = conn.execute(
            "SELECT name, name_embedding::text FROM airports ORDER BY airport_id LIMIT 5"
        ).fetchall()
    for name, text in rows:
        assert [float(x) for x in text.strip("[]").split(",")] == sqlembed.embed(name)
    cs = _set(tmp_path, out.recipes)
    with connect(values_pg18) as conn:
        report = test_values(cs, conn, samples=15)
        heathrow = probe_value(cs, conn, "Heathrow")
    failed = [(r.location, [(c.name, c.message) for c in r.failed]) for r in report.results if not r.ok]
    assert not failed
    for r in report.results:
        print(
            f"\nPG18 semantic {r.columns[0]}: typo@5 {r.recall_misspelling:.3f} part@5 {r.recall_partial} nomatch {r.precision_nomatch}"
        )
        assert r.exact_found == 1.0 and r.recall_misspelling >= 0.8 and r.precision_nomatch >= 0.6
    names = [row[0] for row in heathrow[0].rows]
    assert names[0] == "London Heathrow" and 0 < float(heathrow[0].rows[0][3]) < 0.35


def test_semantic_plan_uses_the_hnsw_index(values_pg18, tmp_path):
    import psycopg

    with psycopg.connect(values_pg18, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE places AS SELECT g AS id, initcap(substr(md5(g::text), 1, 8)) || ' ' || "
            "initcap(substr(md5((g * 7)::text), 1, 6)) AS place FROM generate_series(1, 6000) g"
        )
    out = draft_values(dsn=values_pg18, columns=["places.place"], match="semantic", apply=True)
    with psycopg.connect(values_pg18, autocommit=True) as conn:
        conn.execute("ANALYZE places")
    cs = _set(tmp_path, out.recipes)
    with connect(values_pg18) as conn:
        report = test_values(cs, conn, samples=5, index_min_rows=5000)
    r = report.results[0]
    assert r.table_rows == 6000 and r.index_used is True, (r.failed, r.index_used)
    assert r.ok and r.exact_found == 1.0


def test_trigram_on_pg18(values_pg18, tmp_path):
    out = draft_values(dsn=values_pg18, columns=["airports.name"], apply=True)
    assert out.recipes[0].match == "trigram"
    with connect(values_pg18) as conn:
        report = test_values(_set(tmp_path, out.recipes), conn, samples=15)
    assert report.ok and report.results[0].recall_misspelling >= 0.95
