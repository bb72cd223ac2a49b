"""The values of a SQL statement, found through the sqlglot tree (never by patterns over SQL text).

A literal is a *value* when it is an operand of a comparison (``=``, ``<>``, ``<``, ``>``, ``<=``, ``>=``,
``LIKE``, ``ILIKE``, ``IN (...)``, ``BETWEEN``), possibly wrapped in a sign, a cast or a case-folding
function, or the count of a ``LIMIT``/``OFFSET``. Every other literal (projections, ``CASE`` results,
function arguments such as formats and units, arithmetic, ``ORDER BY 1``) belongs to the template's logic
and is never a parameter. Each value keeps its exact span in the SQL text (from the parser's token
positions) so that the parameterized SQL differs from the concrete one only where a value was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from ctxtool.dialects import normalize, sqlglot_dialect
from ctxtool.errors import InputError

# A facet's snippet is parsed inside this statement; spans are shifted back afterwards.
_FACET_PREFIX = "SELECT 1 FROM ctxtool_facet WHERE "

_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ)
_PATTERNS = (exp.Like, exp.ILike)
# Wrappers that keep a literal a value: a sign, a cast, case folding, a date conversion, brackets.
_WRAPPERS = (exp.Neg, exp.Cast, exp.TryCast, exp.Paren, exp.Lower, exp.Upper, exp.Trim, exp.TsOrDsToDate)
_TYPED_KEYWORDS = {"DATE", "TIME", "TIMESTAMP", "TIMESTAMPTZ", "DATETIME", "NUMERIC", "DECIMAL", "JSON"}

ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
ISO_TIMESTAMP = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$"
)
ISO_TIME = re.compile(r"^(\d{2}):(\d{2})(?::(\d{2}))?$")


@dataclass
class SqlValue:
    """One value occurrence in the SQL."""

    kind: str  # "string" | "number"
    text: str  # the literal's value (unescaped for strings; digits for numbers, with sign)
    start: int  # span in the SQL text to replace (exclusive end); includes a sign or a type keyword
    end: int
    sql_text: str  # the SQL text of that span
    context: str  # "compare" | "in" | "between" | "like" | "limit"
    phrase: str  # what the intent should mention: the value, without LIKE wildcards
    like_prefix: str = ""  # "%" when a LIKE pattern starts with a wildcard
    like_suffix: str = ""
    column: str | None = None  # compared column name, as written
    table: str | None = None  # its table (aliases resolved), when known
    year: bool = False  # compared with the year part of a date
    typed: str | None = None  # DATE/TIMESTAMP/... of a typed literal or cast

    @property
    def number(self) -> Decimal | None:
        if self.kind != "number":
            return None
        try:
            return Decimal(self.text)
        except InvalidOperation:
            return None

    @property
    def key(self) -> tuple[str, str]:
        """Identity of the value: the same value used twice gets the same placeholder."""
        if self.kind == "number" and self.number is not None:
            return ("number", str(self.number.normalize()))
        return ("string", self.phrase)


@dataclass
class LogicLiteral:
    """A literal that stays in the SQL, and why."""

    text: str
    start: int
    reason: str


@dataclass
class Extraction:
    values: list[SqlValue] = field(default_factory=list)
    logic: list[LogicLiteral] = field(default_factory=list)


def parse(sql: str, dialect: str, *, snippet: bool = False) -> tuple[exp.Expression, int]:
    """Parse a statement (or a facet's condition) and return the tree and the offset of ``sql`` in the
    parsed text."""
    text, offset = (_FACET_PREFIX + sql, len(_FACET_PREFIX)) if snippet else (sql, 0)
    try:
        tree = sqlglot.parse_one(text, read=sqlglot_dialect(dialect))
    except (ParseError, TokenError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"cannot parse the SQL as {normalize(dialect)}: {first}") from None
    if tree is None:
        raise InputError("empty SQL")
    return tree, offset


def extract_values(sql: str, dialect: str, *, snippet: bool = False) -> Extraction:
    """The values of ``sql`` in text order, and the literals that stay literal."""
    tree, offset = parse(sql, dialect, snippet=snippet)
    text = _FACET_PREFIX + sql if snippet else sql
    tokens = sqlglot.Dialect.get_or_raise(sqlglot_dialect(dialect)).tokenize(text)
    by_start = {t.start: i for i, t in enumerate(tokens)}
    aliases = _table_aliases(tree)
    out = Extraction()
    for lit in tree.find_all(exp.Literal):
        start = lit.meta.get("start")
        end = lit.meta.get("end")
        if start is None or end is None or start < offset:
            continue
        literal_text = text[start : end + 1]
        role, anchor, compared = _role(lit)
        if role is None:
            out.logic.append(LogicLiteral(literal_text, start - offset, anchor))
            continue
        span_start, span_end = start, end + 1
        value = lit.this
        typed = None
        node = lit
        # a sign in front of a number belongs to the value
        if isinstance(lit.parent, exp.Neg) and not lit.is_string:
            i = by_start.get(start)
            if i and tokens[i - 1].token_type.name == "DASH":
                span_start = tokens[i - 1].start
                value = "-" + value
                node = lit.parent
        if isinstance(node.parent, (exp.Cast, exp.TryCast)):
            typed = node.parent.to.sql().upper() if node.parent.to else None
            i = by_start.get(span_start)
            if i and tokens[i - 1].text.upper() in _TYPED_KEYWORDS:
                # DATE '2024-01-15': the keyword and the literal are one value
                span_start = tokens[i - 1].start
        kind = "string" if lit.is_string else "number"
        phrase = value
        prefix = suffix = ""
        if role == "like":
            core = value
            if core.startswith("%"):
                prefix, core = "%", core[1:]
            if core.endswith("%") and not core.endswith("\\%"):
                suffix, core = "%", core[:-1]
            if not core or any(c in core for c in "%_\\"):
                out.logic.append(
                    LogicLiteral(literal_text, start - offset, "a LIKE pattern with inner wildcards")
                )
                continue
            phrase = core
        if kind == "string" and not phrase.strip():
            out.logic.append(LogicLiteral(literal_text, start - offset, "an empty string"))
            continue
        column, table, year = _column_of(compared, aliases)
        out.values.append(
            SqlValue(
                kind=kind,
                text=value,
                start=span_start - offset,
                end=span_end - offset,
                sql_text=text[span_start:span_end],
                context=role,
                phrase=phrase,
                like_prefix=prefix,
                like_suffix=suffix,
                column=column,
                table=table,
                year=year,
                typed=typed,
            )
        )
    out.values.sort(key=lambda v: v.start)
    out.logic.sort(key=lambda v: v.start)
    return out


def _role(lit: exp.Literal) -> tuple[str | None, str, exp.Expression | None]:
    """(role, reason-if-logic, the expression compared with the value)."""
    node: exp.Expression = lit
    while isinstance(node.parent, _WRAPPERS):
        node = node.parent
    parent = node.parent
    if isinstance(parent, (exp.Limit, exp.Offset)):
        return "limit", "", None
    if isinstance(parent, _COMPARISONS):
        other = parent.expression if node is parent.this else parent.this
        if isinstance(other, exp.Literal) or (
            isinstance(other, _WRAPPERS) and isinstance(other.unnest(), exp.Literal)
        ):
            return None, "compared with another literal", None
        return "compare", "", other
    if isinstance(parent, _PATTERNS) and node is parent.expression:
        return "like", "", parent.this
    if isinstance(parent, _CONCATS):
        pattern = _pattern_of(node)
        if pattern is not None:
            if not lit.is_string or any(c in lit.this for c in "%_\\"):
                return None, "a LIKE wildcard", None
            return "like", "", pattern.this  # '%' || 'North' || '%': the wildcards stay in the SQL
    if isinstance(parent, exp.Escape):
        return None, "a LIKE escape character", None
    if isinstance(parent, exp.In) and node.arg_key == "expressions":
        return "in", "", parent.this
    if isinstance(parent, exp.Between) and node.arg_key in ("low", "high"):
        return "between", "", parent.this
    if isinstance(parent, exp.Array):  # col = ANY(ARRAY['a', 'b']): a list like IN (...)
        up: exp.Expression | None = parent.parent
        while isinstance(up, exp.Paren):
            up = up.parent
        if isinstance(up, (exp.Any, exp.All)) and isinstance(up.parent, _COMPARISONS):
            cmp = up.parent
            return "in", "", cmp.expression if up is cmp.this else cmp.this
    if isinstance(parent, (exp.Ordered, exp.Group)):
        return None, "a column position", None
    if isinstance(parent, exp.Alias) or isinstance(parent, exp.Select):
        return None, "a projected constant", None
    if isinstance(parent, (exp.Case, exp.If)) and node.arg_key in ("true", "false", "default"):
        return None, "a CASE result", None
    if isinstance(parent, exp.Func):
        return None, f"an argument of {parent.sql_name()}", None
    if isinstance(parent, (exp.Binary, exp.Unary)):
        return None, "part of an expression", None
    return None, f"in a {type(parent).__name__ if parent else 'statement'}", None


_YEAR_FUNCS = (exp.Year,)
_CONCATS = (exp.DPipe, exp.Concat)


def _pattern_of(node: exp.Expression) -> exp.Expression | None:
    """The LIKE whose pattern is a concatenation holding ``node`` (``'%' || 'North' || '%'``,
    ``CONCAT('%', 'North', '%')``), else None."""
    up = node.parent
    while isinstance(up, (*_CONCATS, exp.Paren)):
        child, up = up, up.parent
    if isinstance(up, _PATTERNS) and child is up.expression:
        return up
    return None


def _column_of(
    compared: exp.Expression | None, aliases: dict[str, str]
) -> tuple[str | None, str | None, bool]:
    """The column a value is compared with (through functions), its table, and whether the year part
    of a date is compared."""
    if compared is None:
        return None, None, False
    year = False
    if isinstance(compared, _YEAR_FUNCS):
        year = True
    if isinstance(compared, exp.Extract) and compared.this and compared.this.name.upper() == "YEAR":
        year = True
    col = compared if isinstance(compared, exp.Column) else compared.find(exp.Column)
    if col is None:
        return None, None, year
    qualifier = col.table
    table = aliases.get(qualifier.lower(), qualifier) if qualifier else None
    if table is None:
        tables = _tables_in_scope(col)
        if len(tables) == 1:
            table = tables[0]
    return col.name, table, year


def _table_aliases(tree: exp.Expression) -> dict[str, str]:
    out: dict[str, str] = {}
    for t in tree.find_all(exp.Table):
        if t.name:
            out.setdefault(t.alias_or_name.lower(), t.name)
    return out


def _tables_in_scope(col: exp.Expression) -> list[str]:
    select = col.find_ancestor(exp.Select)
    if select is None:
        return []
    names: list[str] = []
    sources = []
    if select.args.get("from_") is not None or select.args.get("from") is not None:
        sources.append(select.args.get("from_") or select.args.get("from"))
    sources.extend(select.args.get("joins") or [])
    for src in sources:
        this = src.this if hasattr(src, "this") else None
        if isinstance(this, exp.Table) and this.name:
            names.append(this.name)
        elif this is not None:
            return []  # a subquery or a function: unknown columns
    return names
