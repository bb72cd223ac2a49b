"""Value searches on PostgreSQL 15 (exact, trigram): draft, apply DDL, test-values, failures as findings.

The module makes its own database with both samples (the DDL it applies adds indexes, so it must not
touch the shared sample databases) and a 50,000-row table for the index check.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ctxtool import contextset
from ctxtool.cli import cli
from ctxtool.connectors import connect
from ctxtool.values.testing import test_values
from ctxtool.values.workflow import draft_values
from tests.backends import SAMPLE_SCALE, _pg_create, _pg_drop, unique_name

pytestmark = pytest.mark.postgres

AIRPORT_TABLES = ("airports", "airlines", "flights")


@pytest.fixture(scope="module")
def values_pg(_pg15_admin):
    from ctxtool import sampledata

    name = unique_name("ctx_values_pg")
    dsn = _pg_create(_pg15_admin, name, extensions=("pg_trgm",))
    try:
        sampledata.load(dsn, scale=SAMPLE_SCALE)
        yield dsn
    finally:
        _pg_drop(_pg15_admin, name)


@pytest.fixture(scope="module")
def drafted(values_pg, tmp_path_factory):
    path = tmp_path_factory.mktemp("values") / "values.json"
    result = draft_values(dsn=values_pg, output=str(path), apply=True)
    return result, path


def _write(tmp_path, searches: list[dict]) -> str:
    path = tmp_path / "set.json"
    path.write_text(json.dumps({"value_searches": searches}, indent=2))
    return str(path)


def test_draft_from_live_database_chooses_and_names_columns(drafted):
    result, path = drafted
    labels = {r.target.label: r for r in result.recipes}
    assert (
        labels["airports.name"].match == "trigram" and labels["airports.name"].concept_type == "Airport Name"
    )
    assert labels["airports.iata"].match == "exact"
    assert labels["district.A3"].concept_type == "District Region"  # from the column comment
    assert not any(label.endswith("_id") for label in labels)
    # fuzzystrmatch is available on this server: the draft creates it and indexes soundex
    assert any("fuzzystrmatch" in d for d in result.ddl)
    assert {a.status for a in result.applied} <= {"applied", "exists"} and result.applied
    # the DDL was applied: the notes say so, and nothing about a search still needing it
    assert any(r.ddl_required for r in result.recipes)
    assert not [n for n in result.notes if "needs its DDL" in n], result.notes
    assert any(n.startswith("DDL applied:") for n in result.notes)
    assert any(n.startswith("airports.name: DDL of the trigram search applied") for n in result.notes)
    assert json.loads(path.read_text())["value_searches"]


def test_drafted_searches_pass_and_trigram_recall_on_airports(drafted, values_pg):
    result, path = drafted
    cs = contextset.load(str(path))
    with connect(values_pg) as conn:
        report = test_values(cs, conn, samples=20)
    failed = [(r.location, [(c.name, c.message) for c in r.failed]) for r in report.results if not r.ok]
    assert not failed
    trigram = {
        r.target.label for r in result.recipes if r.match == "trigram" and r.target.table in AIRPORT_TABLES
    }
    recalls = [r.recall_misspelling for r in report.results if r.columns[0] in trigram]
    assert len(recalls) >= 4
    figure = sum(recalls) / len(recalls)
    print(f"\nPostgreSQL 15 recall@5 under misspellings, drafted trigram searches on airports: {figure:.3f}")
    assert figure >= 0.95
    for r in report.results:
        assert r.exact_found == 1.0 and r.precision_nomatch is not None
        assert r.p50_ms is not None and r.p95_ms >= r.p50_ms


def test_cli_test_values_formats_and_probe(drafted, values_pg):
    _, path = drafted
    runner = CliRunner()
    text = runner.invoke(cli, ["test-values", str(path), "--dsn", values_pg, "--samples", "3"])
    assert text.exit_code == 0, text.output
    assert "value searches passed" in text.stdout and "Airport Name (airports.name)" in text.stdout
    js = runner.invoke(
        cli, ["test-values", str(path), "--dsn", values_pg, "--samples", "3", "--format", "json"]
    )
    data = json.loads(js.stdout)
    assert data["ok"] and data["summary"]["failed"] == 0
    gh = runner.invoke(
        cli, ["test-values", str(path), "--dsn", values_pg, "--samples", "3", "--format", "github"]
    )
    assert gh.exit_code == 0 and "::notice" in gh.stdout
    probe = runner.invoke(cli, ["test-values", str(path), "--dsn", values_pg, "--probe", "Heathrw"])
    assert probe.exit_code == 0 and "London Heathrow" in probe.stdout
    pj = runner.invoke(
        cli, ["test-values", str(path), "--dsn", values_pg, "--probe", "Heathrw", "--format", "json"]
    )
    rows = {s["search"]: s["rows"] for s in json.loads(pj.stdout)["searches"]}
    assert (
        rows["Airport Name"][0]["value"] == "London Heathrow" and 0 < rows["Airport Name"][0]["distance"] < 1
    )


def test_value_is_bound_never_pasted(drafted, values_pg):
    _, path = drafted
    cs = contextset.load(str(path))
    from ctxtool.values.testing import probe_value

    with connect(values_pg) as conn:
        rows = probe_value(cs, conn, "x'; DROP TABLE airports; --")
        assert all(r.error is None for r in rows)
        assert conn.query("SELECT count(*) FROM airports").rows[0][0] > 100


def test_broken_searches_are_findings_at_their_line(values_pg, tmp_path):
    searches = [
        {
            "concept_type": "Broken",
            "query": "SELECT name AS value, 'airports.name' AS columns FROM no_such_table WHERE name = $value",
        },
        {
            "concept_type": "Four Columns",
            "query": "SELECT name AS value, 'airports.name' AS columns, 'X' AS concept_type, 0 AS distance "
            "FROM airports WHERE name = $value",
        },
        {
            "concept_type": "Far Exact",
            "query": "SELECT name AS value, 'airports.name' AS columns, 'X' AS concept_type, 1.5 AS distance, "
            "'' AS context FROM airports WHERE name = $value",
        },
        {
            "concept_type": "Everything Matches",
            "query": "SELECT name AS value, 'airports.name' AS columns, 'X' AS concept_type, 0 AS distance, "
            "'{}' AS context FROM airports WHERE $value::text IS NOT NULL LIMIT 5",
        },
        {
            "concept_type": "Writes",
            "query": "WITH d AS (DELETE FROM airports WHERE name = $value RETURNING name) "
            "SELECT name AS value, 'airports.name' AS columns, 'X' AS concept_type, 0 AS distance, '' AS context FROM d",
        },
        {
            "concept_type": "Slow",
            "query": "SELECT name AS value, 'airports.name' AS columns, 'X' AS concept_type, 0 AS distance, "
            "'' AS context FROM airports, pg_sleep(2) WHERE name = $value",
        },
    ]
    path = _write(tmp_path, searches)
    out = CliRunner().invoke(
        cli,
        ["test-values", path, "--dsn", values_pg, "--samples", "2", "--timeout", "0.5", "--format", "json"],
    )
    assert out.exit_code == 1, out.output
    data = json.loads(out.stdout)
    by = {s["concept_type"]: s for s in data["searches"]}
    cs = contextset.load(path)

    def failed(name: str) -> dict[str, str]:
        return {c["name"]: c["message"] for c in by[name]["checks"] if not c["ok"]}

    assert "no_such_table" in failed("Broken")["runs"]
    assert by["Broken"]["line"] == cs.position("/value_searches/0/query")[0]
    assert "must be exactly" in failed("Four Columns")["shape"]
    assert "outside [0, 1]" in failed("Far Exact")["shape"]
    assert "distance-0 hit" in failed("Everything Matches")["nomatch"]
    assert "runs" in failed("Writes")
    assert "runs" in failed("Slow") and "timeout" in failed("Slow")["runs"].lower()
    with connect(values_pg) as conn:
        assert conn.query("SELECT count(*) FROM airports").rows[0][0] > 100
    gh = CliRunner().invoke(
        cli, ["test-values", path, "--dsn", values_pg, "--samples", "1", "--format", "github"]
    )
    assert gh.exit_code == 1
    line = cs.position("/value_searches/1/query")[0]
    assert f"::error file={path},line={line}," in gh.stdout and "Four Columns: shape:" in gh.stdout


def test_index_check_on_a_large_table(values_pg, tmp_path):
    import psycopg

    with psycopg.connect(values_pg, autocommit=True) as c:
        c.execute(
            "CREATE TABLE big_names AS SELECT g AS id, initcap(substr(md5(g::text), 1, 10)) AS name "
            "FROM generate_series(1, 50000) g"
        )
        c.execute("ANALYZE big_names")
    out = draft_values(dsn=values_pg, columns=["big_names.name"], match="trigram")
    search = out.recipes[0].value_search()
    path = _write(tmp_path, [search])
    cs = contextset.load(path)
    with connect(values_pg) as conn:
        before = test_values(cs, conn, samples=3)
    r = before.results[0]
    assert r.table_rows == 50000 and r.index_used is False and not r.ok
    assert "without an index (no trigram index on big_names.name)" in r.failed[0].message
    from ctxtool.values.ddl import apply_ddl

    stats = (
        "SELECT last_analyze, (SELECT count(*) FROM pg_stats s JOIN pg_indexes i ON i.indexname = s.tablename "
        "WHERE i.tablename = 'big_names') FROM pg_stat_user_tables WHERE relname = 'big_names'"
    )
    with psycopg.connect(values_pg, autocommit=True) as c:
        analyzed_before, _ = c.execute(stats).fetchone()
    logged: list[str] = []
    apply_ddl(values_pg, out.ddl, log=logged.append)
    # apply_ddl analyzes the table itself: fresh statistics, also for the expression (soundex) index
    assert any(m.startswith("analyzing: ") and "big_names" in m for m in logged), logged
    with psycopg.connect(values_pg, autocommit=True) as c:
        c.execute("SELECT pg_stat_clear_snapshot()")
        analyzed_after, expression_stats = c.execute(stats).fetchone()
    assert analyzed_after is not None and analyzed_after > analyzed_before
    assert any("soundex(" in s for s in out.ddl) == (expression_stats > 0), (out.ddl, expression_stats)
    with connect(values_pg) as conn:
        after = test_values(cs, conn, samples=3)
    assert after.results[0].index_used is True and after.ok, after.results[0].failed


def test_index_check_on_a_low_cardinality_column(values_pg, tmp_path):
    """A scan is the planner's right choice for a value a third of the rows hold: with the index in
    place the check passes with a note; without it, or when the planner ignores an index for a
    selective value, it fails."""
    import psycopg

    with psycopg.connect(values_pg, autocommit=True) as c:
        c.execute(
            "CREATE TABLE big_status AS SELECT g AS id, (ARRAY['landed', 'scheduled', 'delayed'])[g % 3 + 1] "
            "AS status, 'Place ' || md5(g::text) AS place FROM generate_series(1, 30000) g"
        )
        c.execute("ANALYZE big_status")
    out = draft_values(
        dsn=values_pg, columns=["big_status.status", "big_status.place"], match="trigram", apply=True
    )
    with psycopg.connect(values_pg, autocommit=True) as c:
        c.execute("ANALYZE big_status")
    by = {r.target.label: r for r in out.recipes}
    cs = contextset.load(_write(tmp_path, [by["big_status.status"].value_search()]))
    with connect(values_pg) as conn:
        report = test_values(cs, conn, samples=3)
    r = report.results[0]
    index = next(c for c in r.checks if c.name == "index")
    assert r.ok and r.table_rows == 30000, r.failed
    assert (
        r.index_used is None
        and "low cardinality" in index.message
        and "ctx_trgm_big_status_status" in index.message
    )
    # the same search without its trigram index: a failure naming the missing index
    with psycopg.connect(values_pg, autocommit=True) as c:
        c.execute("DROP INDEX ctx_trgm_big_status_status")
    with connect(values_pg) as conn:
        r = test_values(cs, conn, samples=3).results[0]
    assert not r.ok and "no trigram index on big_status.status" in r.failed[0].message
    # a selective column whose only trigram index the planner cannot use (partial): still a failure
    with psycopg.connect(values_pg, autocommit=True) as c:
        c.execute("DROP INDEX ctx_trgm_big_status_place")
        c.execute("DROP INDEX ctx_sx_big_status_place")
        c.execute("CREATE INDEX ctx_part_place ON big_status USING gin (place gin_trgm_ops) WHERE id < 0")
        c.execute("ANALYZE big_status")
    cs = contextset.load(_write(tmp_path, [by["big_status.place"].value_search()]))
    with connect(values_pg) as conn:
        r = test_values(cs, conn, samples=3).results[0]
    assert not r.ok and r.index_used is False
    assert "although ctx_part_place exists" in r.failed[0].message, r.failed


def test_apply_ddl_errors_are_database_errors(values_pg):
    from ctxtool.errors import DatabaseError
    from ctxtool.values.ddl import apply_ddl

    with pytest.raises(DatabaseError, match="applying DDL failed") as info:
        apply_ddl(values_pg, ["CREATE INDEX ctx_values_bad ON no_such_table (x)"])
    assert info.value.exit_code == 3 and "no_such_table" in str(info.value)
    done = apply_ddl(values_pg, ["CREATE INDEX ctx_values_twice ON airports (city)"] * 2)
    assert [a.status for a in done] == ["applied", "exists"]
