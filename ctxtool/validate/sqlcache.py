"""Parse each SQL string once per dialect and share the tree between validation layers.

Parsing dominates validation time, so every layer asks this cache instead of calling sqlglot
itself. Trees handed out are shared: layers read them and never modify them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, SqlglotError, TokenError

from ctxtool.dialects import sqlglot_dialect
from ctxtool.placeholders import parseable_sql

# Trees are big (about 30 kB for a three-table join), so the cache shared between runs is small;
# within one run the Context keeps the trees of the items being validated (see Context.parse).
_MAX_ENTRIES = 2048


@dataclass
class Parsed:
    """The statements of one SQL string (an empty list when it did not parse) or the parse error."""

    statements: list[exp.Expr] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def single(self) -> exp.Expr | None:
        return self.statements[0] if self.error is None and len(self.statements) == 1 else None


_cache: dict[tuple[str, str], Parsed] = {}


class _DropFallbackWarnings(logging.Filter):
    """sqlglot logs a warning when it falls back to an opaque Command; validation reports that itself."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "Falling back to parsing as a 'Command'" not in record.getMessage()


logging.getLogger("sqlglot").addFilter(_DropFallbackWarnings())


def _describe(exc: Exception) -> str:
    if isinstance(exc, ParseError) and exc.errors:
        err = exc.errors[0]
        description = str(err.get("description") or "syntax error").strip()
        line, col = err.get("line"), err.get("col")
        if line is not None and col is not None:
            return f"{description} (SQL line {line}, column {col})"
        return description
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def parse(sql: str, dialect: str, share: bool = True) -> Parsed:
    """The parse of ``sql`` in ``dialect`` (a normalized ctxtool dialect name), cached by string.
    ``share=False`` still looks in the cache but leaves a new parse out of it (a large set parsed
    chunk by chunk would only churn it, and every evicted tree is garbage to collect)."""
    key = (dialect, sql)
    hit = _cache.get(key)
    if hit is not None:
        return hit
    source = parseable_sql(sql, dialect)
    try:
        statements = [s for s in sqlglot.parse(source, read=sqlglot_dialect(dialect)) if s is not None]
        result = Parsed(statements=statements)
        if not statements:
            result = Parsed(error="no SQL statement found")
    except (ParseError, TokenError) as exc:
        result = Parsed(error=_describe(exc))
    except (SqlglotError, ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError) as exc:
        # sqlglot occasionally fails inside a dialect's own code on unusual input
        result = Parsed(error=f"cannot parse: {_describe(exc)}")
    if not share:
        return result
    if len(_cache) >= _MAX_ENTRIES:
        del _cache[next(iter(_cache))]  # the oldest entry
    _cache[key] = result
    return result


def clear() -> None:
    _cache.clear()
