"""``draft templates|facets --exclude T,T.COL --no-views`` (issue 27): what a team leaves out of
its set is never drafted; the rest is drafted as before."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli
from tests.backends import pg_loaded
from tests.realdb_shapes import EDGE_PG_SQL

VIEW_SQL = (
    "CREATE VIEW shop.payment_cities AS SELECT p.amount, s.city AS store_city "
    "FROM shop.payment p JOIN shop.store s USING (store_id);"
)


@pytest.fixture(scope="module")
def scope_snapshot(_pg15_admin, tmp_path_factory):
    with pg_loaded(_pg15_admin, "ctx_scope", EDGE_PG_SQL + VIEW_SQL) as dsn:
        path = tmp_path_factory.mktemp("scope") / "snap.json"
        r = CliRunner().invoke(cli, ["introspect", "--dsn", dsn, "--profile", "-o", str(path)])
        assert r.exit_code == 0, r.output
        yield str(path)


def _draft(snapshot: str, tmp_path, kind: str, *extra: str) -> str:
    out = tmp_path / f"{kind}.json"
    r = CliRunner().invoke(cli, ["draft", kind, "--snapshot", snapshot, "-o", str(out), *extra])
    assert r.exit_code == 0, r.output
    return json.dumps(
        [t["sql"] if "sql" in t else t["sql_snippet"] for t in json.loads(out.read_text())[kind]]
    )


@pytest.mark.postgres
def test_exclude_and_no_views(scope_snapshot, tmp_path):
    everything = _draft(scope_snapshot, tmp_path, "templates")
    assert "payment_cities" in everything and "customer" in everything and "username" in everything
    scoped = _draft(
        scope_snapshot, tmp_path, "templates", "--exclude", "customer,shop.staff.username", "--no-views"
    )
    assert "payment_cities" not in scoped and "username" not in scoped
    assert "FROM shop.customer" not in scoped and "JOIN shop.customer" not in scoped
    assert "staff.full_name" in scoped and "store.city" in scoped  # control: the rest stays
    assert "payment.amount" in _draft(scope_snapshot, tmp_path, "facets")
    facets = _draft(scope_snapshot, tmp_path, "facets", "--exclude", "payment.amount")
    assert "payment.amount" not in facets and "payment.paid_on" in facets
