"""The workload describer's questions: a query read as a person asks it (how many, what are, which
... has the most, the different ..., both ... and ..., that have no ...), on the financial sample
(real PostgreSQL)."""

from __future__ import annotations

import pytest

from ctxtool.connectors import connect
from ctxtool.draft.describe import Describer
from ctxtool.draft.model import Model
from ctxtool.snapshot import build

FINANCIAL = ["district", "account", "client", "disp", "loan", "card", "trans"]


@pytest.fixture(scope="module")
def describer(pg_samples_dsn):
    with connect(pg_samples_dsn) as conn:
        snap = build(conn, profile=True)
    return Describer(Model(snap, tables=FINANCIAL))


@pytest.mark.postgres
def test_counts_are_asked_how_many(describer):
    q = describer.question
    assert q("SELECT COUNT(*) FROM loan") == "How many loans are there?"
    assert (
        q("SELECT status, COUNT(*) FROM loan GROUP BY status") == "How many loans are there for each status?"
    )
    assert q("SELECT COUNT(*) FROM loan WHERE status = 'A'") == "How many loans have status 'A'?"
    # COUNT(DISTINCT x) counts different values, and says whose
    assert q("SELECT COUNT(DISTINCT frequency) FROM account") == (
        "How many different statement frequencies of accounts are there?"
    )


@pytest.mark.postgres
def test_a_count_over_a_join_counts_the_rows_of_the_table_joined_to_its_parents(describer):
    """``COUNT(*) FROM district JOIN account`` counts accounts, however the FROM is written; a
    condition that names one parent row reads "in the district ...", one shared by many "for ..."."""
    sql = (
        "SELECT COUNT(*) FROM district AS d JOIN account AS a ON a.district_id = d.district_id "
        "WHERE d.\"A2\" = 'Kolin'"
    )
    assert describer.question(sql) == "How many accounts are in the district with district name 'Kolin'?"
    assert (
        describer(sql) == "Count of accounts in the district 'Kolin'"
    )  # the phrase names the row by its name alone
    sql = (
        "SELECT AVG(l.amount) FROM account AS a JOIN loan AS l ON l.account_id = a.account_id "
        "WHERE a.frequency = 'POPLATEK TYDNE'"
    )
    assert describer.question(sql) == (
        "What is the average amount of loans for accounts with statement frequency 'POPLATEK TYDNE'?"
    )


@pytest.mark.postgres
def test_lists_name_their_columns_for_many_rows(describer):
    q = describer.question
    assert q("SELECT DISTINCT frequency FROM account") == "What are the statement frequencies of accounts?"
    assert q("SELECT amount, duration FROM loan") == "What is the amount and duration of each loan?"
    assert q("SELECT * FROM loan WHERE status = 'A'") == "What are all the details of loans with status 'A'?"
    assert q("SELECT MIN(amount), AVG(amount), MAX(amount) FROM loan") == (
        "What are the minimum, average and maximum amount of loans?"
    )


@pytest.mark.postgres
def test_the_one_with_the_most_and_groups_with_at_least(describer):
    q = describer.question
    sql = (
        'SELECT d."A2" FROM account AS a JOIN district AS d ON a.district_id = d.district_id '
        'GROUP BY d."A2" ORDER BY COUNT(*) DESC LIMIT 1'
    )
    assert q(sql) == "Which district has the most accounts?"
    assert describer(sql) == "The district with the most accounts"
    assert q("SELECT amount FROM loan ORDER BY duration DESC LIMIT 1") == (
        "What is the amount of the loan with the highest duration?"
    )
    assert q("SELECT frequency FROM account GROUP BY frequency HAVING COUNT(*) >= 10") == (
        "Which statement frequencies have at least 10 accounts?"
    )


@pytest.mark.postgres
def test_set_operations_and_rows_without_a_related_row(describer):
    q = describer.question
    assert q(
        "SELECT frequency FROM account WHERE district_id = 1 INTERSECT "
        "SELECT frequency FROM account WHERE district_id = 2"
    ) == ("What are the statement frequencies of accounts with branch location both 1 and 2?")
    # the same columns less those of rows joined to a child: "that have no loan ..."
    sql = (
        "SELECT account_id FROM account EXCEPT SELECT a.account_id FROM account AS a "
        "JOIN loan AS l ON l.account_id = a.account_id WHERE l.status = 'A'"
    )
    assert describer(sql) == "Account IDs of accounts with no loan with status 'A'"
    assert "combined" not in q(sql) and "SELECT" not in q(sql)


@pytest.mark.postgres
def test_two_wordings_of_one_query(describer):
    question, phrase = describer.wordings("SELECT COUNT(*) FROM client WHERE gender = 'F'")
    assert question == "How many clients have gender 'F'?"
    assert phrase == "Count of clients with gender 'F'"


@pytest.fixture(scope="module")
def keyless(_pg15_admin):
    """Tables with no declared keys at all, joined through a link table with a column of its own
    (the shape of many small databases): the query's own joins say who references whom."""
    from tests.backends import pg_loaded

    sql = (
        "CREATE TABLE shelf (shelfid int, shelf_name text, capacity int);"
        "CREATE TABLE book (bookid int, title text, pages int);"
        "CREATE TABLE placed (bookid int, shelfid int, slot int);"
        "CREATE TABLE lending (lendingid int, bookid int, shelfid int, reader text, due date);"
        "INSERT INTO shelf SELECT i, 'Shelf ' || i, 10 * i FROM generate_series(1, 8) i;"
        "INSERT INTO book SELECT i, 'Title ' || i, 100 + i FROM generate_series(1, 40) i;"
        "INSERT INTO placed SELECT i, 1 + i % 8, i % 5 FROM generate_series(1, 40) i;"
        "INSERT INTO lending SELECT i, i, 1 + i % 8, 'R' || i % 7, DATE '2024-01-01' + i "
        "FROM generate_series(1, 30) i;"
        "ANALYZE"
    )
    with pg_loaded(_pg15_admin, "ctx_keyless", sql) as dsn:
        with connect(dsn) as conn:
            snap = build(conn, profile=True)
        yield Describer(Model(snap))


@pytest.mark.postgres
def test_joins_written_in_the_query_name_the_relationship(keyless):
    # the link table is not said ("with a placed"): the books are those of the shelf
    sql = (
        "SELECT T1.title FROM book AS T1 JOIN placed AS T2 ON T1.bookid = T2.bookid "
        "JOIN shelf AS T3 ON T2.shelfid = T3.shelfid WHERE T3.shelf_name = 'Shelf 2'"
    )
    assert keyless.question(sql) == "What are the titles of books of the shelf with name 'Shelf 2'?"
    # COUNT(*) over the link counts the FROM table's rows
    sql = (
        "SELECT COUNT(*) FROM book AS T1 JOIN placed AS T2 ON T1.bookid = T2.bookid "
        "JOIN shelf AS T3 ON T2.shelfid = T3.shelfid WHERE T3.capacity > 30"
    )
    assert keyless.question(sql) == "How many books for shelves with capacity above 30?"
    # a joined table whose columns are asked for needs no "with a ..."
    sql = "SELECT T2.slot, T1.title FROM book AS T1 JOIN placed AS T2 ON T1.bookid = T2.bookid"
    assert "with a" not in keyless.question(sql)


@pytest.mark.postgres
def test_the_question_says_not_and_the_order_as_people_do(describer):
    question, phrase = describer.wordings("SELECT amount FROM loan WHERE status <> 'A' ORDER BY amount")
    assert question == "What are the amounts of loans whose status is not 'A', in ascending order of amount?"
    assert phrase == "List the amounts of loans with status other than 'A', ordered by amount"


@pytest.mark.postgres
def test_a_column_that_counts_things_is_a_number_of(keyless):
    # "pages" is a plural noun: the column counts pages; people ask for "the average number of pages"
    assert keyless.question("SELECT AVG(pages) FROM book") == "What is the average number of pages of books?"
    assert keyless("SELECT MAX(pages) FROM book") == "Maximum number of pages of books"
    assert keyless.question("SELECT AVG(capacity) FROM shelf") == "What is the average capacity of shelves?"


@pytest.mark.postgres
def test_dates_are_earliest_and_latest(describer):
    assert describer.question("SELECT gender FROM client ORDER BY birth_date LIMIT 1") == (
        "What is the gender of the client with the earliest birth date?"
    )
    assert describer("SELECT gender FROM client ORDER BY birth_date DESC") == (
        "Genders of clients, in descending order of birth date"
    )


@pytest.mark.postgres
def test_counting_the_different_references_counts_the_referenced_rows(describer, keyless):
    # a declared foreign key (loan.account_id -> account)
    assert (
        describer.question("SELECT COUNT(DISTINCT account_id) FROM loan") == "How many accounts have a loan?"
    )
    # no keys declared: the column is named as the key of another table (placed.shelfid -> shelf)
    assert keyless("SELECT COUNT(DISTINCT shelfid) FROM placed") == "Number of shelves with a book"


@pytest.mark.postgres
def test_a_link_table_is_said_by_what_it_links(keyless):
    # counting the rows of a link table counts the things at its other end
    assert (
        keyless.question("SELECT COUNT(*) FROM placed WHERE shelfid = 3") == "How many books have shelf ID 3?"
    )
    # excluding the ids found in a link table: the ones with none of its other end
    assert (
        keyless("SELECT bookid FROM book EXCEPT SELECT bookid FROM placed")
        == "Book IDs of books with no shelf"
    )
    # (a AND b) OR c is said, not pasted as SQL
    words = keyless("SELECT title FROM book WHERE (pages > 110 AND bookid < 20) OR pages < 105")
    assert "matching" not in words and words.startswith(
        "Names of books with pages above 110 and"
    )  # a title names its row


@pytest.mark.postgres
def test_a_table_with_two_references_and_columns_of_its_own_is_no_link(keyless):
    # lendings reference books and shelves but hold facts of their own: counting them counts lendings
    assert keyless.question("SELECT COUNT(*) FROM lending") == "How many lendings are there?"
    assert keyless.question("SELECT reader, COUNT(*) FROM lending GROUP BY reader") == (
        "How many lendings are there for each reader?"
    )


@pytest.mark.postgres
def test_a_group_compared_with_an_aggregate_of_all_rows(describer):
    sql = "SELECT status FROM loan GROUP BY status HAVING AVG(amount) > (SELECT AVG(amount) FROM loan)"
    for words in describer.wordings(sql):
        assert "SELECT" not in words and "above the average amount of loans" in words


@pytest.mark.postgres
def test_inclusive_bounds_are_said_after_the_value_in_the_question(describer):
    question, phrase = describer.wordings("SELECT COUNT(*) FROM loan WHERE duration >= 24")
    assert question == "How many loans have duration 24 or more?"
    assert phrase == "Count of loans with duration of at least 24"
    assert describer.question("SELECT COUNT(*) FROM loan WHERE amount <= 1000") == (
        "How many loans have amount 1000 or less?"
    )


@pytest.mark.postgres
def test_counts_per_row_of_a_parent(keyless):
    # GROUP BY the parent's key: one count per shelf, of the books the link table places on it
    sql = (
        "SELECT COUNT(*), T1.shelfid FROM shelf AS T1 JOIN placed AS T2 ON T1.shelfid = T2.shelfid "
        "WHERE T1.capacity > 20 GROUP BY T1.shelfid"
    )
    assert keyless.question(sql) == "How many books with capacity above 20 are there for each shelf?"
