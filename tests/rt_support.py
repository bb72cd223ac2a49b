"""Fixtures for the runtime, server and eval tests: a financial sample database of their own (a
unique name, dropped at the end) with the extensions the runtime set's value searches use."""

from __future__ import annotations

import pytest

from tests.backends import _pg_create, _pg_drop, unique_name

RUNTIME_SET = "samples/postgres/financial_runtime.json"
GOLDEN = "tests/data/golden_financial.json"
SCALE = 0.05  # ~5,000 rows: enough for counts to differ between wrong and right queries


@pytest.fixture(scope="session")
def financial_dsn(_pg15_admin: str):
    """PostgreSQL 15 with the financial and airports samples, pg_trgm and fuzzystrmatch."""
    from ctxtool import sampledata

    name = unique_name("ctx_rt")
    dsn = _pg_create(_pg15_admin, name, extensions=("pg_trgm", "fuzzystrmatch"))
    try:
        sampledata.load(dsn, scale=SCALE)
        yield dsn
    finally:
        _pg_drop(_pg15_admin, name)


@pytest.fixture(scope="session")
def financial_runtime(financial_dsn: str):
    """One Runtime over the runtime set, without a language model."""
    from ctxtool.runtime import Runtime

    with Runtime(RUNTIME_SET, dsn=financial_dsn, use_llm=False) as rt:
        yield rt


def offline_runtime(data: dict, matcher: str = "lexical"):
    """A Runtime over ``data`` parameterized for PostgreSQL, with no database and no language model
    (the matcher's checks alone; ``matcher="hybrid"`` adds the encoder)."""
    from ctxtool.parameterize import parameterize_set
    from ctxtool.runtime import Runtime

    parameterized, _ = parameterize_set(data, "postgres", None)
    return Runtime(parameterized, dialect="postgres", use_llm=False, matcher=matcher)
