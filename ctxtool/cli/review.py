"""`ctxtool review FILE`: step through drafted items in the terminal (keep / edit / drop)."""

from __future__ import annotations

import click

from ctxtool import console
from ctxtool.errors import CtxtoolError

ROWS_SHOWN = 5


@click.command("review")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--dsn",
    default=None,
    envvar="CTXTOOL_DSN",
    help="Show a few result rows of each item from this database (read-only).",
)
@click.option(
    "--dialect", default=None, help="postgres, mysql or spanner (default: the --dsn's, else postgres)."
)
@click.option("--restart", is_flag=True, help="Forget earlier decisions and review every item again.")
@click.option("--drop-family", "drop_families", multiple=True, metavar="FAMILY",
              help="Drop every pending item of this family (repeatable): count, count-per, aggregate, "
                   "aggregate-per, top-n, superlative, lookup, list, filter (facets).")  # fmt: skip
@click.option("--keep-family", "keep_families", multiple=True, metavar="FAMILY",
              help="Keep every pending item of this family (repeatable).")  # fmt: skip
@click.option("--drop-table", "drop_tables", multiple=True, metavar="TABLE",
              help="Drop every pending item that reads this table (repeatable).")  # fmt: skip
@click.option("--keep-table", "keep_tables", multiple=True, metavar="TABLE",
              help="Keep every pending item that reads this table (repeatable).")  # fmt: skip
def command(
    file: str,
    dsn: str | None,
    dialect: str | None,
    restart: bool,
    drop_families: tuple[str, ...],
    keep_families: tuple[str, ...],
    drop_tables: tuple[str, ...],
    keep_tables: tuple[str, ...],
) -> None:
    """Review FILE item by item: see the question, the SQL and a few result rows, then keep, edit or
    drop it. Every decision is saved at once (atomically), so an interrupted review loses nothing
    and the next run resumes where it stopped. With --drop-/--keep-family or --drop-/--keep-table,
    decide those items in bulk (a drop wins) and stop; review the rest in another run."""
    from ctxtool.draft.review import FAMILIES

    unknown = [f for f in (*drop_families, *keep_families) if f.lower() not in FAMILIES]
    if unknown:
        raise click.BadParameter(f"{unknown[0]!r}: use one of {', '.join(FAMILIES)}", param_hint="--*-family")
    if drop_families or keep_families or drop_tables or keep_tables:
        from ctxtool.dialects import normalize
        from ctxtool.draft.review import ReviewSession

        session = ReviewSession(file, normalize(dialect) if dialect else "postgres")
        if restart:
            session.restart()
        dropped, kept = session.bulk(
            drop_families=drop_families, keep_families=keep_families,
            drop_tables=drop_tables, keep_tables=keep_tables,
        )  # fmt: skip
        console.info(f"{file}: {dropped} dropped, {kept} kept; {len(session.pending())} left to review")
        return
    from ctxtool.dialects import normalize
    from ctxtool.draft.review import ReviewSession

    conn = None
    if dsn:
        from ctxtool.connectors import connect

        conn = connect(dsn)
    try:
        d = normalize(dialect) if dialect else (conn.dialect if conn is not None else "postgres")
        session = ReviewSession(file, d)
        if restart:
            session.restart()
        pending = session.pending()
        total = len(session.items())
        if not pending:
            console.info(f"{file}: all {total} items already reviewed (use --restart to review again)")
            return
        console.info(f"{file}: {len(pending)} of {total} items to review")
        kept = dropped = edited = 0
        for n, item in enumerate(pending, 1):
            _show(item, n, len(pending), conn, d)
            while True:
                choice = click.prompt(
                    "[k]eep, [e]dit, [d]rop, [s]kip, [q]uit",
                    type=click.Choice(["k", "e", "d", "s", "q"]),
                    default="k",
                    show_choices=False,
                    err=True,
                )
                if choice == "e":
                    current = _current(session, item)
                    question = click.prompt("question", default=current.question, err=True)
                    sql = click.prompt("SQL", default=current.sql, err=True)
                    problems = session.edit(current, question, sql)
                    edited += 1
                    if problems:
                        console.warn(
                            "saved, but its parameterized forms could not be derived: " + "; ".join(problems)
                        )
                    else:
                        console.info("saved")
                    _show_rows(_current(session, item), conn, d)
                    break
                if choice == "d":
                    session.drop(_current(session, item))
                    dropped += 1
                    console.info("dropped (saved)")
                    break
                if choice == "k":
                    session.keep(item)
                    kept += 1
                    break
                if choice == "s":
                    break
                console.info(f"stopped: {kept} kept, {edited} edited, {dropped} dropped; run again to resume")
                return
        session.finish()
        console.info(f"done: {kept} kept, {edited} edited, {dropped} dropped")
    finally:
        if conn is not None:
            conn.close()


def _current(session, item):
    """The item as the file holds it now (indexes shift after a drop)."""
    for other in session.items():
        if other.fingerprint == item.fingerprint:
            return other
    for other in session.items():
        if other.kind == item.kind and other.index == item.index:
            return other
    return item


def _show(item, n: int, total: int, conn, dialect: str) -> None:
    console.info("")
    console.info(f"[{n}/{total}] {item.kind[:-1]}: {item.question}")
    console.info(f"  SQL: {item.sql}")
    if item.data.get("manifest"):
        console.info(f"  manifest: {item.data['manifest']}")
    _show_rows(item, conn, dialect)


def _show_rows(item, conn, dialect: str) -> None:
    if conn is None:
        return
    from ctxtool.draft.review import preview_sql

    sql = preview_sql(item, dialect)
    if sql is None:
        return
    try:
        result = conn.query(sql)  # the session's row cap bounds it; only ROWS_SHOWN are printed
    except CtxtoolError as exc:
        console.warn(f"it fails: {str(exc).splitlines()[0]}")
        return
    if not result.rows:
        console.warn("it returns no rows")
        return
    console.info("  " + " | ".join(result.columns))
    for row in result.rows[:ROWS_SHOWN]:
        console.info("  " + " | ".join("NULL" if v is None else str(v) for v in row))
    if result.truncated or len(result.rows) > ROWS_SHOWN:
        console.info("  ...")
