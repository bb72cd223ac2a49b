"""Parse each SQL string once per dialect and share the tree between validation layers.

Parsing dominates validation time, so every layer asks this cache instead of calling sqlglot
itself. Trees handed out are shared: layers read them and never modify them.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, SqlglotError, TokenError

from ctxtool.dialects import sqlglot_dialect
from ctxtool.placeholders import find_sql_placeholders

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


def _as_at_value(sql: str, dialect: str) -> str:
    parts: list[str] = []
    last = 0
    for ph in find_sql_placeholders(sql, dialect):
        if ph.kind == "named":
            parts.append(sql[last : ph.start])
            parts.append("@value")
            last = ph.end
    parts.append(sql[last:])
    return "".join(parts)


_TIGHT_PARAMETER = re.compile(r"[^\s(]\$(?:\d|value)")


def _space_parameters(sql: str) -> str:
    """sqlglot's PostgreSQL tokenizer fails on a parameter right after an operator or comma
    (``IN ($1,$2)``, ``$1+$2``), taking it for a dollar-quoted string: put a space before it."""
    if _TIGHT_PARAMETER.search(sql) is None:
        return sql
    parts: list[str] = []
    last = 0
    for ph in find_sql_placeholders(sql, "postgres"):
        if ph.start > 0 and not sql[ph.start - 1].isspace() and sql[ph.start - 1] != "(":
            parts.append(sql[last : ph.start])
            parts.append(" ")
            last = ph.start
    if not parts:
        return sql
    parts.append(sql[last:])
    return "".join(parts)


def parse(sql: str, dialect: str, share: bool = True) -> Parsed:
    """The parse of ``sql`` in ``dialect`` (a normalized ctxtool dialect name), cached by string.
    ``share=False`` still looks in the cache but leaves a new parse out of it (a large set parsed
    chunk by chunk would only churn it, and every evicted tree is garbage to collect)."""
    key = (dialect, sql)
    hit = _cache.get(key)
    if hit is not None:
        return hit
    source = sql
    if dialect == "postgres" and "$" in sql:
        source = _space_parameters(sql)
    elif dialect != "postgres" and "$value" in sql:
        # MySQL and GoogleSQL have no $name parameters: read $value as the same-length @value
        # (a parameter in GoogleSQL, a variable in MySQL) so the tree has a parameter where it is
        source = _as_at_value(sql, dialect)
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
