"""The query workload: what people actually ask the database, as a source of templates.

Three sources: a query-log file (one statement per line, or ``;``-separated), PostgreSQL's
``pg_stat_statements`` and MySQL/MariaDB's ``performance_schema`` statement digests. Only queries
the read-only gate accepts (:func:`ctxtool.gate.check`) that read the user's tables are kept;
statements that differ only in their literals are merged (their *fingerprint* is the sqlglot tree
with every literal and placeholder replaced by ``?``) and ranked by how often they ran. Digests that carry placeholders instead of values are given concrete
values from the profile, so every template drafted from them can be executed and checked.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from ctxtool.dialects import sqlglot_dialect
from ctxtool.errors import CtxtoolError, InputError
from ctxtool.gate import check as gate_check
from ctxtool.gate.findings import INTO, LOCKING, NOT_READ_ONLY, SYNTAX
from ctxtool.jsondoc import read_text

SYSTEM_SCHEMAS = {"pg_catalog", "information_schema", "performance_schema", "mysql", "sys", "spanner_sys"}
# what the workload says when the gate refuses a statement (by the gate's first finding's rule)
_GATE_REASONS = {
    SYNTAX: "cannot be parsed",
    INTO: "SELECT INTO or FOR UPDATE",
    LOCKING: "SELECT INTO or FOR UPDATE",
}


@dataclass
class WorkloadQuery:
    """One distinct read query of the workload (its literal variants merged)."""

    fingerprint: str
    count: int = 0
    examples: Counter = field(default_factory=Counter)  # concrete SQL -> how often
    tables: list[str] = field(default_factory=list)
    placeholders: bool = False  # came from a digest: values must be filled in

    @property
    def ranked_examples(self) -> list[str]:
        return [sql for sql, _ in self.examples.most_common()]


@dataclass
class Workload:
    queries: list[WorkloadQuery]  # ranked by frequency
    skipped: list[tuple[str, str]]  # (statement, why it is not a read query of the user's tables)
    statements: int = 0  # statements read

    @property
    def distinct(self) -> int:
        return len(self.queries)


def split_statements(text: str) -> list[str]:
    """Statements of a query log: ``;``-separated when the text has a ``;`` outside literals and
    comments, else one per line. ``--`` and ``#`` comment lines are ignored."""
    parts: list[str] = []
    buf: list[str] = []
    i, n = 0, len(text)
    has_semicolon = False
    while i < n:
        c = text[i]
        if c in "'\"`":
            j = i + 1
            while j < n:
                if text[j] == "\\" and c != "`":
                    j += 2
                    continue
                if text[j] == c:
                    if j + 1 < n and text[j + 1] == c:
                        j += 2
                        continue
                    break
                j += 1
            buf.append(text[i : j + 1])
            i = j + 1
            continue
        if text.startswith("--", i) or (c == "#" and (i == 0 or text[i - 1] == "\n")):
            nl = text.find("\n", i)
            i = n if nl < 0 else nl
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            buf.append(" ")
            continue
        if c == ";":
            has_semicolon = True
            parts.append("".join(buf))
            buf = []
            i += 1
            continue
        buf.append(c)
        i += 1
    parts.append("".join(buf))
    if not has_semicolon:
        parts = [line for chunk in parts for line in chunk.splitlines()]
    return [" ".join(p.split()) for p in parts if p.strip()]


def read_log(path: str) -> list[tuple[str, int]]:
    """Statements of a query-log file, each with a count of 1."""
    return [(s, 1) for s in split_statements(read_text(path))]


def from_pg_stat_statements(connector: Any) -> list[tuple[str, int]]:
    """Normalized statements of this database from ``pg_stat_statements`` with their call counts."""
    try:
        result = connector.catalog_query(  # ctxtool's own catalog SQL
            "SELECT s.query, s.calls FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid "
            "WHERE d.datname = current_database() ORDER BY s.calls DESC",
            max_rows=5000,
        )
    except CtxtoolError as exc:
        raise InputError(
            "--workload pg_stat_statements: the extension is not available here "
            f"({str(exc).splitlines()[0]}); add it to shared_preload_libraries and CREATE EXTENSION "
            "pg_stat_statements, or pass a query log file"
        ) from None
    return [(str(q), int(c)) for q, c in result.rows if q]


def from_performance_schema(connector: Any) -> list[tuple[str, int]]:
    """Statement digests of this database from ``performance_schema`` with their counts (MySQL 8
    keeps a concrete sample of each; MariaDB only the digest text)."""
    sqls = [
        "SELECT QUERY_SAMPLE_TEXT, DIGEST_TEXT, COUNT_STAR FROM performance_schema.events_statements_summary_by_digest "
        "WHERE SCHEMA_NAME = DATABASE() ORDER BY COUNT_STAR DESC",
        "SELECT NULL, DIGEST_TEXT, COUNT_STAR FROM performance_schema.events_statements_summary_by_digest "
        "WHERE SCHEMA_NAME = DATABASE() ORDER BY COUNT_STAR DESC",
    ]
    last: Exception | None = None
    for sql in sqls:
        try:
            result = connector.catalog_query(sql, max_rows=5000)  # ctxtool's own catalog SQL
        except CtxtoolError as exc:
            last = exc
            continue
        out = []
        for sample, digest, count in result.rows:
            if sample and not str(sample).endswith("..."):
                out.append((str(sample), int(count or 1)))
            elif digest:
                out.append((normalize_digest(str(digest)), int(count or 1)))
        if not out:
            raise InputError(
                "--workload performance_schema: no statement digests for this database; turn on "
                "performance_schema (performance_schema=ON) and run the workload, or pass a query log file"
            )
        return out
    raise InputError(
        f"--workload performance_schema: cannot read the digests ({str(last).splitlines()[0]}); "
        "turn on performance_schema, or pass a query log file"
    )


_COLLAPSED_LIST = re.compile(r"\(\s*\.\.\.\s*\)")


def normalize_digest(text: str) -> str:
    """A ``performance_schema`` digest as SQL the server runs again: the digest spaces every token
    (``COUNT ( * )``, which MySQL reads as a column ``COUNT``), collapses ``IN`` lists to ``(...)`` and
    writes ``DISTINCT`` as ``DISTINCTROW``. A truncated digest (ending in ``...``) stays as it is and is
    reported as unparseable."""
    text = " ".join(text.split())
    if text.endswith("..."):
        return text
    text = _COLLAPSED_LIST.sub("(?)", text)
    tree = parse(text, "mysql")
    return tree.sql(dialect="mysql") if tree is not None else text


def parse(sql: str, dialect: str) -> exp.Expression | None:
    try:
        tree = sqlglot.parse_one(sql, read=sqlglot_dialect(dialect))
    except (ParseError, TokenError, ValueError):
        return None
    return tree


def read_only_reason(sql: str, tree: exp.Expression | None, dialect: str) -> str | None:
    """Why a statement is not a read-only query of user tables (None when it is one). Read-only is
    the gate's verdict (:func:`ctxtool.gate.check`, the same check every statement passes before it
    reaches the database), so the workload drafts nothing the connectors would refuse; the rest is
    the workload's own: a query of no table or of system catalogs is not one to draft from."""
    verdict = gate_check(sql, dialect)
    if not verdict.ok:
        first = verdict.findings[0]
        if first.code == NOT_READ_ONLY:
            return "writes" if isinstance(tree, (exp.Select, exp.SetOperation)) else "not a SELECT"
        return _GATE_REASONS.get(first.code, first.message)
    if tree is None:
        return "cannot be parsed"
    tables = list(tree.find_all(exp.Table))
    if not tables:
        return "reads no table"
    for t in tables:
        schema = (t.db or "").lower()
        if schema in SYSTEM_SCHEMAS or t.name.lower().startswith("pg_"):
            return "reads system catalogs"
    return None


def fingerprint_tree(tree: exp.Expression, dialect: str) -> str:
    """The statement with every literal and placeholder as ``?`` and ``IN`` lists collapsed."""
    tree = tree.copy()

    def blank(node: exp.Expression) -> exp.Expression:
        if isinstance(node, (exp.Literal, exp.Placeholder, exp.Parameter)) or (
            isinstance(node, exp.Boolean) and not isinstance(node.parent, exp.Is)
        ):
            return exp.Placeholder()
        if isinstance(node, exp.Cast) and isinstance(node.this, exp.Placeholder):
            return node.this
        if isinstance(node, exp.Neg) and isinstance(node.this, exp.Placeholder):
            return node.this
        return node

    tree = tree.transform(blank)
    tree = tree.transform(blank)  # casts of literals turned into placeholders on the first pass
    for node in list(tree.find_all(exp.In)):
        exprs = node.args.get("expressions") or []
        if len(exprs) > 1 and all(isinstance(e, exp.Placeholder) for e in exprs):
            node.set("expressions", [exp.Placeholder()])
    # typed literals (DATE '...') parse to casts or TsOrDsToDate: the same shape as a bare placeholder
    for node in list(tree.find_all(exp.Cast, exp.TsOrDsToDate, exp.StrToDate)):
        if isinstance(node.this, exp.Placeholder) and node.parent is not None:
            node.replace(exp.Placeholder())
    text = tree.sql(dialect="postgres", normalize=True, pretty=False)
    return " ".join(text.split()).lower()


def fingerprint(sql: str, dialect: str) -> str | None:
    tree = parse(sql, dialect)
    return fingerprint_tree(tree, dialect) if tree is not None else None


def table_names(tree: exp.Expression) -> list[str]:
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    out: list[str] = []
    for t in tree.find_all(exp.Table):
        name = t.name
        if name and name.lower() not in ctes and name not in out:
            out.append(name)
    return out


def group_statements(
    statements: Iterable[tuple[str, int]],
    dialect: str,
    *,
    known_tables: Iterable[str] | None = None,
) -> Workload:
    """Merge statements by fingerprint and rank them; keep only read queries of ``known_tables``."""
    spelling = {t.lower(): t for t in known_tables} if known_tables is not None else None
    known = set(spelling) if spelling is not None else None
    groups: dict[str, WorkloadQuery] = {}
    skipped: list[tuple[str, str]] = []
    total = 0
    for sql, count in statements:
        total += 1
        tree = parse(sql, dialect)
        reason = read_only_reason(sql, tree, dialect)
        if reason:
            skipped.append((sql, reason))
            continue
        assert tree is not None
        names = table_names(tree)
        if known is not None and any(n.lower() not in known for n in names):
            skipped.append((sql, "reads tables outside the snapshot or --tables"))
            continue
        if spelling is not None and _respell_tables(tree, spelling, dialect):
            sql = tree.sql(dialect=sqlglot_dialect(dialect))  # the names the server knows
        fp = fingerprint_tree(tree, dialect)
        q = groups.get(fp)
        if q is None:
            q = groups[fp] = WorkloadQuery(fp, tables=names)
        q.count += count
        q.examples[sql] += count
        if tree.find(exp.Placeholder, exp.Parameter) or re.search(r"\$\d", sql):
            q.placeholders = True
    ranked = sorted(groups.values(), key=lambda q: (-q.count, q.fingerprint))
    return Workload(ranked, skipped, total)


def _respell_tables(tree: exp.Expression, spelling: dict[str, str], dialect: str) -> bool:
    """Write table names as the snapshot does (MySQL digests upper-case names that are also keywords,
    ``FROM ACCOUNT``, and table names are case-sensitive on most MySQL servers). True if any changed."""
    changed = False
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    for t in tree.find_all(exp.Table):
        ident = t.this
        if not isinstance(ident, exp.Identifier) or ident.name.lower() in ctes:
            continue
        name = spelling.get(ident.name.lower())
        if name and name != ident.name and (dialect == "mysql" or not ident.quoted):
            t.set("this", exp.to_identifier(name, quoted=ident.quoted or dialect == "mysql"))
            changed = True
    return changed
