"""Published sets: immutable versions, hashes, diff, rollback, refs, concurrency (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import threading

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli
from ctxtool.errors import InputError
from ctxtool.store import PublishRejected, content_hash, diff_sets, load_set, open_store, publish

SET = {
    "templates": [
        {
            "nl_query": "How many accounts are in Prague?",
            "sql": "SELECT COUNT(*) FROM account a JOIN district d ON a.district_id = d.district_id WHERE d.\"A3\" = 'Prague'",
            "manifest": "How many accounts are in a given region?",
            "parameterized": {
                "parameterized_intent": "How many accounts are in $1?",
                "parameterized_sql": 'SELECT COUNT(*) FROM account a JOIN district d ON a.district_id = d.district_id WHERE d."A3" = $1',
            },
        }
    ]
}


def _changed(data: dict, question: str) -> dict:
    out = json.loads(json.dumps(data))
    sql = "SELECT COUNT(*) FROM loan"
    out["templates"].append(
        {
            "nl_query": question,
            "sql": sql,
            "manifest": question,
            "parameterized": {"parameterized_intent": question, "parameterized_sql": sql},
        }
    )
    return out


@pytest.fixture
def sqlite_store(tmp_path):
    with open_store(tmp_path / "sets.sqlite") as st:
        yield st


def test_publish_creates_numbered_immutable_versions(sqlite_store, tmp_path):
    path = tmp_path / "fin.json"
    path.write_text(json.dumps(SET))
    v1 = publish(str(path), "fin", sqlite_store, who="alice")
    v2 = publish(_changed(SET, "How many loans are there?"), "fin", sqlite_store, who="bob", note="more")
    assert (v1.version, v2.version) == (1, 2)
    assert v1.content_hash == content_hash(SET) and v1.content_hash != v2.content_hash
    assert v1.created_by == "alice" and v2.note == "more" and v1.dialect == "postgres"
    assert v1.source == str(path)
    # version 1 is still exactly what was published
    again = sqlite_store.get("fin", 1)
    assert again.data == SET and again.content_hash == v1.content_hash
    assert sqlite_store.get("fin").version == 2
    assert [v.version for v in sqlite_store.versions("fin")] == [1, 2]
    assert [v.ref for v in sqlite_store.names()] == ["fin@2"]


def test_rollback_publishes_old_content_as_new_version(sqlite_store):
    publish(SET, "fin", sqlite_store)
    publish(_changed(SET, "How many loans are there?"), "fin", sqlite_store)
    v3 = sqlite_store.rollback("fin", 1, who="carol")
    assert v3.version == 3 and v3.data == SET and v3.source == "rollback:fin@1"
    assert sqlite_store.get("fin").content_hash == content_hash(SET)
    assert len(sqlite_store.versions("fin")) == 3


def test_diff_names_added_removed_and_changed_items():
    new = _changed(SET, "How many loans are there?")
    new["templates"][0]["sql"] = "SELECT 1"
    changes = diff_sets(SET, new)
    assert {(c["change"], c["key"]) for c in changes} == {
        ("changed", "How many accounts are in Prague?"),
        ("added", "How many loans are there?"),
    }
    assert next(c for c in changes if c["change"] == "changed")["fields"] == ["sql"]
    assert diff_sets(SET, SET) == []


def test_invalid_set_is_rejected_and_nothing_stored(sqlite_store):
    bad = {"templates": [{"nl_query": "x", "sql": "SELEC oops FROM"}]}
    with pytest.raises(PublishRejected) as exc:
        publish(bad, "bad", sqlite_store)
    assert exc.value.exit_code == 1 and exc.value.findings
    with pytest.raises(InputError, match="no published set named 'bad'"):
        sqlite_store.get("bad")
    with pytest.raises(PublishRejected, match="no template"):
        publish({"facets": []}, "empty", sqlite_store)


def test_names_and_refs_are_checked(sqlite_store):
    with pytest.raises(InputError, match="invalid set name"):
        publish(SET, "bad name!", sqlite_store)
    publish(SET, "fin", sqlite_store)
    with pytest.raises(InputError, match="no version 7.*versions: 1"):
        sqlite_store.get("fin", 7)
    with pytest.raises(InputError, match="NAME@VERSION"):
        load_set("fin@latest", sqlite_store)


def test_load_set_by_name_version_and_path(sqlite_store, tmp_path):
    publish(SET, "fin", sqlite_store)
    publish(_changed(SET, "How many loans are there?"), "fin", sqlite_store)
    assert load_set("fin", sqlite_store).ref == "fin@2"
    assert load_set("fin@1", sqlite_store).data == SET
    path = tmp_path / "x.json"
    path.write_text(json.dumps(SET))
    loaded = load_set(str(path))
    assert loaded.data == SET and loaded.ref == str(path) and loaded.version is None


def test_concurrent_publishes_get_distinct_versions_sqlite(tmp_path):
    db = tmp_path / "shared.sqlite"
    open_store(db).close()
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            with open_store(db) as st:
                for j in range(5):
                    st.publish(_changed(SET, f"q {i} {j}"), "fin", who=f"w{i}")
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    with open_store(db) as st:
        assert [v.version for v in st.versions("fin")] == list(range(1, 31))


def test_migrations_are_recorded_once(tmp_path):
    db = tmp_path / "m.sqlite"
    st = open_store(db)
    assert st.migrate() == []  # already applied when opened
    st.close()
    import sqlite3

    with sqlite3.connect(db) as conn:
        assert [r[0] for r in conn.execute("SELECT version FROM ctx_store_migrations ORDER BY 1")] == [1, 2]


def test_default_store_lives_in_the_data_directory(data_home):
    publish(SET, "fin")
    assert (data_home / "sets.sqlite").is_file()
    assert load_set("fin").ref == "fin@1"


def test_cli_publish_list_show_diff_rollback(tmp_path, data_home):
    path = tmp_path / "fin.json"
    path.write_text(json.dumps(SET))
    path2 = tmp_path / "fin2.json"
    path2.write_text(json.dumps(_changed(SET, "How many loans are there?")))
    run = CliRunner().invoke
    r = run(cli, ["publish", str(path), "--name", "fin", "--who", "alice"])
    assert r.exit_code == 0, r.output
    assert "published fin@1" in r.output
    assert run(cli, ["publish", str(path2), "--name", "fin"]).exit_code == 0
    r = run(cli, ["sets", "list", "--format", "json"])
    assert [x["version"] for x in json.loads(r.output)] == [2]
    r = run(cli, ["sets", "list", "fin"])
    assert "fin@1" in r.output and "alice" in r.output
    r = run(cli, ["sets", "show", "fin@1"])
    assert json.loads(r.output) == SET
    r = run(cli, ["sets", "diff", "fin", "1", "2"])
    assert r.exit_code == 1 and "+ templates: How many loans are there?" in r.output
    r = run(cli, ["sets", "rollback", "fin", "1"])
    assert r.exit_code == 0 and "fin@3" in r.output
    assert run(cli, ["sets", "diff", "fin", "1", "3"]).exit_code == 0
    r = run(cli, ["sets", "show", "nope"])
    assert r.exit_code == 2 and "no published set named 'nope'" in r.output
    bad = tmp_path / "bad.json"
    bad.write_text('{"templates": [{"nl_query": "x", "sql": "SELEC oops"}]}')
    r = run(cli, ["publish", str(bad), "--name", "bad"])
    assert r.exit_code == 1


# -------------------------------------------------------------------------- PostgreSQL shared store


@pytest.fixture
def pg_store_dsn(_pg15_admin):
    import secrets

    from tests.backends import _with_database

    schema = f"ctx_store_{secrets.token_hex(4)}"
    dsn = _with_database(_pg15_admin, "postgres") + f"?schema={schema}"
    yield dsn
    import psycopg

    with psycopg.connect(_pg15_admin, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def test_postgres_store_shared_by_concurrent_runtimes(pg_store_dsn):
    errors: list[BaseException] = []
    barrier = threading.Barrier(5)

    def worker(i: int) -> None:
        try:
            barrier.wait()
            with open_store(pg_store_dsn) as st:  # each opens (and migrates) concurrently
                for j in range(4):
                    st.publish(_changed(SET, f"q {i} {j}"), "fin", who=f"w{i}")
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    with open_store(pg_store_dsn) as st:
        versions = st.versions("fin")
        assert [v.version for v in versions] == list(range(1, 21))
        assert st.get("fin", 20).data is not None
        v = st.rollback("fin", 1)
        assert v.version == 21 and v.data == st.get("fin", 1).data
    assert load_set("fin@21", pg_store_dsn).version.source == "rollback:fin@1"


def test_postgres_store_cli(pg_store_dsn, tmp_path):
    path = tmp_path / "fin.json"
    path.write_text(json.dumps(SET))
    run = CliRunner().invoke
    r = run(cli, ["publish", str(path), "--name", "fin", "--store", pg_store_dsn])
    assert r.exit_code == 0, r.output
    r = run(cli, ["sets", "list", "--store", pg_store_dsn])
    assert "fin@1" in r.output


def test_bad_store_location_is_a_usage_error():
    with pytest.raises(InputError, match="unsupported store"):
        open_store("mysql://root@127.0.0.1/x")
