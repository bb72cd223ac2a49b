"""Drafting from the query workload: reading logs, merging by fingerprint, describing SQL in words,
filling digests, and coverage on the financial sample log (real PostgreSQL)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtool.connectors import connect
from ctxtool.draft import draft
from ctxtool.draft.check import execute_drafts
from ctxtool.draft.describe import Describer, instantiate
from ctxtool.draft.model import Model
from ctxtool.draft.pipeline import draft_from_workload, sampler_for
from ctxtool.draft.workload import fingerprint, from_pg_stat_statements, group_statements, split_statements
from ctxtool.errors import InputError
from ctxtool.snapshot import build

LOG = Path(__file__).resolve().parent.parent / "samples" / "workload" / "financial.sql"
FINANCIAL = ["district", "account", "client", "disp", "loan", "card", "trans"]


def test_split_statements_semicolons_lines_and_literals():
    text = "-- comment\nSELECT 'a;b' FROM t;\nSELECT 2\n  FROM u; /* c; */ SELECT 3;"
    assert split_statements(text) == ["SELECT 'a;b' FROM t", "SELECT 2 FROM u", "SELECT 3"]
    assert split_statements("SELECT 1 FROM a\n# note\nSELECT 2 FROM b\n") == [
        "SELECT 1 FROM a",
        "SELECT 2 FROM b",
    ]


def test_fingerprint_merges_statements_differing_only_in_literals():
    a = fingerprint("SELECT COUNT(*) FROM loan WHERE status = 'A' AND amount > 100", "postgres")
    b = fingerprint("select count(*)  from loan where status = 'D' and amount > 250000.5", "postgres")
    c = fingerprint("SELECT COUNT(*) FROM loan WHERE status = $1 AND amount > $2", "postgres")
    d = fingerprint("SELECT COUNT(*) FROM loan WHERE status = 'A' OR amount > 100", "postgres")
    assert a == b == c and a != d
    assert fingerprint("SELECT 1 FROM t WHERE x IN (1, 2, 3)", "postgres") == fingerprint(
        "SELECT 1 FROM t WHERE x IN (7)", "postgres"
    )


def test_grouping_keeps_read_queries_and_ranks_by_frequency():
    statements = [
        ("SELECT COUNT(*) FROM loan WHERE status = 'A'", 1),
        ("SELECT COUNT(*) FROM loan WHERE status = 'B'", 3),
        ("SELECT * FROM account WHERE account_id = 1", 1),
        ("UPDATE loan SET status = 'B' WHERE loan_id = 1", 5),
        ("DELETE FROM loan", 1),
        ("SELECT balance FROM trans WHERE account_id = 8 FOR UPDATE", 1),
        ("SELECT relname FROM pg_catalog.pg_class", 1),
        ("SELECT now()", 1),
        ("SELECT x FROM other_table", 1),
        ("this is not sql at all ((", 1),
    ]
    wl = group_statements(statements, "postgres", known_tables=["loan", "account", "trans"])
    assert [q.count for q in wl.queries] == [4, 1]
    assert wl.queries[0].ranked_examples[0] == "SELECT COUNT(*) FROM loan WHERE status = 'B'"
    reasons = sorted(r for _, r in wl.skipped)
    assert reasons == sorted(
        [
            "not a SELECT",
            "not a SELECT",
            "SELECT INTO or FOR UPDATE",
            "reads system catalogs",
            "reads no table",
            "reads tables outside the snapshot or --tables",
            "cannot be parsed",
        ]
    )


def test_the_workload_keeps_what_the_read_only_gate_accepts():
    """Read-only is the gate's verdict: a query that reads user tables but writes in a CTE, calls a
    function off the allow-list or hides a MySQL executable comment is not drafted from."""
    statements = [
        ("WITH d AS (DELETE FROM loan RETURNING *) SELECT * FROM d", 1),
        ("SELECT lo_import('/etc/hostname') FROM loan", 1),
        ("SELECT COUNT(*) FROM loan WHERE status = 'A'", 2),
    ]
    wl = group_statements(statements, "postgres", known_tables=["loan"])
    assert [q.count for q in wl.queries] == [2]  # control: the plain query is kept
    reasons = dict(wl.skipped)
    assert reasons[statements[0][0]] == "writes"
    assert "lo_import()" in reasons[statements[1][0]]
    hidden = "SELECT amount FROM loan /*! INTO OUTFILE '/tmp/x' */"
    wl = group_statements([(hidden, 1), ("SELECT amount FROM loan", 1)], "mysql", known_tables=["loan"])
    assert [q.count for q in wl.queries] == [1] and wl.skipped[0][0] == hidden
    assert "comment" in wl.skipped[0][1]


@pytest.fixture(scope="module")
def pg_model(pg_samples_dsn):
    with connect(pg_samples_dsn) as conn:
        snap = build(conn, profile=True)
    return Model(snap, tables=FINANCIAL), snap


@pytest.mark.postgres
def test_describer_writes_the_question(pg_model):
    model, _ = pg_model
    describe = Describer(model)
    assert (
        describe(
            "SELECT COUNT(DISTINCT a.account_id) FROM account a JOIN loan l ON l.account_id = a.account_id "
            "JOIN district d ON a.district_id = d.district_id WHERE d.\"A2\" = 'Kolin'"
        )
        == "Number of accounts with a loan in the district 'Kolin'"
    )
    assert describe("SELECT status, COUNT(*) FROM loan GROUP BY status") == "Count of loans for each status"
    assert (
        describe('SELECT "A2", "A11" FROM district ORDER BY "A11" DESC LIMIT 5')
        == "District name of the 5 districts with the highest average salary"
    )
    assert (
        describe("SELECT COUNT(*) FROM client WHERE gender = 'M' AND birth_date < '1960-01-01'")
        == "Count of clients with gender 'M' and birth date before 1960-01-01"
    )
    assert (
        describe(
            "SELECT COUNT(*) FROM trans t JOIN account a ON t.account_id = a.account_id WHERE a.frequency = 'POPLATEK TYDNE' AND t.amount > 5000"
        )
        == "Count of transactions with amount above 5000 for accounts with statement frequency 'POPLATEK TYDNE'"
    )
    assert describe("SELECT MIN(date), MAX(date) FROM trans WHERE account_id = 3") == (
        "Earliest and latest date of transactions with account ID 3"
    )
    assert describe("SELECT COUNT(*) FROM district WHERE \"A3\" IN ('Prague', 'south Moravia')") == (
        "Count of districts with region 'Prague' or 'south Moravia'"
    )


@pytest.mark.postgres
def test_digests_get_values_from_the_profile(pg_model):
    model, _ = pg_model
    sql = instantiate(
        "SELECT COUNT(*) FROM loan l JOIN account a ON a.account_id = l.account_id "
        "WHERE l.status = $1 AND a.frequency = $2 AND l.amount > $3 LIMIT $4",
        model,
    )
    assert sql is not None and "$" not in sql
    status = model.table("loan").column("status").common_values[0]
    assert f"l.status = '{status}'" in sql and "LIMIT 10" in sql
    assert instantiate("SELECT COUNT(*) FROM loan WHERE $1 = $2", model) is None
    wl = group_statements([("SELECT COUNT(*) FROM card WHERE type = $1", 12)], "postgres")
    [d] = draft_from_workload(model, wl)
    assert (
        d.frequency == 12 and "$1" not in d.sql and d.item["intent"].startswith("Count of cards with type '")
    )
    assert d.text.startswith("How many cards have type '") and d.text.endswith("?")


@pytest.mark.postgres
def test_pg_stat_statements_missing_is_a_clear_error(pg_samples_dsn):
    with connect(pg_samples_dsn) as conn:
        with pytest.raises(InputError, match="pg_stat_statements.*shared_preload_libraries"):
            from_pg_stat_statements(conn)


@pytest.mark.postgres
def test_sample_log_coverage(pg_samples_dsn):
    statements = split_statements(LOG.read_text())
    assert len(statements) >= 200
    with connect(pg_samples_dsn) as conn:
        snap = build(conn, profile=True)
        result = draft(
            "templates", snap, connector=conn, tables=FINANCIAL, workload=str(LOG), schema_drafts=False
        )
    wl = result.workload
    assert wl.statements == len(statements)
    assert sum(1 for _, r in wl.skipped if r in ("not a SELECT", "SELECT INTO or FOR UPDATE")) >= 10
    assert wl.distinct >= 40
    assert result.coverage.ratio >= 0.95, result.coverage.missing
    # the most frequent query comes first and is described in words, with its values parameterized
    first = result.kept[0]
    assert first.frequency == max(q.count for q in wl.queries)
    assert first.item["parameterized"]["parameterized_sql"].count("$1") == 1
    report = result.report()
    json.dumps(report)
    assert report["coverage"]["covered"] == result.coverage.covered


@pytest.fixture(scope="module")
def pg_stat_statements_dsn():
    """A throwaway PostgreSQL 15 cluster with pg_stat_statements preloaded (the system server does not
    preload it), holding the financial sample; stopped and removed at the end."""
    import glob
    import os
    import shutil
    import socket
    import subprocess

    from tests.conftest import backend_unavailable

    bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not bins or shutil.which("runuser") is None:
        backend_unavailable("postgres (throwaway cluster)", "initdb or runuser not found")
    bindir = os.path.dirname(bins[-1])
    import tempfile
    from pathlib import Path as _Path

    base = _Path(
        tempfile.mkdtemp(prefix="ctx_draft_pgss_")
    )  # outside pytest's 0700 tree: postgres must enter it
    os.chmod(base, 0o777)
    data = base / "data"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    run = ["runuser", "-u", "postgres", "--"]
    try:
        subprocess.run(
            [*run, f"{bindir}/initdb", "-D", str(data), "-A", "trust", "-U", "postgres"],
            check=True,
            capture_output=True,
        )
        subprocess.run(
            [
                *run,
                f"{bindir}/pg_ctl",
                "-D",
                str(data),
                "-w",
                "-l",
                str(base / "log"),
                "-o",
                f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c shared_preload_libraries=pg_stat_statements",
                "start",
            ],
            check=True,
            capture_output=True,
        )
    except (subprocess.CalledProcessError, OSError) as exc:
        backend_unavailable("postgres (throwaway cluster)", str(exc))
    dsn = f"postgresql://postgres@127.0.0.1:{port}/postgres"
    try:
        from ctxtool import sampledata

        sampledata.load(dsn, datasets=("financial",), scale=0.02)
        yield dsn
    finally:
        subprocess.run(
            [*run, f"{bindir}/pg_ctl", "-D", str(data), "-m", "immediate", "stop"], capture_output=True
        )
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.postgres
def test_workload_from_pg_stat_statements(pg_stat_statements_dsn):
    import psycopg

    statements = [
        s
        for s in split_statements(LOG.read_text())
        if s.upper().startswith("SELECT") and "FOR UPDATE" not in s
    ]
    with psycopg.connect(pg_stat_statements_dsn, autocommit=True) as app:
        app.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        app.execute("SELECT pg_stat_statements_reset()")
        for s in statements:  # the application's workload
            app.execute(s).fetchall()
        app.execute("UPDATE loan SET status = status WHERE loan_id = 1")
    with connect(pg_stat_statements_dsn) as conn:
        snap = build(conn, profile=True)
        result = draft(
            "templates",
            snap,
            connector=conn,
            tables=FINANCIAL,
            workload="pg_stat_statements",
            schema_drafts=False,
        )
    wl = result.workload
    assert wl.distinct >= 40  # normalized texts with $n, merged by pg_stat_statements and by us
    assert any(r == "not a SELECT" for _, r in wl.skipped)
    assert result.coverage.ratio >= 0.9, result.coverage.missing
    kept = result.kept
    assert all("$" not in d.item["sql"] for d in kept)  # placeholders filled with profiled values
    assert all(d.rows for d in kept)


@pytest.mark.mariadb
def test_performance_schema_digests_on_mariadb(mariadb_samples_dsn):
    from ctxtool.draft.workload import from_performance_schema

    with connect(mariadb_samples_dsn) as conn:
        # MariaDB ships performance_schema off (and has no QUERY_SAMPLE_TEXT): a clear error says so
        try:
            rows = from_performance_schema(conn)
        except InputError as exc:
            assert "performance_schema" in str(exc) and "query log" in str(exc)
            rows = None
        snap = build(conn, profile=True)
        # the draft pipeline samples values the profile lacks (unique district names)
        model = Model(snap, tables=FINANCIAL, sampler=sampler_for(conn))
        model.values(model.table("district").column("A2"))
    # digests as MariaDB writes them: spaced tokens, backquotes, ? for every value
    digests = rows or [
        ("SELECT COUNT ( * ) FROM `loan` WHERE `status` = ?", 40),
        (
            "SELECT `a` . `account_id` FROM `account` `a` JOIN `district` `d` ON `a` . `district_id` = `d` . `district_id` WHERE `d` . `A2` = ? LIMIT ?",
            12,
        ),
        ("UPDATE `loan` SET `status` = ? WHERE `loan_id` = ?", 3),
    ]
    wl = group_statements(digests, "mysql", known_tables=FINANCIAL)
    drafts = draft_from_workload(model, wl)
    assert len(drafts) >= 2 and all(d.status != "dropped" for d in drafts)
    assert all("?" not in d.sql for d in drafts)
    assert drafts[0].item["intent"].startswith("Count of loans with status '")
    assert drafts[0].text.startswith("How many loans have status '")
    assert "in the district with district name '" in drafts[1].text
    with connect(mariadb_samples_dsn) as conn:
        execute_drafts(drafts, conn)  # a value that finds nothing is swapped for another one
    assert [d.status for d in drafts] == ["pending", "pending"] and all(d.rows for d in drafts)


@settings(max_examples=60, deadline=None)
@given(
    status=st.text(alphabet="ABCDXYZ' ", min_size=1, max_size=6),
    amount=st.integers(min_value=-(10**9), max_value=10**9),
    ids=st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=5),
)
def test_fingerprint_ignores_every_literal(status, amount, ids):
    quoted = status.replace("'", "''")
    sql = (
        f"SELECT l.loan_id FROM loan l WHERE l.status = '{quoted}' AND l.amount > {amount} "
        f"AND l.account_id IN ({', '.join(map(str, ids))}) LIMIT {len(ids)}"
    )
    base = (
        "SELECT l.loan_id FROM loan l WHERE l.status = 'A' AND l.amount > 1 AND l.account_id IN (1) LIMIT 1"
    )
    assert fingerprint(sql, "postgres") == fingerprint(base, "postgres")
    assert split_statements(sql + ";\n" + base + ";") == [" ".join(sql.split()), base]


@pytest.mark.postgres
def test_describer_survives_any_read_query(pg_model):
    model, _ = pg_model
    describe = Describer(model)
    odd = {
        "WITH big AS (SELECT account_id, SUM(amount) AS s FROM trans GROUP BY account_id) SELECT COUNT(*) FROM big": "Count of rows",
        "SELECT account_id FROM loan UNION SELECT account_id FROM disp": "Account IDs of loans or dispositions",
        # both sides reference accounts: the accounts that have both ("with a loan and a client")
        "SELECT account_id FROM loan INTERSECT SELECT account_id FROM disp": "accounts with a loan and a",
        "SELECT account_id FROM account EXCEPT SELECT account_id FROM loan WHERE status = 'A'": "with no loan with status 'A'",
        "SELECT a.account_id FROM account a WHERE a.account_id IN (SELECT account_id FROM loan)": "with a loan",
        "SELECT account_id FROM account WHERE account_id NOT IN (SELECT account_id FROM loan)": "without any loans",
        "SELECT loan_id FROM loan WHERE amount > (SELECT AVG(amount) FROM loan)": "above the average",
        "SELECT loan_id FROM loan WHERE amount = (SELECT MAX(amount) FROM loan)": "with the highest",
        "SELECT loan_id, RANK() OVER (ORDER BY amount DESC) FROM loan": "Loan IDs and rank of loans",
        "SELECT CASE WHEN amount > 100 THEN 1 ELSE 0 END FROM loan": "computed value",
        "SELECT status, COUNT(*) FROM loan GROUP BY status HAVING COUNT(*) > 5": "for each status with more than 5 loans",
        "SELECT DISTINCT frequency FROM account": "Distinct statement frequencies of accounts",
        "SELECT COUNT(*) FROM trans WHERE EXTRACT(YEAR FROM date) = 1996": "with date in 1996",
        "SELECT COUNT(*) FROM loan WHERE NOT status = 'A'": "status other than 'A'",
        "SELECT 1": "",
    }
    for sql, words in odd.items():
        text = describe(sql)
        assert text and words in text, (sql, text)


@pytest.mark.postgres
def test_workload_adds_to_the_schema_drafts(pg_samples_dsn, tmp_path):
    """A log holds what was asked so far, not all that will be: its queries rank first and the
    schema's families fill the rest, also about the tables it reads (issue 27)."""
    log = tmp_path / "log.sql"
    log.write_text("SELECT COUNT(*) FROM loan WHERE status = 'A';\nSELECT AVG(amount) FROM loan;\n")
    with connect(pg_samples_dsn) as conn:
        snap = build(conn, profile=True)
        result = draft("templates", snap, connector=conn, tables=["loan", "account"], workload=str(log))
        alone = draft("templates", snap, connector=conn, tables=["loan", "account"])
    kept = result.kept
    origins = [d.origin for d in kept]
    assert origins[0] == "workload" and "workload" in origins
    first_schema = next(i for i, o in enumerate(origins) if o.startswith("schema:"))
    assert all(o == "workload" for o in origins[:first_schema])  # the log's questions first
    assert any(d.tables == ["loan"] for d in kept if d.origin.startswith("schema:"))  # a table it reads
    schema_sql = {d.item["sql"] for d in kept if d.origin.startswith("schema:")}
    assert len(schema_sql) >= len(alone.kept) - 2  # nothing replaced (a same-SQL draft merges)
    # --max cuts the schema's drafts, never the log's
    capped = draft("templates", snap, tables=["loan", "account"], workload=str(log), max_templates=3)
    assert [d.origin for d in capped.kept][:2] == ["workload", "workload"] and len(capped.kept) == 3
