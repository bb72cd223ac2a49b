"""The one read-only gate every statement passes before it reaches a user's database.

- :mod:`ctxtool.gate.check`: :func:`check` (the verdict) and :func:`require` (raise unless ok);
- :mod:`ctxtool.gate.comments`: the lexical scan (comments, quoting, bounds) as the server reads text;
- :mod:`ctxtool.gate.functions`: the per-engine allow-lists of read-only functions (data);
- :mod:`ctxtool.gate.findings`: :class:`GateFinding`, :class:`GateResult`, :class:`GateRefused`;
- :mod:`ctxtool.gate.internal`: ctxtool's own fixed catalog SQL (``Connector.catalog_query``).
"""

from __future__ import annotations

from ctxtool.gate.check import (
    ENV_FUNCTIONS,
    check,
    check_parsed,
    clear_cache,
    declared_functions,
    lexical_findings,
    require,
)
from ctxtool.gate.findings import GateFinding, GateRefused, GateResult
from ctxtool.gate.internal import is_own_catalog_sql, own_catalog_sql

__all__ = [
    "ENV_FUNCTIONS",
    "GateFinding",
    "GateRefused",
    "GateResult",
    "check",
    "check_parsed",
    "clear_cache",
    "declared_functions",
    "is_own_catalog_sql",
    "lexical_findings",
    "own_catalog_sql",
    "require",
]
