"""Every stage on databases shaped like real ones (issue 12): named schemas (two sharing a table
name), enum, domain, array, char(n), json, uuid, bytea, interval, money, generated columns,
partitions, a self-reference, a link table, audit columns and a view over a table; SET / ENUM /
tinyint(1) / PascalCase on MariaDB; a named schema with interleaved tables on Spanner.

Each engine's fixture is authored once (:func:`tests.realdb_shapes.author`: introspect --profile,
draft templates / facets / values, parameterize, validate with the snapshot and live, test-values,
execute) and the tests read what every stage made.
"""

from __future__ import annotations

import contextlib
import json
import re

import pytest
from click.testing import CliRunner

from tests import realdb_shapes as shapes
from tests.backends import _mysql_create, _mysql_drop, _pg_create, _pg_drop, unique_name


def _clean(authored: shapes.Authored) -> None:
    """What every engine must meet: nothing rejected, nothing failing, every search passing."""
    assert authored.rejected() == []
    assert authored.findings == []
    assert authored.failing == []
    assert shapes.value_failures(authored) == []
    assert [r.problems for r in authored.report if r.problems] == []
    assert authored.templates.kept and authored.facets.kept and authored.recipes


# ----------------------------------------------------------------------------------- PostgreSQL


@pytest.fixture(scope="module")
def pg_shapes_dsn(_pg15_admin):
    name = unique_name("ctx_shp")
    dsn = _pg_create(_pg15_admin, name)
    try:
        shapes.load_postgres(dsn)
        yield dsn
    finally:
        _pg_drop(_pg15_admin, name)


@contextlib.contextmanager
def _pg18_shapes(server_uri: str):
    from tests.backends import _pg18_db_uri

    name = unique_name("ctx_shp18")
    _pg_create(server_uri, name)
    try:
        dsn = _pg18_db_uri(server_uri, name)
        shapes.load_postgres(dsn)
        yield dsn
    finally:
        _pg_drop(server_uri, name)


@pytest.fixture(scope="module")
def pg18_shapes_dsn(pg18_server_uri):
    with _pg18_shapes(pg18_server_uri) as dsn:
        yield dsn


@pytest.fixture(scope="module")
def pg_authored(pg_shapes_dsn):
    return shapes.author(pg_shapes_dsn)


@pytest.fixture(scope="module")
def pg18_authored(pg18_shapes_dsn):
    return shapes.author(pg18_shapes_dsn)


@pytest.mark.parametrize("which", ["pg_authored", "pg18_authored"])
def test_postgres_every_stage_clean(which, request):
    _clean(request.getfixturevalue(which))


@pytest.mark.parametrize("which", ["pg_authored", "pg18_authored"])
def test_postgres_shapes(which, request):
    a = request.getfixturevalue(which)
    schemas = {s["name"]: {t["name"]: t for t in s["tables"]} for s in a.snapshot["schemas"]}
    # partitions are not tables of their own; the parent is
    assert "orders" in schemas["sales"] and not any(n.startswith("orders_") for n in schemas["sales"])
    hr_staff = {c["name"]: c for c in schemas["hr"]["staff"]["columns"]}
    assert hr_staff["hired_year"]["base_type"] == "integer"  # the domain's base type
    orders = {c["name"]: c for c in schemas["sales"]["orders"]["columns"]}
    assert orders["status"]["values"] == ["pending", "shipped", "delivered", "cancelled"]
    sql = a.sql()
    # both namesakes, each with its schema; the self-reference through an alias
    assert "hr.staff" in sql and "sales.staff" in sql
    assert re.search(r"JOIN hr\.staff AS \w+ ON", sql)
    questions = a.questions()
    assert "Which 10 bundles have the most products?" in questions  # the link table as a relationship
    assert not any("bundle product" in q.lower() for q in questions)
    assert not any("product list" in q.lower() for q in questions)  # the view restating product
    assert not [q for q in questions if re.search(r"last update|created at|product id|staff id", q, re.I)]
    # a year is described and looked up, never summed, averaged or ranked as an amount
    assert not [
        q for q in questions if re.search(r"(average|total|highest|lowest|maximum|minimum) hired year", q)
    ]
    assert "How many hr staff have department 'Finance'?" in questions  # char(n), trimmed
    facet_sql = [f.item["sql_snippet"] for f in a.facets.kept]
    assert "sales.staff.region = 'Central'" in facet_sql  # facets name the namesake's schema
    # a year held as a number (a domain over integer) is compared as a number, never as a date
    hired = [s for s in facet_sql if "hired_year" in s]
    assert hired and all(re.fullmatch(r"hr\.staff\.hired_year [<>] \d{4}", s) for s in hired), hired
    labels = {r.target.label: r for r in a.recipes}
    assert {
        "hr.staff.full_name",
        "sales.staff.full_name",
        "sales.orders.status",
        "hr.staff.department",
    } <= set(labels)
    assert not any(re.search(r"tags|sku|picture|details|warranty", label) for label in labels)
    assert any("sales.product.tags" in n and "array" in n for n in a.value_notes)  # skipped with a reason
    skipped = {c["column"] for c in a.templates.report()["skipped_columns"]}
    assert {
        f"sales.product.{c}" for c in ("tags", "details", "raw_details", "sku", "picture", "warranty")
    } <= skipped
    device = ("ip", "location", "search", "valid_during", "spec", "flags", "opens_at", "sizes")
    assert {f"hr.device.{c}" for c in device} <= skipped


@pytest.mark.parametrize("which", [("pg_authored", "pg_shapes_dsn"), ("pg18_authored", "pg18_shapes_dsn")])
def test_ask_on_named_schemas(which, request):
    """The runtime answers from the drafted set: values linked by searches on schema-qualified
    columns (``sales.orders.status``) fill the templates' placeholders."""
    from ctxtool.runtime import Runtime

    authored, dsn = (request.getfixturevalue(name) for name in which)
    with Runtime(authored.data, dsn=dsn, use_llm=False) as rt:
        for question, expected in (
            ("How many orders have status shipped?", 50),
            ("How many hr staffs have department Legal?", 10),
            ("How many hr staffs are there?", 40),
        ):
            ans = rt.ask(question)
            assert ans.status == "answered", (question, ans.status, ans.sql)
            assert ans.rows == [[expected]], (question, ans.sql, ans.rows)


def test_postgres18_virtual_generated_column(pg18_authored):
    product = next(
        t
        for s in pg18_authored.snapshot["schemas"]
        if s["name"] == "sales"
        for t in s["tables"]
        if t["name"] == "product"
    )
    cols = {c["name"]: c for c in product["columns"]}
    assert cols["list_cents"]["virtual"] is True and cols["list_cents"]["generated"]
    assert "virtual" not in cols["price_with_tax"]
    (shelf,) = [r for r in pg18_authored.recipes if r.target.column == "shelf_label"]
    assert shelf.ddl == [] and shelf.target.virtual  # nothing to index on a virtual column
    money = [t["sql"] for t in pg18_authored.data["templates"] if "list_price" in t["sql"]]
    assert money and all("list_price::numeric" in sql for sql in money)  # money as a number


def _draft_check_apply_check(dsn: str, tmp_path, before: str, after: str) -> None:
    """draft values as the database is (``before`` not in the searches, the upgrade DDL printed),
    validate and test-values; then --apply-ddl (``after`` in the searches), validate, test-values."""
    from ctxtool.cli import cli as main

    runner = CliRunner()
    out = tmp_path / "values.json"
    res = runner.invoke(main, ["draft", "values", "--dsn", dsn, "-o", str(out), "--emit-ddl"])
    assert res.exit_code == 0, res.output
    assert before not in out.read_text()
    for path in (out, tmp_path / "upgraded.json"):
        if path != out:
            res = runner.invoke(
                main, ["draft", "values", "--dsn", dsn, "-o", str(path), "--apply-ddl", "--yes"]
            )
            assert res.exit_code == 0, res.output
            assert after in path.read_text()
        for args in (["validate", "--dsn", dsn, str(path)], ["test-values", str(path), "--dsn", dsn]):
            res = runner.invoke(main, args)
            assert res.exit_code == 0, res.output


def test_draft_values_without_extensions_then_apply_ddl(pg18_server_uri, tmp_path):
    """No pg_trgm installed: the drafted searches run as they are, --emit-ddl gives the upgrade
    (not for the array, nor for the enum's text), --apply-ddl applies it and drafts the trigram
    searches; both validate and pass test-values."""
    from ctxtool.cli import cli as main

    with _pg18_shapes(pg18_server_uri) as dsn:
        res = CliRunner().invoke(main, ["draft", "values", "--dsn", dsn, "--emit-ddl"])
        assert "CREATE EXTENSION IF NOT EXISTS pg_trgm" in res.stdout
        assert "gin_trgm_ops" in res.stdout and "tags" not in res.stdout and "status" not in res.stdout
        _draft_check_apply_check(dsn, tmp_path, "<->", "<->")


def test_mariadb_draft_values_then_apply_ddl(_mariadb_available, tmp_path):
    """MariaDB without FULLTEXT indexes or SOUNDEX columns: a LIKE/SOUNDEX search that runs now;
    --apply-ddl adds them and drafts the FULLTEXT search."""
    from tests.backends import _mysql_connect

    name = unique_name("ctx_shpa")
    dsn = _mysql_create(name)
    _mysql_create(f"{name}_b")
    try:
        conn = _mysql_connect(name)
        cur = conn.cursor()
        for stmt in shapes.mariadb_sql(f"{name}_b"):
            cur.execute(stmt)
        conn.commit()
        conn.close()
        _draft_check_apply_check(dsn, tmp_path, "MATCH(", "MATCH(")
    finally:
        _mysql_drop(name)
        _mysql_drop(f"{name}_b")


def test_cli_stages_on_named_schemas(pg_shapes_dsn, tmp_path):
    """The CLI, as a user runs it: introspect, draft facets, parameterize (dialect from the
    snapshot, and PostgreSQL by default), validate with the snapshot and live."""
    from ctxtool.cli import cli as main

    runner = CliRunner()
    snap = tmp_path / "snap.json"
    assert (
        runner.invoke(main, ["introspect", "--dsn", pg_shapes_dsn, "--profile", "-o", str(snap)]).exit_code
        == 0
    )
    facets = tmp_path / "facets.json"
    res = runner.invoke(main, ["draft", "facets", "--dsn", pg_shapes_dsn, "-o", str(facets)])
    assert res.exit_code == 0, res.output
    assert "does not exist" not in res.output
    data = json.loads(facets.read_text())
    data["templates"] = [
        {"nl_query": "How many sales staffs are there?", "sql": "SELECT COUNT(*) FROM sales.staff"}
    ]
    facets.write_text(json.dumps(data))
    for extra in ([], ["--snapshot", str(snap)]):
        res = runner.invoke(main, ["parameterize", str(facets), "--force", "--in-place", *extra])
        assert res.exit_code == 0, res.output
    for extra in (["--snapshot", str(snap)], ["--dsn", pg_shapes_dsn]):
        res = runner.invoke(main, ["validate", str(facets), *extra])
        assert res.exit_code == 0, res.output


# -------------------------------------------------------------------------------------- MariaDB


@pytest.fixture(scope="module")
def mariadb_shapes(_mariadb_available):
    from tests.backends import _mysql_connect

    name = unique_name("ctx_shpm")
    other = f"{name}_b"
    dsn = _mysql_create(name)
    _mysql_create(other)
    conn = _mysql_connect(name)
    try:
        cur = conn.cursor()
        for stmt in shapes.mariadb_sql(other):
            cur.execute(stmt)
        conn.commit()
    finally:
        conn.close()
    try:
        yield dsn, name, other
    finally:
        _mysql_drop(name)
        _mysql_drop(other)


@pytest.fixture(scope="module")
def mariadb_authored(mariadb_shapes):
    return shapes.author(mariadb_shapes[0])


def test_mariadb_every_stage_clean(mariadb_authored):
    _clean(mariadb_authored)


def test_mariadb_types_and_shapes(mariadb_authored):
    a = mariadb_authored
    staff = next(t for s in a.snapshot["schemas"] for t in s["tables"] if t["name"] == "Staff")
    skills = next(c for c in staff["columns"] if c["name"] == "Skills")
    assert skills["profile"]["most_common"]  # a SET column profiles (no "unhashable type: 'set'")
    questions = a.questions()
    assert "Which 10 bundles have the most products?" in questions
    assert not [
        q
        for q in questions
        if re.search(r"bundle product|product list|last update|created at|staff id", q, re.I)
    ]
    assert "How many staff are active?" in questions  # tinyint(1) is a flag
    assert any("referring to them as reports to" in q for q in questions)  # PascalCase self-reference
    assert "FROM `Staff` JOIN `Staff` AS reports_to_staff ON" in a.sql()
    facets = [f.item["sql_snippet"] for f in a.facets.kept]
    assert "FIND_IN_SET('sql', `Staff`.`Skills`) > 0" in facets
    assert "`OrderLine`.`Status` = 'cancelled'" in facets  # ENUM as a category
    labels = {r.target.label for r in a.recipes}
    assert {"OrderLine.Status", "Staff.Region", "Product.ProductName"} <= labels
    assert any("Staff.Skills" in n and "SET" in n for n in a.value_notes)
    skipped = {c["column"] for c in a.templates.report()["skipped_columns"]}
    assert {"Device.Firmware", "Device.Checksum", "Device.Tag", "Device.OpensAt"} <= skipped
    # YEAR: described, never a measure
    assert not [q for q in questions if re.search(r"(average|total|highest|lowest) built year", q)]


def test_mariadb_year_and_bit_read_as_numbers(mariadb_shapes):
    """YEAR and BIT(1) through prepared statements (the driver misreads YEAR there) and plain ones."""
    from ctxtool.connectors import connect

    with connect(mariadb_shapes[0]) as conn:
        sql = "SELECT `BuiltYear`, `Enabled`, `DeviceName` FROM `Device` WHERE `DeviceId` <= 2 ORDER BY 1"
        assert conn.query(sql).rows == [(1991, 1, "Device 1"), (1992, 0, "Device 2")]
        bound = conn.query(
            "SELECT `BuiltYear`, `Enabled` FROM `Device` WHERE `DeviceName` = $value", {"value": "Device 2"}
        )
        assert bound.rows == [(1992, 0)]


def test_mariadb_ask(mariadb_authored, mariadb_shapes):
    from ctxtool.runtime import Runtime

    with Runtime(mariadb_authored.data, dsn=mariadb_shapes[0], use_llm=False) as rt:
        ans = rt.ask("How many order lines have status shipped?")
        assert ans.status == "answered" and ans.rows == [[50]], (ans.status, ans.sql, ans.rows)


def test_mariadb_two_databases_at_once(mariadb_shapes):
    """Two MySQL databases (schemas) introspected together, a table name in both: every stage
    names the database outside the connection's own."""
    dsn, name, other = mariadb_shapes
    a = shapes.author(dsn, schemas=[name, other])
    _clean(a)
    assert f"FROM {other}.`Staff`" in a.sql() and "FROM `Staff`" in a.sql()
    assert "How many staff are there?" in a.questions()  # the connection's own database: unprefixed
    assert f"{other}.Staff.FullName" in {r.target.label for r in a.recipes}


# -------------------------------------------------------------------------------------- Spanner


@pytest.fixture(scope="module")
def spanner_shapes_dsn(spanner_emulator_host, spanner_instance):
    from ctxtool import spanner_emulator

    client = spanner_emulator.client(spanner_emulator_host)
    name = unique_name("ctx_shps")
    database = spanner_emulator.create_database(client, spanner_instance, name, ddl=shapes.spanner_ddl())
    with database.batch() as batch:
        for table, (columns, rows) in shapes.spanner_rows().items():
            batch.insert(table, columns, rows)
    try:
        yield spanner_emulator.dsn(spanner_instance, name)
    finally:
        spanner_emulator.drop_database(client, spanner_instance, name)


def test_spanner_named_schema_and_interleaving(spanner_shapes_dsn):
    a = shapes.author(spanner_shapes_dsn)
    _clean(a)
    sql = a.sql()
    assert "FROM sales.`Customer`" in sql and "JOIN sales.`Customer`" in sql and "sales.`Invoice`" in sql
    assert "Which 10 sales customers have the most invoices?" in a.questions()
    from ctxtool.runtime import Runtime

    with Runtime(a.data, dsn=spanner_shapes_dsn, use_llm=False) as rt:
        ans = rt.ask("How many sales customers have region North?")
        assert ans.status == "answered" and ans.rows == [[6]], (ans.status, ans.sql, ans.rows)
    assert {"sales.Customer.CustomerName", "Customer.CustomerName"} <= {r.target.label for r in a.recipes}


# ------------------------------------------------------------------------------ shared real data


def _shared_data():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    for base in (root.parent / "shared", Path("/work/shared")):
        if (base / "data" / "public" / "chinook_postgres.sql").is_file():
            return base / "data" / "public"
    return None


@pytest.fixture(scope="module")
def chinook_dsn(_pg15_admin):
    data = _shared_data()
    if data is None:
        pytest.skip(
            "shared/data/public/chinook_postgres.sql not found beside the repository or in /work/shared"
        )
    import psycopg

    name = unique_name("ctx_chk")
    dsn = _pg_create(_pg15_admin, name)
    script = re.sub(
        r"^\s*(DROP DATABASE|CREATE DATABASE|\\c )[^\n]*$",
        "",
        (data / "chinook_postgres.sql").read_text(encoding="utf-8"),
        flags=re.IGNORECASE | re.MULTILINE,
    )
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(script)
            conn.execute("ANALYZE")
        yield dsn
    finally:
        _pg_drop(_pg15_admin, name)


def test_chinook_every_stage(chinook_dsn):
    """Chinook (public data nobody here wrote): every stage clean, the playlists' many-to-many
    drafted as a relationship, the employees' manager through an alias."""
    a = shapes.author(chinook_dsn)
    _clean(a)
    questions = a.questions()
    assert "Which 10 playlists have the most tracks?" in questions
    assert "Which 10 tracks belong to the most playlists?" in questions  # the other side, other words
    assert not any("playlist tracks" in q for q in questions)
    assert re.search(r"FROM employee JOIN employee AS \w+ ON", a.sql())
    from ctxtool.runtime import Runtime

    with Runtime(a.data, dsn=chinook_dsn, use_llm=False) as rt:
        for question, column in (  # the names of the rows, counted through the link table
            ("Which 5 playlists have the most tracks?", "SELECT playlist.name FROM playlist_track"),
            ("Which 5 tracks belong to the most playlists?", "SELECT track.name FROM playlist_track"),
        ):
            ans = rt.ask(question)
            assert ans.status == "answered" and len(ans.rows) == 5 and column in ans.sql, (
                question,
                ans.status,
            )


@pytest.fixture(scope="module")
def chinook_mariadb_dsn(_mariadb_available):
    data = _shared_data()
    if data is None:
        pytest.skip("shared/data/public/chinook_mysql.sql not found beside the repository or in /work/shared")
    from tests.backends import _mysql_connect

    text = re.sub(r"/\*.*?\*/", "", (data / "chinook_mysql.sql").read_text(encoding="utf-8"), flags=re.DOTALL)
    statements = [
        s.strip()
        for s in re.split(r";\s*\n", text)
        if s.strip() and not re.match(r"(DROP DATABASE|CREATE DATABASE|USE )", s.strip(), re.IGNORECASE)
    ]
    name = unique_name("ctx_chkm")
    dsn = _mysql_create(name)
    try:
        conn = _mysql_connect(name)
        cur = conn.cursor()
        for stmt in statements:
            cur.execute(stmt)
        conn.commit()
        conn.close()
        yield dsn
    finally:
        _mysql_drop(name)


def test_chinook_mariadb_every_stage(chinook_mariadb_dsn):
    """Chinook on MariaDB: PascalCase names through every stage; the value searches run without
    the FULLTEXT indexes and SOUNDEX columns nobody has added yet."""
    a = shapes.author(chinook_mariadb_dsn)
    _clean(a)
    assert "Which 10 playlists have the most tracks?" in a.questions()
    assert "FROM `Employee` JOIN `Employee` AS reports_to_employee ON" in a.sql()
    assert not any("_soundex" in r.query or "MATCH(" in r.query for r in a.recipes)
