"""`ctxtool serve --workers 2` as a user runs it: both workers answer and share the PostgreSQL
conversation store (every prompt of every concurrent client stored), a killed worker is replaced,
SIGTERM lets an in-flight request finish before the server exits."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.serve_support import FAST_QUESTION, ROOT, SLOW_QUESTION, SLOW_SECONDS, call, slow_set

pytestmark = pytest.mark.postgres

DISTRICTS = ["Kladno", "Pisek", "Beroun", "Kolin", "Tabor"]


class Served:
    """A `ctxtool serve` subprocess; its stderr is read on a thread (the banner gives the port)."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ctxtool", "serve", "--port", "0", *args],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            cwd=ROOT,
        )
        self.lines: list[str] = []
        self._port = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        if not self._port.wait(90):
            self.stop()
            raise AssertionError("no banner:\n" + "".join(self.lines))
        port = re.search(r"http://127\.0\.0\.1:(\d+)", "".join(self.lines)).group(1)  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}"

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)
            if "serving " in line:
                self._port.set()

    def pids(self, want: int, seconds: float = 60) -> set[int]:
        """Worker pids seen on /health (new connections spread over the workers) until ``want``."""
        seen: set[int] = set()
        deadline = time.monotonic() + seconds
        while len(seen) < want and time.monotonic() < deadline:
            try:
                seen.add(call(self.url + "/health", timeout=5)[1]["pid"])
            except OSError:
                time.sleep(0.1)
        return seen

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def test_two_workers_share_conversations_replace_the_dead_and_drain(financial_dsn, tmp_path):
    from ctxtool.conversations.store import open_store

    path = slow_set(tmp_path / "slow.json")
    server = Served(
        "--workers", "2", "--context", str(path), "--dsn", financial_dsn, "--no-llm",
        "--conversation-store", financial_dsn, "--pool-size", "4", "--quiet",
    )  # fmt: skip
    try:
        first = server.pids(2)
        assert len(first) == 2, server.lines

        # concurrent clients, each in its own named conversation, spread over both workers
        with open_store(financial_dsn) as store:
            cids = [store.create_conversation(f"client {i}").conversation_id for i in range(8)]

        def client(cid: str) -> list[int]:
            codes = []
            for d in DISTRICTS:
                q = f"How many clients live in the district {d}?"
                codes.append(call(server.url + "/ask", {"question": q, "conversation_id": cid})[0])
            return codes

        with ThreadPoolExecutor(8) as ex:
            codes = [c for cs in ex.map(client, cids) for c in cs]
        assert codes == [200] * 40
        with open_store(financial_dsn) as store:
            for cid in cids:
                turns = store.list_prompts(cid)
                assert [t.prompt for t in turns] == [
                    f"How many clients live in the district {d}?" for d in DISTRICTS
                ]
                assert {t.client_identifier for t in turns} == {"ctxtool serve"}
            assert len({t.sid for cid in cids for t in store.list_prompts(cid)}) == 2  # both workers wrote

        # a killed worker is replaced; the server answers meanwhile
        victim = sorted(first)[0]
        os.kill(victim, signal.SIGKILL)
        now = server.pids(2, seconds=60) - {victim}
        deadline = time.monotonic() + 60
        while len(now) < 2 and time.monotonic() < deadline:
            now |= server.pids(2, seconds=5) - {victim}
        assert len(now) == 2 and victim not in now and now & first, (first, now)
        assert call(server.url + "/ask", {"question": FAST_QUESTION})[0] == 200

        # SIGTERM: the request in flight is answered, then the server exits
        slow: dict = {}

        def ask_slow() -> None:
            slow["reply"] = call(server.url + "/ask", {"question": SLOW_QUESTION})

        thread = threading.Thread(target=ask_slow)
        thread.start()
        time.sleep(0.5)
        server.proc.send_signal(signal.SIGTERM)
        thread.join(timeout=30)
        status, ans = slow["reply"]
        assert status == 200 and ans["status"] == "answered" and ans["rows"] == [[""]], ans
        assert server.proc.wait(timeout=30) == 0, server.lines
        with pytest.raises(OSError):
            call(server.url + "/health", timeout=2)
    finally:
        server.stop()
    assert SLOW_SECONDS >= 1  # the drain above waited for a query of this length


def test_serve_reports_a_bad_set_in_one_line(financial_dsn, tmp_path):
    proc = subprocess.run(
        [
            sys.executable, "-m", "ctxtool", "serve", "--workers", "2", "--port", "0",
            "--set", "nosuch", "--store", str(tmp_path / "sets.sqlite"), "--dsn", financial_dsn,
        ],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert "no published set named 'nosuch'" in proc.stderr
    wrong_db = financial_dsn.rsplit("/", 1)[0] + "/ctx_no_such_db"
    proc = subprocess.run(
        [sys.executable, "-m", "ctxtool", "serve", "--port", "0", "--context", str(ROOT / "samples/postgres/financial_runtime.json"), "--dsn", wrong_db],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 3 and "Traceback" not in proc.stderr  # EXIT_DATABASE
    assert "the database does not exist" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_every_worker_follows_the_shared_postgresql_set_store(financial_dsn, tmp_path):
    from ctxtool.store import open_store, publish
    from tests.rt_support import RUNTIME_SET

    v1 = publish(RUNTIME_SET, "team", financial_dsn)  # the set store: a schema of this database
    server = Served(
        "--workers", "2", "--set", "team", "--store", financial_dsn, "--dsn", financial_dsn, "--no-llm",
        "--conversation-store", financial_dsn, "--reload-interval", "0.3", "--quiet",
    )  # fmt: skip
    try:

        def versions(want: int, seconds: float = 30) -> dict[int, int]:
            """Worker pid -> version served, until both workers serve ``want``."""
            seen: dict[int, int] = {}
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                health = call(server.url + "/health")[1]
                seen[health["pid"]] = health["version"]
                if len(seen) == 2 and set(seen.values()) == {want}:
                    break
            return seen

        assert set(versions(1).values()) == {1}
        v2 = publish(slow_set(tmp_path / "v2.json", seconds=0.01), "team", financial_dsn)
        assert set(versions(2).values()) == {2} and v2.content_hash != v1.content_hash
        assert call(server.url + "/ask", {"question": SLOW_QUESTION})[1]["status"] == "answered"
        with open_store(financial_dsn) as st:
            st.rollback("team", 1)
        assert set(versions(3).values()) == {3}
        health = call(server.url + "/health")[1]
        assert health["content_hash"] == v1.content_hash and health["templates"] == 38
    finally:
        server.stop()


def test_one_worker_drains_on_sigterm_too(financial_dsn, tmp_path):
    server = Served(
        "--context", str(slow_set(tmp_path / "slow.json")), "--dsn", financial_dsn, "--no-llm", "--quiet"
    )
    try:
        slow: dict = {}
        thread = threading.Thread(
            target=lambda: slow.update(reply=call(server.url + "/ask", {"question": SLOW_QUESTION}))
        )
        thread.start()
        time.sleep(0.5)
        server.proc.send_signal(signal.SIGTERM)
        thread.join(timeout=30)
        assert slow["reply"][0] == 200 and slow["reply"][1]["status"] == "answered", slow
        assert server.proc.wait(timeout=30) == 0, server.lines
    finally:
        server.stop()


def test_mcp_over_http_beside_the_api_with_the_same_token(financial_dsn):
    """`serve --token` also answers MCP (streamable HTTP) at /mcp in every worker: the runtime tools of
    the served set, behind the API's bearer token; driven by the MCP Python SDK's HTTP client."""
    from tests.mcp_client import http
    from tests.rt_support import RUNTIME_SET

    token = "team-token"
    server = Served(
        "--workers", "2", "--context", str(ROOT / RUNTIME_SET), "--dsn", financial_dsn, "--no-llm",
        "--token", token, "--quiet",
    )  # fmt: skip
    try:
        assert call(server.url + "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})[0] == 401
        assert call(server.url + "/ask", {"question": FAST_QUESTION}, token=token)[0] == 200
        for _ in range(3):  # new connections land on either worker
            with http(server.url + "/mcp", token) as client:
                assert {"ask", "query_data", "list_templates", "describe_schema"} == set(client.tools())
                answer = client.ok("ask", {"question": "How many gold cards were issued?"})
                assert answer["status"] == "answered" and answer["params"] == ["gold"]
        with pytest.raises(BaseException):  # noqa: B017 - the SDK raises its transport error in a group
            with http(server.url + "/mcp", "wrong") as client:
                client.tools()
    finally:
        server.stop()
