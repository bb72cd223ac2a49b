"""Value searches on database shapes met elsewhere (issue 27): a server with ``pg_trgm`` but
without ``fuzzystrmatch`` in the database, tables in a named schema."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli
from tests.backends import pg_loaded
from tests.realdb_shapes import EDGE_PG_SQL

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def trgm_only_dsn(_pg15_admin):
    import psycopg

    with pg_loaded(_pg15_admin, "ctx_vshp", EDGE_PG_SQL + "CREATE EXTENSION pg_trgm;") as dsn:
        with psycopg.connect(dsn) as conn:
            available = conn.execute(
                "SELECT installed_version IS NULL FROM pg_available_extensions WHERE name = 'fuzzystrmatch'"
            ).fetchall()
        # the case that failed: fuzzystrmatch could be created but is not there
        assert available == [(True,)]
        yield dsn


def _run_search(dsn: str, query: str, value: str) -> list[str]:
    import psycopg

    with psycopg.connect(dsn) as conn:
        sql = query.replace("%", "%%").replace("$value", "%(value)s")
        return [r[0] for r in conn.execute(sql, {"value": value})]


@pytest.mark.parametrize("match", [[], ["--match", "trigram"]], ids=["detected", "forced"])
def test_trigram_search_runs_with_pg_trgm_alone(trgm_only_dsn, tmp_path, match):
    out = tmp_path / "values.json"
    r = CliRunner().invoke(cli, ["draft", "values", "--dsn", trgm_only_dsn, *match, "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "rejects" not in r.output and "no column looks like" not in r.output
    assert "fuller trigram search (with fuzzystrmatch)" in r.output  # the upgrade is offered
    searches = json.loads(out.read_text())["value_searches"]
    assert len(searches) == 4  # customer and staff names, staff user names, store cities
    for s in searches:
        assert "soundex" not in s["query"] and " % $value::text" in s["query"]  # pg_trgm, no SOUNDEX
    city = next(s for s in searches if "store.city" in s["query"])
    assert _run_search(trgm_only_dsn, city["query"], "Lethbrige")[0] == "Lethbridge"  # misspelt
    ddl = CliRunner().invoke(cli, ["draft", "values", "--dsn", trgm_only_dsn, *match, "--emit-ddl"])
    assert "CREATE EXTENSION IF NOT EXISTS fuzzystrmatch" in ddl.output


def _set(tmp_path, label: str, table: str) -> str:
    query = (
        f"SELECT full_name AS value, '{label}' AS columns, 'Customer' AS concept_type,\n"
        "  0::float8 AS distance, '{}'::jsonb AS context\n"
        f"FROM {table} WHERE full_name = $value::text LIMIT 10"
    )
    path = tmp_path / "set.json"
    path.write_text(json.dumps({"value_searches": [{"query": query, "concept_type": "Customer"}]}))
    return str(path)


def test_label_finds_its_table_through_the_query(trgm_only_dsn, tmp_path):
    # the label names the table as people say it; the query says it is in schema shop, which is
    # not on the search path
    ok = CliRunner().invoke(
        cli, ["test-values", _set(tmp_path, "customer.full_name", "shop.customer"), "--dsn", trgm_only_dsn]
    )
    assert ok.exit_code == 0, ok.output
    assert "value searches passed" in ok.output
    # control: a label whose table is neither in the query nor on the search path is still a finding
    bad = CliRunner().invoke(
        cli, ["test-values", _set(tmp_path, "client.full_name", "shop.customer"), "--dsn", trgm_only_dsn]
    )
    assert bad.exit_code != 0 and "client" in bad.output
