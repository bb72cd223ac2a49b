"""Roles of columns and names of tables read off the snapshot alone (issue 14): the rows of a table
the statistics never counted, keys written run together, quantities, a table named as a dimension
of its own rows. Snapshots of our own, with the shapes real databases have."""

from __future__ import annotations

import re

from ctxtool.draft.model import Model
from ctxtool.draft.questions import draft_questions
from ctxtool.draft.templates import categories, draft_templates, keyed_by


def _snap(*tables: dict) -> dict:
    return {
        "snapshot_version": 1,
        "engine": "postgres",
        "schemas": [{"name": "public", "tables": list(tables)}],
    }


def _col(name: str, type_: str, distinct: int, common: list[tuple[object, float]] = (), nulls: float = 0.0):
    profile = {
        "distinct": distinct,
        "null_fraction": nulls,
        "most_common": [{"value": v, "frequency": f} for v, f in common],
    }
    return {"name": name, "type": type_, "profile": profile}


def _table(name: str, key: str, rows: int, *cols: dict) -> dict:
    return {"name": name, "primary_key": [key], "row_estimate": rows, "columns": list(cols)}


# a hall of 7 rows, never analyzed, without a primary key: every name once, the wing of 3 values
HALLS = {
    "name": "hall",
    "primary_key": [],
    "row_estimate": None,
    "columns": [
        _col("hallid", "bigint", 7, [(100 + i, 0.1429) for i in range(7)]),
        _col("hall_name", "text", 7, [(f"Hall {i}", 0.1429) for i in range(7)]),
        _col("capacity", "bigint", 7, [(40 + 10 * i, 0.1429) for i in range(7)]),
        _col("wing", "text", 3, [("X", 0.7143), ("F", 0.1429), ("M", 0.1429)]),
    ],
}
HALL_FEATURES = {  # which hall has which feature: 20 rows, references written run together
    "name": "hall_feature",
    "primary_key": [],
    "row_estimate": None,
    "columns": [
        _col("hallid", "bigint", 7, [(100 + i, 0.15 if i < 6 else 0.1) for i in range(7)]),
        _col("featid", "bigint", 5, [(900 + i, 0.2) for i in range(5)]),
    ],
}


def test_the_rows_of_a_table_never_counted_come_from_its_profiles():
    model = Model(_snap(HALLS, HALL_FEATURES))
    hall, feature = model.table("hall"), model.table("hall_feature")
    assert hall.rows == 7 and feature.rows == 20
    names = {c.name: c for c in hall.columns}
    assert not names["hall_name"].is_categorical  # seven names of seven halls: no dimension
    assert names["wing"].is_categorical
    assert [c.name for c in categories(hall, model)] == ["wing"]
    texts = [d.text for d in draft_templates(model)]
    assert not [t for t in texts if "for each name" in t or "for each hall name" in t]
    assert "What are the names of all halls?" in texts  # a name of its own again
    sql = {d.text: d.item["sql"] for d in draft_questions(model)}
    assert "DISTINCT" not in sql["What are the names of all halls?"]


def test_a_key_written_run_together_with_a_table_name_is_a_key():
    model = Model(_snap(HALLS, HALL_FEATURES))
    hall_id = model.table("hall_feature").column("hallid")
    assert hall_id.id_like and not hall_id.is_measure and not hall_id.is_categorical
    assert model.table("hall").column("hallid").id_like
    texts = [d.text for d in draft_templates(model)]
    assert not [t for t in texts if "mid" in t.split() or "hallid" in t]


def test_a_quantity_is_never_a_dimension():
    lines = _table(
        "order_line",
        "line_id",
        50,
        _col("line_id", "int", 50),
        _col("product_quantity", "text", 9, [(str(i), 0.12) for i in range(1, 9)]),
        _col("units_on_order", "smallint", 5, [(0, 0.6), (10, 0.1), (20, 0.1)]),
        _col("status", "text", 3, [("open", 0.5), ("done", 0.3), ("void", 0.2)]),
    )
    model = Model(_snap(lines))
    assert [c.name for c in categories(model.table("order_line"), model)] == ["status"]
    texts = [d.text for d in draft_templates(model)]
    assert not [t for t in texts if "for each product quantity" in t or "for each units" in t]
    assert not [t for t in texts if re.search(r"(Which|most common) (product quantit|units)", t)]


def test_a_table_named_as_a_dimension_of_its_rows_counts_what_its_key_names():
    """``widget_kind`` keyed by ``widget`` with a column ``widget_kind``: its rows are widgets."""
    kind = _col("widgetkind", "text", 3, [("small", 0.5), ("large", 0.3), ("odd", 0.2)])
    kinds = _table("widget_kind", "widget", 14, _col("widget", "text", 14), kind)
    model = Model(_snap(kinds))
    table = model.table("widget_kind")
    assert (table.names.singular, table.names.plural) == ("widget", "widgets")
    texts = [d.text for d in draft_templates(model)]
    assert "How many widgets are there for each widget kind?" in texts
    assert "Which widget kind has the most widgets?" in texts
    assert not [t for t in texts if "widget kinds are there" in t or "most widget kinds" in t]


def test_a_table_named_after_the_two_tables_it_joins_is_named_by_its_own_noun():
    from ctxtool.draft.names import Namer

    placement = {
        "name": "widget_bin_placement",
        "foreign_keys": [
            {"columns": ["widget_id"], "ref_table": "widgets", "ref_columns": ["widget_id"]},
            {"columns": ["bin_id"], "ref_table": "bins", "ref_columns": ["bin_id"]},
        ],
    }
    assert Namer().table(placement).plural == "placements"
    one_parent = {"name": "widget_parts", "foreign_keys": [placement["foreign_keys"][0]]}
    assert Namer().table(one_parent).plural == "widget parts"  # one parent's name stays


def test_two_names_take_are_and_a_size_is_largest():
    from ctxtool.draft.phrasing import extremes, verb

    assert verb("first name and last name") == "are" and verb("unit price") == "is"
    assert extremes("size in bytes")[0][0] == "largest" and extremes("price")[0][0] == "highest"


def test_a_reference_named_by_a_role_is_no_breakdown_key():
    """``contact_person_id`` says who the person is to the row: "for each contact person" asks for
    the person by name, not for the number; ``site_id`` is the key as the sites' listing shows it."""
    people = _table("person", "person_id", 10, _col("person_id", "int", 10), _col("name", "text", 10))
    sites = _table("site", "site_id", 8, _col("site_id", "int", 8), _col("name", "text", 8))
    visits = _table(
        "visit",
        "visit_id",
        40,
        _col("visit_id", "int", 40),
        _col("site_id", "int", 6),
        _col("contact_person_id", "int", 7),
        _col("minutes", "int", 30),
    )
    visits["foreign_keys"] = [
        {"columns": ["site_id"], "ref_table": "site", "ref_columns": ["site_id"]},
        {"columns": ["contact_person_id"], "ref_table": "person", "ref_columns": ["person_id"]},
    ]
    model = Model(_snap(people, sites, visits))
    assert [c.name for c in keyed_by(model.table("visit"), model)] == ["site_id"]


def test_the_most_common_parent_of_a_table_of_facts():
    """``has_skill`` (a worker has a skill; the worker side undeclared): the skill its rows name most."""
    skills = _table(
        "skill", "skill", 6, _col("skill", "text", 6), _col("skill_kind", "text", 2, [("a", 0.5), ("b", 0.5)])
    )
    has = {
        "name": "has_skill",
        "primary_key": [],
        "row_estimate": 30,
        "columns": [_col("worker", "int", 12), _col("skill", "text", 6)],
    }
    has["foreign_keys"] = [{"columns": ["skill"], "ref_table": "skill", "ref_columns": ["skill"]}]
    sql = {d.text: d.item["sql"] for d in draft_questions(Model(_snap(skills, has)))}
    assert sql["What is the most common skill?"] == (
        "SELECT skill.skill FROM has_skill JOIN skill ON has_skill.skill = skill.skill GROUP BY skill.skill "
        "ORDER BY COUNT(*) DESC LIMIT 1"
    )


def test_owners_are_counted_each_once_per_kind_of_their_things():
    """``owner_cards`` holds ``owner_id``, the key of ``owners`` (no reference declared): "How many
    different owners have owner cards for each kind?" counts owners, not cards."""
    owners = _table("owners", "owner_id", 10, _col("owner_id", "int", 10), _col("name", "text", 10))
    kind = _col("card_kind", "text", 2, [("credit", 0.6), ("debit", 0.4)])
    cards = _table("owner_cards", "card_id", 30, _col("card_id", "int", 30), _col("owner_id", "int", 9), kind)
    sql = {d.text: d.item["sql"] for d in draft_templates(Model(_snap(owners, cards)))}
    assert sql["How many different owners have owner cards for each card kind?"] == (
        "SELECT owner_cards.card_kind, COUNT(DISTINCT owner_cards.owner_id) AS owners_count FROM owner_cards "
        "GROUP BY owner_cards.card_kind ORDER BY owners_count DESC"
    )
