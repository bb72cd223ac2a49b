"""A small financial-like schema per engine for the connector, introspect and validate tests:
keys, a foreign key, a unique constraint, comments, a view, a mixed-case column ("A3"), and each
engine's own kind of text index (GIN gin_trgm_ops, FULLTEXT, a Spanner search index on TOKENLIST).

Created by the test modules in uniquely named databases of their own (see tests/backends.py for the
naming), through the plain drivers, and dropped afterwards.
"""

from __future__ import annotations

import datetime as dt

DISTRICTS = [
    (1, "Hl.m. Praha", "Prague", 12541),
    (2, "Benesov", "central Bohemia", 8507),
    (3, "Brno - mesto", "south Moravia", 9897),
    (4, "Brno - venkov", "south Moravia", 8743),
    (5, "Znojmo", "south Moravia", 8547),
]
FREQUENCIES = ["POPLATEK MESICNE", "POPLATEK TYDNE", "POPLATEK PO OBRATU"]
ACCOUNTS = [
    (
        i,
        1 + i % 5,
        FREQUENCIES[0] if i % 4 else FREQUENCIES[1 + i % 2],
        dt.date(1995, 1, 1) + dt.timedelta(days=7 * i),
    )
    for i in range(1, 61)
]
LOANS = [(i, i, 1000 * i, "A" if i % 3 else "B") for i in range(1, 21)]  # < 50 rows: never auto-analyzed

PG_DDL = [
    'CREATE TABLE district (district_id integer PRIMARY KEY, "A2" text NOT NULL, "A3" text, "A11" integer)',
    "COMMENT ON TABLE district IS 'Czech districts'",
    "COMMENT ON COLUMN district.\"A3\" IS 'region'",
    "CREATE TABLE account (account_id integer PRIMARY KEY, "
    "district_id integer REFERENCES district ON DELETE CASCADE, "
    "frequency text NOT NULL DEFAULT 'POPLATEK MESICNE', date date, UNIQUE (frequency, account_id))",
    "CREATE INDEX account_freq_trgm ON account USING gin (frequency gin_trgm_ops)",
    "CREATE TABLE loan (loan_id integer PRIMARY KEY, account_id integer NOT NULL REFERENCES account, "
    "amount numeric(12,2), status char(1))",
    "CREATE VIEW prague_accounts AS SELECT a.account_id, a.date FROM account a "
    "JOIN district d USING (district_id) WHERE d.\"A3\" = 'Prague'",
]

MYSQL_DDL = [
    "CREATE TABLE district (district_id INT PRIMARY KEY, A2 VARCHAR(100) NOT NULL COMMENT 'district name', "
    "A3 VARCHAR(100) COMMENT 'region', A11 INT, info JSON) COMMENT='Czech districts'",
    "CREATE TABLE account (account_id INT PRIMARY KEY, district_id INT, "
    "frequency VARCHAR(40) NOT NULL DEFAULT 'POPLATEK MESICNE', date DATE, "
    "UNIQUE KEY acc_uq (frequency, account_id), FULLTEXT KEY acc_ft (frequency), "
    "CONSTRAINT acc_district FOREIGN KEY (district_id) REFERENCES district (district_id) ON DELETE CASCADE)",
    "CREATE TABLE loan (loan_id INT PRIMARY KEY, account_id INT NOT NULL, amount DECIMAL(12,2), status CHAR(1), "
    "CONSTRAINT loan_account FOREIGN KEY (account_id) REFERENCES account (account_id))",
    "CREATE VIEW prague_accounts AS SELECT a.account_id, a.date FROM account a "
    "JOIN district d USING (district_id) WHERE d.A3 = 'Prague'",
]

SPANNER_DDL = [
    "CREATE TABLE district (district_id INT64 NOT NULL, A2 STRING(MAX) NOT NULL, A3 STRING(100), A11 INT64) "
    "PRIMARY KEY (district_id)",
    "CREATE TABLE account (district_id INT64 NOT NULL, account_id INT64 NOT NULL, "
    "frequency STRING(MAX) NOT NULL DEFAULT ('POPLATEK MESICNE'), date DATE, "
    "frequency_tokens TOKENLIST AS (TOKENIZE_NGRAMS(frequency)) HIDDEN) "
    "PRIMARY KEY (district_id, account_id), INTERLEAVE IN PARENT district ON DELETE CASCADE",
    "CREATE SEARCH INDEX account_freq_search ON account(frequency_tokens)",
    "CREATE TABLE loan (loan_id INT64 NOT NULL, district_id INT64 NOT NULL, account_id INT64 NOT NULL, "
    "amount NUMERIC, status STRING(1), "
    "CONSTRAINT loan_account FOREIGN KEY (district_id, account_id) REFERENCES account (district_id, account_id)) "
    "PRIMARY KEY (loan_id)",
    "CREATE UNIQUE INDEX loan_by_account ON loan(account_id, loan_id) STORING (amount)",
    "CREATE VIEW prague_accounts SQL SECURITY INVOKER AS SELECT a.account_id, a.date FROM account AS a "
    "JOIN district AS d ON d.district_id = a.district_id WHERE d.A3 = 'Prague'",
]

SPANNER_PG_DDL = [
    'CREATE TABLE district (district_id bigint NOT NULL PRIMARY KEY, "A2" varchar NOT NULL, "A3" varchar(100), '
    '"A11" bigint)',
    "CREATE TABLE account (district_id bigint NOT NULL, account_id bigint NOT NULL, "
    "frequency varchar NOT NULL DEFAULT 'POPLATEK MESICNE', date date, PRIMARY KEY (district_id, account_id)) "
    "INTERLEAVE IN PARENT district ON DELETE CASCADE",
    "CREATE INDEX account_by_frequency ON account(frequency)",
]


def load_pg(dsn: str, *, analyze: bool = True) -> None:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        for stmt in PG_DDL:
            conn.execute(stmt)
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO district VALUES (%s, %s, %s, %s)", DISTRICTS)
            cur.executemany("INSERT INTO account VALUES (%s, %s, %s, %s)", ACCOUNTS)
            cur.executemany("INSERT INTO loan VALUES (%s, %s, %s, %s)", LOANS)
        if analyze:
            conn.execute("ANALYZE district")
            conn.execute("ANALYZE account")


def load_mysql(conn) -> None:  # type: ignore[no-untyped-def]
    cur = conn.cursor()
    for stmt in MYSQL_DDL:
        cur.execute(stmt)
    cur.executemany(
        "INSERT INTO district (district_id, A2, A3, A11, info) VALUES (%s, %s, %s, %s, %s)",
        [(*d, '{"k": 1}' if d[0] == 1 else None) for d in DISTRICTS],
    )
    cur.executemany("INSERT INTO account VALUES (%s, %s, %s, %s)", ACCOUNTS)
    cur.executemany("INSERT INTO loan VALUES (%s, %s, %s, %s)", LOANS)
    conn.commit()


def load_spanner(database, *, pg: bool = False) -> None:  # type: ignore[no-untyped-def]
    import decimal

    def write(batch):  # type: ignore[no-untyped-def]
        districts = [(d[0], d[1], d[2], d[3]) for d in DISTRICTS]
        cols = ("district_id", "A2", "A3", "A11")
        batch.insert("district", columns=cols, values=districts)
        batch.insert(
            "account",
            columns=("district_id", "account_id", "frequency", "date"),
            values=[(a[1], a[0], a[2], a[3]) for a in ACCOUNTS],
        )
        if not pg:
            batch.insert(
                "loan",
                columns=("loan_id", "district_id", "account_id", "amount", "status"),
                values=[
                    (loan[0], ACCOUNTS[loan[1] - 1][1], loan[1], decimal.Decimal(loan[2]), loan[3])
                    for loan in LOANS
                ],
            )

    with database.batch() as batch:
        write(batch)
