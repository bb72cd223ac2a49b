"""The server on pooled sessions, in-process: a slow query does not hold up a fast one; the pools keep
the read-only guarantees and replace dead sessions; /ready says when the database or a store is down;
a published set is followed to its newest version (and a rollback); extra ASGI apps mount."""

from __future__ import annotations

import threading
import time

import pytest

from ctxtool.server.http import create_app
from ctxtool.server.workers import build_service, close_service
from tests.serve_support import (
    FAST_QUESTION,
    SLOW_QUESTION,
    SLOW_SECONDS,
    call,
    running,
    serve_config,
    slow_set,
)


@pytest.fixture
def slow_service(financial_dsn, tmp_path):
    path = slow_set(tmp_path / "slow.json")
    service = build_service(serve_config(financial_dsn, runtime={"context_file": str(path)}, pool_size=4))
    yield service
    close_service(service)


@pytest.mark.postgres
def test_a_slow_query_does_not_hold_up_a_fast_one(slow_service):
    with running(create_app(slow_service, token="t0k")) as url:
        assert call(url + "/ask", {"question": FAST_QUESTION}, token="t0k")[0] == 200  # warm
        slow: dict = {}

        def ask_slow() -> None:
            t = time.perf_counter()
            slow["answer"] = call(url + "/ask", {"question": SLOW_QUESTION}, token="t0k")
            slow["seconds"] = time.perf_counter() - t

        threads = [threading.Thread(target=ask_slow) for _ in range(2)]  # two slow ones beside
        for t in threads:
            t.start()
        time.sleep(0.3)
        fast = []
        for _ in range(3):
            t = time.perf_counter()
            status, ans = call(url + "/ask", {"question": FAST_QUESTION}, token="t0k")
            fast.append(time.perf_counter() - t)
            assert status == 200 and ans["status"] == "answered" and ans["rows"], ans
        still_running = any(t.is_alive() for t in threads)
        for t in threads:
            t.join()
    assert still_running, "the slow queries ended before the fast ones were asked: the test proves nothing"
    assert max(fast) < 0.8, f"fast questions took {fast} beside two {SLOW_SECONDS} s queries"
    status, ans = slow["answer"]
    assert status == 200 and ans["sql"].startswith("SELECT pg_sleep") and slow["seconds"] >= SLOW_SECONDS


@pytest.mark.postgres
def test_postgres_pool_is_read_only_and_replaces_killed_sessions(financial_dsn):
    import psycopg

    from ctxtool.connectors.pool import PooledConnector
    from ctxtool.errors import DatabaseError

    pool = PooledConnector(financial_dsn, size=3, statement_timeout=0.5, row_cap=5)
    try:
        assert pool.query("SELECT current_setting('transaction_read_only')").rows == [("on",)]
        with pytest.raises(DatabaseError, match="read-only"):
            pool.query("CREATE TABLE pool_probe (a int)")
        with pytest.raises(DatabaseError, match="statement timeout"):
            pool.query("SELECT pg_sleep(2)")
        capped = pool.query("SELECT g FROM generate_series(1, 50) g")
        assert len(capped.rows) == 5 and capped.truncated
        pids = {pool.query("SELECT pg_backend_pid()").rows[0][0] for _ in range(5)}
        with psycopg.connect(financial_dsn, autocommit=True) as admin:  # an admin kills every session
            admin.execute("SELECT pg_terminate_backend(p) FROM unnest(%s::int[]) p", (list(pids),))
        assert pool.query("SELECT 41 + 1").rows == [(42,)]  # served by a fresh session
        assert pool.query("SELECT pg_backend_pid()").rows[0][0] not in pids
        assert pool.stats()["open"] <= 3
    finally:
        pool.close()


@pytest.mark.mariadb
def test_mariadb_pool_runs_statements_side_by_side_and_keeps_the_guarantees(mariadb_dsn):
    from ctxtool.connectors.pool import PooledConnector
    from ctxtool.errors import DatabaseError
    from tests.backends import _mysql_connect

    pool = PooledConnector(mariadb_dsn, size=3, statement_timeout=0.5, row_cap=5)
    try:
        slow: list[float] = []

        def sleep() -> None:
            with pool.session() as c, pytest.raises(DatabaseError, match="timeout|interrupted"):
                c.query("SELECT SLEEP(2)")  # cut by the statement timeout
            slow.append(time.perf_counter())

        started = time.perf_counter()
        thread = threading.Thread(target=sleep)
        thread.start()
        time.sleep(0.1)
        assert pool.query("SELECT 1").rows == [(1,)]
        fast = time.perf_counter()
        thread.join()
        assert fast < slow[0] and 0.5 <= slow[0] - started < 1.9, (fast - started, slow[0] - started)
        with pytest.raises(DatabaseError):
            pool.query("CREATE TABLE pool_probe (a int)")
        assert len(pool.query("SELECT seq FROM seq_1_to_50").rows) == 5
        ids = {pool.query("SELECT CONNECTION_ID()").rows[0][0] for _ in range(4)}
        admin = _mysql_connect()
        try:
            for i in ids:
                admin.cursor().execute(f"KILL {int(i)}")
        finally:
            admin.close()
        assert pool.query("SELECT 2").rows == [(2,)]  # the dead session is dropped, the query retried
        assert pool.stats()["open"] <= 3
    finally:
        pool.close()


@pytest.mark.postgres
def test_health_and_ready_with_a_dead_database_and_a_dead_store(financial_dsn, tmp_path):
    dead = "postgresql://postgres@127.0.0.1:1/nowhere"
    service = build_service(
        serve_config(dead, conversation_store=str(tmp_path / "conversations.sqlite"), pool_size=2)
    )
    try:
        with running(create_app(service, token="x")) as url:
            status, health = call(url + "/health")  # no token needed: probes carry none
            assert status == 200 and health["status"] == "ok" and health["templates"] > 30
            t = time.perf_counter()
            status, ready = call(url + "/ready")
            assert time.perf_counter() - t < 5
            assert status == 503 and ready["status"] == "not ready"
            assert (
                not ready["checks"]["database"]["ok"]
                and "127.0.0.1:1" in ready["checks"]["database"]["error"]
            )
            assert ready["checks"]["conversation_store"]["ok"]
            t = time.perf_counter()
            status, err = call(url + "/ask", {"question": FAST_QUESTION}, token="x")
            assert status == 503 and "no database session" in err["error"]["message"]
            assert time.perf_counter() - t < 2  # known down: the request is not held for the pool timeout
    finally:
        close_service(service)
    service = build_service(serve_config(financial_dsn, conversation_store=dead))
    try:
        with running(create_app(service)) as url:
            status, ready = call(url + "/ready")
            assert status == 503 and ready["checks"]["database"]["ok"]
            assert not ready["checks"]["conversation_store"]["ok"]
            assert "conversation store" in ready["checks"]["conversation_store"]["error"]
    finally:
        close_service(service)
    service = build_service(serve_config(financial_dsn, conversation_store=str(tmp_path / "c.sqlite")))
    try:
        with running(create_app(service)) as url:
            status, ready = call(url + "/ready")
            assert status == 200 and ready["status"] == "ready", ready
    finally:
        close_service(service)


@pytest.mark.postgres
def test_follows_the_published_set_and_a_rollback(financial_dsn, tmp_path):
    from ctxtool.store import open_store, publish
    from tests.rt_support import RUNTIME_SET

    store = str(tmp_path / "sets.sqlite")
    v1 = publish(RUNTIME_SET, "fin", store)
    service = build_service(
        serve_config(
            financial_dsn,
            runtime={"set_ref": "fin", "context_file": None, "store": store},
            reload_interval=0.2,
        )
    )
    seen: list[tuple[str, int]] = []
    stop = threading.Event()
    try:
        with running(create_app(service)) as url:
            health = call(url + "/health")[1]
            assert (health["set"], health["version"], health["content_hash"]) == ("fin@1", 1, v1.content_hash)
            assert call(url + "/ask", {"question": SLOW_QUESTION})[1]["status"] != "answered"

            def watch() -> None:  # every answer comes from one whole version
                while not stop.is_set():
                    _, t = call(url + "/templates")
                    seen.append(len(t["templates"]))

            watcher = threading.Thread(target=watch)
            watcher.start()
            v2 = publish(slow_set(tmp_path / "v2.json", seconds=0.01), "fin", store, note="adds a report")
            health = _wait_for(url, 2)
            assert health["set"] == "fin@2" and health["content_hash"] == v2.content_hash
            assert health["templates"] == 39 and health["follow"]["error"] is None
            ans = call(url + "/ask", {"question": SLOW_QUESTION})[1]
            assert ans["status"] == "answered" and ans["sql"].startswith("SELECT pg_sleep")
            with open_store(store) as st:
                st.rollback("fin", 1)
            health = _wait_for(url, 3)
            assert health["content_hash"] == v1.content_hash and health["templates"] == 38
            assert call(url + "/ask", {"question": SLOW_QUESTION})[1]["status"] != "answered"
            stop.set()
            watcher.join()
    finally:
        stop.set()
        close_service(service)
    assert set(seen) <= {38, 39} and 39 in seen, set(seen)


def _wait_for(url: str, version: int, seconds: float = 10) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        health = call(url + "/health")[1]
        if health["version"] == version:
            return health
        time.sleep(0.05)
    raise AssertionError(f"still serving {health['set']} after {seconds} s")


@pytest.mark.postgres
def test_a_broken_version_is_skipped_and_reported(financial_dsn, tmp_path, data_home):
    from ctxtool.store import open_store, publish
    from tests.rt_support import RUNTIME_SET

    store = str(tmp_path / "sets.sqlite")
    publish(RUNTIME_SET, "fin", store)
    service = build_service(
        serve_config(
            financial_dsn,
            runtime={"set_ref": "fin", "context_file": None, "store": store},
            reload_interval=60,
        )
    )
    try:
        with open_store(store) as st:  # a MySQL-placeholder set cannot run on PostgreSQL
            st.publish({"templates": [{"nl_query": "x", "sql": "SELECT ?"}]}, "fin", dialect="mysql")
        follower = service.follower
        assert follower is not None and follower.poll() is False
        assert "fin@2 was not loaded, still serving fin@1" in follower.load_error
        assert service.health()["set"] == "fin@1"
        assert service.ready()[0]  # the store answers: still ready, on the version it has
    finally:
        close_service(service)


@pytest.mark.postgres
def test_mounted_app_gets_its_lifespan_and_the_token(financial_dsn):
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    events: list[str] = []

    def factory(service):  # what the MCP app factory looks like: it takes the Service
        from contextlib import asynccontextmanager

        @asynccontextmanager
        async def lifespan(app):
            events.append("start")
            yield
            events.append("stop")

        async def hello(request):
            return JSONResponse({"set": service.runtime.ref})

        return Starlette(routes=[Route("/", hello, methods=["GET", "POST"])], lifespan=lifespan)

    service = build_service(serve_config(financial_dsn))
    try:
        with running(create_app(service, token="tok", mounts={"/extra": factory})) as url:
            assert events == ["start"]
            assert call(url + "/extra/")[0] == 401
            status, body = call(url + "/extra/", token="tok")
            assert status == 200 and body["set"].endswith("financial_runtime.json")
            assert (
                call(url + "/extra", {"posted": True}, token="tok")[0] == 200
            )  # the mount's root, no redirect
        assert events == ["start", "stop"]
    finally:
        close_service(service)


@pytest.mark.spanner
def test_spanner_statements_run_side_by_side_on_one_shared_connector(spanner_dsn):
    """Spanner needs no pool of ours: the client's session pool is thread-safe, each statement a snapshot."""
    from concurrent.futures import ThreadPoolExecutor

    from ctxtool.connectors.pool import PooledConnector

    pool = PooledConnector(spanner_dsn, size=4)
    try:
        with ThreadPoolExecutor(8) as ex:
            rows = list(ex.map(lambda i: pool.query("SELECT ? AS n", [i]).rows, range(16)))
        assert rows == [[(i,)] for i in range(16)]
        assert pool.dialect == "spanner" and pool.stats()["engine"] == "spanner"
    finally:
        pool.close()


@pytest.mark.postgres
def test_the_server_comes_back_with_its_database(financial_dsn, tmp_path):
    """The database goes away (a restart) and comes back: requests fail fast meanwhile (503) and
    are answered again afterwards, without restarting the server."""
    from urllib.parse import urlsplit

    from tests.serve_support import TcpProxy

    proxy = TcpProxy(("127.0.0.1", urlsplit(financial_dsn).port or 5432))
    proxy.up()
    via_proxy = financial_dsn.replace(f":{urlsplit(financial_dsn).port}/", f":{proxy.port}/")
    service = build_service(
        serve_config(via_proxy, conversation_store=str(tmp_path / "c.sqlite"), pool_size=3)
    )
    try:
        with running(create_app(service)) as url:
            assert call(url + "/ask", {"question": FAST_QUESTION})[1]["status"] == "answered"
            proxy.down()
            status, err = call(url + "/ask", {"question": FAST_QUESTION})
            assert status == 503 and "no database session" in err["error"]["message"], err
            assert call(url + "/ready")[0] == 503
            proxy.up()
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                status, ans = call(url + "/ask", {"question": FAST_QUESTION})
                if status == 200:
                    break
                time.sleep(0.2)
            assert status == 200 and ans["status"] == "answered" and ans["rows"], ans
            assert call(url + "/ready")[0] == 200
    finally:
        close_service(service)
        proxy.down()


@pytest.mark.postgres
def test_concurrent_requests_get_the_answers_they_get_alone(financial_dsn):
    """No request sees another's state: answers asked from 8 threads at once are the answers asked
    one by one (SQL, values, explanation, rows)."""
    import json as _json
    import sys
    from concurrent.futures import ThreadPoolExecutor

    from tests.rt_support import GOLDEN
    from tests.serve_support import ROOT

    questions = [g["nlq"] for g in _json.loads((ROOT / GOLDEN).read_text())][:40]
    service = build_service(serve_config(financial_dsn, pool_size=8))
    keys = ("status", "sql", "params", "explanation", "linked_values", "rows", "warnings")
    try:
        alone = [{k: service.ask({"question": q}).get(k) for k in keys} for q in questions]
        interval = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)  # threads switch all the time: a shared scratch state would show
        try:
            with ThreadPoolExecutor(8) as ex:
                together = list(ex.map(lambda q: service.ask({"question": q}), questions * 5))
        finally:
            sys.setswitchinterval(interval)
    finally:
        close_service(service)
    assert sum(a["status"] == "answered" for a in alone) > 20
    for i, ans in enumerate(together):
        assert {k: ans.get(k) for k in keys} == alone[i % len(questions)], questions[i % len(questions)]


@pytest.mark.postgres
def test_conversation_store_connections_are_per_request_and_replaced_when_killed(financial_dsn):
    """Named conversations on the PostgreSQL store: concurrent clients write side by side (each
    request its own store connection), every prompt is stored, and a killed store connection is
    replaced (one request fails, the next ones are stored)."""
    import psycopg

    from ctxtool.conversations.model import ConversationNotFound

    service = build_service(serve_config(financial_dsn, conversation_store=financial_dsn, pool_size=4))
    try:
        store = service.store()
        cids = [store.create_conversation(f"c{i}").conversation_id for i in range(6)]

        def client(cid: str) -> None:
            for d in ("Kladno", "Pisek", "Beroun"):
                q = f"How many clients live in the district {d}?"
                assert service.ask({"question": q, "conversation_id": cid})["status"] == "answered"

        threads = [threading.Thread(target=client, args=(c,)) for c in cids]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert [len(store.list_prompts(c)) for c in cids] == [3] * 6
        assert 1 < len(service._spare_stores) <= len(cids)  # side by side, at most one per thread
        spare = len(service._spare_stores)
        for _ in range(3):  # a 404 gives its store back
            with pytest.raises(ConversationNotFound):
                service.ask({"question": FAST_QUESTION, "conversation_id": "no-such-conversation"})
        assert len(service._spare_stores) == spare
        pids = [st.conn.info.backend_pid for st in service._spare_stores]
        with psycopg.connect(financial_dsn, autocommit=True) as admin:  # an admin kills them all
            admin.execute("SELECT pg_terminate_backend(p) FROM unnest(%s::int[]) p", (pids,))
        outcomes = []
        for _ in range(6):
            try:
                service.ask({"question": FAST_QUESTION, "conversation_id": cids[0]})
                outcomes.append("stored")
            except Exception as exc:  # noqa: BLE001 - a dead store connection fails its request
                outcomes.append(type(exc).__name__)
        assert outcomes[-2:] == ["stored", "stored"], outcomes
    finally:
        close_service(service)
