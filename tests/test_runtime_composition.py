"""Composition end to end through ``ctxtool ask``, on a marketplace database of our own loaded into
PostgreSQL and MariaDB: a template plus a facet the question states in other words ("cost less
than" for "cheaper than", "only the closed ones"), misspelled names linked through the drafted value
searches, a value the database spells with a final "!", a value two tables hold resolved by the
template's own table, and LIKE templates whose wildcards survive parameterization.

The set is what a user writes (templates with concrete SQL, two facets); ``draft values --merge``
and ``parameterize`` complete it, as the CLI does. On Spanner the LIKE round trip runs on the
financial sample of the emulator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli
from tests.backends import _mysql_connect, _mysql_create, _mysql_drop, _pg_create, _pg_drop, unique_name

SELLERS = [
    (1, "Margarethe Lindqvist", "Porto"),
    (2, "Tomasz Wojcik", "Lisbon"),
    (3, "Aiko Tanaka", "Braga"),
    (4, "Oluwaseun Adeyemi", "Porto"),
]
BUYERS = [(1, "Henrik Dahl", "Porto"), (2, "Lucia Ferreira", "Faro")]  # Porto: a buyers' city too
ITEMS = [
    (1, "The Rise of the Blue Beetle!", "Games", 15.5, "open", 1),
    (2, "Enter the Outsiders", "Games", 25.0, "closed", 1),
    (3, "North Wind Puzzle", "Toys", 8.0, "closed", 2),
    (4, "Harbour Lights", "Books", 12.0, "open", 3),
    (5, "Northern Stars", "Books", 30.0, "closed", 1),
    (6, "Southern Cross Kite", "Toys", 18.0, "open", 4),
    (7, "South Pole Expedition", "Games", 9.5, "closed", 4),
    (8, "Tiny Robots", "Toys", 5.0, "open", 2),
]
DDL = (
    "CREATE TABLE seller (seller_id int PRIMARY KEY, full_name varchar(80) NOT NULL, city varchar(40) NOT NULL)",
    "CREATE TABLE buyer (buyer_id int PRIMARY KEY, full_name varchar(80) NOT NULL, city varchar(40) NOT NULL)",
    "CREATE TABLE item (item_id int PRIMARY KEY, title varchar(120) NOT NULL, category varchar(40) NOT NULL, "
    "price decimal(8,2) NOT NULL, status varchar(20) NOT NULL, "
    "seller_id int NOT NULL REFERENCES seller (seller_id))",
)


def _set(like_sql: str) -> dict:
    return {
        "templates": [
            {
                "nl_query": "List the titles of the items in the category 'Toys'.",
                "sql": "SELECT title FROM item WHERE category = 'Toys' ORDER BY title",
            },
            {
                "nl_query": "Which items does the seller 'Tomasz Wojcik' sell?",
                "sql": "SELECT item.title FROM item JOIN seller ON item.seller_id = seller.seller_id "
                "WHERE seller.full_name = 'Tomasz Wojcik' ORDER BY item.title",
            },
            {
                "nl_query": "What is the price of the item 'Harbour Lights'?",
                "sql": "SELECT price FROM item WHERE title = 'Harbour Lights'",
            },
            {"nl_query": "Which items have North in their title?", "sql": like_sql},
            {
                "nl_query": "Which sellers are in Lisbon?",
                "sql": "SELECT full_name FROM seller WHERE city = 'Lisbon' ORDER BY full_name",
            },
        ],
        "facets": [
            {"intent": "items cheaper than 10", "sql_snippet": "item.price < 10"},
            {"intent": "closed items", "sql_snippet": "item.status = 'closed'"},
        ],
    }


def _run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result.output


def _complete(dsn: str, dialect: str, path: Path, like_sql: str) -> Path:
    """The user's set completed as the CLI does: drafted value searches merged, then parameterized."""
    path.write_text(json.dumps(_set(like_sql)))
    _run("draft", "values", "--dsn", dsn, "--merge", str(path))
    _run("parameterize", str(path), "--in-place", "--dialect", dialect)
    return path


@pytest.fixture(scope="module")
def postgres_set(_pg15_admin, tmp_path_factory):
    import psycopg

    name = unique_name("ctx_comp")
    dsn = _pg_create(_pg15_admin, name, extensions=("pg_trgm", "fuzzystrmatch"))
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            for stmt in DDL:
                conn.execute(stmt)
            for table, rows in (("seller", SELLERS), ("buyer", BUYERS), ("item", ITEMS)):
                marks = ", ".join(["%s"] * len(rows[0]))
                conn.cursor().executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
        like = "SELECT title FROM item WHERE title LIKE '%North%' ORDER BY title"
        path = _complete(dsn, "postgres", tmp_path_factory.mktemp("comp_pg") / "set.json", like)
        yield dsn, path
    finally:
        _pg_drop(_pg15_admin, name)


@pytest.fixture(scope="module")
def mariadb_set(_mariadb_available, tmp_path_factory):
    name = unique_name("ctx_comp")
    dsn = _mysql_create(name)
    try:
        conn = _mysql_connect(name)
        try:
            cur = conn.cursor()
            for stmt in DDL:
                cur.execute(stmt)
            for table, rows in (("seller", SELLERS), ("buyer", BUYERS), ("item", ITEMS)):
                marks = ", ".join(["%s"] * len(rows[0]))
                cur.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
            conn.commit()
        finally:
            conn.close()
        like = "SELECT title FROM item WHERE title LIKE CONCAT('%', 'North', '%') ORDER BY title"
        path = _complete(dsn, "mysql", tmp_path_factory.mktemp("comp_my") / "set.json", like)
        yield dsn, path
    finally:
        _mysql_drop(name)


@pytest.fixture(params=["postgres", "mariadb"])
def engine(request):
    if request.param == "postgres":
        request.applymarker(pytest.mark.postgres)
        return request.getfixturevalue("postgres_set")
    request.applymarker(pytest.mark.mariadb)
    return request.getfixturevalue("mariadb_set")


def _ask(engine, question: str) -> dict:
    dsn, path = engine
    return json.loads(
        _run("ask", question, "--context", str(path), "--dsn", dsn, "--no-llm", "--format", "json")
    )


def _titles(rows) -> list[str]:
    return [r[0] for r in rows]


def test_a_facet_stated_in_other_words(engine):
    ans = _ask(engine, "List the titles of the items in the category 'Games' that cost less than 20.")
    assert ans["status"] == "answered", ans["explanation"]
    assert ans["params"] == ["Games", 20] and "price <" in ans["sql"]
    expected = sorted(t for _, t, c, p, _, _ in ITEMS if c == "Games" and p < 20)
    assert _titles(ans["rows"]) == expected


def test_a_status_facet_for_only_the_closed_ones(engine):
    ans = _ask(engine, "Which items does the seller Margarethe Lindqvist sell? Only the closed ones.")
    assert ans["status"] == "answered", ans["explanation"]
    assert ans["params"] == ["Margarethe Lindqvist", "closed"]
    assert _titles(ans["rows"]) == sorted(t for _, t, _, _, s, who in ITEMS if who == 1 and s == "closed")


@pytest.mark.parametrize(
    ("name", "stored"),
    [
        ("Margrethe Lindqvist", "Margarethe Lindqvist"),  # a missing letter
        ("Margarehte Lindqvist", "Margarethe Lindqvist"),  # two letters transposed
        ("Tomasz Wjocik", "Tomasz Wojcik"),  # transposed in a short word (trigrams are harsh there)
        ("Aiko Tanka", "Aiko Tanaka"),
    ],
)
def test_a_misspelled_name_is_linked_through_the_value_searches(engine, name, stored):
    ans = _ask(engine, f"Which items does the seller {name} sell?")
    assert ans["status"] == "answered", ans["explanation"]
    assert ans["params"] == [stored] and ans["linked_values"][0]["phrase"] == name
    seller = next(s[0] for s in SELLERS if s[1] == stored)
    assert _titles(ans["rows"]) == sorted(t for _, t, _, _, _, who in ITEMS if who == seller)


def test_a_value_the_database_spells_with_a_final_bang(engine):
    ans = _ask(engine, "What is the price of the item 'The Rise of the Blue Beetle'?")
    assert ans["status"] == "answered", ans["explanation"]
    assert ans["params"] == ["The Rise of the Blue Beetle!"] and float(ans["rows"][0][0]) == 15.5


def test_a_value_two_tables_hold_is_read_on_the_templates_table(engine):
    """'Porto' is a city of sellers and of buyers: the sellers template reads it on seller.city, and
    no choice is offered twice."""
    ans = _ask(engine, "Which sellers are in Porto?")
    assert ans["status"] == "answered", ans["disambiguation"]
    assert _titles(ans["rows"]) == sorted(s[1] for s in SELLERS if s[2] == "Porto")
    assert "seller.city" in ans["explanation"]


def test_like_wildcards_survive_the_round_trip(engine):
    _, path = engine
    tpl = json.loads(path.read_text())["templates"][3]["parameterized"]["parameterized_sql"]
    own = _ask(engine, "Which items have North in their title?")
    other = _ask(engine, "Which items have 'South' in their title?")
    for ans, word in ((own, "North"), (other, "South")):
        assert ans["status"] == "answered", ans["explanation"]
        assert _titles(ans["rows"]) == sorted(t for _, t, *_ in ITEMS if word in t)
        assert ans["params"] in ([word], [f"%{word}%"])  # in the SQL ('%' || ? || '%') or the value
    if "CONCAT" in tpl:
        assert "CONCAT('%', ?, '%')" in tpl and other["params"] == ["South"]
    else:
        assert "LIKE $1" in tpl and other["params"] == ["%South%"]


# --------------------------------------------------------------------------------- Spanner


@pytest.mark.spanner
@pytest.mark.parametrize(
    "pattern",
    ["d.A2 LIKE '%Praha%'", "d.A2 LIKE CONCAT('%', 'Praha', '%')"],
)
def test_like_round_trip_on_spanner(spanner_samples_dsn, tmp_path, pattern):
    path = tmp_path / "set.json"
    path.write_text(
        json.dumps(
            {
                "templates": [
                    {
                        "nl_query": "Which districts have Praha in their name?",
                        "sql": f"SELECT d.A2 FROM district AS d WHERE {pattern} ORDER BY d.A2",
                    }
                ]
            }
        )
    )
    _run("parameterize", str(path), "--in-place", "--dialect", "spanner")
    sql = json.loads(path.read_text())["templates"][0]["parameterized"]["parameterized_sql"]
    assert "'Praha'" not in sql and "?" in sql
    out = _run(
        "ask", "Which districts have 'Brno' in their name?", "--context", str(path),
        "--dsn", spanner_samples_dsn, "--no-llm", "--format", "json",
    )  # fmt: skip
    ans = json.loads(out)
    assert ans["status"] == "answered", ans["explanation"]
    from ctxtool.sampledata.districts import DISTRICTS

    assert _titles(ans["rows"]) == sorted(d[1] for d in DISTRICTS if "Brno" in d[1])


def test_a_typo_or_two_is_close_and_another_word_is_not():
    from ctxtool.runtime.question.linking import _typo_distance

    assert _typo_distance("Tomasz Wjocik", "Tomasz Wojcik") < 0.1  # transposed
    assert _typo_distance("Margrethe Lindqvist", "Margarethe Lindqvist") < 0.1  # a letter missing
    assert _typo_distance("Margrethe Lindqvst", "Margarethe Lindqvist") < 0.2  # two, in a long name
    assert _typo_distance("Prague East", "Prague West") == 1.0  # another word, not a typo
    assert _typo_distance("Porto", "Ports") == 1.0  # too short to tell a typo from another name
