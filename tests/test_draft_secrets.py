"""Secrets are never drafted nor served (issue 27): columns that hold passwords, tokens, hashes,
salts or national ids, found by name and by the shape of their values (:mod:`ctxtool.sensitive`)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli
from ctxtool.sensitive import reads_secret, secret_by_name, secret_by_values, secret_column
from tests.backends import pg_loaded
from tests.realdb_shapes import EDGE_PG_SQL


@pytest.mark.parametrize(
    "name",
    ["password", "PasswordHash", "pwd", "api_key", "apiKey", "auth_token", "secret", "salt", "ssn",
     "social_security_number", "refresh_token", "pin_hash", "private_key"],
)  # fmt: skip
def test_secret_names(name):
    assert secret_by_name(name) is not None


@pytest.mark.parametrize(
    "name",
    ["full_name", "username", "hashtag", "tokenizer_name", "keyword", "primary_key_name", "passenger",
     "salty_snack", "social_media", "card_type", "spin_rate"],
)  # fmt: skip
def test_ordinary_names(name):
    assert secret_by_name(name) is None


def test_secret_values_by_shape():
    sha1 = ["8cb2237d0679ca88db6464eac60da96345513964", "b2e98ad6f6eb8508dd6a14cfa704bad7f05f6fb1"]
    bcrypt = ["$2b$12$" + "a" * 53, "$2y$10$" + "B" * 53]
    assert secret_by_values(sha1) and secret_by_values(bcrypt)
    assert secret_by_values(["{SSHA}abcdefghijkl", "pbkdf2_sha256$260000$abc$def"])
    # controls: names, codes and short hex are not
    assert secret_by_values(["Mike Hillyer", "Jon Stephens"]) is None
    assert secret_by_values(["ff0000", "00ff00"]) is None
    assert secret_by_values([]) is None


def test_numeric_column_named_like_a_secret_word_is_kept():
    # a nutrition table's salt is grams of it; a number named "token count" is a count
    assert secret_column({"name": "salt", "type": "numeric(4,1)"}) is None
    assert secret_column({"name": "token_count", "type": "integer"}) is None
    assert secret_column({"name": "salt", "type": "text"}) is not None
    assert secret_column({"name": "ssn", "type": "bigint"}) is not None  # a national id in any type


def test_reads_secret_in_sql():
    assert reads_secret("SELECT s.password FROM staff s WHERE s.staff_id = 1", "postgres")
    assert reads_secret("SELECT full_name FROM staff WHERE password = $1", "postgres")
    assert reads_secret("SELECT full_name FROM staff", "postgres") is None
    snap = {
        "schemas": [
            {
                "name": "public",
                "tables": [
                    {
                        "name": "staff",
                        "columns": [
                            {"name": "full_name", "type": "text"},
                            {"name": "verifier", "type": "text", "profile": {"min": "$2b$12$" + "a" * 53, "max": "$2b$12$" + "z" * 53}},
                        ],
                    }
                ],
            }
        ]
    }  # fmt: skip
    assert reads_secret("SELECT verifier FROM staff", "postgres", snap)
    assert reads_secret("SELECT * FROM staff", "postgres", snap)
    assert reads_secret("SELECT COUNT(*) FROM staff", "postgres", snap) is None
    assert reads_secret("SELECT full_name FROM staff", "postgres", snap) is None


@pytest.fixture(scope="module")
def secrets_dsn(_pg15_admin):
    with pg_loaded(_pg15_admin, "ctx_secr", EDGE_PG_SQL) as dsn:
        yield dsn


@pytest.mark.postgres
def test_secrets_are_never_drafted(secrets_dsn, tmp_path):
    for kind in ("templates", "facets", "values"):
        path = tmp_path / f"{kind}.json"
        args = ["draft", kind, "--dsn", secrets_dsn, "-o", str(path)]
        if kind == "values":
            args += ["--column", "staff.password", "--column", "staff.full_name"]  # not even when named
        r = CliRunner().invoke(cli, args)
        assert r.exit_code == 0, (kind, r.output)
        text = path.read_text().lower()
        assert "password" not in text and "verifier" not in text, kind
        assert "full_name" in text or kind == "facets", kind  # control: the staff's names are drafted
        assert "password" in r.output, kind  # the report says what was skipped and why
    assert (
        "staff.verifier"
        in CliRunner()
        .invoke(cli, ["draft", "templates", "--dsn", secrets_dsn, "-o", str(tmp_path / "again.json")])
        .output
    )  # found by its values: bcrypt strings under a plain name


@pytest.mark.postgres
def test_ask_never_serves_a_secret(secrets_dsn, tmp_path):
    from ctxtool.runtime import Runtime

    # a secret known by its values only (verifier) needs the profiled snapshot the set was drafted from
    snap_path = tmp_path / "snap.json"
    r = CliRunner().invoke(cli, ["introspect", "--dsn", secrets_dsn, "--profile", "-o", str(snap_path)])
    assert r.exit_code == 0, r.output
    snap = json.loads(snap_path.read_text())

    data = {
        "templates": [
            {"nl_query": "List the passwords of all staff", "sql": "SELECT password FROM shop.staff"},
            {"nl_query": "List the verifiers of all staff", "sql": "SELECT verifier FROM shop.staff"},
            {"nl_query": "Show everything about the staff", "sql": "SELECT * FROM shop.staff"},
            {"nl_query": "List the names of all staff", "sql": "SELECT full_name FROM shop.staff"},
        ]
    }
    with Runtime(data, dsn=secrets_dsn, snapshot=snap, use_llm=False) as rt:
        for question in (
            "List the passwords of all staff",
            "List the verifiers of all staff",
            "Show everything about the staff",
        ):
            ans = rt.ask(question, action="runsql")
            assert ans.status != "answered" and not ans.rows and not ans.executed, question
            assert any("secret" in w for w in ans.warnings), (question, ans.warnings)
        control = rt.ask("List the names of all staff", action="runsql")
        assert control.status == "answered" and len(control.rows) == 4
    # without a snapshot: the schema is read when the SQL names a secret, and judged by names
    with Runtime(data, dsn=secrets_dsn, use_llm=False) as rt:
        ans = rt.ask("List the passwords of all staff", action="runsql")
        assert ans.status != "answered" and not ans.executed
        assert rt.ask("List the names of all staff", action="runsql").status == "answered"


def test_a_secret_used_only_to_join_is_not_served():
    """A key that links rows (a join, a subquery's link) never puts its values in the answer; returned,
    or compared with a constant or a parameter (which answers guesses), it does."""
    assert (
        reads_secret(
            "SELECT t1.name FROM scientists t1 JOIN assigned t2 ON t1.ssn = t2.scientist", "postgres"
        )
        is None
    )
    assert (
        reads_secret(
            "SELECT name FROM scientists WHERE ssn NOT IN (SELECT scientist FROM assigned)", "postgres"
        )
        is None
    )
    assert reads_secret("SELECT name FROM scientists WHERE ssn = $1", "postgres")
    assert reads_secret("SELECT name FROM staff WHERE lower(password) LIKE 'a%'", "postgres")
    assert reads_secret("SELECT max(password) FROM staff", "postgres")
    assert reads_secret("SELECT count(DISTINCT ssn) FROM patient", "postgres") is None  # how many, not which
    assert reads_secret("WITH x AS (SELECT password FROM staff) SELECT * FROM x", "postgres")
