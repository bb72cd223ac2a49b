"""Column profiles computed from a bounded sample of rows, for engines that keep no usable statistics
(MySQL/MariaDB, Spanner, and PostgreSQL tables never analyzed).

A profile is ``{"distinct", "null_fraction", "most_common": [{"value", "frequency"}], "min", "max",
"avg_length"}``. The distinct count of a partial sample is estimated with the Haas-Stokes ``Duj1``
estimator, the one PostgreSQL's ANALYZE uses, so the figures from both sources are comparable.
"""

from __future__ import annotations

import base64
import datetime as _dt
import decimal
import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

SAMPLE_ROWS = 10_000
MOST_COMMON = 10
MAX_VALUE_CHARS = 200

_NUMERIC_WORDS = ("int", "numeric", "decimal", "float", "double", "real", "serial", "number")
_DATE_WORDS = ("date", "time")  # date, datetime, timestamp, time, interval is excluded below


def effective_type(column: dict[str, Any]) -> str:
    """The type a snapshot column behaves as: a domain's base type (a domain ``year`` over integer is
    a number), ``enum`` for an enumerated type (its labels in ``values``), else its own type."""
    if column.get("values") is not None:
        return "enum"
    return str(column.get("base_type") or column.get("type") or "")


def type_category(type_name: str) -> str:
    """``number``, ``date``, ``text`` or ``other`` for an engine type name (``int(11)``, ``STRING(MAX)``...)."""
    t = (type_name or "").lower()
    if t.startswith(("array", "json", "vector", "bytes", "bytea", "blob", "tokenlist")) or t.endswith("[]"):
        return "other"
    if "interval" in t:
        return "other"
    if any(w in t for w in _NUMERIC_WORDS) and "point" not in t:
        return "number"
    if any(w in t for w in _DATE_WORDS) or t == "year":
        return "date"
    if t.startswith(("enum(", "set(")) or any(
        w in t for w in ("char", "text", "string", "enum", "citext", "name", "uuid")
    ):
        return "text"
    return "other"


def jsonable(value: Any) -> Any:
    """A value as JSON can hold it: numbers stay numbers, dates become ISO text, long text is cut."""
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            return str(value)
        return int(value) if value == value.to_integral_value() and abs(value) < 2**53 else float(value)
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, _dt.timedelta):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        raw = bytes(value)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = "base64:" + base64.b64encode(raw[:150]).decode()
        return text[:MAX_VALUE_CHARS]
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    text = str(value)
    return text[:MAX_VALUE_CHARS]


def estimate_distinct(counts: Counter, sample_rows: int, total_rows: float | None) -> int:
    """Distinct values of a column from a sample (Haas-Stokes Duj1; exact when the sample is the table)."""
    d = len(counts)
    n = sample_rows
    if not d or not total_rows or total_rows <= n:
        return d
    f1 = sum(1 for c in counts.values() if c == 1)
    if f1 == d:  # every sampled value unique: assume the column is (nearly) unique
        return int(total_rows)
    denom = (n - f1) + f1 * n / total_rows
    est = n * d / denom if denom else d
    return int(min(max(est, d), total_rows))


def profile_column(
    values: Sequence[Any], type_name: str, *, total_rows: float | None = None
) -> dict[str, Any]:
    """The profile of one column from its sampled values (``None`` = SQL NULL)."""
    n = len(values)
    non_null = [v for v in values if v is not None]
    category = type_category(type_name)
    out: dict[str, Any] = {
        "distinct": 0,
        "null_fraction": round((n - len(non_null)) / n, 4) if n else 0.0,
        "most_common": [],
        "min": None,
        "max": None,
        "avg_length": None,
    }
    if not non_null:
        return out
    hashable = [_hashable(v) for v in non_null]
    counts = Counter(hashable)
    out["distinct"] = estimate_distinct(counts, n, total_rows)
    if category != "other":
        common = sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))
        out["most_common"] = [
            {"value": jsonable(v), "frequency": round(c / n, 4)}
            for v, c in common[:MOST_COMMON]
            if c > 1 or len(counts) <= MOST_COMMON
        ]
    if category in ("number", "date", "text"):  # text: lexical bounds
        try:
            lo, hi = min(non_null), max(non_null)
            out["min"], out["max"] = jsonable(lo), jsonable(hi)
        except TypeError:
            pass
    if category == "text":
        out["avg_length"] = round(sum(len(str(v)) for v in non_null) / len(non_null), 2)
    return out


def _hashable(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        return repr(value)
    if isinstance(value, (set, frozenset)):
        return ",".join(sorted(map(str, value)))
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    return value


def profile_rows(
    columns: Sequence[str],
    types: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    total_rows: float | None = None,
) -> dict[str, dict[str, Any]]:
    """Profiles of every column of a sampled table: ``{column name: profile}``."""
    out: dict[str, dict[str, Any]] = {}
    for i, name in enumerate(columns):
        out[name] = profile_column(
            [r[i] for r in rows], types[i] if i < len(types) else "", total_rows=total_rows
        )
    return out
