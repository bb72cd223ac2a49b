"""``draft values --apply-ddl`` plans, then applies (issue 27): it says what each statement does,
checks every statement before running any, leaves nothing half-applied, asks before adding columns
to the user's tables unless ``--yes``, and takes the snapshot again afterwards."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli
from ctxtool.errors import DatabaseError
from ctxtool.values.ddl import apply_ddl, plan_ddl
from tests.backends import _mysql_connect, _mysql_create, _mysql_drop, pg_loaded, unique_name
from tests.realdb_shapes import EDGE_PG_SQL


def test_plan_says_what_changes_the_users_tables_and_how_to_undo():
    plan = plan_ddl(
        [
            "ALTER TABLE `shop`.`city` ADD FULLTEXT INDEX `ctx_ft_city_name` (`name`)",
            "ALTER TABLE `shop`.`city` ADD COLUMN `name_soundex` VARCHAR(255) AS (SOUNDEX(`name`)) PERSISTENT",
            "CREATE INDEX `ctx_sx_city_name` ON `shop`.`city` (`name_soundex`)",
        ],
        "mysql",
    )
    assert [p.kind for p in plan] == ["index", "column", "index"]
    assert [p.changes_table for p in plan] == [False, True, False]
    assert plan[1].undo == "ALTER TABLE `shop`.`city` DROP COLUMN `name_soundex`"
    assert plan[2].undo == "DROP INDEX `ctx_sx_city_name` ON `shop`.`city`"
    pg = plan_ddl(
        [
            "CREATE EXTENSION IF NOT EXISTS pg_trgm",
            'CREATE INDEX IF NOT EXISTS ctx_t ON "shop"."store" (city)',
        ],
        "postgres",
    )
    assert [p.undo for p in pg] == ["DROP EXTENSION IF EXISTS pg_trgm", 'DROP INDEX IF EXISTS "shop".ctx_t']


@pytest.mark.postgres
def test_postgres_failure_leaves_nothing_applied(_pg15_admin):
    import psycopg

    with pg_loaded(_pg15_admin, "ctx_appl", EDGE_PG_SQL) as dsn:
        with pytest.raises(DatabaseError, match=r"nothing was applied \(rolled back\)"):
            apply_ddl(
                dsn,
                [
                    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
                    "CREATE INDEX ctx_first ON shop.store (city)",
                    "CREATE INDEX ctx_bad ON shop.no_such_table (x)",
                ],
            )
        with psycopg.connect(dsn) as conn:
            assert conn.execute(
                "SELECT count(*) FROM pg_indexes WHERE indexname = 'ctx_first'"
            ).fetchone() == (0,)
            assert conn.execute("SELECT count(*) FROM pg_extension WHERE extname = 'pg_trgm'").fetchone() == (
                0,
            )
        # control: the same statements without the bad one are applied
        done = apply_ddl(
            dsn, ["CREATE EXTENSION IF NOT EXISTS pg_trgm", "CREATE INDEX ctx_first ON shop.store (city)"]
        )
        assert [a.status for a in done] == ["applied", "applied"]
        with psycopg.connect(dsn) as conn:
            assert conn.execute(
                "SELECT count(*) FROM pg_indexes WHERE indexname = 'ctx_first'"
            ).fetchone() == (1,)


@pytest.fixture
def maria(_mariadb_available):
    name = unique_name("ctx_apl")
    dsn = _mysql_create(name)
    conn = _mysql_connect(name)
    cur = conn.cursor()
    cur.execute(
        "CREATE TABLE city (city_id INT PRIMARY KEY, name VARCHAR(50) NOT NULL, country VARCHAR(50) NOT NULL)"
    )
    cities = ["Lethbridge", "Woodridge", "Pisek", "Kolin", "Brno", "Ostrava", "Plzen", "Liberec"]
    cur.executemany(
        "INSERT INTO city VALUES (%s, %s, %s)",
        [(i, f"{cities[i % 8]} {i}", ["Canada", "Australia", "Czechia"][i % 3]) for i in range(1, 241)],
    )
    conn.commit()
    try:
        yield dsn, conn
    finally:
        conn.close()
        _mysql_drop(name)


def _schema(conn) -> tuple[list[str], list[str]]:
    cur = conn.cursor()
    cur.execute("SHOW COLUMNS FROM city")
    columns = [r[0] for r in cur.fetchall()]
    cur.execute("SHOW INDEX FROM city")
    indexes = sorted({r[2] for r in cur.fetchall()})
    conn.commit()
    return columns, indexes


@pytest.mark.mariadb
def test_mariadb_checks_every_statement_before_running_any(maria):
    dsn, conn = maria
    before = _schema(conn)
    with pytest.raises(DatabaseError, match="none was applied") as info:
        apply_ddl(
            dsn,
            [
                "CREATE INDEX `ctx_eq_city_name` ON `city` (`name`)",
                "ALTER TABLE `city` ADD FULLTEXT INDEX `ctx_ft_city_name` (`name`)",
                "ALTER TABLE `city` ADD COLUMN `name_bad` VARCHAR(255) AS (NO_SUCH_FUNCTION(`name`)) PERSISTENT",
            ],
        )
    assert "NO_SUCH_FUNCTION" in str(info.value) or "name_bad" in str(info.value)
    assert _schema(conn) == before  # nothing applied, no copy left behind
    # control: the statements that pass their check are applied
    done = apply_ddl(
        dsn,
        [
            "CREATE INDEX `ctx_eq_city_name` ON `city` (`name`)",
            "ALTER TABLE `city` ADD FULLTEXT INDEX `ctx_ft_city_name` (`name`)",
        ],
    )
    assert [a.status for a in done] == ["applied", "applied"]
    assert "ctx_ft_city_name" in _schema(conn)[1]


@pytest.mark.mariadb
def test_mariadb_asks_before_adding_columns_then_refreshes_the_snapshot(maria, tmp_path):
    dsn, conn = maria
    before = _schema(conn)
    out = tmp_path / "values.json"
    refused = CliRunner().invoke(cli, ["draft", "values", "--dsn", dsn, "-o", str(out), "--apply-ddl"])
    assert refused.exit_code == 2, refused.output
    assert "CHANGES YOUR TABLE" in refused.output and "--yes" in refused.output
    assert _schema(conn) == before and not out.exists()  # nothing applied, nothing written
    snap = tmp_path / "after.snapshot.json"
    r = CliRunner().invoke(
        cli,
        [
            "draft",
            "values",
            "--dsn",
            dsn,
            "-o",
            str(out),
            "--apply-ddl",
            "--yes",
            "--write-snapshot",
            str(snap),
        ],
    )
    assert r.exit_code == 0, r.output
    assert "will run (CHANGES YOUR TABLE: adds column" in r.output
    assert "snapshot refreshed" in r.output
    columns, _ = _schema(conn)
    added = [c for c in columns if c not in before[0]]
    assert added and all(c.endswith("_soundex") for c in added)
    names = {
        c["name"] for s in json.loads(snap.read_text())["schemas"] for t in s["tables"] for c in t["columns"]
    }
    assert set(added) <= names
    check = CliRunner().invoke(cli, ["validate", "--snapshot", str(snap), str(out)])
    assert check.exit_code == 0, check.output
