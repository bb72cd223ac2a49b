"""Shared test fixtures. Database fixtures talk to real servers; see tests/backends.py."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

_OWN_CACHE: list[str] = []


def pytest_configure(config):
    """One cache directory per test session (compiled sets, the encoder's optimized graph): shared by
    the tests of the session, never the user's own; removed at the end."""
    # The tests connect as the servers' superusers: the start-up privilege warning (a line on stderr
    # that would interleave with the JSON some tests read) is tested on its own, with roles made for it,
    # in tests/test_connectors_privileges.py.
    os.environ.setdefault("CTXTOOL_NO_PRIVILEGE_WARNING", "1")
    if not os.environ.get("CTXTOOL_CACHE"):
        _OWN_CACHE.append(tempfile.mkdtemp(prefix="ctxtool-test-cache-"))
        os.environ["CTXTOOL_CACHE"] = _OWN_CACHE[0]


def pytest_unconfigure(config):
    for path in _OWN_CACHE:
        shutil.rmtree(path, ignore_errors=True)


def backend_unavailable(name: str, reason: str) -> None:
    """Skip a test whose backend is missing, unless CI requires every present backend
    (``CTXTOOL_REQUIRE_BACKENDS=1``), in which case a missing backend that should be there fails."""
    if os.environ.get("CTXTOOL_REQUIRE_BACKENDS") == "1":
        pytest.fail(f"{name} is required here but unavailable: {reason}")
    pytest.skip(f"{name} unavailable: {reason}")


@pytest.fixture
def data_home(tmp_path, monkeypatch):
    """An isolated ctxtool data directory."""
    home = tmp_path / "ctxtool-home"
    monkeypatch.setenv("CTXTOOL_HOME", str(home))
    return home


# The session-scoped database fixtures (pg_dsn, pg18_dsn, mariadb_dsn, spanner_dsn, ... *_samples_dsn).
from tests.backends import *  # noqa: E402,F401,F403

# The scripted OpenAI-compatible server for language-model tests (see tests/fake_llm.py).
from tests.fake_llm import fake_llm  # noqa: E402,F401

# The runtime's own financial database and Runtime (see tests/rt_support.py).
from tests.rt_support import financial_dsn, financial_runtime  # noqa: E402,F401
