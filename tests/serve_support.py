"""Helpers for the server tests: a set with a slow template, HTTP calls, a server on a free port."""

from __future__ import annotations

import contextlib
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.rt_support import RUNTIME_SET

ROOT = Path(__file__).resolve().parent.parent
SLOW_QUESTION = "Run the sleepy audit report"
SLOW_SECONDS = 1.5
FAST_QUESTION = "How many clients live in the district Kladno?"


def slow_set(path: Path, seconds: float = SLOW_SECONDS) -> Path:
    """The runtime set plus one template whose query sleeps ``seconds`` on the server."""
    data = json.loads((ROOT / RUNTIME_SET).read_text())
    sql = f"SELECT pg_sleep({seconds})::text AS slept"
    data["templates"].append(
        {
            "nl_query": SLOW_QUESTION,
            "sql": sql,
            "manifest": SLOW_QUESTION,
            "parameterized": {"parameterized_intent": SLOW_QUESTION, "parameterized_sql": sql},
        }
    )
    path.write_text(json.dumps(data))
    return path


def call(url: str, body: Any = None, token: str | None = None, timeout: float = 30) -> tuple[int, dict]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET")
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@contextlib.contextmanager
def running(app: Any) -> Iterator[str]:
    """``app`` served on a free loopback port in a thread; yields its base URL."""
    from ctxtool.server.http import AppServer

    server = AppServer(app, "127.0.0.1", 0)
    thread = server.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def serve_config(dsn: str, **kw: Any) -> Any:
    """A ServeConfig for ``dsn`` with the runtime options of `ctxtool serve` (no language model)."""
    from ctxtool.server.workers import ServeConfig

    runtime = {
        "set_ref": None,
        "context_file": str(ROOT / RUNTIME_SET),
        "store": None,
        "dsn": dsn,
        "dialect": None,
        "threshold": None,
        "row_cap": 1000,
        "timeout": 5.0,
        "object_list": None,
        "no_llm": True,
    }
    runtime.update(kw.pop("runtime", {}))
    kw.setdefault("quiet", True)
    return ServeConfig(runtime=runtime, **kw)
