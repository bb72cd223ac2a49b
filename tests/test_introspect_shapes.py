"""Shapes of databases designed elsewhere (issue 27) that the snapshot must read as they are:
foreign keys declared on the partitions of a partitioned table (Pagila's ``payment``) and a
materialized view created ``WITH NO DATA``."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli
from tests.backends import pg_loaded

SHAPES_SQL = """
CREATE SCHEMA shop;
CREATE TABLE shop.customer (customer_id int PRIMARY KEY, full_name text NOT NULL);
CREATE TABLE shop.staff (staff_id int PRIMARY KEY, full_name text NOT NULL);
CREATE TABLE shop.store (store_id int PRIMARY KEY, city text NOT NULL);
CREATE TABLE shop.payment (
    payment_id int NOT NULL, customer_id int NOT NULL, staff_id int NOT NULL, store_id int NOT NULL,
    amount numeric(8, 2) NOT NULL, paid_on date NOT NULL) PARTITION BY RANGE (paid_on);
-- the partitions declare the keys, as Pagila does; store_id's key is on one partition only
CREATE TABLE shop.payment_2023 (
    payment_id int NOT NULL, customer_id int NOT NULL REFERENCES shop.customer,
    staff_id int NOT NULL REFERENCES shop.staff, store_id int NOT NULL REFERENCES shop.store,
    amount numeric(8, 2) NOT NULL, paid_on date NOT NULL);
ALTER TABLE shop.payment ATTACH PARTITION shop.payment_2023 FOR VALUES FROM ('2023-01-01') TO ('2024-01-01');
-- columns in another order: attnums differ from the parent's
CREATE TABLE shop.payment_2024 (
    paid_on date NOT NULL, amount numeric(8, 2) NOT NULL, store_id int NOT NULL,
    staff_id int NOT NULL REFERENCES shop.staff, customer_id int NOT NULL REFERENCES shop.customer,
    payment_id int NOT NULL);
ALTER TABLE shop.payment ATTACH PARTITION shop.payment_2024 FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
INSERT INTO shop.customer SELECT g, 'Customer ' || g FROM generate_series(1, 20) g;
INSERT INTO shop.staff VALUES (1, 'Mike Hillyer'), (2, 'Jon Stephens');
INSERT INTO shop.store VALUES (1, 'Lethbridge'), (2, 'Woodridge');
INSERT INTO shop.payment SELECT g, 1 + g % 20, 1 + g % 2, 1 + g % 2, g * 0.5,
    DATE '2023-06-01' + g * 2 FROM generate_series(1, 200) g;
CREATE MATERIALIZED VIEW shop.sales_by_store AS
    SELECT s.city, sum(p.amount) AS total FROM shop.payment p JOIN shop.store s USING (store_id)
    GROUP BY s.city WITH NO DATA;
ANALYZE;
"""


@pytest.fixture(scope="module")
def shapes_dsn(_pg15_admin):
    with pg_loaded(_pg15_admin, "ctx_ishp", SHAPES_SQL) as dsn:
        yield dsn


def _table(snap: dict, name: str) -> dict:
    return next(t for s in snap["schemas"] for t in s["tables"] if t["name"] == name)


@pytest.mark.postgres
def test_partitioned_table_inherits_the_keys_every_partition_declares(shapes_dsn, tmp_path):
    out = tmp_path / "snap.json"
    r = CliRunner().invoke(cli, ["introspect", "--dsn", shapes_dsn, "-o", str(out)])
    assert r.exit_code == 0, r.output
    snap = json.loads(out.read_text())
    payment = _table(snap, "payment")
    refs = sorted((fk["columns"], fk["ref_table"], fk["ref_columns"]) for fk in payment["foreign_keys"])
    # customer and staff keys are on both partitions; store's on one only, so not the parent's
    assert refs == [(["customer_id"], "customer", ["customer_id"]), (["staff_id"], "staff", ["staff_id"])]
    names = {t["name"] for s in snap["schemas"] for t in s["tables"]}
    assert "payment_2023" not in names and "payment_2024" not in names


@pytest.mark.postgres
def test_unpopulated_materialized_view_is_reported_and_skipped(shapes_dsn, tmp_path):
    out = tmp_path / "snap.json"
    r = CliRunner().invoke(cli, ["introspect", "--dsn", shapes_dsn, "--profile", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "shop.sales_by_store" in r.output and "WITH NO DATA" in r.output
    snap = json.loads(out.read_text())
    view = _table(snap, "sales_by_store")
    assert view["populated"] is False and all("profile" not in c for c in view["columns"])
    assert all("profile" in c for c in _table(snap, "payment")["columns"])  # the others are profiled
    assert "populated" not in _table(snap, "payment")
    for kind in ("templates", "facets", "values"):
        path = tmp_path / f"{kind}.json"
        r = CliRunner().invoke(cli, ["draft", kind, "--dsn", shapes_dsn, "-o", str(path)])
        assert r.exit_code == 0, (kind, r.output)
        assert "sales_by_store" in r.output and "WITH NO DATA" in r.output, kind
        assert "sales_by_store" not in path.read_text(), kind
        assert "store" in path.read_text(), kind  # the populated tables are drafted
    # a join through the keys payment's partitions declare
    assert "Which 10 staff have the most payments?" in (tmp_path / "templates.json").read_text()
