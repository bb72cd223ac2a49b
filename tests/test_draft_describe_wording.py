"""The workload describer says things the way people ask them: the thing listed named first (the
names of tracks, not "the track names of genres"), years compared with after / before, ages with
older / the oldest, first and last name as "full name", and no "with a review" once the order or the
count already names the joined table, ``gtype`` of a garden plot as "type" (real PostgreSQL, a
small fixture of its own)."""

from __future__ import annotations

import pytest

from ctxtool.connectors import connect
from ctxtool.draft.describe import Describer, full_names, listing
from ctxtool.draft.model import Model
from ctxtool.snapshot import build


@pytest.fixture(scope="module")
def clubs(_pg15_admin):
    """Members of clubs with ratings, and a venue that references two other tables but is no link."""
    from tests.backends import pg_loaded

    sql = (
        "CREATE TABLE club (club_id int PRIMARY KEY, club_name text, founded_year int, season int);"
        "CREATE TABLE member (member_id int PRIMARY KEY, first_name text, last_name text, age int,"
        " club_id int REFERENCES club);"
        "CREATE TABLE rating (rating_id int PRIMARY KEY, member_id int REFERENCES member, stars int,"
        " hours_spent int);"
        "CREATE TABLE venue (venue_id int PRIMARY KEY, club_id int REFERENCES club,"
        " manager_id int REFERENCES member, opened date);"
        "INSERT INTO club SELECT i, 'Club ' || i, 1950 + i, 2000 + i FROM generate_series(1, 12) i;"
        "INSERT INTO member SELECT i, 'F' || i, 'L' || i, 20 + i % 30, 1 + i % 12"
        " FROM generate_series(1, 60) i;"
        "INSERT INTO rating SELECT i, 1 + i % 60, i % 5, i % 7 FROM generate_series(1, 90) i;"
        "INSERT INTO venue SELECT i, i, i, DATE '2020-01-01' + i FROM generate_series(1, 12) i;"
        "CREATE TABLE booking (booking_id int PRIMARY KEY, member_id int REFERENCES member, starts text);"
        "INSERT INTO booking SELECT i, i, '2024-03-' || lpad((1 + i % 28)::text, 2, '0') || ' 10:00'"
        " FROM generate_series(1, 30) i;"
        "CREATE TABLE garden_plot (plot_id int PRIMARY KEY, gname text UNIQUE, gtype text, price int);"
        "CREATE TABLE visit (visit_id int PRIMARY KEY, gname text REFERENCES garden_plot (gname));"
        "INSERT INTO garden_plot SELECT i, 'Plot ' || i, 'T' || i % 3, i FROM generate_series(1, 9) i;"
        "INSERT INTO visit SELECT i, 'Plot ' || (1 + i % 9) FROM generate_series(1, 20) i;"
        "ANALYZE"
    )
    with pg_loaded(_pg15_admin, "ctx_wording", sql) as dsn:
        with connect(dsn) as conn:
            snap = build(conn, profile=True)
        yield Describer(Model(snap))


@pytest.mark.postgres
def test_a_list_over_a_join_names_the_listed_table_first(clubs):
    sql = (
        "SELECT T2.first_name FROM club AS T1 JOIN member AS T2 ON T1.club_id = T2.club_id "
        "WHERE T1.club_name = 'Club 3'"
    )
    assert clubs.question(sql) == "What are the first names of members in the club with name 'Club 3'?"


@pytest.mark.postgres
def test_years_are_compared_with_after_and_before(clubs):
    assert clubs.question("SELECT club_name FROM club WHERE founded_year > 1960") == (
        "What are the names of clubs with founded year after 1960?"
    )
    assert "season before 2005" in clubs.question("SELECT club_name FROM club WHERE season < 2005")
    assert "founded year in or after 1960" in clubs.question(
        "SELECT club_name FROM club WHERE founded_year >= 1960"
    )
    # the value written first: 1960 < founded_year is after 1960
    assert "after 1960" in clubs("SELECT club_name FROM club WHERE 1960 < founded_year")


@pytest.mark.postgres
def test_ages_are_said_older_younger_and_the_oldest(clubs):
    sql = "SELECT first_name FROM member ORDER BY age DESC LIMIT 1"
    assert clubs.question(sql) == "What is the first name of the oldest member?"
    sql = "SELECT first_name FROM member ORDER BY age LIMIT 3"
    assert clubs.question(sql) == "What are the first names of the 3 youngest members?"
    assert (
        clubs.question("SELECT COUNT(*) FROM member WHERE age > 40") == "How many members are older than 40?"
    )
    # the phrase keeps the column's words: the template has both wordings
    assert clubs("SELECT COUNT(*) FROM member WHERE age > 40") == "Count of members with age above 40"


@pytest.mark.postgres
def test_first_and_last_name_are_a_full_name_in_the_phrase(clubs):
    question, phrase = clubs.wordings("SELECT first_name, last_name, age FROM member")
    assert "first name" in question and "last name" in question
    assert phrase == "List the full names and ages of members"
    assert full_names("Member ID, first name, last name, email and age") == (
        "Member ID, full name, email and age"
    )


@pytest.mark.postgres
def test_a_joined_table_said_by_the_order_or_the_count_needs_no_with(clubs):
    sql = (
        "SELECT T1.first_name FROM member AS T1 JOIN rating AS T2 ON T1.member_id = T2.member_id "
        "ORDER BY T2.stars DESC LIMIT 1"
    )
    assert "with a rating" not in clubs.question(sql)
    sql = (
        "SELECT T1.first_name FROM member AS T1 JOIN rating AS T2 ON T1.member_id = T2.member_id "
        "GROUP BY T1.member_id HAVING COUNT(*) >= 2"
    )
    assert "with a rating" not in clubs.question(sql)


@pytest.mark.postgres
def test_a_bare_count_counts_the_table_itself(clubs):
    # venue references a club and a member, but counting its rows counts venues
    assert clubs.question("SELECT COUNT(*) FROM venue") == "How many venues are there?"


@pytest.mark.postgres
def test_a_one_letter_prefix_for_the_table_is_not_said(clubs):
    # gname / gtype of garden plots: "name" / "type"; price is a word of its own and stays
    assert clubs.question("SELECT gname, price FROM garden_plot WHERE gtype = 'T1'") == (
        "What are the names and prices of garden plots with type 'T1'?"
    )
    # the prefix of the table a reference points to: the garden plot's name
    assert clubs.question("SELECT DISTINCT gname FROM visit") == ("What are the garden plot names of visits?")


@pytest.mark.postgres
def test_the_column_ordered_by_is_said_when_it_is_returned(clubs):
    # "the first name and age of the oldest member" is not "the first name of the oldest member"
    sql = "SELECT first_name, age FROM member ORDER BY age DESC LIMIT 1"
    assert clubs.question(sql) == "What is the first name and age of the oldest member?"
    question, phrase = clubs.wordings("SELECT DISTINCT age FROM member")
    assert question == "What are the ages of members?"
    assert phrase == "List the distinct ages of members"  # a list with duplicates is another template


def test_a_list_phrase_is_asked_as_a_list_and_measures_stay():
    assert listing("Name and age of members") == "List the name and age of members"
    assert listing("ID of members") == "List the ID of members"
    assert listing("Count of members") == "Count of members"
    assert listing("Total price of garden plots") == "Total price of garden plots"


@pytest.mark.postgres
def test_a_sum_of_things_counted_is_a_total_number_in_the_question(clubs):
    question, phrase = clubs.wordings("SELECT SUM(hours_spent) FROM rating")
    assert question == "What is the total number of hours spent of ratings?"
    assert phrase == "Total hours spent of ratings"
    # a sum of an amount stays a total
    assert clubs.question("SELECT SUM(price) FROM garden_plot") == "What is the total price of garden plots?"


@pytest.mark.postgres
def test_a_text_column_of_dates_is_ordered_and_compared_as_time(clubs):
    assert clubs.question("SELECT booking_id FROM booking ORDER BY starts DESC LIMIT 1") == (
        "What is the booking ID of the booking with the latest starts?"
    )
    assert "starts after '2024-03-05'" in clubs("SELECT booking_id FROM booking WHERE starts > '2024-03-05'")
    assert "Latest starts" in clubs("SELECT MAX(starts) FROM booking")


@pytest.mark.postgres
def test_the_phrase_of_counts_per_group_names_the_groups_and_their_number(clubs):
    question, phrase = clubs.wordings("SELECT club_id, COUNT(*) FROM member GROUP BY club_id")
    assert question.startswith("How many members are there for each")
    assert phrase.startswith("List the ") and phrase.endswith(" and number of members")
    # a HAVING stays with its groups
    _, phrase = clubs.wordings("SELECT club_id, COUNT(*) FROM member GROUP BY club_id HAVING COUNT(*) > 2")
    assert " and number of members" not in phrase


@pytest.mark.postgres
def test_a_sum_of_a_counted_column_is_a_plain_total_in_the_phrase(clubs):
    # "stars" counts things: the question asks for the total number, the phrase says "total stars"
    question, phrase = clubs.wordings("SELECT SUM(stars) FROM rating")
    assert question == "What is the total number of stars of ratings?"
    assert phrase == "Total stars of ratings"


@pytest.mark.postgres
def test_a_listed_column_that_counts_things_is_a_number_in_the_phrase(clubs):
    # "stars" counts things: the phrase lists "the number of stars" (as a count is asked for), the
    # question keeps the column's own word
    question, phrase = clubs.wordings("SELECT member_id, stars FROM rating")
    assert phrase == "List the member IDs and number of stars of ratings"
    assert "number" not in question
