"""The gate's look at the parse tree: one read-only query, no write anywhere in it, allowed
functions only (see :mod:`ctxtool.gate.check` for the order of the checks)."""

from __future__ import annotations

import sqlglot
from sqlglot import exp

from ctxtool.dialects import sqlglot_dialect
from ctxtool.gate import functions
from ctxtool.gate.findings import (
    ENV_FUNCTIONS,
    FUNCTION,
    INTO,
    LOCKING,
    MULTIPLE,
    NOT_READ_ONLY,
    SYNTAX,
    TOO_BIG,
    GateFinding,
)
from ctxtool.placeholders import parseable_sql

# nodes that write, run a command, or change the session, wherever they appear in a query
WRITES: tuple[type, ...] = tuple(
    getattr(exp, name)
    for name in (
        "Insert",
        "Update",
        "Delete",
        "Merge",
        "Create",
        "Drop",
        "Alter",
        "TruncateTable",
        "Command",
        "Copy",
        "Set",
        "Use",
        "Transaction",
        "Commit",
        "Rollback",
        "Grant",
        "Revoke",
        "Analyze",
        "Describe",
        "Pragma",
        "Kill",
        "Comment",
        "LoadData",
        "Cache",
        "Uncache",
        "Refresh",
        "Execute",
        "Show",
    )
    if hasattr(exp, name)
)
_QUERY_ROOTS: tuple[type, ...] = (exp.Select, exp.SetOperation, exp.Subquery)
_FIX_READ_ONLY = "keep one SELECT (WITH ... SELECT, UNION ...) that only reads"


def parse_and_check(
    sql: str, dialect: str, kind: str, extra: frozenset[str], calls: list[str]
) -> list[GateFinding]:
    """Parse ``sql`` (a statement, or a condition when ``kind == "condition"``) and check the tree."""
    source = parseable_sql(sql, dialect)
    try:
        if kind == "condition":
            statements = [sqlglot.parse_one(source, read=sqlglot_dialect(dialect), into=exp.Condition)]
        else:
            statements = [s for s in sqlglot.parse(source, read=sqlglot_dialect(dialect)) if s is not None]
    except RecursionError:
        found = GateFinding(TOO_BIG, "the SQL nests too deeply to read", "flatten the query")
        return [found]
    except (sqlglot.errors.SqlglotError, ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
        # (sqlglot occasionally fails inside a dialect's own code on unusual input)
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        found = GateFinding(SYNTAX, f"the SQL does not parse as {dialect} SQL: {first}", "fix the SQL")
        return [found]
    return findings(statements, dialect, kind, extra, calls)


def findings(
    statements: list[exp.Expr], dialect: str, kind: str, extra: frozenset[str], calls: list[str]
) -> list[GateFinding]:
    """The findings of one parsed text (``calls``: the names written before '(' by the lexical scan)."""
    statements = [s for s in statements if s is not None]
    if not statements:
        return [GateFinding(NOT_READ_ONLY, "the SQL holds no statement", _FIX_READ_ONLY)]
    if len(statements) > 1:
        return [
            GateFinding(
                MULTIPLE,
                f"the SQL holds {len(statements)} statements",
                "keep exactly one statement",
            )
        ]
    tree = statements[0]
    if kind == "query" and not isinstance(tree, _QUERY_ROOTS):
        return [
            GateFinding(
                NOT_READ_ONLY, f"the SQL is a {_kind_word(tree)} statement, not a query", _FIX_READ_ONLY
            )
        ]
    out: list[GateFinding] = []
    for node in tree.walk():
        found = _node_finding(node, dialect, extra)
        if found is not None and found not in out:
            out.append(found)
    for name in calls:
        found = _name_finding(name, dialect, extra)
        if found is not None and found not in out:
            out.append(found)
    return out


def _kind_word(tree: exp.Expr) -> str:
    if isinstance(tree, exp.Command):
        first = str(tree.this or "").split()
        return first[0].upper() if first else "command"
    return getattr(tree, "key", type(tree).__name__).upper()


def _node_finding(node: exp.Expr, dialect: str, extra: frozenset[str]) -> GateFinding | None:
    if isinstance(node, WRITES):
        return GateFinding(
            NOT_READ_ONLY, f"the SQL contains {_kind_word(node)}, which is not read-only", _FIX_READ_ONLY
        )
    if isinstance(node, exp.Into) or (isinstance(node, exp.Select) and node.args.get("into") is not None):
        return GateFinding(
            INTO, "the SQL uses SELECT ... INTO, which writes a table, a variable or a file", "remove INTO"
        )
    if isinstance(node, exp.Lock):
        what = "FOR UPDATE" if node.args.get("update") else "FOR SHARE"
        return GateFinding(LOCKING, f"the SQL takes row locks ({what})", "remove the locking clause")
    if dialect == "mysql" and isinstance(node, exp.PropertyEQ):
        return GateFinding(
            NOT_READ_ONLY, "the SQL assigns a user variable (:=), which changes the session", _FIX_READ_ONLY
        )
    if dialect == "mysql" and isinstance(node, exp.SessionParameter):
        return GateFinding(
            NOT_READ_ONLY,
            f"the SQL reads the server variable @@{node.name}",
            "remove the @@ variable; queries read tables only",
        )
    if isinstance(node, exp.Func):
        return _function_finding(node, dialect, extra)
    return None


def _function_finding(node: exp.Func, dialect: str, extra: frozenset[str]) -> GateFinding | None:
    qualifier = ""
    parent = node.parent
    if isinstance(parent, exp.Dot) and parent.expression is node:
        qualifier = parent.this.sql(dialect=sqlglot_dialect(dialect)).lower()
    if isinstance(node, exp.Anonymous):
        name = str(node.name)
        written = name.lower()
        full = f"{qualifier}.{written}" if qualifier else written
        why = functions.dangerous(written)
        if why is not None:  # never allowed, whatever the user declared
            return _refused(written, why)
        if full in extra or (not qualifier and written in extra):
            return None
        if written in functions.BOUNDED_WAITS and not qualifier:
            return _wait_finding(node, written)
        builtin_schema = qualifier in functions.BUILTIN_SCHEMAS.get(dialect, frozenset())
        if qualifier and not builtin_schema:
            if functions.allowed(full, dialect):
                return None
            return _unknown(f"{qualifier}.{name}", dialect)
        if not functions.allowed(written, dialect):
            return _unknown(name, dialect)
        return None
    if type(node).__name__ in functions.REFUSED_TYPED:
        return _refused(node.sql_name().lower(), "is not a plain computation")
    for alias in type(node).sql_names():
        why = functions.dangerous(alias.lower())
        if why is not None:
            return _refused(alias.lower(), why)
    if qualifier and qualifier not in functions.BUILTIN_SCHEMAS.get(dialect, frozenset()):
        full = f"{qualifier}.{node.sql_name().lower()}"
        if full not in extra:
            return _unknown(full, dialect)
    return None


def _name_finding(name: str, dialect: str, extra: frozenset[str]) -> GateFinding | None:
    """A name written before ``(`` (from the lexical scan): dangerous ones, and quoted names."""
    if name[:1] in ('"', "`"):
        inner = name[1:-1]
        if inner.lower() in extra or (inner == inner.lower() and functions.allowed(inner, dialect)):
            return None
        return GateFinding(
            FUNCTION,
            f"the SQL calls the quoted name {name} as a function",
            "call built-in functions by their plain name; declare a user function in "
            f"{ENV_FUNCTIONS} if it only reads",
        )
    why = functions.dangerous(name)
    return _refused(name, why) if why is not None else None


def _wait_finding(node: exp.Anonymous, name: str) -> GateFinding | None:
    """``pg_sleep(n)`` / ``SLEEP(n)``: allowed for a constant ``n`` up to the bound, else refused."""
    args = node.expressions
    seconds: float | None = None
    if len(args) == 1 and isinstance(args[0], exp.Literal) and not args[0].is_string:
        try:
            seconds = float(args[0].this)
        except ValueError:
            seconds = None
    if seconds is not None and 0 <= seconds <= functions.MAX_WAIT_SECONDS:
        return None
    return _refused(
        name, f"makes the server wait longer than {functions.MAX_WAIT_SECONDS:g} s or for a computed time"
    )


def _refused(name: str, why: str) -> GateFinding:
    return GateFinding(
        FUNCTION, f"the SQL calls {name}(), which {why}", f"remove {name}(); context-set queries only read"
    )


def _unknown(name: str, dialect: str) -> GateFinding:
    return GateFinding(
        FUNCTION,
        f"the SQL calls {name}(), which is not on the {dialect} allow-list of read-only functions",
        f"use a built-in function, or declare {name} in {ENV_FUNCTIONS} if it only reads (never for "
        "a function that writes)",
    )
