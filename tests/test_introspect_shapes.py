"""Shapes of databases designed elsewhere (issue 27) that the snapshot must read as they are:
foreign keys declared on the partitions of a partitioned table (Pagila's ``payment``) and a
materialized view created ``WITH NO DATA``."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli
from tests.backends import pg_loaded
from tests.realdb_shapes import EDGE_PG_SQL as SHAPES_SQL


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
