"""Value searches without a database: column choice, concept types, recipes, probes, measures, CLI."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtool import contextset
from ctxtool.cli import cli
from ctxtool.errors import InputError
from ctxtool.placeholders import find_sql_placeholders, to_driver
from ctxtool.validate import validate_set
from ctxtool.values import probes as P
from ctxtool.values import sqlembed
from ctxtool.values.draft import choose_columns, classify, concept_type, draft, merge
from ctxtool.values.recipes import Server, Target, build, supported_matches
from ctxtool.values.testing import needed_index, plan_uses_index, searched_columns, usable_indexes

PG = Server("postgres", "postgresql", ("pg_trgm", "vector"), ("fuzzystrmatch",))
SERVERS = [
    (PG, "postgres", ("exact", "trigram", "semantic")),
    (Server("postgres", "alloydb", ("vector", "google_ml_integration")), "postgres", ("semantic",)),
    (Server("mysql", "mysql"), "mysql", ("exact", "trigram")),
    (Server("mysql", "mariadb"), "mysql", ("exact", "trigram")),
    (Server("spanner", "spanner-googlesql"), "spanner", ("exact", "trigram")),
]
TARGETS = [Target("airports", "name"), Target("district", "A3"), Target("loan", "amount", type="integer")]


def _snapshot() -> dict:
    def col(name, type_="text", **profile):
        comment = profile.pop("comment", None)
        if profile:
            profile = {"null_fraction": 0.0, "most_common": [], **profile}
        out = {"name": name, "type": type_, "nullable": True, "comment": comment}
        if profile:
            out["profile"] = profile
        return out

    return {
        "snapshot_version": 1,
        "engine": "postgres",
        "flavour": "postgresql",
        "version": "15.20",
        "dialect": "postgres",
        "extensions": ["pg_trgm"],
        "database": "test",
        "schemas": [
            {
                "name": "public",
                "tables": [
                    {
                        "name": "airports",
                        "kind": "table",
                        "row_estimate": 300,
                        "primary_key": ["airport_id"],
                        "foreign_keys": [],
                        "columns": [
                            col("airport_id", "integer"),
                            col("iata", distinct=300, avg_length=3.0, most_common=[{"value": "LHR", "frequency": 0.01}]),
                            col("name", distinct=300, avg_length=16.0),
                            col("city", distinct=250, avg_length=8.0),
                            col("blurb", distinct=300, avg_length=180.0),
                            col("api_hash", distinct=300, avg_length=40.0),
                            col("fingerprint", distinct=300, avg_length=32.0),
                            col("checksum_hex", "text", distinct=300, avg_length=32.0,
                                most_common=[{"value": "9f86d081884c7d659a2feaa0c55ad015", "frequency": 0.01}]),
                        ],
                    },
                    {
                        "name": "district",
                        "kind": "table",
                        "row_estimate": 77,
                        "primary_key": ["district_id"],
                        "columns": [
                            col("district_id", "integer"),
                            col("A2", comment="district name", distinct=77, avg_length=9.0),
                            col("A3", comment="region", distinct=8, avg_length=12.0),
                        ],
                    },
                    {
                        "name": "flights",
                        "kind": "table",
                        "row_estimate": 2000,
                        "primary_key": ["flight_id"],
                        "foreign_keys": [{"name": "fk", "columns": ["origin_code"], "ref_schema": "public", "ref_table": "airports", "ref_columns": ["iata"]}],
                        "columns": [
                            col("flight_id", "integer"),
                            col("origin_code", distinct=300, avg_length=3.0),
                            col("status", distinct=4, avg_length=8.0),
                            col("only", distinct=1, avg_length=3.0),
                        ],
                    },
                ],
            }
        ],
    }  # fmt: skip


# --------------------------------------------------------------------------- naming and choice


@pytest.mark.parametrize(
    "table, column, comment, kind, expected",
    [
        ("airports", "name", None, None, "Airport Name"),
        ("airlines", "name", None, None, "Airline Name"),
        ("airports", "iata", None, "code", "Airport IATA Code"),
        ("airports", "airport_name", None, None, "Airport Name"),
        ("cities", "city_name", None, None, "City Name"),
        ("district", "A3", "region", None, "District Region"),
        ("district", "A2", "district name (in Czech)", None, "District Name"),
        ("flights", "status", None, None, "Flight Status"),
        ("categories", "label", None, None, "Category Label"),
        ("order_items", "productName", None, None, "Order Item Product Name"),
    ],
)
def test_concept_type(table, column, comment, kind, expected):
    assert concept_type(table, column, comment, kind) == expected


def test_choose_columns_keeps_names_codes_categories_and_skips_the_rest():
    chosen, skipped = choose_columns(_snapshot())
    got = {c.target.label: c for c in chosen}
    assert set(got) == {
        "airports.iata",
        "airports.name",
        "airports.city",
        "district.A2",
        "district.A3",
        "flights.status",
    }
    assert got["airports.iata"].kind == "code"
    assert got["district.A3"].kind == "category" and got["district.A3"].concept_type == "District Region"
    assert got["airports.name"].kind == "name"
    reasons = "\n".join(skipped)
    assert "airports.blurb: free text" in reasons
    assert "airports.api_hash" in reasons and "airports.checksum_hex" in reasons
    assert "airports.fingerprint: long values unique per row" in reasons
    assert "flights.origin_code: a key column" in reasons
    assert "flights.only: at most one distinct value" in reasons


def test_choose_columns_explicit_and_unknown():
    chosen, _ = choose_columns(_snapshot(), ["AIRPORTS.blurb", "public.district.A2"])
    assert [c.target.label for c in chosen] == ["airports.blurb", "district.A2"]
    with pytest.raises(InputError, match="no_such"):
        choose_columns(_snapshot(), ["airports.no_such"])


def test_classify_non_text_and_ids():
    assert classify({}, {"name": "amount", "type": "integer"})[0] is None
    assert classify({"primary_key": ["widget_id"]}, {"name": "widget_id", "type": "text"})[0] is None
    assert classify({}, {"name": "customer_uuid", "type": "text"})[0] is None
    # a street address is typed to find the place there; an e-mail or web address is not
    street = {"distinct": 40, "avg_length": 18.0, "null_fraction": 0.0, "most_common": []}
    assert classify({}, {"name": "street_address", "type": "text", "profile": street})[0] is not None
    assert classify({}, {"name": "email_address", "type": "text", "profile": street})[0] is None
    fk = {"foreign_keys": [{"columns": ["shelf_code"], "ref_table": "shelves", "ref_columns": ["code"]}]}
    assert classify(fk, {"name": "shelf_code", "type": "text"})[0] is None  # searched where it points


def _natural(name: str, *values: str, rows: int = 40) -> tuple[dict, dict]:
    table = {"name": "widgets", "row_estimate": rows, "primary_key": ["surname", "forename"]}
    most_common = [{"value": v, "frequency": 1 / rows} for v in values]
    profile = {"distinct": rows, "avg_length": 6.0, "null_fraction": 0.0, "most_common": most_common}
    return table, {"name": name, "type": "text", "profile": profile}


def test_classify_keeps_natural_keys_people_type():
    # a table keyed by its people's names: the names are what users type, keys or not
    assert classify(*_natural("surname", "GRUBER", "OKAFOR"))[0] is not None
    assert classify(*_natural("forename", "ANNA", "LEE"))[0] is not None
    # a key that is a number or a hash stored as text still gets no search
    assert classify(*_natural("surname", "1042", "1043"))[0] is None
    assert (
        classify(
            *_natural("surname", "9f86d081884c7d659a2feaa0c55ad015", "5feceb66ffc86f38d952786c6d696c79")
        )[0]
        is None
    )


def test_draft_picks_exact_for_codes_and_trigram_for_names():
    recipes, _ = draft(_snapshot())
    by = {r.target.label: r.match for r in recipes}
    assert by["airports.iata"] == "exact"
    assert by["airports.name"] == "trigram" and by["district.A3"] == "trigram"
    forced, _ = draft(_snapshot(), match="exact")
    assert {r.match for r in forced} == {"exact"}


def test_draft_without_pg_trgm_falls_back_to_exact_and_refuses_forced_trigram():
    snap = _snapshot()
    snap["extensions"] = []
    recipes, _ = draft(snap)
    assert {r.match for r in recipes} == {"exact"}
    with pytest.raises(InputError, match="pg_trgm"):
        draft(snap, match="trigram")


# --------------------------------------------------------------------------- recipes


def test_supported_matches():
    assert supported_matches(Server("postgres", "postgresql")) == ["exact"]
    assert supported_matches(Server("postgres", "postgresql", (), ("pg_trgm",))) == ["exact", "trigram"]
    assert supported_matches(Server("spanner")) == ["exact", "trigram"]
    with pytest.raises(InputError, match="no semantic"):
        build(Server("spanner"), TARGETS[0], "Airport Name", "semantic")
    with pytest.raises(InputError, match="unknown match"):
        build(PG, TARGETS[0], "Airport Name", "phonetic")


@pytest.mark.parametrize("server, dialect, matches", SERVERS, ids=[s[0].flavour for s in SERVERS])
def test_every_recipe_validates_and_binds_value(server, dialect, matches):
    for match in matches:
        for target in TARGETS:
            recipe = build(server, target, "Some Type", match)
            found = find_sql_placeholders(recipe.query, dialect)
            assert found and {p.kind for p in found} == {"named"}, recipe.query
            style = {"postgres": "numbered", "mysql": "qmark", "spanner": "named_at"}[dialect]
            sql, params = to_driver(recipe.query, dialect, {"value": "O'Hare"}, style)
            assert "$value" not in sql and "O'Hare" not in sql
            assert searched_columns(recipe.query) == [target.label]
            cs = contextset.loads(json.dumps({"value_searches": [recipe.value_search()]}), "x.json")
            findings = [f for f in validate_set(cs, dialect=dialect) if f.code != "CTX003" and f.is_error]
            assert not findings, (server.flavour, match, target.label, [f.message for f in findings])


def test_recipe_ddl_per_engine():
    trigram = build(
        Server("postgres", "postgresql", (), ("pg_trgm", "fuzzystrmatch")), TARGETS[0], "A", "trigram"
    )
    assert trigram.ddl[0] == "CREATE EXTENSION IF NOT EXISTS pg_trgm" and trigram.ddl_required
    assert any("gin_trgm_ops" in d for d in trigram.ddl) and any("soundex" in d for d in trigram.ddl)
    semantic = build(PG, TARGETS[0], "A", "semantic")
    assert any("USING hnsw" in d and "vector_cosine_ops" in d for d in semantic.ddl)
    assert any("GENERATED ALWAYS AS (ctxtool_embed_256" in d for d in semantic.ddl)
    alloy = build(
        Server("postgres", "alloydb", ("vector", "google_ml_integration")), TARGETS[0], "A", "semantic"
    )
    assert "google_ml.embedding('text-embedding-005', $value::text)" in alloy.query
    assert "vector(768)" in " ".join(alloy.ddl)
    mysql8 = build(Server("mysql", "mysql"), TARGETS[0], "A", "trigram")
    assert "WITH PARSER ngram" in mysql8.ddl[0] and "IN NATURAL LANGUAGE MODE" in mysql8.query
    maria = build(Server("mysql", "mariadb"), TARGETS[0], "A", "trigram")
    assert "ngram" not in " ".join(maria.ddl) and "SOUNDEX" in maria.query
    spanner = build(Server("spanner"), TARGETS[0], "A", "trigram")
    assert "TOKENIZE_NGRAMS(`name`)" in spanner.ddl[0] and spanner.ddl[1].startswith("CREATE SEARCH INDEX")
    assert "SEARCH_NGRAMS" in spanner.query and "1 - SCORE_NGRAMS" in spanner.query
    exact = build(Server("spanner"), TARGETS[2], "A", "exact")
    assert "CAST(T.`amount` AS STRING)" in exact.query and "JSON '{}'" in exact.query


def test_merge_replaces_same_column_and_appends_new():
    recipes, _ = draft(_snapshot(), columns=["airports.name", "airports.city"])
    data, added, replaced = merge({"templates": [{"nl_query": "q", "sql": "SELECT 1"}]}, recipes)
    assert (added, replaced) == (2, 0) and data["templates"]
    again, added, replaced = merge(data, recipes[:1])
    assert (added, replaced) == (0, 1) and len(again["value_searches"]) == 2


# --------------------------------------------------------------------------- probes and measures


@settings(max_examples=60, deadline=None)
@given(
    st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x17F), min_size=1, max_size=40),
    st.integers(0, 10**6),
)
def test_misspellings_are_one_edit_away(value, seed):
    for probe in P.misspellings(value, random.Random(seed)):
        assert probe.text != value and probe.expected == value
        if probe.how == "case":
            assert probe.text.lower() == value.lower() or probe.text.upper() == value.upper()
        elif probe.how.startswith("dropped"):
            assert len(probe.text) == len(value) - 1
            assert any(value[:i] + value[i + 1 :] == probe.text for i in range(len(value)))
        elif probe.how.startswith("doubled"):
            assert any(value[: i + 1] + value[i:] == probe.text for i in range(len(value)))
        else:
            assert probe.how.startswith("swapped") and sorted(probe.text) == sorted(value)
            assert probe.text[0] == value[0]  # the first letter is kept: people rarely mistype it


def test_probes_are_deterministic_and_cover_every_kind():
    samples = ["London Heathrow", "Paris Orly", "LHR", "Brno - mesto"]
    a = P.make_probes(samples, seed=3)
    assert a == P.make_probes(samples, seed=3)
    kinds = {p.kind for p in a}
    assert kinds == {"exact", "misspelling", "partial", "nomatch"}
    partial = [p for p in a if p.kind == "partial"]
    assert {p.text for p in partial} == {"Heathrow", "Paris", "mesto"} or {p.text for p in partial} >= {
        "Heathrow"
    }
    assert all(p.text not in samples for p in a if p.kind == "nomatch")
    lhr = [p for p in a if p.expected == "LHR" and p.kind == "misspelling"]
    assert [p.how for p in lhr] == ["case"]  # three-letter codes get no letter edits


def test_percentile_and_ratio():
    assert P.percentile([], 0.5) is None
    assert P.percentile([3.0, 1.0, 2.0], 0.5) == 2.0
    assert P.percentile(list(range(1, 101)), 0.95) == 95
    assert P.ratio(0, 0) is None and P.ratio(1, 4) == 0.25


def test_sql_embedder_twin_is_deterministic():
    a = sqlembed.embed("London Heathrow")
    assert a == sqlembed.embed("London Heathrow") and len(a) == sqlembed.DEFAULT_DIM
    assert sqlembed.cosine_distance(a, a) == pytest.approx(0.0, abs=1e-12)
    assert sqlembed.cosine_distance(a, sqlembed.embed("Heathrow")) < sqlembed.cosine_distance(
        a, sqlembed.embed("Qzxv Kwrtp")
    )
    assert "ctxtool_embed_256(t text) RETURNS vector" in sqlembed.create_function_sql()


def test_plan_uses_index_reads_each_engines_plan():
    seq = [{"Plan": {"Node Type": "Seq Scan", "Relation Name": "airports"}}]
    bitmap = [{"Plan": {"Node Type": "Bitmap Heap Scan", "Relation Name": "airports",
                        "Plans": [{"Node Type": "Bitmap Index Scan", "Index Name": "ctx_trgm"}]}}]  # fmt: skip
    assert plan_uses_index("postgres", seq, "airports") is False
    assert plan_uses_index("postgres", bitmap, "airports") is True
    assert (
        plan_uses_index(
            "mysql", {"query_block": {"table": {"table_name": "T", "access_type": "ALL"}}}, "airports"
        )
        is False
    )
    assert (
        plan_uses_index(
            "mysql",
            {"query_block": {"table": {"table_name": "T", "access_type": "fulltext", "key": "ft"}}},
            "airports",
        )
        is True
    )
    assert plan_uses_index("postgres", {}, "airports") is None
    table_scan = {
        "query_plan": {
            "plan_nodes": [
                {"display_name": "Scan", "metadata": {"scan_type": "TableScan", "scan_target": "airports"}}
            ]
        }
    }
    search = {
        "query_plan": {
            "plan_nodes": [
                {
                    "display_name": "Scan",
                    "metadata": {"scan_type": "IndexScan", "scan_target": "ctx_ngrams_airports_name"},
                }
            ]
        }
    }
    assert plan_uses_index("spanner", table_scan, "airports") is False
    assert plan_uses_index("spanner", search, "airports") is True
    assert plan_uses_index("spanner", {"query_plan": None, "columns": []}, "airports") is None


def test_usable_indexes_match_the_index_the_search_needs():
    """The index check asks the catalog whether the index a search's filter needs exists."""
    pg_trgm = (
        'SELECT T."name" FROM airports T WHERE T."name" % $value::text OR T."name" ILIKE \'%\' || $value'
    )
    assert needed_index("postgres", pg_trgm) == "trigram"
    assert needed_index("postgres", 'SELECT 1 FROM t T WHERE T."name" = $value::text') == "btree"
    assert needed_index("postgres", "SELECT 1 FROM t T ORDER BY T.e <=> (SELECT f($value))") == "vector"
    assert needed_index("mysql", "SELECT 1 FROM t T WHERE MATCH(T.`name`) AGAINST ($value)") == "fulltext"
    assert (
        needed_index("spanner", "SELECT 1 FROM t AS T WHERE SEARCH_NGRAMS(T.name_tokens, $value)") == "search"
    )
    pg = {
        "indexes": [
            {"name": "pk", "columns": ["airport_id"], "method": "btree", "opclasses": []},
            {"name": "eq_name", "columns": ["name"], "method": "btree", "opclasses": []},
            {"name": "sx_name", "columns": ['soundex("name")'], "method": "btree", "opclasses": []},
            {"name": "trgm_city", "columns": ["city"], "method": "gin", "opclasses": ["gin_trgm_ops"]},
        ]
    }
    assert usable_indexes("trigram", pg, "name") == []  # a btree cannot serve % or ILIKE
    assert usable_indexes("btree", pg, "name") == ["eq_name", "sx_name"]
    assert usable_indexes("trigram", pg, "city") == ["trgm_city"]
    pg["indexes"].append(
        {"name": "trgm_name", "columns": ["name"], "method": "gin", "opclasses": ["gin_trgm_ops"]}
    )
    pg["indexes"].append(
        {"name": "bad", "columns": ["name"], "method": "gin", "opclasses": ["gin_trgm_ops"], "valid": False}
    )
    assert usable_indexes("trigram", pg, "name") == ["trgm_name"]
    assert usable_indexes("trigram", {"indexes": [{"name": "x", "columns": ['("A2")::text'], "method": "gin",
                                                   "opclasses": ["gin_trgm_ops"]}]}, "A2") == ["x"]  # fmt: skip
    assert usable_indexes("btree", pg, "nam") == []  # a word, not a substring
    vec = {"indexes": [{"name": "hnsw", "columns": ["name_embedding"], "method": "hnsw", "opclasses": []}]}
    assert usable_indexes("vector", vec, "name") == ["hnsw"]
    mariadb = {
        "indexes": [
            {"name": "ctx_ft", "columns": ["name"], "method": "fulltext", "opclasses": []},
            {"name": "ctx_sx", "columns": ["name_soundex"], "method": "btree", "opclasses": []},
        ]
    }
    assert usable_indexes("fulltext", mariadb, "name") == ["ctx_ft"]
    assert usable_indexes("fulltext", mariadb, "city") == []
    spanner = {
        "indexes": [{"name": "ctx_ngrams", "columns": ["name_tokens"], "method": "search", "opclasses": []}]
    }
    assert usable_indexes("search", spanner, "name") == ["ctx_ngrams"]
    assert (
        usable_indexes("search", {"indexes": [{"name": "b", "columns": ["name"], "method": "btree"}]}, "name")
        == []
    )


def test_searched_columns_reads_the_literal():
    assert searched_columns("SELECT v AS value, 'a.b' AS columns FROM t") == ["a.b"]
    assert searched_columns("SELECT v AS value, 'a.b' AS `columns` UNION ALL SELECT w, 'a.c' AS columns") == [
        "a.b",
        "a.c",
    ]
    assert searched_columns("SELECT v AS value, c AS columns FROM t") == []


# --------------------------------------------------------------------------- CLI (snapshot in, set out)


def test_cli_draft_values_from_snapshot(tmp_path):
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps(_snapshot()))
    runner = CliRunner()
    out = runner.invoke(cli, ["draft", "values", "--snapshot", str(snap), "--column", "airports.name"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["value_searches"][0]["concept_type"] == "Airport Name"
    target = tmp_path / "set.json"
    target.write_text(json.dumps({"templates": [{"nl_query": "q", "sql": "SELECT 1"}]}))
    out = runner.invoke(cli, ["draft", "values", "--snapshot", str(snap), "--merge", str(target)])
    assert out.exit_code == 0, out.output
    merged = json.loads(target.read_text())
    assert merged["templates"] and len(merged["value_searches"]) == 6
    ddl = runner.invoke(cli, ["draft", "values", "--snapshot", str(snap), "--emit-ddl"])
    assert ddl.exit_code == 0 and 'USING gin ("name" gin_trgm_ops);' in ddl.stdout


def test_choose_columns_takes_one_column_text_keys_only_when_nothing_else_qualifies():
    def table(name, key, *columns):
        cols = [
            {"name": c, "type": "text", "nullable": False, "comment": None,
             "profile": {"distinct": 6, "avg_length": 4.0, "null_fraction": 0.0, "most_common": []}}
            for c in columns
        ]  # fmt: skip
        return {"name": name, "kind": "table", "row_estimate": 6, "primary_key": [key], "columns": cols}

    snap = _snapshot()
    snap["schemas"][0]["tables"] = [table("widget_kinds", "kind_code", "kind_code", "kind_details")]
    chosen, _ = choose_columns(snap)
    assert [c.target.label for c in chosen] == ["widget_kinds.kind_code"]
    snap["schemas"][0]["tables"].append(table("shops", "shop_code", "shop_code", "city"))
    chosen, skipped = choose_columns(snap)
    assert [c.target.label for c in chosen] == ["shops.city"]
    assert "widget_kinds.kind_code: a key column" in "\n".join(skipped)


def _empty_snapshot() -> dict:
    snap = _snapshot()
    for table in snap["schemas"][0]["tables"]:
        table["row_estimate"] = None
        for column in table["columns"]:
            column["profile"] = {"distinct": 0, "null_fraction": 0.0, "most_common": []}
    return snap


def test_draft_values_merge_without_searchable_column_keeps_the_set_and_says_why(tmp_path):
    from ctxtool.values.workflow import draft_values

    target = tmp_path / "set.json"
    target.write_text(json.dumps({"templates": [{"nl_query": "q", "sql": "SELECT 1"}]}))
    result = draft_values(snapshot=_empty_snapshot(), merge_path=str(target))
    assert result.added == 0 and any("hold no values yet" in n for n in result.notes)
    assert json.loads(target.read_text())["templates"] == [{"nl_query": "q", "sql": "SELECT 1"}]
    snap = _snapshot()
    for table in snap["schemas"][0]["tables"]:
        table["columns"] = [c for c in table["columns"] if c["type"] != "text"]
    result = draft_values(snapshot=snap, merge_path=str(target))
    assert result.added == 0 and any("no column looks like names" in n for n in result.notes)


@pytest.mark.parametrize(
    "args, message",
    [
        (["draft", "values"], "exactly one of --dsn and --snapshot"),
        (["draft", "values", "--snapshot", "s.json", "--apply-ddl"], "--apply-ddl needs --dsn"),
        (["draft", "values", "--snapshot", "missing.json"], "no such file"),
    ],
)
def test_cli_draft_values_usage_errors(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CTXTOOL_DSN", raising=False)
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 2 and message in out.output


def test_cli_test_values_unreadable_file(tmp_path):
    out = CliRunner().invoke(
        cli, ["test-values", str(tmp_path / "nope.json"), "--dsn", "postgresql://x@127.0.0.1:1/x"]
    )
    assert out.exit_code == 2 and "no such file" in out.output


_IDENT = st.text(alphabet="abcXYZ_09 '\"`é", min_size=1, max_size=12).filter(
    lambda s: s.strip() == s and s[0].isalpha()
)


@settings(max_examples=40, deadline=None)
@given(_IDENT, _IDENT, st.sampled_from(SERVERS), st.sampled_from(["text", "integer"]))
def test_recipes_quote_any_identifier(table, column, server_case, type_):
    server, dialect, matches = server_case
    target = Target(table, column, type=type_)
    for match in matches:
        recipe = build(server, target, "Odd 'Type'", match)
        found = find_sql_placeholders(recipe.query, dialect)
        assert found and {p.kind for p in found} == {"named"}, recipe.query
        if dialect != "mysql" or "\\" not in target.label:
            assert searched_columns(recipe.query) == [target.label]
        for stmt in recipe.ddl:
            assert not find_sql_placeholders(stmt, dialect)  # DDL carries no parameters
