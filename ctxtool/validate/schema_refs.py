"""Schema-reference layer (``validate --snapshot`` / ``--dsn``): every table and column that templates,
facets and value searches reference exists in the database's snapshot; comparisons of a column with a
literal of an incompatible type are warned; a value search's ``columns`` literal names a real column.

References come from :mod:`ctxtool.sqlrefs` (aliases, CTEs and correlated subqueries resolved).
On PostgreSQL an unquoted identifier is folded to lower case, so ``district.A3`` does not find the
column ``"A3"``: that is reported too, with the quoting that works.
"""

from __future__ import annotations

import re

from ctxtool import sqlrefs
from ctxtool.connectors.profile import effective_type, type_category
from ctxtool.contextset import Item
from ctxtool.snapshot import Catalog, TableRef, catalog
from ctxtool.validate.context import SQL_FIELDS, Context, text
from ctxtool.validate.findings import ERROR, WARNING
from ctxtool.validate.rules import Rule, register

register(
    Rule("CTX801", "unknown-table", ERROR, "The SQL names a table or view the database does not have.",
         "Fix the table name, or refresh the snapshot (`ctxtool introspect`) if the table is new."),
    Rule("CTX802", "unknown-column", ERROR, "The SQL names a column its table (or any table in scope) does not have.",
         "Fix the column name or its table qualifier; check the snapshot for the real name."),
    Rule("CTX803", "ambiguous-column", ERROR, "An unqualified column exists in more than one table of its FROM clause.",
         "Qualify the column with its table or alias (t.column)."),
    Rule("CTX804", "literal-type-mismatch", WARNING,
         "A column is compared with a literal of an incompatible type (text with a number, a date with a non-date...).",
         "Compare with a literal of the column's type, e.g. quote dates as 'YYYY-MM-DD' and leave numbers unquoted."),
    Rule("CTX805", "value-search-unknown-column", ERROR,
         "The `columns` literal of a value search names a table.column the database does not have.",
         "Make the literal the table.column the query searches."),
    Rule("CTX806", "identifier-case", ERROR,
         "On PostgreSQL an unquoted identifier is folded to lower case and so misses a mixed-case name.",
         'Quote the identifier exactly as it is spelled in the database, e.g. district."A3".'),
)  # fmt: skip

_DATE_TEXT = re.compile(
    r"^\s*\d{4}-\d{1,2}-\d{1,2}([ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?)?\s*([+-]\d{2}(:?\d{2})?|Z|UTC)?\s*$"
)
_NUMBER_TEXT = re.compile(r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$")
_DATE_WORDS = {"now", "today", "yesterday", "tomorrow", "infinity", "-infinity", "epoch", "allballs"}
_BOOL_TEXT = {"true", "false", "t", "f", "yes", "no", "y", "n", "on", "off", "1", "0"}


def _catalog(ctx: Context) -> Catalog:
    return catalog(ctx.snapshot)


def sql_fields(item: Item) -> list[tuple[tuple[str, ...], str]]:
    """The SQL fields to check: the concrete form, else the parameterized one."""
    concrete, parameterized = SQL_FIELDS[item.kind]
    out: list[tuple[tuple[str, ...], str]] = []
    sql = text(item.data, concrete)
    if sql is not None:
        out.append(((concrete,), sql))
    elif parameterized is not None:
        psql = text(item.data, "parameterized", parameterized)
        if psql is not None:
            out.append((("parameterized", parameterized), psql))
    return out


def check(ctx: Context) -> None:
    cat = _catalog(ctx)
    pg_rules = str(ctx.snapshot.get("dialect") or "") == "postgres" and ctx.dialect == "postgres"
    for item in ctx.cs.items():
        for path, sql in sql_fields(item):
            tree = ctx.parse(sql).single
            if tree is None:
                continue  # the SQL layer reports what does not parse
            ptr = item.field_pointer(*path)
            try:
                refs = sqlrefs.references(tree, ctx.dialect, cat)
            except Exception:  # noqa: BLE001 - an unusual tree must not stop validation
                continue
            _check_refs(ctx, ptr, refs, cat, pg_rules)
            if item.kind == "value_searches":
                _check_columns_literals(ctx, ptr, refs, cat)


def _table(cat: Catalog, name: str, schema: str | None, columns: tuple[str, ...] = ()) -> TableRef | None:
    return cat.table(name, schema, columns)


def _check_refs(ctx: Context, ptr: str, refs: sqlrefs.Refs, cat: Catalog, pg_rules: bool) -> None:
    missing_tables: set[str] = set()
    for use in refs.tables:
        ref = _table(cat, use.name, use.schema)
        shown = f"{use.schema}.{use.name}" if use.schema else use.name
        if ref is None:
            if shown not in missing_tables:
                ctx.report(
                    "CTX801",
                    ptr,
                    f"table {shown} does not exist{_suggest(use.name, [t.name for t in cat.tables()])}",
                )
            missing_tables.update({shown, use.alias or use.name})
            continue
        if pg_rules and not _pg_name_matches(use.name, use.quoted, ref.name):
            ctx.report(
                "CTX806", ptr, f'table {use.name} is spelled "{ref.name}" in the database; write "{ref.name}"'
            )
    reported: set[tuple[str, str]] = set()
    for col in refs.columns:
        ref = _table(cat, col.table, col.schema, (col.column,))
        if ref is None:
            continue  # its table is already reported
        found = ref.column(col.column)
        key = (ref.name, col.column)
        if key in reported:
            continue
        if found is None:
            reported.add(key)
            names = [c["name"] for c in ref.table["columns"]]
            ctx.report(
                "CTX802",
                ptr,
                f"column {col.column} does not exist in table {ref.name}{_suggest(col.column, names)}",
            )
        elif pg_rules and not _pg_name_matches(col.column, col.quoted, found["name"]):
            reported.add(key)
            written = f"{col.qualifier}.{col.column}" if col.qualifier else col.column
            fixed = f'{col.qualifier}."{found["name"]}"' if col.qualifier else f'"{found["name"]}"'
            ctx.report(
                "CTX806",
                ptr,
                f'{written} does not match the column "{found["name"]}" on PostgreSQL; write {fixed}',
            )
    for un in refs.unresolved:
        if un.reason == "ambiguous" and un.candidates:
            ctx.report("CTX803", ptr, f"column {un.column} is ambiguous: it is in {', '.join(un.candidates)}")
        elif un.reason == "not-found" and not missing_tables & set(un.candidates):
            where = f" of {', '.join(un.candidates)}" if un.candidates else ""
            ctx.report("CTX802", ptr, f"column {un.column} is not in any table{where}")
        elif un.reason == "cte-column":
            ctx.report(
                "CTX802",
                ptr,
                f"{un.qualifier}.{un.column}: {un.qualifier} returns only {', '.join(un.candidates)}",
            )
        elif un.reason == "unknown-qualifier" and un.qualifier not in missing_tables:
            ctx.report(
                "CTX802", ptr, f"{un.qualifier}.{un.column}: {un.qualifier} is not a table or alias in scope"
            )
    for cmp in refs.comparisons:
        ref = _table(cat, cmp.column.table, cmp.column.schema)
        column = ref.column(cmp.column.column) if ref else None
        if column is None:
            continue
        problem = _incompatible(effective_type(column), cmp, ctx.dialect)
        if problem:
            ctx.report("CTX804", ptr, f"{ref.name}.{column['name']} ({column.get('type')}) {problem}")  # type: ignore[union-attr]


def _pg_name_matches(written: str, quoted: bool, actual: str) -> bool:
    """Whether PostgreSQL resolves ``written`` (quoted or not) to the identifier ``actual``."""
    return written == actual if quoted else written.lower() == actual


def _incompatible(column_type: str, cmp: sqlrefs.Comparison, dialect: str = "postgres") -> str | None:
    category = type_category(column_type)
    lit = cmp.literal
    shown = f"'{lit}'" if cmp.is_string else lit
    lowered = column_type.lower()
    if "bool" in lowered:
        if cmp.is_string and lit.strip().lower() not in _BOOL_TEXT:
            return f"is compared with {shown}, which is not a boolean"
        return None
    if cmp.op in ("like", "ilike"):
        if category in ("number", "date"):
            return f"is matched with {cmp.op.upper()} {shown}; LIKE works on text, compare the value instead"
        return None
    if category == "number":
        if cmp.is_string and not _NUMBER_TEXT.match(lit):
            return f"is compared with the text {shown}, which is not a number"
        if cmp.is_string and dialect == "spanner":
            return f"is compared with the text {shown}; GoogleSQL does not turn text into numbers: write {lit.strip()}"
    elif category == "date":
        if not cmp.is_string:
            return f"is compared with the number {shown}; write a date literal such as '2024-01-31'"
        if (
            not _DATE_TEXT.match(lit)
            and not _NUMBER_TEXT.match(lit)
            and lit.strip().lower() not in _DATE_WORDS
            and lowered != "year"
        ):
            return f"is compared with {shown}, which is not a date (write 'YYYY-MM-DD')"
    elif category == "text":
        if not cmp.is_string:
            return f"is compared with the number {shown}; quote it ('{lit}') to compare text with text"
    return None


def _check_columns_literals(ctx: Context, ptr: str, refs: sqlrefs.Refs, cat: Catalog) -> None:
    for literal in refs.columns_literals:
        for part in (p.strip() for p in literal.split(",")):
            if "." not in part:
                continue  # CTX604 (value-search layer) reports the shape
            table_name, column_name = part.rsplit(".", 1)
            schema = None
            if "." in table_name:
                schema, table_name = table_name.rsplit(".", 1)
            table_name, column_name = table_name.strip('"`'), column_name.strip('"`')
            ref = cat.table(table_name, schema)
            if ref is None:
                ctx.report(
                    "CTX805",
                    ptr,
                    f"the columns literal '{literal}' names the table {table_name}, which does not exist",
                )
            elif ref.column(column_name) is None:
                ctx.report(
                    "CTX805",
                    ptr,
                    f"the columns literal '{literal}' names {column_name}, which table {ref.name} does not have",
                )


def _suggest(name: str, candidates: list[str]) -> str:
    import difflib

    lowered = {c.lower(): c for c in candidates}
    close = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.75)
    return f"; did you mean {lowered[close[0]]}?" if close else ""
