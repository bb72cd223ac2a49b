"""Drafting templates and facets on the financial sample (real PostgreSQL and MariaDB), plus the
pieces that need no database: names, the glossary, the model's roles and joins."""

from __future__ import annotations

import json

import pytest
import sqlglot

from ctxtool import contextset
from ctxtool.connectors import connect
from ctxtool.dialects import sqlglot_dialect
from ctxtool.draft import draft
from ctxtool.draft.facets import draft_facets
from ctxtool.draft.model import Model, quote_ident, sql_literal
from ctxtool.draft.names import (
    Namer,
    comment_label,
    load_glossary,
    pluralize,
    singularize,
    words_of,
)
from ctxtool.draft.templates import draft_templates
from ctxtool.errors import InputError
from ctxtool.snapshot import build
from ctxtool.validate import validate_set

FINANCIAL = ["district", "account", "client", "disp", "loan", "card", "trans"]


def col(name, type_, distinct=None, comment=None, most_common=(), mn=None, mx=None, avg_length=None):
    return {
        "name": name,
        "type": type_,
        "nullable": True,
        "comment": comment,
        "profile": {
            "distinct": distinct,
            "null_fraction": 0.0,
            "most_common": [{"value": v, "frequency": 0.1} for v in most_common],
            "min": mn,
            "max": mx,
            "avg_length": avg_length,
        },
    }


def small_snapshot(dialect="spanner"):
    """Singers/Albums, interleaved (Spanner style, no foreign key), with a cryptic column."""
    return {
        "snapshot_version": 1,
        "engine": dialect,
        "dialect": dialect,
        "schemas": [
            {
                "name": "",
                "tables": [
                    {
                        "name": "Singers",
                        "row_estimate": 100,
                        "columns": [
                            col("SingerId", "INT64", 100),
                            col("FullName", "STRING(MAX)", 100, avg_length=12),
                            col("Genre", "STRING(20)", 4, most_common=["rock", "jazz"]),
                            col("Active", "BOOL", 2),
                            col("X7", "INT64", 90, mn=0, mx=1000),
                        ],
                        "primary_key": ["SingerId"],
                        "foreign_keys": [],
                        "interleave": None,
                    },
                    {
                        "name": "Albums",
                        "row_estimate": 300,
                        "columns": [
                            col("SingerId", "INT64", 100),
                            col("AlbumId", "INT64", 300),
                            col("Title", "STRING(MAX)", 300, avg_length=15),
                            col("Sales", "INT64", 280, mn=10, mx=5000),
                            col("ReleaseDate", "DATE", 250, mn="1990-01-01", mx="2010-12-31"),
                        ],
                        "primary_key": ["SingerId", "AlbumId"],
                        "foreign_keys": [],
                        "interleave": {"parent": "Singers", "on_delete": "cascade"},
                    },
                ],
            }
        ],
    }


# -- names and glossary ---------------------------------------------------------------------------


def test_plural_singular_and_words():
    assert pluralize("category") == "categories" and pluralize("address") == "addresses"
    assert pluralize("district name") == "district names" and pluralize("day") == "days"
    assert singularize("airports") == "airport" and singularize("categories") == "category"
    assert singularize("status") == "status" and singularize("addresses") == "address"
    assert words_of("birth_date") == "birth date" and words_of("departureTime") == "departure time"
    assert words_of("disp") == "disposition" and words_of("k_symbol") == "k symbol"


IRREGULAR = ["criterion", "criteria", "leaf", "leaves", "analysis", "analyses", "bus", "buses", "mouse",
             "mice", "index", "indices", "person", "cactus", "phenomenon", "wolf", "tooth", "ox"]  # fmt: skip


def test_inflect_answers_as_with_its_type_checks():
    """The engine imported without typeguard's instrumentation (names._inflect: 2 s of CPU less in
    every process that drafts) answers as inflect imported as usual does, in a process of its own;
    and typeguard's decorator is left as it was."""
    import subprocess
    import sys

    import typeguard

    from ctxtool.draft import names

    ours = [[names._inflect().plural_noun(w), names._inflect().singular_noun(w)] for w in IRREGULAR]
    code = (
        "import json, sys, inflect\n"
        "e = inflect.engine()\n"
        "print(json.dumps([[e.plural_noun(w), e.singular_noun(w)] for w in sys.argv[1:]]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *IRREGULAR], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ours
    assert typeguard.typechecked is not names._unchecked
    assert pluralize("criterion") == "criteria" and singularize("leaves") == "leaf"


def test_comment_labels_read_as_names():
    assert comment_label("average salary (CZK per month)") == "average salary"
    assert comment_label("statement frequency: POPLATEK MESICNE monthly") == "statement frequency"
    assert comment_label("amount in CZK") == "amount"
    assert comment_label("date the loan was granted") is None  # a sentence
    assert comment_label("M or F") is None  # describes the values
    assert comment_label("A finished OK, B finished unpaid", values=["A", "B"]) is None
    assert comment_label("IATA code, 2 characters") == "IATA code"


def test_glossary_names_cryptic_columns(tmp_path):
    path = tmp_path / "glossary.json"
    path.write_text(json.dumps({"tables": {"Singers": "artist"}, "columns": {"Singers.X7": "fan count"}}))
    snap = small_snapshot()
    without = Model(snap)
    assert not without.table("Singers").column("X7").readable
    assert not any("X7" in d.sql for d in draft_templates(without))
    model = Model(snap, namer=Namer(load_glossary(str(path))))
    singers = model.table("Singers")
    assert singers.names.plural == "artists" and singers.column("X7").label == "fan count"
    questions = [d.text for d in draft_templates(model)]
    assert "Which 10 artists have the highest fan count?" in questions


def test_glossary_errors_name_the_line(tmp_path):
    path = tmp_path / "g.json"
    path.write_text('{\n  "tables": {},\n  "columns": {\n    "a.b": ""\n  }\n}\n')
    with pytest.raises(InputError, match=r"g.json:4:\d+: column \"a.b\""):
        load_glossary(str(path))
    path.write_text('{"table": {}}')
    with pytest.raises(InputError, match='unknown glossary key "table"'):
        load_glossary(str(path))


# -- the model, offline --------------------------------------------------------------------------


def test_roles_and_interleaved_join_keys():
    model = Model(small_snapshot())
    singers, albums = model.table("Singers"), model.table("Albums")
    assert singers.column("Genre").is_categorical and not singers.column("Genre").is_measure
    assert singers.column("FullName").is_name and singers.name_column.name == "FullName"
    assert singers.column("Active").is_flag
    assert albums.column("Sales").is_measure and albums.column("ReleaseDate").is_date
    assert not albums.column("SingerId").is_measure  # a key, not a measure
    [join] = model.joins
    assert join.kind == "interleave" and join.child is albums and join.parent is singers
    assert [(c.name, p.name) for c, p in join.pairs] == [("SingerId", "SingerId")]
    assert model.join_on(join) == "`Albums`.`SingerId` = `Singers`.`SingerId`"


def test_offline_drafts_parse_in_their_dialect_and_facets_are_qualified():
    model = Model(small_snapshot())
    templates = draft_templates(model)
    facets = draft_facets(model)
    assert len(templates) >= 10 and len(facets) >= 5
    for d in templates:
        sqlglot.parse_one(d.sql, read=sqlglot_dialect("spanner"))
    joins = [d for d in templates if "JOIN" in d.sql]
    assert joins and all("`Albums`.`SingerId` = `Singers`.`SingerId`" in d.sql for d in joins)
    for d in facets:
        tree = sqlglot.parse_one(f"SELECT 1 FROM t WHERE {d.sql}", read=sqlglot_dialect("spanner"))
        for c in tree.find_all(sqlglot.exp.Column):
            assert c.table, f"bare column in facet {d.sql}"
    assert any("`Singers`.`Active` = TRUE" == d.sql for d in facets)
    assert any("BETWEEN '2000-01-01' AND '2000-12-31'" in d.sql for d in facets)


def test_quoting_and_literals():
    assert quote_ident("A3", "postgres") == '"A3"' and quote_ident("A3", "mysql") == "`A3`"
    assert quote_ident("date", "postgres") == "date" and quote_ident("order", "postgres") == '"order"'
    assert sql_literal("O'Brien", "postgres") == "'O''Brien'"
    assert sql_literal("O'Brien", "spanner") == "'O\\'Brien'"
    assert sql_literal(3.0, "mysql") == "3"


def test_tables_filter_names_unknown_tables():
    with pytest.raises(InputError, match="no table named nope"):
        Model(small_snapshot(), tables=["nope"])


# -- on the financial sample ------------------------------------------------------------------------


def _financial(dsn: str, kind: str, tables=FINANCIAL, **kw):
    with connect(dsn) as conn:
        snap = build(conn, profile=True)
        result = draft(kind, snap, connector=conn, tables=tables, **kw)
        return result, snap


def _assert_valid_and_executable(result, snap, dsn):
    data = result.to_set()
    cs = contextset.loads(json.dumps(data))
    errors = [f for f in validate_set(cs, dialect=result.dialect, snapshot=snap) if f.is_error]
    assert errors == []
    with connect(dsn) as conn:
        for item in data[result.kind]:
            if result.kind == "templates":
                assert conn.query(item["sql"], max_rows=5).rows, item["sql"]
            else:
                table = next(d.table for d in result.kept if d.item["sql_snippet"] == item["sql_snippet"])
                sql = (
                    f"SELECT 1 FROM {quote_ident(table, result.dialect)} WHERE {item['sql_snippet']} LIMIT 1"
                )
                assert conn.query(sql).rows, sql
    for item in data[result.kind]:
        assert item["manifest"] and item["parameterized"]


@pytest.mark.postgres
def test_financial_templates_postgres(pg_samples_dsn):
    result, snap = _financial(pg_samples_dsn, "templates")
    kept = result.kept
    assert len(kept) >= 30
    assert all(d.rows for d in kept)
    _assert_valid_and_executable(result, snap, pg_samples_dsn)
    questions = {d.text for d in kept}
    assert "How many accounts are there?" in questions
    assert "How many loans are there for each status?" in questions
    assert any(
        q.startswith("How many accounts belong to the district with district name '") for q in questions
    )
    # two-hop join, cryptic A3 named (drafted; it ranks low, so --max may leave it out of the set)
    assert any("for each district region" in d.text for d in [*kept, *result.left_out])
    join = next(d for d in kept if d.origin == "schema:join-top" and d.tables == ["account", "district"])
    assert "account.district_id = district.district_id" in join.sql
    # parameterized forms name values by what they are
    lookup = next(d for d in kept if d.origin == "schema:join-lookup" and d.tables == ["account", "district"])
    assert "a given district name" in lookup.item["manifest"]
    # a top-10 shows what names the rows (nothing names a loan: its measure), not every column
    top = next(d for d in kept if d.origin == "schema:top-n" and d.tables == ["loan"])
    assert top.sql.startswith("SELECT loan.amount FROM loan")


@pytest.mark.postgres
def test_financial_facets_postgres(pg_samples_dsn):
    result, snap = _financial(pg_samples_dsn, "facets")
    assert len(result.kept) >= 15
    _assert_valid_and_executable(result, snap, pg_samples_dsn)
    snippets = {d.sql for d in result.kept}
    assert "loan.status = 'C'" in snippets or any(s.startswith("loan.status = ") for s in snippets)
    assert any(s.startswith('district."A11" BETWEEN ') for s in snippets)
    amount = next(d for d in result.kept if d.sql.startswith("loan.amount BETWEEN"))
    low = float(amount.sql.split("BETWEEN ")[1].split(" AND")[0])
    with connect(pg_samples_dsn) as conn:
        lo, hi = conn.query("SELECT MIN(amount), MAX(amount) FROM loan").rows[0]
    assert lo <= low <= hi  # bounds inside the profiled range


@pytest.mark.mariadb
def test_financial_templates_and_facets_mariadb(mariadb_samples_dsn):
    # four of the tables keep the run short (each statement on MariaDB costs a round trip more)
    result, snap = _financial(
        mariadb_samples_dsn, "templates", tables=["district", "account", "loan", "client"]
    )
    assert len(result.kept) >= 30
    _assert_valid_and_executable(result, snap, mariadb_samples_dsn)
    assert any("district.`A3`" in d.sql for d in result.kept)
    facets, snap = _financial(mariadb_samples_dsn, "facets")
    assert len(facets.kept) >= 15
    _assert_valid_and_executable(facets, snap, mariadb_samples_dsn)


@pytest.mark.postgres
def test_failing_and_empty_drafts_are_dropped(pg_samples_dsn):
    from ctxtool.draft.check import check_drafts
    from ctxtool.draft.drafts import template

    drafts = [
        template("How many loans are there?", "SELECT COUNT(*) AS n FROM loan", "test", ["loan"]),
        template(
            "Which loans have status 'Z'?",
            "SELECT loan.loan_id FROM loan WHERE loan.status = 'Z'",
            "test",
            ["loan"],
        ),
        template("How many widgets are there?", "SELECT COUNT(*) FROM widget", "test", ["widget"]),
    ]
    with connect(pg_samples_dsn) as conn:
        kept = check_drafts(drafts, "postgres", connector=conn)
    assert [d.text for d in kept] == ["How many loans are there?"]
    assert drafts[1].reason == "returns no rows"
    assert drafts[2].reason.startswith("fails:") and "widget" in drafts[2].reason


@pytest.mark.spanner
def test_financial_templates_and_facets_spanner(spanner_samples_dsn):
    result, snap = _financial(spanner_samples_dsn, "templates")
    assert len(result.kept) >= 30, [(d.text, d.reason) for d in result.dropped]
    _assert_valid_and_executable(result, snap, spanner_samples_dsn)
    facets, snap = _financial(spanner_samples_dsn, "facets")
    assert len(facets.kept) >= 15, [(d.text, d.reason) for d in facets.dropped]
    _assert_valid_and_executable(facets, snap, spanner_samples_dsn)
