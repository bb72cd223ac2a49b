"""Which columns the drafts measure, group and name by, and the families added for issue 14: the
lowest beside the highest, the earliest and latest by a date, the bottom N, distinct counts of a
listed column, years before / after.

A shop-and-visit database of our own on PostgreSQL 15.
"""

from __future__ import annotations

import re

import pytest

from ctxtool.connectors import connect
from ctxtool.draft import draft
from ctxtool.draft.model import Model
from ctxtool.draft.names import initial_name, without_table_prefix
from ctxtool.draft.questions import naming
from ctxtool.draft.templates import categories, measures
from ctxtool.snapshot import build
from tests.backends import _pg_create, _pg_drop, pg_loaded, unique_name

SCHEMA = """
CREATE TABLE shop (shop_id int PRIMARY KEY, name text NOT NULL, manager text, phone int,
                   zip_code int, room_number int, opened_year int, floor_area int, opened date,
                   kind text);
CREATE TABLE visit (visit_id int PRIMARY KEY, shop_id int REFERENCES shop, place_name text,
                    duration int);
INSERT INTO shop SELECT i, 'Shop ' || i, 'Manager ' || (1 + i % 15), 5550000 + i * 7919 % 9000,
                        10000 + (i % 3) * 111, 100 + i % 4, 1990 + i, 50 + i * 37 % 400,
                        DATE '2001-01-01' + i * 97, (ARRAY['outlet','kiosk','store'])[1 + i % 3]
                   FROM generate_series(1, 20) i;
CREATE TABLE product (product_id int PRIMARY KEY, shop_id int REFERENCES shop, title text NOT NULL);
INSERT INTO product SELECT i, 1 + i % 12, 'Product ' || i FROM generate_series(1, 40) i;
INSERT INTO visit SELECT i, 1 + i % 20, (ARRAY['North gate','South gate','Hall'])[1 + i % 3],
                         10 + i * 13 % 170
                    FROM generate_series(1, 60) i;
ANALYZE;
"""

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def shop_dsn(_pg15_admin):
    with pg_loaded(_pg15_admin, "ctx_drf", SCHEMA) as dsn:
        yield dsn


@pytest.fixture(scope="module")
def drafted(shop_dsn):
    with connect(shop_dsn, statement_timeout=10, row_cap=1000) as conn:
        snap = build(conn, profile=True)
        templates = draft("templates", snap, connector=conn, max_templates=None)
        facets = draft("facets", snap, connector=conn)
        return templates, facets, snap


def _kept(result) -> dict[str, str]:
    return {d.text: d.item["sql"] for d in result.kept}


def test_numbers_that_identify_are_neither_measures_nor_dimensions(drafted):
    _, _, snap = drafted
    model = Model(snap)
    shop = model.table("shop")
    assert [c.name for c in measures(shop)] == ["floor_area"]  # not phone, zip code, room number
    assert not {"phone", "zip_code", "room_number"} & {c.name for c in categories(shop, model)}
    texts = list(_kept(drafted[0]))
    assert not [q for q in texts if re.search(r"(average|maximum|total|highest) (phone|zip|room)", q)]
    assert not [q for q in texts if re.search(r"for each (phone|zip|room)", q)]


def test_a_name_most_rows_share_does_not_name_a_row(drafted):
    model = Model(drafted[2])
    assert [c.name for c in naming(model.table("shop"))] == ["name"]
    assert naming(model.table("visit")) == []  # three place names for 60 visits


def test_short_table_prefixes_are_dropped_from_labels():
    assert without_table_prefix("stu gpa", "student") == "gpa"
    assert without_table_prefix("emp first name", "employee") == "first name"
    assert without_table_prefix("stu", "student") == "stu"  # nothing left: kept
    assert without_table_prefix("cost price", "course") == "cost price"  # not a prefix of it
    assert initial_name("cname", "course") and initial_name("dname", "department")
    assert not initial_name("fname", "course") and not initial_name("cname", "dorm")


def test_lowest_earliest_latest_and_bottom_n_answer_what_they_say(drafted, shop_dsn):
    kept = _kept(drafted[0])
    lowest = "What are the name and floor area of the shop with the lowest floor area?"
    want = {
        lowest: [("Shop 11", 57)],  # 50 + 11 * 37 % 400
        "What is the name of the shop with the earliest opened?": [("Shop 1",)],
        "What is the name of the shop with the latest opened?": [("Shop 20",)],
    }
    with connect(shop_dsn, statement_timeout=10, row_cap=1000) as conn:
        for q, rows in want.items():
            assert q in kept, sorted(kept)
            got = [tuple(r) for r in conn.query(kept[q], None).rows]
            assert got == rows, (q, got)
        bottom = kept["Which 10 shops have the lowest floor area?"]
        got = [r[0] for r in conn.query(bottom, None).rows]
        areas = dict((r[0], r[1]) for r in conn.query("SELECT name, floor_area FROM shop", None).rows)
        assert len(got) == 10 and sorted(areas.values())[:10] == sorted(areas[n] for n in got)


def test_a_listed_column_with_repeats_is_listed_once_each_and_counted(drafted):
    kept = _kept(drafted[0])
    assert kept["What are the managers of all shops?"] == "SELECT DISTINCT shop.manager FROM shop"
    assert kept["How many distinct managers do shops have?"] == (
        "SELECT COUNT(DISTINCT shop.manager) FROM shop"
    )


def test_breakdowns_are_ordered_by_their_count(drafted):
    sql = _kept(drafted[0])["How many visits are there for each place name?"]
    assert sql.endswith("ORDER BY visit_count DESC")


def test_years_held_as_numbers_get_before_and_after_facets(drafted):
    facets = {d.item["intent"]: d.item["sql_snippet"] for d in drafted[1].kept}
    assert facets["shops with opened year after 2000"] == "shop.opened_year > 2000"
    assert facets["shops with opened year before 2000"] == "shop.opened_year < 2000"


def test_kind_prefixes_and_composite_key_codes():
    """``ref_locations`` is "locations"; a code that is one part of a composite key is still a
    dimension of its table (the number of documents per location code)."""
    from ctxtool.draft.names import Namer, without_kind_prefix

    assert without_kind_prefix("ref location") == "location"
    assert without_kind_prefix("ref") == "ref"
    assert Namer().table({"name": "ref_locations"}).plural == "locations"
    snap = {
        "snapshot_version": 1,
        "engine": "postgres",
        "schemas": [{"name": "public", "tables": [
            {"name": "place", "primary_key": ["place_code"], "row_estimate": 4,
             "columns": [{"name": "place_code", "type": "text", "profile": {"distinct": 4}},
                         {"name": "label", "type": "text", "profile": {"distinct": 4}}]},
            {"name": "stay", "primary_key": ["item_id", "place_code"], "row_estimate": 40,
             "foreign_keys": [{"columns": ["place_code"], "ref_table": "place", "ref_columns": ["place_code"]}],
             "columns": [{"name": "item_id", "type": "int", "profile": {"distinct": 20}},
                         {"name": "place_code", "type": "text", "profile": {"distinct": 4}},
                         {"name": "nights", "type": "int", "profile": {"distinct": 9}}]},
        ]}],
    }  # fmt: skip
    model = Model(snap)
    assert "place_code" in [c.name for c in categories(model.table("stay"), model)]
    assert "place_code" not in [c.name for c in categories(model.table("place"), model)]


def test_rows_of_a_named_parent_counts_per_parent_and_negated_conditions(drafted, shop_dsn):
    kept = _kept(drafted[0])
    of_named = [q for q in kept if q.startswith("What are the titles of the products of the shop named")]
    assert len(of_named) == 1
    per_parent = "How many products does each shop have? Give the name and the number."
    without = "How many shops have no products?"
    not_kind = [q for q in kept if q.startswith("What are the names of shops whose kind is not")]
    assert len(not_kind) == 1
    with connect(shop_dsn, statement_timeout=10, row_cap=1000) as conn:

        def rows(sql):
            return sorted(tuple(r) for r in conn.query(sql, None).rows)

        named = of_named[0].split("named '")[1].rstrip("'?")
        assert rows(kept[of_named[0]]) == rows(
            f"SELECT p.title FROM product p JOIN shop s USING (shop_id) WHERE s.name = '{named}'"
        )
        assert rows(kept[per_parent]) == rows(
            "SELECT s.name, count(*) FROM product p JOIN shop s USING (shop_id) GROUP BY s.name"
        )
        assert rows(kept[without]) == [(8,)]  # shops 13-20 sell nothing
        kind = not_kind[0].split("not '")[1].rstrip("'?")
        assert rows(kept[not_kind[0]]) == rows(f"SELECT name FROM shop WHERE kind <> '{kind}'")


def test_the_coarser_dimensions_are_kept_first():
    """Of five dimensions, the three with the fewest values (a desk of 18 values is asked about
    less than a wing of 3)."""
    cols = [("desk", 18), ("gender", 2), ("grade", 4), ("wing", 3), ("floor_name", 10)]
    snap = {
        "snapshot_version": 1,
        "engine": "postgres",
        "schemas": [{"name": "public", "tables": [
            {"name": "worker", "primary_key": ["worker_id"], "row_estimate": 60,
             "columns": [{"name": "worker_id", "type": "int", "profile": {"distinct": 60}}]
             + [{"name": n, "type": "text", "profile": {"distinct": d}} for n, d in cols]},
        ]}],
    }  # fmt: skip
    model = Model(snap)
    assert [c.name for c in categories(model.table("worker"), model)] == ["gender", "grade", "wing"]


CODES_SCHEMA = """
CREATE TABLE ref_grade (grade_code text PRIMARY KEY, grade_description text);
INSERT INTO ref_grade VALUES ('A1', 'Top grade'), ('B2', 'Middle grade'), ('C3', 'Low grade');
CREATE TABLE kennel (kennel_id int PRIMARY KEY, name text NOT NULL, town text);
INSERT INTO kennel SELECT i, 'Kennel ' || i, 'Town ' || (i % 3) FROM generate_series(1, 6) i;
CREATE TABLE dog (dog_id int PRIMARY KEY, name text NOT NULL, kennel_id int REFERENCES kennel,
                  grade_code text REFERENCES ref_grade, lastname text, birthdate date);
INSERT INTO dog SELECT i, 'Dog ' || i, 1 + i % 6, (ARRAY['A1','B2','C3'])[1 + i % 3], 'L' || i,
                       DATE '2015-01-01' + i * 30
                  FROM generate_series(1, 30) i;
CREATE TABLE match (match_id int PRIMARY KEY, winner_id int REFERENCES dog, loser_id int REFERENCES dog);
INSERT INTO match SELECT i, 1 + i % 5, 6 + i % 5 FROM generate_series(1, 20) i;
ANALYZE;
"""


@pytest.fixture(scope="module")
def codes(_pg15_admin):
    import psycopg

    name = unique_name("ctx_drc")
    dsn = _pg_create(_pg15_admin, name)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(CODES_SCHEMA)
    with connect(dsn, statement_timeout=10, row_cap=1000) as conn:
        snap = build(conn, profile=True)
        yield {d.text: d for d in draft("templates", snap, connector=conn, max_templates=None).drafts}
    _pg_drop(_pg15_admin, name)


def test_a_code_table_is_looked_up_by_its_code(codes):
    """ "What is the description of the grade with code 'A1'?": a table keyed by a code people type."""
    found = [d for d in codes.values() if d.origin == "schema:lookup-by-code"]
    assert found and all(d.status == "kept" for d in found)
    d = found[0]
    assert re.fullmatch(r"What is the description of the grade with grade code '\w\d'\?", d.text)
    assert re.search(
        r"SELECT ref_grade\.grade_description FROM ref_grade WHERE ref_grade\.grade_code = '\w\d'$",
        d.item["sql"],
    )


def test_the_parent_of_a_named_child(codes):
    """ "Which kennel does the dog named 'Dog 3' belong to?": the parent's name by the child's, and
    a column describing the parent (one asked column, one returned)."""
    found = {d.text: d.item["sql"] for d in codes.values() if d.origin == "schema:join-parent-of-named"}
    name = next(q for q in found if q.startswith("What is the name of the kennel of the dog named 'Dog "))
    assert found[name].startswith("SELECT kennel.name FROM dog JOIN kennel ON ")
    town = next(q for q in found if q.startswith("What is the town of the kennel of the dog named"))
    assert found[town].startswith("SELECT kennel.town FROM dog JOIN kennel ON ")
    grade = next(q for q in found if q.startswith("What is the description of the grade of the dog named"))
    assert "SELECT ref_grade.grade_description FROM dog JOIN ref_grade" in found[grade]


def test_run_together_labels_split_at_their_head_word():
    """``lastname`` / ``invoicedate`` are two words (the dictionary holds the compound, or cuts it
    elsewhere); a common word of its own stays whole."""
    from ctxtool.draft.names import words_of

    assert words_of("lastname") == "last name" and words_of("invoicedate") == "invoice date"
    assert words_of("birthdate") == "birth date" and words_of("useracct") == "user account"
    assert words_of("velocity") == "velocity" and words_of("nickname") == "nickname"
    assert words_of("password") == "password" and words_of("stuid") == "stuid"


def test_a_breakdown_by_the_key_of_another_table(codes):
    """ "How many dogs are there for each kennel ID?": the number key users read off a listing; not
    for a table referencing the same one twice (winner and loser: one word tells them apart)."""
    found = {d.text: d.item["sql"] for d in codes.values() if d.origin == "schema:breakdown-key"}
    assert found["How many dogs are there for each kennel ID?"] == (
        "SELECT dog.kennel_id, COUNT(*) AS dog_count FROM dog GROUP BY dog.kennel_id"
    )
    assert not [q for q in found if q.startswith("How many matches")]


# -- flags held as 0/1, contacts, units, tallies and subtypes (issue 14, second pass) --------------

STORE = """
CREATE TABLE supplier (supplier_id int PRIMARY KEY, company_name text NOT NULL, city text,
                       fax text, home_page text);
CREATE TABLE item (item_id int PRIMARY KEY, item_name text NOT NULL,
                   supplier_id int REFERENCES supplier, units_in_stock int, milliseconds int,
                   discontinued int, description text);
CREATE TABLE sale_item (item_id int PRIMARY KEY REFERENCES item, sale_price int);
CREATE TABLE site (site_id int PRIMARY KEY, site_name text NOT NULL);
CREATE TABLE staff_line (line_id int PRIMARY KEY, site_id int REFERENCES site, year int,
                         staff_line int);
INSERT INTO supplier SELECT i, 'Supplier ' || i, (ARRAY['Oslo','Lyon','Kiel'])[1 + i % 3],
                            '555-01' || (i % 4), 'http://s' || (i % 5) || '.example'
                       FROM generate_series(1, 20) i;
INSERT INTO item SELECT i, 'Item ' || i, 1 + i % 20, i * 7 % 90, 100000 + i * 3571 % 90000,
                        (i % 5 = 0)::int, 'Item number ' || i || CASE WHEN i = 3 THEN '' ELSE '!' END
                   FROM generate_series(1, 60) i;
UPDATE item SET description = 'Item number 2!' WHERE item_id = 3;
INSERT INTO sale_item SELECT i, 10 + i FROM generate_series(1, 60, 3) i;
INSERT INTO site SELECT i, 'Site ' || i FROM generate_series(1, 6) i;
INSERT INTO staff_line SELECT i, 1 + i % 6, 2000 + i % 4, 5 + i * 7 % 40 FROM generate_series(1, 48) i;
ANALYZE;
"""


@pytest.fixture(scope="module")
def store(_pg15_admin):
    with pg_loaded(_pg15_admin, "ctx_drs", STORE) as dsn:
        with connect(dsn, statement_timeout=10, row_cap=1000) as conn:
            snap = build(conn, profile=True)
            templates = draft("templates", snap, connector=conn, max_templates=None)
            facets = draft("facets", snap, connector=conn)
        yield templates, facets, snap, dsn


def test_a_zero_one_number_is_a_flag_not_a_dimension(store):
    templates, facets, snap, _ = store
    kept = _kept(templates)
    assert kept["How many items are discontinued?"].endswith("WHERE item.discontinued = 1")
    said = " ".join(kept)
    assert "for each discontinued" not in said and "distinct discontinued" not in said
    assert "the discontinued of" not in said  # a yes/no is counted, not listed
    snippets = {d.item["sql_snippet"] for d in facets.kept}
    assert "item.discontinued = 1" in snippets and "item.discontinued = 0" in snippets


def test_contacts_are_not_values_people_list_distinct_or_break_down(store):
    kept = _kept(store[0])
    said = " ".join(kept).lower()
    for word in ("faxes", "fax ", "home page"):
        assert f"distinct {word}" not in said, word
        assert f"for each {word.strip()}" not in said, word


def test_a_unit_is_said_as_its_quantity_and_verbs_agree(store):
    kept = _kept(store[0])
    assert "What is the average duration in milliseconds of all items?" in kept
    assert "milliseconds of all" not in " ".join(q for q in kept if "duration" not in q)
    lookups = [q for q in kept if q.startswith("What are the units in stock of the item named")]
    assert lookups, "a plural measure noun takes 'are'"
    assert not any(q.startswith("What is the units in stock") for q in kept)


def test_a_count_column_named_as_its_table_is_summed(store):
    templates, _, _, dsn = store
    kept = _kept(templates)
    counted = [sql for q, sql in kept.items() if q.startswith("How many staff lines have year")]
    assert counted and all("SUM(staff_line.staff_line)" in sql for sql in counted)
    top = kept["What is the name of the site with the most staff lines?"]
    assert "ORDER BY SUM(staff_line.staff_line) DESC" in top
    with connect(dsn, statement_timeout=10, row_cap=1000) as conn:
        got = conn.query(top, None).rows
        want = conn.query(
            "SELECT site_name FROM site JOIN staff_line USING (site_id) GROUP BY site_name "
            "ORDER BY SUM(staff_line) DESC LIMIT 1"
        ).rows
    assert [list(r) for r in got] == [list(r) for r in want]


def test_a_subtype_is_never_the_most_of_its_parent(store):
    kept = _kept(store[0])
    said = " ".join(kept)
    assert "most sale items" not in said and "at least 2 sale items" not in said
    assert "How many items have no sale items?" in kept


def test_free_text_is_listed_row_by_row(store):
    kept = _kept(store[0])
    # two descriptions alike among sixty are chance: every row listed; a place repeats on purpose
    assert kept["What are the descriptions of all items?"] == "SELECT item.description FROM item"
    assert kept["What are the cities of all suppliers?"].startswith("SELECT DISTINCT")


def test_a_rank_is_no_measure_but_still_compared(_pg15_admin):
    schema = """
    CREATE TABLE entry (entry_id int PRIMARY KEY, title text NOT NULL, rank int, score int);
    INSERT INTO entry SELECT i, 'Entry ' || i, i, 50 + i * 7 % 40 FROM generate_series(1, 30) i;
    ANALYZE;
    """
    with pg_loaded(_pg15_admin, "ctx_drk", schema) as dsn:
        with connect(dsn, statement_timeout=10, row_cap=1000) as conn:
            snap = build(conn, profile=True)
            kept = _kept(draft("templates", snap, connector=conn, max_templates=None))
            facets = draft("facets", snap, connector=conn)
    assert "What is the maximum score of all entries?" in kept
    assert not any("maximum rank" in q or "highest rank" in q for q in kept)  # the highest rank is 1
    assert any("entry.rank >" in d.item["sql_snippet"] for d in facets.kept)


def test_measures_listed_in_order(store):
    kept = _kept(store[0])
    assert kept["List the units in stock of all items in ascending order."] == (
        "SELECT item.units_in_stock FROM item ORDER BY item.units_in_stock ASC"
    )


def test_the_own_reference_of_two_reads_without(_pg15_admin):
    schema = """
    CREATE TABLE course (course_id int PRIMARY KEY, title text NOT NULL);
    CREATE TABLE prereq (course_id int REFERENCES course, prereq_id int REFERENCES course,
                         PRIMARY KEY (course_id, prereq_id));
    INSERT INTO course SELECT i, 'Course ' || i FROM generate_series(1, 12) i;
    INSERT INTO prereq SELECT i, i - 1 FROM generate_series(2, 8) i;
    ANALYZE;
    """
    with pg_loaded(_pg15_admin, "ctx_drp", schema) as dsn:
        with connect(dsn, statement_timeout=10, row_cap=1000) as conn:
            snap = build(conn, profile=True)
            kept = _kept(draft("templates", snap, connector=conn, max_templates=None))
            sql = kept["Which courses have no prereqs? Give their titles."]
            assert "SELECT prereq.course_id FROM prereq" in sql  # the course's own reference, not its role
            assert len(conn.query(sql).rows) == 5  # courses 1 and 9-12
