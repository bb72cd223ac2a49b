"""Drafts that answer what their question asks, no more (issue 14): a drafted template whose
result carries other columns than the question names, or one that a reader cannot tell from its
neighbour, turns a right question into a wrong answer.

A small school-shaped database of our own on PostgreSQL 15: departments referenced by a text code,
instructors with a salary, a city table whose ``city`` column names each row, rooms without a name,
a relationship table named as a statement (``has_award``) and a subtype (``professor``: one
instructor per row).
"""

from __future__ import annotations

import re

import pytest

from ctxtool.connectors import connect
from ctxtool.draft import draft
from ctxtool.draft.names import names_a_relationship
from ctxtool.snapshot import build
from tests.backends import pg_loaded

pytestmark = pytest.mark.postgres

SCHEMA = """
CREATE TABLE department (dept_code text PRIMARY KEY, dept_name text NOT NULL, building text);
CREATE TABLE city (city_id int PRIMARY KEY, city text NOT NULL, population int);
CREATE TABLE instructor (instructor_id int PRIMARY KEY, name text NOT NULL,
                         dept_code text REFERENCES department, rank text, salary numeric(10,2),
                         city_id int REFERENCES city);
CREATE TABLE room (room_id int PRIMARY KEY, capacity int, floor_area numeric(6,1));
CREATE TABLE has_award (instructor_id int REFERENCES instructor, award text);
CREATE TABLE professor (instructor_id int PRIMARY KEY REFERENCES instructor, tenure_years int);
CREATE TABLE course (course_id int PRIMARY KEY, title text, dept_code text REFERENCES department,
                     taught_by int REFERENCES instructor, reviewed_by int REFERENCES instructor);
INSERT INTO department VALUES ('ACC', 'Accounting', 'North'), ('BIO', 'Biology', 'North'),
    ('CHM', 'Chemistry', 'South'), ('HIS', 'History', 'West');
INSERT INTO city SELECT i, 'City ' || i, 1000 * i FROM generate_series(1, 20) i;
INSERT INTO instructor SELECT i, 'Instructor ' || i, (ARRAY['ACC','BIO','CHM'])[1 + i % 3],
    (ARRAY['Professor','Lecturer'])[1 + i % 2], 40000 + i * 1500, 1 + i % 20
    FROM generate_series(1, 40) i;
INSERT INTO room SELECT i, 20 + (i * 7) % 90, 30 + i * 2.5 FROM generate_series(1, 25) i;
INSERT INTO has_award SELECT 1 + i % 40, (ARRAY['Teaching','Research'])[1 + i % 2]
    FROM generate_series(1, 30) i;
INSERT INTO course SELECT i, 'Course ' || i, (ARRAY['ACC','BIO'])[1 + i % 2], 1 + i % 5, 1 + i % 4
    FROM generate_series(1, 30) i;
INSERT INTO professor SELECT i, (i * 7) % 23 FROM generate_series(2, 40, 3) i;
ANALYZE;
"""


@pytest.fixture(scope="module")
def school_dsn(_pg15_admin):
    with pg_loaded(_pg15_admin, "ctx_drs", SCHEMA) as dsn:
        yield dsn


@pytest.fixture(scope="module")
def drafted(school_dsn):
    with connect(school_dsn, statement_timeout=10, row_cap=1000) as conn:
        snap = build(conn, profile=True)
        result = draft("templates", snap, connector=conn, max_templates=None)
    return {d.text: d for d in result.kept}


def _columns(dsn: str, sql: str) -> list[str]:
    with connect(dsn) as conn:
        return list(conn.query(sql).columns)


def test_a_top_ten_shows_the_names_or_the_measure(drafted, school_dsn):
    top = drafted["Which 10 instructors have the highest salary?"]
    assert top.sql.startswith("SELECT instructor.name FROM instructor")
    # nothing names a room: the values are shown, and the question asks for the values
    rooms = drafted["What are the 10 highest capacities of rooms?"]
    assert rooms.sql.startswith("SELECT room.capacity FROM room")
    assert "Which 10 rooms have the highest capacity?" not in drafted
    # the lowest values alone, and a count with no listing beside it, answered other questions
    assert not any(
        q.startswith(("What are the 10 lowest capacities", "How many rooms have a capacity")) for q in drafted
    )
    most = drafted["Which 10 departments have the most instructors?"]
    assert most.sql.startswith("SELECT department.dept_name FROM")
    assert len(_columns(school_dsn, most.sql)) == 1


def test_no_lookup_returns_every_column_of_a_row(drafted):
    assert not any(q.startswith("Show the ") and " with " in q for q in drafted)


def test_a_repeated_column_is_listed_once_by_its_values(drafted):
    ranks = [q for q, d in drafted.items() if d.sql.startswith("SELECT DISTINCT instructor.rank FROM")]
    assert ranks == ["What are the ranks of all instructors?"]  # not also "the distinct ranks"
    names = drafted["What are the names of all instructors?"]
    assert "DISTINCT" not in names.sql  # each row its own value: a plain listing


def test_a_column_named_as_its_table_is_its_name(drafted):
    assert "What are the names of all cities?" in drafted
    assert "Which 10 cities have the highest population?" in drafted
    assert drafted["Which 10 cities have the highest population?"].sql.startswith("SELECT city.city FROM")
    assert not any("cities of all cities" in q or "city of the city" in q for q in drafted)


def test_a_table_named_as_a_statement_is_a_relationship(drafted):
    assert names_a_relationship("has_award") and names_a_relationship("is_member_of")
    assert not names_a_relationship("hash_key") and not names_a_relationship("award")
    assert not any("has awards" in q for q in drafted)


def test_a_reference_code_is_a_dimension_of_its_own(drafted):
    by_code = drafted["How many instructors are there for each department code?"]
    assert by_code.sql.startswith("SELECT instructor.dept_code, COUNT(*)") and "JOIN" not in by_code.sql
    most = drafted["Which department code has the most instructors?"]
    assert "JOIN" not in most.sql


def test_a_second_wording_as_people_say_it(drafted, school_dsn):
    from ctxtool.draft.pipeline import DraftResult
    from ctxtool.runtime import Runtime

    count = drafted["How many instructors are there?"]
    assert count.item["intent"] == "Count the number of instructors."
    assert drafted["What are the ranks of all instructors?"].item["intent"] == (
        "What are the different ranks of instructors?"
    )
    kept = DraftResult("templates", "postgres", list(drafted.values()))
    with connect(school_dsn, statement_timeout=10, row_cap=1000) as conn:
        rt = Runtime(kept.to_set(), connector=conn, dialect="postgres", use_llm=False)
        for question, want in (
            ("What are the different ranks?", "SELECT DISTINCT rank FROM instructor"),
            ("Count the number of instructors.", "SELECT count(*) FROM instructor"),
            (
                "What are the names of instructors whose salary is lower than the average?",
                "SELECT name FROM instructor WHERE salary < (SELECT avg(salary) FROM instructor)",
            ),
        ):
            ans = rt.ask(question, action="showsql")
            assert ans.status == "answered", (question, ans.explanation)
            got = sorted(map(list, conn.query(ans.sql, ans.params).rows))
            assert got == sorted(map(list, conn.query(want).rows)), question
        rt.close()


def test_average_and_maximum_together(drafted):
    pair = drafted["What are the average and maximum salary of all instructors?"]
    assert pair.sql == "SELECT AVG(instructor.salary), MAX(instructor.salary) FROM instructor"


def test_values_are_said_of_names_and_codes_not_of_reference_numbers(drafted, school_dsn):
    # a surrogate number is no dimension: never a value of it said, nor its most common one; only
    # the count of rows for each (the key a user reads off another listing)
    assert not any("city ID" in q and not q.endswith("for each city ID?") for q in drafted)
    with connect(school_dsn, statement_timeout=10, row_cap=1000) as conn:
        facets = draft("facets", build(conn, profile=True), connector=conn).kept
    snippets = [d.sql for d in facets]
    assert not any(s.startswith(("instructor.name =", "department.dept_name =")) for s in snippets)
    assert not any(s.startswith("instructor.city_id =") for s in snippets)
    assert any(s.startswith("instructor.dept_code = ") for s in snippets)  # a code people type


def test_how_many_different_is_kept_beside_the_breakdown(school_dsn):
    with connect(school_dsn, statement_timeout=10, row_cap=1000) as conn:
        result = draft("templates", build(conn, profile=True), connector=conn, max_templates=40)
    kept = {d.text for d in result.kept}
    assert "How many instructors are there for each rank?" in kept
    assert "How many distinct ranks do instructors have?" in kept


def test_a_subtype_is_named_by_the_row_it_is(drafted, school_dsn):
    names = drafted["What are the names of all professors?"]
    assert names.sql == (
        "SELECT instructor.name FROM professor JOIN instructor ON "
        "professor.instructor_id = instructor.instructor_id"
    )
    top = drafted["What is the name of the professor with the highest tenure years?"]
    with connect(school_dsn) as conn:
        want = conn.query(
            "SELECT i.name FROM professor p JOIN instructor i USING (instructor_id) "
            "ORDER BY p.tenure_years DESC LIMIT 1"
        ).rows
        assert conn.query(top.sql).rows == want
    # an instructor references a city, many instructors one city: not named by it
    assert "JOIN" not in drafted["What is the name of the instructor with the highest salary?"].sql


def test_two_references_to_one_table_are_no_dimensions(drafted):
    assert "How many courses are there for each department code?" in drafted
    assert not any(re.search(r"for each (taught|reviewed) by", q) for q in drafted)


def test_groups_with_at_least_or_more_than_n_rows(drafted, school_dsn):
    ranks = drafted["Which ranks have at least 2 instructors?"]
    assert ranks.sql.endswith("HAVING COUNT(*) >= 2")
    assert drafted["Which ranks have more than 1 instructors?"].sql.endswith("HAVING COUNT(*) > 1")
    depts = drafted["Which departments have at least 2 instructors? Give their names."]
    with connect(school_dsn) as conn:
        got = {r[0] for r in conn.query(depts.sql).rows}
    assert got == {"Accounting", "Biology", "Chemistry"}  # History has none


def test_a_table_of_a_referenced_table_is_named_by_its_head():
    from ctxtool.draft.names import Namer

    namer = Namer()
    member = namer.table({"name": "member_of_club", "foreign_keys": [{"ref_table": "club"}]})
    assert (member.singular, member.plural) == ("member", "members")
    # without the reference the words stay: "units in stock" is not a unit
    assert namer.table({"name": "units_in_stock", "foreign_keys": []}).singular == "units in stock"


def test_reverse_alphabetical_order(drafted):
    rev = drafted["List the names of all instructors in reverse alphabetical order."]
    assert rev.sql.endswith("ORDER BY instructor.name DESC")
    assert rev.item["intent"] == "Sort the names of all instructors in descending alphabetical order."


def test_no_total_total():
    from ctxtool.draft.model import Model
    from ctxtool.draft.questions import draft_questions

    total = {"name": "total", "type": "numeric(10,2)", "profile": {"distinct": 300, "min": 1, "max": 25}}
    snap = {"dialect": "postgres", "schemas": [{"name": "public", "tables": [
        {"name": "invoice", "row_estimate": 400, "primary_key": ["invoice_id"],
         "columns": [{"name": "invoice_id", "type": "integer", "profile": {"distinct": -1}}, total]},
    ]}]}  # fmt: skip
    said = [d.text for d in draft_questions(Model(snap))]
    assert "What is the total of all invoices?" in said
    assert not any("total total" in q for q in said)
