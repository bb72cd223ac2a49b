"""The sample databases: deterministic rows, identical on every engine, keys that hold, DDL files
in samples/db/ that match what ``load`` creates."""

from __future__ import annotations

import hashlib
import math
from datetime import date, datetime, timezone
from decimal import Decimal
from pathlib import Path

import pytest

from ctxtool import sampledata
from ctxtool.connectors.dsn import parse
from ctxtool.errors import CtxtoolError, InputError
from ctxtool.sampledata import schema
from ctxtool.sampledata.__main__ import main as sampledata_main
from tests.backends import (
    SAMPLE_SCALE,
    _mysql_create,
    _mysql_drop,
    _pg_create,
    _pg_drop,
    unique_name,
)

ROOT = Path(__file__).resolve().parent.parent
SAMPLES_DB = ROOT / "samples" / "db"


# --------------------------------------------------------------------------- canonical checksums


def _canon(value) -> str:
    if value is None:
        return "\\N"
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(timezone.utc).replace(tzinfo=None)
        return datetime(*value.timetuple()[:6]).isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def checksum(rows) -> str:
    digest = hashlib.sha256()
    for row in rows:
        digest.update("\t".join(_canon(v) for v in row).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def expected_checksums(scale: float = SAMPLE_SCALE) -> dict[str, tuple[int, str]]:
    data = sampledata.generate(scale=scale)
    return {name: (len(rows), checksum(rows)) for name, rows in data.items()}


def _quoted(engine: str, name: str) -> str:
    if name == name.lower():
        return name
    return f"`{name}`" if engine in ("mysql", "spanner") else f'"{name}"'


def _select_all(engine: str, table: schema.Table) -> str:
    cols = ", ".join(_quoted(engine, c) for c in table.column_names)
    return f"SELECT {cols} FROM {table.name} ORDER BY {table.primary_key}"


class _Reader:
    """Runs plain SELECTs on any sample database through the drivers (read only)."""

    def __init__(self, dsn: str) -> None:
        self.dsn = parse(dsn)
        self.engine = self.dsn.engine
        if self.engine == "postgres":
            import psycopg

            self.conn = psycopg.connect(self.dsn.libpq())
        elif self.engine == "mysql":
            import mysql.connector

            self.conn = mysql.connector.connect(
                host=self.dsn.host,
                port=self.dsn.port,
                user=self.dsn.user,
                password=self.dsn.password or "",
                database=self.dsn.database,
            )
        else:
            from ctxtool.sampledata.loaders import spanner_database, spanner_engine

            self.conn = spanner_database(self.dsn)
            self.engine = spanner_engine(self.conn)

    def rows(self, sql: str) -> list[tuple]:
        if self.engine.startswith("spanner"):
            with self.conn.snapshot() as snap:
                return [tuple(r) for r in snap.execute_sql(sql)]
        cur = self.conn.cursor()
        cur.execute(sql)
        out = [tuple(r) for r in cur.fetchall()]
        cur.close()
        return out

    def close(self) -> None:
        if not self.engine.startswith("spanner"):
            self.conn.close()

    def checksums(self) -> dict[str, tuple[int, str]]:
        out = {}
        for table in schema.tables():
            rows = self.rows(_select_all(self.engine, table))
            out[table.name] = (len(rows), checksum(rows))
        return out

    def orphans(self) -> dict[str, int]:
        """Child rows whose foreign key points nowhere, per constraint (all must be 0)."""
        out = {}
        for table in schema.tables():
            for fk in table.foreign_keys:
                sql = (
                    f"SELECT COUNT(*) FROM {table.name} c LEFT JOIN {fk.ref_table} p "
                    f"ON c.{fk.column} = p.{fk.ref_column} WHERE p.{fk.ref_column} IS NULL"
                )
                out[f"{table.name}.{fk.column}"] = self.rows(sql)[0][0]
        return out


def _read(dsn: str):
    reader = _Reader(dsn)
    try:
        return reader.checksums(), reader.orphans()
    finally:
        reader.close()


# --------------------------------------------------------------------------- generation (no database)


def test_scale_one_is_about_100k_rows_and_deterministic():
    first = sampledata.generate(scale=1.0)
    counts = {name: len(rows) for name, rows in first.items()}
    assert 95_000 <= sum(counts.values()) <= 110_000
    assert counts["district"] == 77 and counts["airports"] >= 300 and counts["airlines"] >= 60
    assert counts["trans"] > counts["flights"] > counts["client"]
    second = sampledata.generate(scale=1.0)
    assert {k: checksum(v) for k, v in first.items()} == {k: checksum(v) for k, v in second.items()}


def test_scale_changes_only_the_scaled_tables():
    small, smaller = sampledata.generate(scale=0.05), sampledata.generate(scale=0.01)
    for name in ("district", "airports", "airlines"):
        assert checksum(small[name]) == checksum(smaller[name])
    assert len(small["trans"]) == 3000 and len(smaller["trans"]) == 600


def test_real_names_and_regions():
    data = sampledata.generate(("financial", "airports"), scale=0.01)
    districts = {r[1]: r[2] for r in data["district"]}
    assert districts["Hl.m. Praha"] == "Prague"
    assert districts["Brno - mesto"] == "south Moravia"
    assert set(districts.values()) == {
        "Prague",
        "central Bohemia",
        "south Bohemia",
        "west Bohemia",
        "north Bohemia",
        "east Bohemia",
        "south Moravia",
        "north Moravia",
    }
    airports = {r[1]: r for r in data["airports"]}
    assert airports["LHR"][3] == "London Heathrow" and airports["CDG"][3] == "Paris Charles de Gaulle"
    assert all(len(r[1]) == 3 and r[1].isupper() and len(r[2]) == 4 for r in data["airports"])
    assert len(airports) == len(data["airports"])  # IATA codes unique
    assert all(-90 <= r[6] <= 90 and -180 <= r[7] <= 180 for r in data["airports"])
    # Real coordinates: London Heathrow - Paris CDG is about 350 km, Sydney - LAX about 12,000 km.
    assert 330 <= _km(airports["LHR"], airports["CDG"]) <= 370
    assert 11_900 <= _km(airports["SYD"], airports["LAX"]) <= 12_100
    by_id = {r[0]: r for r in data["airports"]}
    for flight in data["flights"]:  # distance_km is the great-circle distance of the route
        assert abs(flight[6] - _km(by_id[flight[2]], by_id[flight[3]])) <= 1


def _km(a: tuple, b: tuple) -> float:
    lat1, lon1, lat2, lon2 = (math.radians(v) for v in (a[6], a[7], b[6], b[7]))
    cos_angle = math.sin(lat1) * math.sin(lat2) + math.cos(lat1) * math.cos(lat2) * math.cos(lon2 - lon1)
    return 6371.0 * math.acos(max(-1.0, min(1.0, cos_angle)))


def test_generated_rows_keep_their_invariants():
    data = sampledata.generate(scale=0.05)
    accounts = {r[0]: r for r in data["account"]}
    owners = [d for d in data["disp"] if d[3] == "OWNER"]
    assert sorted(d[2] for d in owners) == sorted(accounts)  # every account has exactly one owner
    for loan in data["loan"]:
        assert loan[2] >= accounts[loan[1]][3] and loan[6] in "ABCD"
    balances: dict[int, Decimal] = {}
    for trans in data["trans"]:  # balance is the running sum of credits minus debits
        delta = trans[5] if trans[3] == "PRIJEM" else -trans[5]
        balances[trans[1]] = balances.get(trans[1], Decimal(0)) + delta
        assert balances[trans[1]] == trans[6] and trans[6] >= 0
    assert all(f[2] != f[3] for f in data["flights"])


def test_bad_arguments_are_ctxtool_errors():
    with pytest.raises(InputError, match="scale must be a positive number"):
        sampledata.generate(scale=0)
    with pytest.raises(CtxtoolError, match="unknown sample dataset 'banking'"):
        sampledata.generate(("banking",))
    with pytest.raises(CtxtoolError, match="unknown engine"):
        sampledata.ddl("oracle")


@pytest.mark.parametrize("engine", sorted(sampledata.ENGINE_DIRS))
@pytest.mark.parametrize("dataset", schema.DATASETS)
def test_ddl_files_in_samples_match_the_generator(engine, dataset):
    path = SAMPLES_DB / sampledata.ENGINE_DIRS[engine] / f"{dataset}.sql"
    assert path.read_text() == sampledata.ddl_text(engine, dataset), (
        f"{path} is stale: run python -m ctxtool.sampledata --write-ddl samples/db"
    )


def test_write_ddl_files(tmp_path):
    written = sampledata.write_ddl_files(tmp_path)
    assert len(written) == len(sampledata.ENGINE_DIRS) * len(schema.DATASETS)
    text = (tmp_path / "mysql" / "financial.sql").read_text()
    assert "`A3` VARCHAR(20) NOT NULL COMMENT 'region'" in text
    assert "CREATE INDEX trans_account_id_idx ON trans (account_id);" in text


def test_cli_usage_errors(capsys):
    assert sampledata_main(["--dsn", "oracle://x/y"]) == 2
    assert "unknown DSN scheme" in capsys.readouterr().err
    assert sampledata_main(["--dsn", "postgresql://postgres@127.0.0.1:5432/x", "--scale", "-1"]) == 2


# --------------------------------------------------------------------------- on the servers


def _catalog_columns(reader: _Reader) -> dict[str, list[tuple[str, bool]]]:
    """table -> [(column, nullable)] in ordinal order, from information_schema."""
    if reader.engine == "postgres":
        where = "table_schema = current_schema()"
    elif reader.engine == "mysql":
        where = "table_schema = DATABASE()"
    elif reader.engine == "spanner-pg":
        where = "table_schema = 'public'"
    else:
        where = "table_schema = ''"
    rows = reader.rows(
        "SELECT table_name, column_name, is_nullable FROM information_schema.columns "
        f"WHERE {where} ORDER BY table_name, ordinal_position"
    )
    out: dict[str, list[tuple[str, bool]]] = {}
    for table, column, nullable in rows:
        out.setdefault(table, []).append((column, str(nullable).upper() == "YES"))
    return out


def _assert_schema_matches(reader: _Reader) -> None:
    catalog = _catalog_columns(reader)
    for table in schema.tables():
        assert catalog.get(table.name) == [(c.name, c.nullable) for c in table.columns], table.name


@pytest.mark.postgres
def test_postgres_samples(pg_samples_dsn):
    checks, orphans = _read(pg_samples_dsn)
    assert checks == expected_checksums()
    assert set(orphans.values()) == {0}
    reader = _Reader(pg_samples_dsn)
    try:
        _assert_schema_matches(reader)
        comments = dict(
            reader.rows(
                "SELECT a.attname, col_description(a.attrelid, a.attnum) FROM pg_attribute a "
                "WHERE a.attrelid = 'district'::regclass AND a.attnum > 0"
            )
        )
        assert comments["A3"] == "region" and comments["A12"] == "unemployment rate 1995 (percent)"
        fks = reader.rows(
            "SELECT count(*) FROM information_schema.table_constraints "
            "WHERE table_schema = current_schema() AND constraint_type = 'FOREIGN KEY'"
        )[0][0]
        assert fks == sum(len(t.foreign_keys) for t in schema.tables())
        indexes = {r[0] for r in reader.rows("SELECT indexname FROM pg_indexes WHERE schemaname = 'public'")}
        assert {"trans_account_id_idx", "flights_origin_airport_id_idx", "district_pkey"} <= indexes
    finally:
        reader.close()


@pytest.mark.postgres
def test_postgres_load_twice_identical_and_replace(_pg15_admin):
    names = [unique_name("ctx_sdt"), unique_name("ctx_sdt")]
    try:
        dsns = [_pg_create(_pg15_admin, n) for n in names]
        for dsn in dsns:
            result = sampledata.load(dsn, scale=SAMPLE_SCALE)
            assert result.engine == "postgres" and result.total_rows == sum(
                n for n, _ in expected_checksums().values()
            )
        assert _read(dsns[0]) == _read(dsns[1])
        with pytest.raises(CtxtoolError, match="already exist.*replace"):
            sampledata.load(dsns[0], scale=SAMPLE_SCALE)
        sampledata.load(dsns[0], ("airports",), scale=0.01, replace=True)
        reader = _Reader(dsns[0])
        try:
            assert reader.rows("SELECT count(*) FROM flights")[0][0] == 250
            assert reader.rows("SELECT count(*) FROM trans")[0][0] == 1200  # financial untouched
        finally:
            reader.close()
    finally:
        for name in names:
            _pg_drop(_pg15_admin, name)


@pytest.mark.postgres
def test_cli_loads_into_postgres(_pg15_admin, capsys):
    name = unique_name("ctx_sdc")
    try:
        dsn = _pg_create(_pg15_admin, name)
        assert sampledata_main(["--dsn", dsn, "--datasets", "airports", "--scale", "0.01"]) == 0
        err = capsys.readouterr().err
        assert "flights" in err and "684 rows" in err  # 350 airports + 84 airlines + 250 flights
        assert sampledata_main(["--dsn", dsn, "--datasets", "airports"]) == 2
        assert "already exist" in capsys.readouterr().err
    finally:
        _pg_drop(_pg15_admin, name)


@pytest.mark.pg18
def test_pg18_samples(pg18_samples_dsn):
    checks, orphans = _read(pg18_samples_dsn)
    assert checks == expected_checksums()
    assert set(orphans.values()) == {0}
    reader = _Reader(pg18_samples_dsn)
    try:
        assert {"vector", "pg_trgm"} <= {r[0] for r in reader.rows("SELECT extname FROM pg_extension")}
    finally:
        reader.close()


@pytest.mark.mariadb
def test_mariadb_samples(mariadb_samples_dsn):
    checks, orphans = _read(mariadb_samples_dsn)
    assert checks == expected_checksums()
    assert set(orphans.values()) == {0}
    reader = _Reader(mariadb_samples_dsn)
    try:
        _assert_schema_matches(reader)
        comments = dict(
            reader.rows(
                "SELECT column_name AS column_name, column_comment AS column_comment "
                "FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'district'"
            )
        )
        assert comments["A2"] == "district name" and comments["A3"] == "region"
        fks = reader.rows(
            "SELECT COUNT(*) FROM information_schema.referential_constraints "
            "WHERE constraint_schema = DATABASE()"
        )[0][0]
        assert fks == sum(len(t.foreign_keys) for t in schema.tables())
    finally:
        reader.close()


@pytest.mark.mariadb
def test_mariadb_load_twice_identical(_mariadb_available):
    names = [unique_name("ctx_sdt"), unique_name("ctx_sdt")]
    try:
        dsns = [_mysql_create(n) for n in names]
        for dsn in dsns:
            sampledata.load(dsn, scale=SAMPLE_SCALE)
        assert _read(dsns[0]) == _read(dsns[1])
        with pytest.raises(CtxtoolError, match="already exist"):
            sampledata.load(dsns[1], ("financial",), scale=SAMPLE_SCALE)
        sampledata.load(dsns[1], scale=SAMPLE_SCALE, replace=True)
        assert _read(dsns[1]) == _read(dsns[0])
    finally:
        for name in names:
            _mysql_drop(name)


@pytest.mark.spanner
def test_spanner_samples(spanner_samples_dsn):
    checks, orphans = _read(spanner_samples_dsn)
    assert checks == expected_checksums()
    assert set(orphans.values()) == {0}
    reader = _Reader(spanner_samples_dsn)
    try:
        assert reader.engine == "spanner"
        _assert_schema_matches(reader)
        fks = reader.rows(
            "SELECT COUNT(*) FROM information_schema.table_constraints "
            "WHERE table_schema = '' AND constraint_type = 'FOREIGN KEY'"
        )[0][0]
        assert fks == sum(len(t.foreign_keys) for t in schema.tables())
    finally:
        reader.close()


@pytest.mark.spanner
def test_spanner_postgresql_dialect_and_replace(spanner_emulator_host, spanner_instance):
    from ctxtool import spanner_emulator

    client = spanner_emulator.client(spanner_emulator_host)
    name = unique_name("ctx_sdpg")
    spanner_emulator.create_database(client, spanner_instance, name, dialect="postgresql")
    dsn = spanner_emulator.dsn(spanner_instance, name)
    try:
        sampledata.load(dsn, scale=SAMPLE_SCALE)
        checks, orphans = _read(dsn)
        assert checks == expected_checksums()
        assert set(orphans.values()) == {0}
        reader = _Reader(dsn)
        assert reader.engine == "spanner-pg"
        _assert_schema_matches(reader)
        with pytest.raises(CtxtoolError, match="already exist"):
            sampledata.load(dsn, ("airports",), scale=SAMPLE_SCALE)
        sampledata.load(dsn, ("airports",), scale=0.01, replace=True)
        assert reader.rows("SELECT count(*) FROM flights")[0][0] == 250
    finally:
        spanner_emulator.drop_database(client, spanner_instance, name)


# --------------------------------------------------------------------------- the emulator helper


def test_emulator_binary_override(monkeypatch, tmp_path):
    from ctxtool import spanner_emulator

    fake = tmp_path / "emulator_main"
    fake.write_text("#!/bin/sh\necho 'bind failed: address in use' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("CTXTOOL_SPANNER_EMULATOR", str(fake))
    assert spanner_emulator.find_binary() == str(fake)
    with pytest.raises(CtxtoolError, match="did not start: bind failed: address in use"):
        spanner_emulator.SpannerEmulator().start(timeout=5)
    emulator = spanner_emulator.SpannerEmulator()
    emulator.binary = None
    with pytest.raises(CtxtoolError, match="not found"):
        emulator.start()


@pytest.mark.spanner
def test_emulator_start_stop():
    from ctxtool import spanner_emulator

    if spanner_emulator.find_binary() is None:
        pytest.skip("Spanner emulator not on this machine (emulator_main not found)")
    with spanner_emulator.SpannerEmulator() as emulator:
        client = spanner_emulator.client(emulator.host)
        db = spanner_emulator.create_database(
            client, "ctx-emu", "db1", ddl=["CREATE TABLE t (id INT64 NOT NULL) PRIMARY KEY (id)"]
        )
        with db.snapshot() as snap:
            assert list(snap.execute_sql("SELECT COUNT(*) FROM t")) == [[0]]
        process = emulator.process
    assert process is not None and process.poll() is not None  # stopped on exit


@pytest.mark.spanner
def test_emulator_dies_with_its_parent(tmp_path):
    """A killed test run leaves no emulator behind (Linux parent-death signal)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from ctxtool import spanner_emulator

    if spanner_emulator.find_binary() is None:
        pytest.skip("Spanner emulator not on this machine (emulator_main not found)")
    script = (
        "import sys, time\n"
        "from ctxtool.spanner_emulator import SpannerEmulator\n"
        "e = SpannerEmulator().start()\n"
        "print(e.process.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, cwd=str(ROOT))
    child_pid = int(parent.stdout.readline())
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    for _ in range(100):
        try:
            os.kill(child_pid, 0)
        except ProcessLookupError:
            break
        # a zombie of ours? it was reparented, so it is reaped by init; poll until gone
        time.sleep(0.05)
    else:
        os.kill(child_pid, signal.SIGKILL)
        pytest.fail("the emulator outlived the process that started it")


@pytest.mark.postgres
def test_missing_database_is_one_clear_line(_pg15_admin, capsys):
    dsn = f"postgresql://postgres:hunter2@127.0.0.1:5432/{unique_name('ctx_absent')}"
    assert sampledata_main(["--dsn", dsn]) == 3
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "cannot connect" in err and "create the database first" in err and "hunter2" not in err
