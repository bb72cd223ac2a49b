"""Find and bind the placeholders of context sets: ``$1..$n``, ``?`` and ``$value``.

SQL is scanned with a small lexer that skips string literals, quoted identifiers, dollar-quoted
strings and comments, so a ``?`` or ``$1`` inside ``'...'`` is never taken for a parameter. Intents
are natural language: there a ``?`` placeholder is a ``?`` that starts a token (after a space, the
start, an opening bracket or quote), while a ``?`` right after a word ends the sentence
(``"in ??"`` is one placeholder and a question mark).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxtool.dialects import normalize


@dataclass(frozen=True)
class Placeholder:
    kind: str  # "numbered" ($1), "qmark" (?), "named" ($value)
    name: str  # "1", "?", "value"
    start: int
    end: int

    @property
    def text(self) -> str:
        return "?" if self.kind == "qmark" else f"${self.name}"


def _skip_quoted(sql: str, i: int, quote: str, backslash: bool) -> int:
    """Index just past the literal or identifier opened by ``quote`` at ``i``."""
    n = len(sql)
    j = i + 1
    while j < n:
        c = sql[j]
        if backslash and c == "\\":
            j += 2
            continue
        if c == quote:
            if j + 1 < n and sql[j + 1] == quote:  # doubled quote escapes itself
                j += 2
                continue
            return j + 1
        j += 1
    return n


def find_sql_placeholders(sql: str, dialect: str) -> list[Placeholder]:
    """Every placeholder in ``sql`` outside literals, identifiers and comments, in order."""
    return list(_scan_sql(sql, normalize(dialect)))


@functools.lru_cache(maxsize=2048)
def _scan_sql(sql: str, dialect: str) -> tuple[Placeholder, ...]:
    """The scan behind :func:`find_sql_placeholders`, cached: the same value search or template
    runs many times with different values."""
    out: list[Placeholder] = []
    n = len(sql)
    i = 0
    backslash = dialect in ("mysql", "spanner")
    while i < n:
        c = sql[i]
        if c == "-" and sql.startswith("--", i) or (c == "#" and dialect != "postgres"):
            nl = sql.find("\n", i)
            i = n if nl < 0 else nl + 1
        elif c == "/" and sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif c == "'" or c == '"' and dialect != "postgres":
            if dialect == "spanner" and sql.startswith(c * 3, i):
                end = sql.find(c * 3, i + 3)
                i = n if end < 0 else end + 3
            else:
                esc = backslash or (dialect == "postgres" and i > 0 and sql[i - 1] in "eE")
                i = _skip_quoted(sql, i, c, esc)
        elif c == '"':
            i = _skip_quoted(sql, i, '"', False)
        elif c == "`" and dialect != "postgres":
            i = _skip_quoted(sql, i, "`", False)
        elif c == "$":
            j = i + 1
            if j < n and sql[j].isdigit():
                while j < n and sql[j].isdigit():
                    j += 1
                if dialect == "postgres" and not (i > 0 and (sql[i - 1].isalnum() or sql[i - 1] == "_")):
                    out.append(Placeholder("numbered", sql[i + 1 : j], i, j))
                i = j
            elif sql.startswith("value", j) and not (
                j + 5 < n and (sql[j + 5].isalnum() or sql[j + 5] == "_")
            ):
                out.append(Placeholder("named", "value", i, j + 5))
                i = j + 5
            elif dialect == "postgres":  # dollar-quoted string $tag$...$tag$
                k = j
                while k < n and (sql[k].isalnum() or sql[k] == "_"):
                    k += 1
                if k < n and sql[k] == "$":
                    tag = sql[i : k + 1]
                    end = sql.find(tag, k + 1)
                    i = n if end < 0 else end + len(tag)
                else:
                    i = k
            else:
                i = j
        elif c == "?" and dialect != "postgres":
            out.append(Placeholder("qmark", "?", i, i + 1))
            i += 1
        elif c.isalnum() or c == "_":
            j = i + 1
            while j < n and (sql[j].isalnum() or sql[j] in "_$"):
                j += 1
            i = j
        else:
            i += 1
    return tuple(out)


_OPENERS = set(" \t\n\r([{'\"`“‘«,")


def find_text_placeholders(text: str, dialect: str) -> list[Placeholder]:
    """Placeholders in a parameterized intent (natural language), in order."""
    dialect = normalize(dialect)
    out: list[Placeholder] = []
    n = len(text)
    i = 0
    while i < n:
        c = text[i]
        prev = text[i - 1] if i else " "
        if c == "$":
            j = i + 1
            if j < n and text[j].isdigit():
                while j < n and text[j].isdigit():
                    j += 1
                if dialect == "postgres":
                    out.append(Placeholder("numbered", text[i + 1 : j], i, j))
                i = j
                continue
            if text.startswith("value", j) and not (
                j + 5 < n and (text[j + 5].isalnum() or text[j + 5] == "_")
            ):
                out.append(Placeholder("named", "value", i, j + 5))
                i = j + 5
                continue
        elif c == "?" and dialect != "postgres" and prev in _OPENERS:
            out.append(Placeholder("qmark", "?", i, i + 1))
        i += 1
    return out


def substitute(text: str, found: Sequence[Placeholder], values: Sequence[str] | Mapping[str, str]) -> str:
    """Replace each placeholder in ``found`` (from one of the ``find_*`` functions on ``text``) by its
    value: ``values[n-1]`` for ``$n``, the next value in order for ``?``, ``values["value"]`` for
    ``$value``. Used to check that parameterized forms give back the concrete ones."""
    parts: list[str] = []
    last = 0
    qmark = 0
    for ph in found:
        parts.append(text[last : ph.start])
        if ph.kind == "numbered":
            parts.append(str(values[int(ph.name) - 1]))  # type: ignore[index]
        elif ph.kind == "qmark":
            parts.append(str(values[qmark]))  # type: ignore[index]
            qmark += 1
        else:
            parts.append(str(values[ph.name]))  # type: ignore[index]
        last = ph.end
    parts.append(text[last:])
    return "".join(parts)


def to_driver(
    sql: str, dialect: str, params: Sequence[Any] | Mapping[str, Any], style: str
) -> tuple[str, Any]:
    """Rewrite ``sql`` (context-set placeholders) into a driver's paramstyle.

    ``style`` is ``"numbered"`` (``$1``: psycopg's raw cursor), ``"qmark"`` (``?``: mysql-connector's
    prepared cursor) or ``"named_at"`` (``@p1``: Spanner). ``params`` is a sequence for ``$n``/``?`` or a
    mapping for ``$value``. Returns the new SQL and the parameters in the driver's form. Values are
    always bound, never pasted into the SQL.
    """
    found = find_sql_placeholders(sql, dialect)
    parts: list[str] = []
    last = 0
    ordered: list[Any] = []
    names: dict[str, Any] = {}
    qmark = 0
    for ph in found:
        parts.append(sql[last : ph.start])
        last = ph.end
        if ph.kind == "numbered":
            index = int(ph.name) - 1
            value = params[index]  # type: ignore[index]
        elif ph.kind == "qmark":
            index = qmark
            value = params[qmark]  # type: ignore[index]
            qmark += 1
        else:
            index = -1
            value = params[ph.name]  # type: ignore[index]
        if style == "numbered":
            if ph.kind == "numbered":
                parts.append(ph.text)
                while len(ordered) <= index:
                    ordered.append(None)
                ordered[index] = value
            else:
                if ph.name not in names:
                    ordered.append(value)
                    names[ph.name] = len(ordered)
                parts.append(f"${names[ph.name]}")
        elif style == "qmark":
            ordered.append(value)
            parts.append("?")
        elif style == "named_at":
            key = "value" if ph.kind == "named" else f"p{index + 1}"
            names[key] = value
            parts.append(f"@{key}")
        else:
            raise ValueError(f"unknown driver style {style!r}")
    parts.append(sql[last:])
    return "".join(parts), (names if style == "named_at" else ordered)


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


def parseable_sql(sql: str, dialect: str) -> str:
    """``sql`` as sqlglot can parse it, with the same length and placeholders where they are:
    on PostgreSQL a space before a parameter glued to an operator (see :func:`_space_parameters`);
    on MySQL and GoogleSQL, which have no ``$name`` parameters, ``$value`` read as the same-length
    ``@value`` (a parameter in GoogleSQL, a variable in MySQL)."""
    if dialect == "postgres" and "$" in sql:
        return _space_parameters(sql)
    if dialect != "postgres" and "$value" in sql:
        return _as_at_value(sql, dialect)
    return sql
