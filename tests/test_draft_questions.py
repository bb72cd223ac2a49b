"""Drafts an analyst would keep (issue 14): the questions people ask, in their words, ranked and cut.

A music-store shaped database of our own (artists, albums, tracks, playlists through a link table,
staff) on PostgreSQL 15: the drafted set must hold the questions people ask of such a schema, say
them in plain English, answer them (run through the runtime) and keep the set reviewable.
"""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli
from ctxtool.connectors import connect
from ctxtool.draft import draft
from ctxtool.draft.drafts import template
from ctxtool.draft.names import pluralize, singularize, words_of
from ctxtool.draft.phrasing import when, year_span
from ctxtool.draft.ranking import cut, same_sql, same_wording, sql_key
from ctxtool.snapshot import build
from tests.backends import pg_loaded

pytestmark = pytest.mark.postgres

SCHEMA = """
CREATE TABLE artist (artist_id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE album (album_id int PRIMARY KEY, title text NOT NULL,
                    artist_id int NOT NULL REFERENCES artist, release_year int);
CREATE TABLE track (track_id int PRIMARY KEY, name text NOT NULL, album_id int REFERENCES album,
                    genre text, milliseconds int, unit_price numeric(4,2));
CREATE TABLE playlist (playlist_id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE playlist_track (playlist_id int REFERENCES playlist, track_id int REFERENCES track,
                             PRIMARY KEY (playlist_id, track_id));
CREATE TABLE staff (staff_id int PRIMARY KEY, first_name text, last_name text, hire_date date,
                    salary numeric(10,2), last_update timestamp DEFAULT now());
INSERT INTO artist SELECT i, 'Artist ' || i FROM generate_series(1, 8) i;
INSERT INTO album SELECT i, 'Album ' || i, 1 + (i * i) % 6, 1990 + i FROM generate_series(1, 14) i;
INSERT INTO track SELECT i, 'Track ' || i, 1 + i % 14, (ARRAY['Rock','Jazz','Pop','Blues'])[1 + i % 4],
                         120000 + i * 3571 % 200000, 0.99 + (i % 2)
                    FROM generate_series(1, 90) i;
INSERT INTO playlist SELECT i, 'Playlist ' || i FROM generate_series(1, 5) i;
INSERT INTO playlist_track SELECT 1 + i % 4, i FROM generate_series(1, 90) i;
INSERT INTO playlist_track SELECT 1, i FROM generate_series(2, 40, 2) i ON CONFLICT DO NOTHING;
INSERT INTO staff SELECT i, 'First' || i, 'Last' || i, DATE '2020-01-01' + i * 40, 30000 + i * 1234
                    FROM generate_series(1, 12) i;
ANALYZE;
"""


@pytest.fixture(scope="module")
def store_dsn(_pg15_admin):
    with pg_loaded(_pg15_admin, "ctx_drq", SCHEMA) as dsn:
        yield dsn


@pytest.fixture(scope="module")
def drafted(store_dsn):
    with connect(store_dsn, statement_timeout=10, row_cap=1000) as conn:
        snap = build(conn, profile=True)
        return draft("templates", snap, connector=conn), snap


def test_the_questions_people_ask_are_drafted(drafted):
    result, _ = drafted
    questions = {d.text for d in result.kept}
    for q in (
        "How many tracks are there?",
        "What are the names of all artists?",
        "What is the average duration in milliseconds of all tracks?",  # a unit said as its quantity
        "What is the name of the artist with the most albums?",  # a top-1 by a related count
        "What is the name of the playlist with the most tracks?",  # through the link table
        "Which artists have no albums? Give their names.",  # an anti-join
        "What are the first names and last names of all staff?",  # staff, not staffs
        "Which genre has the most tracks?",
    ):
        assert q in questions, q
    genres = next(d for d in result.kept if d.text == "What are the genres of all tracks?")
    assert "DISTINCT" in genres.sql  # a dimension is listed by its values, each once
    said = " ".join(questions)
    assert "staffs" not in said and "total total" not in said
    assert not re.search(r"\bSELECT\b|up to \d{4}-|\d{4}-\d\d-\d\d 00:00", said)
    assert not any("last update" in q for q in questions)  # bookkeeping is neither dimension nor measure


def test_drafted_questions_answer_right_through_the_runtime(drafted, store_dsn):
    from ctxtool.runtime import Runtime

    result, _ = drafted
    with connect(store_dsn, statement_timeout=10, row_cap=1000) as conn:
        rt = Runtime(result.to_set(), connector=conn, dialect="postgres", use_llm=False)
        ans = rt.ask("What is the name of the artist with the most albums?", action="showsql")
        assert ans.status == "answered", ans.explanation
        got = conn.query(ans.sql, ans.params).rows
        want = conn.query(
            "SELECT a.name FROM album b JOIN artist a USING (artist_id) GROUP BY a.artist_id, a.name "
            "ORDER BY COUNT(*) DESC LIMIT 1"
        ).rows
        assert [list(r) for r in got] == [list(r) for r in want]
        ans = rt.ask("Which artists have no albums?", action="showsql")
        assert ans.status == "answered", ans.explanation
        names = {r[0] for r in conn.query(ans.sql, ans.params).rows}
        without = conn.query("SELECT name FROM artist WHERE artist_id NOT IN (SELECT artist_id FROM album)")
        assert names == {r[0] for r in without.rows} and len(names) == 4
        rt.close()


def test_one_template_per_wording_and_per_query(drafted):
    result, snap = drafted
    kept = result.kept
    keys = [sql_key(d.sql, "postgres") for d in kept]
    assert len(keys) == len(set(keys)), "two kept templates run the same query"
    reasons = [d.reason or "" for d in result.dropped]
    assert any("same query" in r or "asks the same" in r for r in reasons)


def test_max_keeps_the_most_likely_and_reports_the_rest(store_dsn):
    with connect(store_dsn, statement_timeout=10, row_cap=1000) as conn:
        snap = build(conn, profile=True)
        result = draft("templates", snap, connector=conn, max_templates=12)
    assert len(result.kept) == 12
    report = result.report()
    assert report["max"] == 12 and len(report["left_out"]) == len(result.left_out) > 0
    assert all("beyond --max 12" in d.reason for d in result.left_out)
    assert sum(1 for d in result.kept if d.origin == "schema:count") >= 4  # counts rank first


def test_cli_max_and_review_of_the_drafts(store_dsn, tmp_path):
    out = tmp_path / "set.json"
    res = CliRunner().invoke(cli, ["draft", "templates", "--dsn", store_dsn, "--max", "7", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert len(json.loads(out.read_text())["templates"]) == 7
    assert "left out beyond --max 7" in res.stderr
    res = CliRunner().invoke(cli, ["draft", "templates", "--dsn", store_dsn, "--max", "0", "-o", str(out)])
    assert res.exit_code == 2 and "--max" in res.output


def test_ranking_helpers_on_drafts():
    a = template("How many tracks are there?", "SELECT COUNT(*) FROM track", "schema:count", ["track"])
    b = template("Count of tracks", "SELECT count(*) AS n FROM track", "workload", ["track"])
    c = template("Number of tracks?", "SELECT COUNT(*) FROM track t", "schema:count", ["track"])
    for d in (a, b, c):
        d.status = "kept"
    same_wording([a, b, c])  # "how many", "count of", "number of": one wording
    assert [d.status for d in (a, b, c)] == ["kept", "dropped", "dropped"]
    b.status = c.status = "kept"
    same_sql([a, b, c], "postgres")
    assert [d.status for d in (a, b, c)] == ["kept", "dropped", "dropped"]
    ranked = [template(f"q{i}", f"SELECT {i}", "schema:count", []) for i in range(5)]
    for d in ranked:
        d.status = "kept"
    assert cut(ranked, 3) == 2 and [d.status for d in ranked].count("left out") == 2


def test_plain_english_names():
    assert pluralize("staff") == "staff" and pluralize("criterion") == "criteria"
    assert pluralize("category") == "categories" and pluralize("leaf") == "leaves"
    # nouns in -ics are one and many; an abbreviation takes a plain s
    assert pluralize("customer demographics") == "customer demographics" and pluralize("topic") == "topics"
    assert pluralize("customer ID") == "customer IDs"
    assert singularize("analyses") == "analysis" and singularize("status") == "status"
    assert singularize("people") == "person" and singularize("bonus") == "bonus"
    assert words_of("clubname") == "club name" and words_of("fname") == "first name"
    assert words_of("UnitPrice") == "unit price" and words_of("a11") == "a11"
    assert when("1960") == "in 1960" and when("2024-03") == "in March 2024"
    assert when("2024-03-05") == "on March 5, 2024"
    assert year_span("1960-01-01 00:00:00", "1961-01-01 00:00:00") == "in 1960"


def test_plural_labels_of_words_ending_in_s_and_of_questions():
    from ctxtool.draft.phrasing import plural_words

    assert plural_words("email address") == "email addresses"  # "-ss" is one thing
    assert plural_words("class") == "classes"
    assert plural_words("units in stock") == "units in stock"
    assert plural_words("status") == "status"
    assert plural_words("how to get there") == "how to get there"  # a question as a label


def test_a_price_per_unit_is_averaged_never_summed():
    from types import SimpleNamespace

    from ctxtool.draft.templates import is_additive

    def col(name: str, label: str) -> SimpleNamespace:
        return SimpleNamespace(name=name, label=label)

    assert is_additive(col("amount", "amount")) and is_additive(col("price", "price"))
    assert not is_additive(col("unit_price", "unit price"))
    assert not is_additive(col("points_per_game", "points per game"))
