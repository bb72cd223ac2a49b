"""The read-only gate: is a SQL text exactly one read-only query with allowed functions?

:func:`check` returns a :class:`~ctxtool.gate.findings.GateResult`; :func:`require` raises
:class:`~ctxtool.gate.findings.GateRefused` unless the result is ``ok``. Every statement ctxtool
sends to a user's database passes :func:`require` (the connectors call it first thing in ``query``
and ``plan``), whatever its source: a template, a facet injected into one, a value search, golden
SQL, a model's SQL, a follow-up rewrite. ``ctxtool validate`` reports the same findings.

The check, in order: the lexical scan (:mod:`ctxtool.gate.comments`: comments, quoting, bounds,
called names), then the parse with sqlglot in the dialect and the tree (:mod:`ctxtool.gate.tree`:
one SELECT / WITH / UNION / INTERSECT / EXCEPT; no write, command, INTO, locking clause or session
assignment anywhere; functions on the allow-list of :mod:`ctxtool.gate.functions`). Results are
cached per (text, dialect, kind, declared functions), so a template asked a thousand times is
checked once. The parser loads with the first text that passes the lexical scan.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from ctxtool.dialects import normalize
from ctxtool.gate import comments
from ctxtool.gate.findings import ENV_FUNCTIONS, GateFinding, GateRefused, GateResult


def declared_functions() -> frozenset[str]:
    """Functions the user declared stable with ``CTXTOOL_GATE_FUNCTIONS`` (lower-case names)."""
    raw = os.environ.get(ENV_FUNCTIONS, "")
    return frozenset(n.strip().lower() for n in raw.split(",") if n.strip())


def check(
    sql: str, dialect: str, *, kind: str = "query", functions_allowed: Iterable[str] | None = None
) -> GateResult:
    """The gate's verdict on ``sql`` in ``dialect``. ``kind`` is ``"query"`` (a whole statement) or
    ``"condition"`` (a facet: one boolean expression). ``functions_allowed`` adds user functions
    declared stable (default: ``CTXTOOL_GATE_FUNCTIONS``)."""
    extra = declared_functions() if functions_allowed is None else frozenset(functions_allowed)
    return _cached(sql, normalize(dialect), kind, extra)


def require(sql: str, dialect: str, *, functions_allowed: Iterable[str] | None = None) -> GateResult:
    """:func:`check` ``sql`` as a query; raise :class:`GateRefused` unless it is one read-only query."""
    result = check(sql, dialect, functions_allowed=functions_allowed)
    if not result.ok:
        raise GateRefused(result)
    return result


def lexical_findings(sql: str, dialect: str) -> tuple[GateFinding, ...]:
    """The findings of the lexical scan alone (comments, quoting, bounds): what is wrong with a text
    even when it does not parse."""
    return tuple(comments.scan(sql, normalize(dialect)).findings)


def check_parsed(
    sql: str,
    dialect: str,
    statements: list[Any],
    *,
    kind: str = "query",
    functions_allowed: Iterable[str] | None = None,
) -> GateResult:
    """:func:`check` for a text already parsed (``ctxtool validate`` shares its parse trees)."""
    extra = declared_functions() if functions_allowed is None else frozenset(functions_allowed)
    dialect = normalize(dialect)
    lexed = comments.scan(sql, dialect)
    if lexed.findings:
        return GateResult(sql, dialect, tuple(lexed.findings))
    # the parser is large: it loads with the first text that passes the lexical scan
    from ctxtool.gate import tree

    return GateResult(sql, dialect, tuple(tree.findings(statements, dialect, kind, extra, lexed.calls)))


def clear_cache() -> None:
    """Forget every verdict (bench/gate.py measures the gate without its cache)."""
    _cached.cache_clear()


@lru_cache(maxsize=4096)
def _cached(sql: str, dialect: str, kind: str, extra: frozenset[str]) -> GateResult:
    lexed = comments.scan(sql, dialect)
    if lexed.findings:
        return GateResult(sql, dialect, tuple(lexed.findings))
    # the parser is large: it loads with the first text that passes the lexical scan
    from ctxtool.gate import tree

    return GateResult(sql, dialect, tuple(tree.parse_and_check(sql, dialect, kind, extra, lexed.calls)))
