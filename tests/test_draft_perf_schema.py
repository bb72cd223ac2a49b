"""`draft templates --workload performance_schema` against real statement digests: a throwaway
MariaDB server with performance_schema ON (the shared server has it off, and turning it on needs a
restart), the financial sample, the sample workload run through a plain driver connection."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxtool import contextset
from ctxtool.cli import cli
from ctxtool.connectors import connect
from ctxtool.draft import draft
from ctxtool.draft.workload import from_performance_schema, normalize_digest, split_statements
from ctxtool.snapshot import build
from ctxtool.validate import validate_set

LOG = Path(__file__).resolve().parent.parent / "samples" / "workload" / "financial.sql"
FINANCIAL = ["district", "account", "client", "disp", "loan", "card", "trans"]


def test_normalize_digest_makes_mariadb_digests_runnable():
    assert normalize_digest("SELECT COUNT ( * ) FROM `district` WHERE `A3` IN (...) ") == (
        "SELECT COUNT(*) FROM `district` WHERE `A3` IN (?)"
    )
    assert normalize_digest("SELECT COUNT ( DISTINCTROW `a` . `x` ) FROM ACCOUNT `a`") == (
        "SELECT COUNT(DISTINCT `a`.`x`) FROM ACCOUNT AS `a`"
    )
    truncated = "SELECT `a` , `b` FROM `t` WHERE `c` = ? AND ..."
    assert normalize_digest(truncated) == truncated  # left for the parser to report


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def ps_server():
    """A throwaway MariaDB server with performance_schema ON holding the financial sample in a
    uniquely named database; yields (dsn, port, database); shut down and removed at the end."""
    import mysql.connector

    from tests.conftest import backend_unavailable

    mariadbd, install = shutil.which("mariadbd") or "/usr/sbin/mariadbd", shutil.which("mariadb-install-db")
    if not os.path.exists(mariadbd) or install is None:
        backend_unavailable("mariadb (throwaway server)", "mariadbd or mariadb-install-db not found")
    base = Path(tempfile.mkdtemp(prefix="ctx_draft_ps_"))
    data = base / "data"
    user = ["--user=root"] if os.geteuid() == 0 else []
    proc = None
    try:
        try:
            subprocess.run(
                [
                    install,
                    "--no-defaults",
                    f"--datadir={data}",
                    *user,
                    "--auth-root-authentication-method=normal",
                    "--skip-test-db",
                ],
                check=True,
                capture_output=True,
                timeout=60,
            )
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
            backend_unavailable("mariadb (throwaway server)", f"mariadb-install-db failed: {exc}")
        port = _free_port()
        proc = subprocess.Popen(
            [
                mariadbd,
                "--no-defaults",
                f"--datadir={data}",
                f"--socket={base / 'sock'}",
                f"--pid-file={base / 'pid'}",
                f"--log-error={base / 'err.log'}",
                f"--port={port}",
                "--bind-address=127.0.0.1",
                *user,
                "--performance-schema=ON",
                "--skip-log-bin",
                "--innodb-buffer-pool-size=32M",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                mysql.connector.connect(host="127.0.0.1", port=port, user="root").close()
                break
            except mysql.connector.Error as exc:
                log = (base / "err.log").read_text(errors="replace") if (base / "err.log").exists() else ""
                if proc.poll() is not None or time.monotonic() > deadline:
                    backend_unavailable("mariadb (throwaway server)", f"{exc}; {log[-500:]}")
                time.sleep(0.1)
        db = f"ctx_draft_ps_{os.getpid()}_{secrets.token_hex(3)}"
        admin = mysql.connector.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
        cur = admin.cursor()
        cur.execute("SELECT @@performance_schema")
        assert cur.fetchone()[0] == 1
        cur.execute(f"CREATE DATABASE `{db}`")
        cur.execute(f"CREATE DATABASE `{db}_other`")
        admin.close()
        from ctxtool import sampledata

        dsn = f"mysql://root@127.0.0.1:{port}/{db}"
        sampledata.load(dsn, datasets=("financial",), scale=0.02)
        yield dsn, port, db
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        shutil.rmtree(base, ignore_errors=True)


def _mysql_statement(sql: str) -> str:
    """The PostgreSQL-flavoured log line as a MySQL application writes it."""
    sql = re.sub(r'"(A\d+)"', r"`\1`", sql)
    return re.sub(r"\bchange\b", "`change`", sql)  # a reserved word on MariaDB


@pytest.fixture(scope="module")
def workload_ran(ps_server):
    """Run the sample workload's read queries (and some noise) as an application would."""
    import mysql.connector

    _dsn, port, db = ps_server
    reads = [
        _mysql_statement(s)
        for s in split_statements(LOG.read_text())
        if s.upper().startswith("SELECT") and "FOR UPDATE" not in s
    ]
    assert len(reads) >= 100
    app = mysql.connector.connect(host="127.0.0.1", port=port, user="root", database=db, autocommit=True)
    cur = app.cursor()
    cur.execute("TRUNCATE TABLE performance_schema.events_statements_summary_by_digest")
    for sql in reads:
        cur.execute(sql)
        cur.fetchall()
    cur.execute("UPDATE loan SET status = status WHERE loan_id = 1")  # a write: never a template
    # another database's queries: SCHEMA_NAME keeps them out
    cur.execute(f"USE `{db}_other`")
    cur.execute("CREATE TABLE noise_table (x INT)")
    cur.execute("SELECT COUNT(*) FROM noise_table WHERE x = 1")
    cur.fetchall()
    app.close()
    distinct = {_fingerprint_mysql(s) for s in reads}
    return reads, distinct


def _fingerprint_mysql(sql: str) -> str:
    from ctxtool.draft.workload import fingerprint

    fp = fingerprint(sql, "mysql")
    assert fp is not None, sql
    return fp


@pytest.mark.mariadb
def test_workload_from_performance_schema(ps_server, workload_ran):
    dsn, _port, _db = ps_server
    _reads, distinct = workload_ran
    with connect(dsn) as conn:
        digests = from_performance_schema(conn)
        texts = [t for t, _ in digests]
        # digests come back runnable: no `COUNT ( * )` spacing, no collapsed `(...)` lists
        assert texts and not any("( *" in t or "(...)" in t for t in texts)
        assert not any("noise_table" in t for t in texts)
        snap = build(conn, profile=True)
        result = draft(
            "templates",
            snap,
            connector=conn,
            tables=FINANCIAL,
            workload="performance_schema",
            schema_drafts=False,
        )
        wl = result.workload
        # the digests merge what differed only in literals: as many queries as the log has shapes
        assert wl.distinct >= 40 and wl.distinct >= len(distinct) - 3, (wl.distinct, len(distinct))
        assert any(r == "not a SELECT" and s.startswith("UPDATE") for s, r in wl.skipped)
        assert result.coverage.ratio >= 0.95, result.coverage.missing  # 49 of 50 (ORDER BY ? has no value)
        kept = result.kept
        assert len(kept) >= 35
        assert all("?" not in d.item["sql"] and d.rows for d in kept)  # values filled from the profile
        sqls = [d.item["sql"] for d in kept]
        # `FROM ACCOUNT` in the digest (a keyword, upper-cased) is the `account` table again
        assert any("`account`" in s for s in sqls) and not any("ACCOUNT" in s for s in sqls)
        assert any(" IN (" in s and "`A3`" in s for s in sqls)  # from the collapsed `IN (...)`
        assert kept[0].frequency == max(q.count for q in wl.queries)
        # what was kept is a valid context set that runs on the server
        cs = contextset.loads(json.dumps(result.to_set()))
        findings = validate_set(cs, dialect="mysql", snapshot=snap, connector=conn)
        assert not [f for f in findings if f.severity == "error"], findings


@pytest.mark.mariadb
def test_cli_draft_templates_from_performance_schema(ps_server, workload_ran, tmp_path):
    dsn, _port, _db = ps_server
    out = tmp_path / "set.json"
    res = CliRunner().invoke(
        cli,
        [
            "draft",
            "templates",
            "--dsn",
            dsn,
            "--tables",
            ",".join(FINANCIAL),
            "--workload",
            "performance_schema",
            "-o",
            str(out),
            "--format",
            "json",
        ],
    )
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["workload"]["distinct_read_queries"] >= 40
    assert report["coverage"]["ratio"] >= 0.95, report["coverage"]
    templates = json.loads(out.read_text())["templates"]
    # the workload's queries; it reads every table, so no schema drafts compete with them
    assert len(templates) >= 40
    assert all("?" not in t["sql"] for t in templates)
