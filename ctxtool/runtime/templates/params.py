"""A template's parameters as text: its placeholders as sentinels (``__ctxp_t1__``) and back, and
its parameter list in the driver's order. No SQL parser: binding a template's slots when a question
is answered needs none (composing facets into its SQL does: :func:`.sqlparts.inject_conditions`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ctxtool.dialects import positional_style
from ctxtool.errors import InputError
from ctxtool.placeholders import find_sql_placeholders

__all__ = ["SENTINEL_TOKEN", "InjectError", "bind_template", "from_sentinels", "to_sentinels"]

SENTINEL_TOKEN = re.compile(r"[`\"]?__ctxp_([a-z0-9_]+?)__[`\"]?")


def to_sentinels(sql: str, dialect: str, prefix: str) -> tuple[str, list[str]]:
    """Replace each placeholder by ``__ctxp_<prefix><n>__``; return the text and the slot keys in
    order of appearance (``$n`` -> key ``<prefix><n>``; the k-th ``?`` -> ``<prefix><k>``)."""
    found = find_sql_placeholders(sql, dialect)
    parts: list[str] = []
    keys: list[str] = []
    last = 0
    qmark = 0
    for ph in found:
        parts.append(sql[last : ph.start])
        if ph.kind == "numbered":
            key = f"{prefix}{ph.name}"
        elif ph.kind == "qmark":
            qmark += 1
            key = f"{prefix}{qmark}"
        else:
            key = f"{prefix}value"
        parts.append(f"__ctxp_{key}__")
        keys.append(key)
        last = ph.end
    parts.append(sql[last:])
    return "".join(parts), keys


def from_sentinels(sql: str, dialect: str, values: dict[str, Any]) -> tuple[str, list[Any]]:
    """Turn sentinels back into the dialect's placeholders with the parameter list to bind."""
    style = positional_style(dialect)
    params: list[Any] = []
    numbers: dict[str, int] = {}

    def repl(m: re.Match[str]) -> str:
        key = m.group(1)
        if key not in values:
            raise InputError(f"internal: no value for parameter {key}")
        if style == "numbered":
            if key not in numbers:
                params.append(values[key])
                numbers[key] = len(params)
            return f"${numbers[key]}"
        params.append(values[key])
        return "?"

    return SENTINEL_TOKEN.sub(repl, sql), params


class InjectError(Exception):
    """A facet cannot be added to this template's SQL (its table is not in any SELECT)."""


def bind_template(sql: str, dialect: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
    """The template's parameterized SQL as written, with its parameter list in driver order."""
    style = positional_style(dialect)
    found = find_sql_placeholders(sql, dialect)
    if style == "numbered":
        count = max((int(p.name) for p in found if p.kind == "numbered"), default=0)
        return sql, list(values[:count])
    return sql, list(values[: sum(1 for p in found if p.kind == "qmark")])
