"""Two templates that are one query spelled twice are no rival readings (runtime/templates/equivalence.py)."""

from ctxtool.runtime.templates.compile import compile_item
from ctxtool.runtime.templates.equivalence import same_query as same_templates


def same_query(a: str, b: str) -> bool:
    """The templates of two SQL texts compiled as a set would be, compared."""
    return same_templates(
        *(compile_item("template", i, {"sql": s}, "postgres") for i, s in enumerate((a, b)))
    )


def test_qualifiers_and_aliases_do_not_make_another_query():
    a = "SELECT AVG(T2.price) FROM kind AS T1 JOIN item AS T2 ON T1.kid = T2.kid WHERE T1.name = $1"
    b = "SELECT AVG(price) FROM kind AS k JOIN item AS i ON k.kid = i.kid WHERE k.name = $1"
    assert same_query(a, b)


def test_inner_join_written_from_either_table_is_the_same():
    a = "SELECT count(*) FROM trip AS T1 JOIN port AS T2 ON T1.dst = T2.pid WHERE T2.land = $1"
    b = "SELECT count(*) FROM port AS T1 JOIN trip AS T2 ON T1.pid = T2.dst WHERE land = $1"
    assert same_query(a, b)


def test_what_changes_the_rows_keeps_them_apart():
    base = "SELECT T1.name FROM a AS T1 JOIN b AS T2 ON T1.id = T2.aid"
    assert not same_query(base, "SELECT T2.name FROM a AS T1 JOIN b AS T2 ON T1.id = T2.aid")
    assert not same_query(base, "SELECT DISTINCT T1.name FROM a AS T1 JOIN b AS T2 ON T1.id = T2.aid")
    assert not same_query(base, "SELECT T1.name FROM a AS T1 LEFT JOIN b AS T2 ON T1.id = T2.aid")
    assert not same_query(base, "SELECT T1.name FROM a AS T1 JOIN b AS T2 ON T1.id = T2.aid ORDER BY T1.name")


def test_an_unqualified_column_of_a_join_needs_the_other_query_to_place_it():
    # nothing says which table holds "name": strict, not the same
    assert not same_query(
        "SELECT name FROM a JOIN b ON a.id = b.aid", "SELECT a.x FROM a JOIN b ON a.id = b.aid"
    )
    assert same_query(
        "SELECT name FROM a JOIN b ON a.id = b.aid", "SELECT a.name FROM a JOIN b ON a.id = b.aid"
    )


def test_subqueries_and_self_joins_must_match_as_written():
    assert not same_query(
        "SELECT x FROM a WHERE y IN (SELECT y FROM b)", "SELECT a.x FROM a WHERE y IN (SELECT y FROM b)"
    )
    assert not same_query(
        "SELECT T1.x FROM a AS T1 JOIN a AS T2 ON T1.i = T2.j",
        "SELECT T2.x FROM a AS T1 JOIN a AS T2 ON T1.i = T2.j",
    )


def test_a_join_that_only_looks_a_key_up_is_the_same_query():
    # "tags" joined on its own key, named as the column it is joined with, and read nowhere else
    a = "SELECT count(*) FROM gadget AS t1 JOIN gadget_tag AS t2 ON t1.gadget_id = t2.gadget_id WHERE t1.name = $1"
    b = (
        "SELECT count(*) FROM gadget AS t1 JOIN gadget_tag AS t2 ON t1.gadget_id = t2.gadget_id "
        "JOIN tags AS t3 ON t2.tag_id = t3.tag_id WHERE t1.name = $1"
    )
    assert same_query(a, b)
    # read elsewhere, it is a condition; joined on another column, it may be another row
    assert not same_query(a, b.replace("WHERE t1.name", "WHERE t3.name"))
    assert not same_query(a, b.replace("t2.tag_id = t3.tag_id", "t2.other_id = t3.tag_id"))
    # the many side ("gadget_tag" on gadget_id) is no lookup: dropping it changes the count
    assert not same_query(a, "SELECT count(*) FROM gadget AS t1 WHERE t1.name = $1")
    # a column named without its table may be the joined table's
    assert not same_query(a, b.replace("WHERE t1.name", "WHERE name"))
