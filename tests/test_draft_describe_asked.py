"""The workload describer says a query as people ask it: a key named by a short form of its table is
an "id", the group that comes up most is "the most common", the top groups by a measure are "which
... has the highest ...", INTERSECT / EXCEPT of the same rows are conditions on them, years are the
latest or the earliest, counts "have" their conditions (real PostgreSQL, a small fixture of its own)."""

from __future__ import annotations

import pytest

from ctxtool.connectors import connect
from ctxtool.draft.describe import Describer
from ctxtool.draft.model import Model
from ctxtool.snapshot import build


@pytest.fixture(scope="module")
def studios(_pg15_admin):
    """Studios (key ``stid``) with lessons (key ``lid``, a ``stid`` reference, a plural-named text
    column) and enrolments of pupils in lessons."""
    from tests.backends import pg_loaded

    sql = (
        "CREATE TABLE studio (stid int PRIMARY KEY, name text, city text, opened_year int, rent int);"
        "CREATE TABLE lesson (lid int PRIMARY KEY, stid int REFERENCES studio, formats text, fee int,"
        " launched int);"
        "CREATE TABLE pupil (pupil_id int PRIMARY KEY, name text, age int, city text, onscholarship text);"
        "CREATE TABLE enrolment (pupil_id int REFERENCES pupil, lid int REFERENCES lesson,"
        " PRIMARY KEY (pupil_id, lid));"
        "CREATE TABLE tutor (tutor_id int PRIMARY KEY REFERENCES pupil (pupil_id), rate int);"
        "CREATE TABLE course (course_id int PRIMARY KEY, title text, fee int);"
        "INSERT INTO course SELECT i, 'Course ' || i, i FROM generate_series(1, 10) i;"
        "INSERT INTO studio SELECT i, 'Studio ' || i, 'C' || i % 3, 1990 + i, 100 * i"
        " FROM generate_series(1, 12) i;"
        "INSERT INTO lesson SELECT i, 1 + i % 12, 'F' || i % 4, 10 + i, 2000 + i % 20"
        " FROM generate_series(1, 40) i;"
        "INSERT INTO pupil SELECT i, 'P' || i, 10 + i % 30, 'C' || i % 3, CASE WHEN i % 4 = 0 THEN 'Y' ELSE 'N' END"
        " FROM generate_series(1, 50) i;"
        "INSERT INTO enrolment SELECT 1 + i % 50, 1 + i % 40 FROM generate_series(1, 60) i"
        " ON CONFLICT DO NOTHING;"
        "INSERT INTO tutor SELECT i, 5 + i FROM generate_series(1, 8) i;"
        "ANALYZE"
    )
    with pg_loaded(_pg15_admin, "ctx_asked", sql) as dsn:
        with connect(dsn) as conn:
            snap = build(conn, profile=True)
        yield Describer(Model(snap))


@pytest.mark.postgres
def test_a_key_named_by_a_short_form_of_its_table_is_an_id(studios):
    assert studios.question("SELECT lid FROM lesson WHERE fee > 20") == (
        "What are the ids of lessons with fee above 20?"
    )
    # a reference to another table's short key: that table's id
    question = studios.question("SELECT stid, COUNT(*) FROM lesson GROUP BY stid")
    assert "studio id" in question and "stid" not in question


@pytest.mark.postgres
def test_the_value_most_rows_have_is_the_most_common(studios):
    sql = "SELECT city FROM pupil GROUP BY city ORDER BY COUNT(*) DESC LIMIT 1"
    assert studios.question(sql) == "Which city has the most pupils?"
    assert studios(sql) == "The most common city of pupils"
    assert studios("SELECT city FROM pupil GROUP BY city ORDER BY COUNT(*) LIMIT 1").startswith(
        "The least common city"
    )


@pytest.mark.postgres
def test_the_top_groups_by_a_measure_are_which_has_the_highest(studios):
    sql = "SELECT city, SUM(rent) FROM studio GROUP BY city ORDER BY SUM(rent) DESC LIMIT 1"
    question, phrase = studios.wordings(sql)
    assert (
        question == "Which city has the highest total rent of studios, and what is its total rent of studios?"
    )
    assert phrase == "The city with the highest total rent of studios and its total rent of studios"
    sql = "SELECT city FROM pupil GROUP BY city ORDER BY AVG(age) DESC LIMIT 2"
    assert studios.question(sql) == "Which 2 cities have the highest average age of pupils?"


@pytest.mark.postgres
def test_intersect_and_except_of_the_same_rows_are_conditions_on_them(studios):
    sql = "SELECT pupil_id FROM pupil WHERE age > 20 INTERSECT SELECT pupil_id FROM enrolment WHERE lid = 3"
    question = studios.question(sql)
    assert question.startswith("What are the pupil ") and "with a lesson with lesson id 3" in question
    assert " both " not in question
    sql = "SELECT pupil_id FROM pupil WHERE age > 20 EXCEPT SELECT pupil_id FROM enrolment"
    assert "without any lessons" in studios.question(sql) or "no lesson" in studios.question(sql)


@pytest.mark.postgres
def test_years_are_the_latest_and_counts_have_their_conditions(studios):
    # a year column (by its name, or by a time word and four-digit values) is latest / earliest
    assert studios.question("SELECT name FROM studio ORDER BY opened_year DESC LIMIT 1") == (
        "What is the name of the studio with the latest opened year?"
    )
    assert "earliest launched" in studios.question(
        "SELECT lid FROM lesson WHERE launched = (SELECT MIN(launched) FROM lesson)"
    )
    # no time word: a number is highest / lowest, whatever its values
    assert "highest rent" in studios.question("SELECT name FROM studio ORDER BY rent DESC LIMIT 1")
    assert studios.question("SELECT COUNT(*) FROM pupil WHERE city = 'C1'") == (
        "How many pupils have city 'C1'?"
    )
    assert (
        studios.question("SELECT COUNT(*) FROM pupil WHERE age > 20") == "How many pupils are older than 20?"
    )


@pytest.mark.postgres
def test_values_of_one_column_and_groups_of_a_plural_name_are_said_once(studios):
    assert studios.question("SELECT name FROM pupil WHERE city = 'C1' OR city = 'C2'") == (
        "What are the names of pupils with city 'C1' or 'C2'?"
    )
    assert studios.question("SELECT formats, COUNT(*) FROM lesson GROUP BY formats") == (
        "How many lessons are there for each format?"
    )
    # above the highest: than all of them
    sql = "SELECT name FROM studio WHERE rent > (SELECT MAX(rent) FROM studio WHERE city = 'C1')"
    assert "above the rent of all studios with city 'C1'" in studios.question(sql)


@pytest.mark.postgres
def test_a_table_keyed_by_a_reference_names_the_rows_it_holds(studios):
    """A tutor is a pupil (its key is a pupil's): the names of tutors, not of pupils with a tutor."""
    sql = "SELECT p.name FROM pupil AS p JOIN tutor AS t ON p.pupil_id = t.tutor_id WHERE t.rate > 8"
    assert studios.question(sql) == "What are the names of tutors with rate above 8?"
    # joined the other way, the pupil's columns are the tutor's own
    sql = "SELECT AVG(p.age) FROM tutor AS t JOIN pupil AS p ON t.tutor_id = p.pupil_id"
    assert studios.question(sql) == "What is the average age of tutors?"
    # a reference that is not the key: the rows stay the main table's
    sql = "SELECT p.name FROM pupil AS p JOIN enrolment AS e ON p.pupil_id = e.pupil_id"
    assert "tutor" not in studios.question(sql) and "pupils" in studios.question(sql)


@pytest.mark.postgres
def test_a_yes_no_column_is_said_as_what_it_states(studios):
    # a run-together label split into its words, and 'Y' / 'N' said as "that are (not) ..."
    assert studios.question("SELECT name FROM pupil WHERE onscholarship = 'Y'") == (
        "What are the names of pupils that are on scholarship?"
    )
    assert studios.question("SELECT COUNT(*) FROM pupil WHERE onscholarship = 'N'") == (
        "How many pupils are not on scholarship?"
    )
    # another text column keeps its value
    assert "city 'C1'" in studios.question("SELECT name FROM pupil WHERE city = 'C1'")


@pytest.mark.postgres
def test_groups_with_at_least_a_count_are_which_have(studios):
    question, phrase = studios.wordings("SELECT city, COUNT(*) FROM pupil GROUP BY city HAVING COUNT(*) >= 2")
    assert question == "Which cities have at least 2 pupils, and how many pupils do they have?"
    _, phrase = studios.wordings("SELECT city FROM pupil GROUP BY city HAVING COUNT(*) >= 2")
    assert phrase == "List the cities with at least 2 pupils"


@pytest.mark.postgres
def test_one_thing_a_title_and_the_most_recent(studios):
    # a count of one is singular
    sql = "SELECT city FROM pupil GROUP BY city HAVING COUNT(*) = 1"
    assert studios.question(sql) == "Which cities have exactly 1 pupil?"
    # a title names its row: the phrase says "names" (the question keeps the column's word)
    question, phrase = studios.wordings("SELECT title FROM course WHERE fee > 5")
    assert question == "What are the titles of courses with fee above 5?"
    assert phrase == "List the names of courses with fee above 5"
    # the last in time: "latest" in the question, "most recent" in the phrase
    question, phrase = studios.wordings("SELECT MAX(opened_year) FROM studio")
    assert question == "What is the latest opened year of studios?"
    assert phrase == "Most recent opened year of studios"
