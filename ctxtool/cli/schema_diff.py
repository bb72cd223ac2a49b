"""``ctxtool schema-diff``: what changed between two schema snapshots, and whether a context set is hit."""

from __future__ import annotations

import json
import sys

import click

from ctxtool import console
from ctxtool.errors import EXIT_FINDINGS


@click.command("schema-diff")
@click.argument("old", metavar="OLD")
@click.argument("new", metavar="NEW")
@click.option("--context", "contexts", multiple=True, metavar="FILE",
              help="A context-set file (repeatable): exit 1 when something it references was dropped or changed.")  # fmt: skip
@click.option("--dialect", "-d", default=None, metavar="DIALECT",
              help="SQL dialect of the context files (default: the snapshot's).")  # fmt: skip
@click.option("--format", "-f", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def command(old: str, new: str, contexts: tuple[str, ...], dialect: str | None, fmt: str) -> None:
    """List tables, columns, keys and indexes added, dropped and changed from snapshot OLD to NEW.

    With --context, the changes that touch a table or column the context set references are marked,
    and the exit status is 1 when one of them is breaking (a dropped table or column, a column whose
    type changed). Without --context the exit status is 0.

    \b
    Examples:
      ctxtool schema-diff old.snapshot.json new.snapshot.json
      ctxtool schema-diff old.json new.json --context contexts/shop.json
    """
    from ctxtool import contextset
    from ctxtool import snapshot as snapshot_module
    from ctxtool.dialects import normalize

    before = snapshot_module.load(old)
    after = snapshot_module.load(new)
    changes = snapshot_module.diff(before, after)
    dialect = normalize(dialect or str(before.get("dialect") or "postgres"))
    affected: dict[int, list[str]] = {}
    for path in contexts:
        cs = contextset.load(path)
        for i, files in impacted(changes, cs, dialect, before).items():
            affected.setdefault(i, []).extend(f"{path}: {f}" for f in files)
    breaking = [i for i in affected if changes[i].breaking]
    if fmt == "json":
        out = {
            "changes": [{**c.to_dict(), "affects": affected.get(i, [])} for i, c in enumerate(changes)],
            "breaking_for_context": len(breaking),
        }
        sys.stdout.write(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
    else:
        symbols = {"added": "+", "dropped": "-", "changed": "~"}
        for i, change in enumerate(changes):
            detail = f"  ({change.detail})" if change.detail else ""
            line = f"{symbols[change.action]} {change.kind} {change.name}{detail}"
            if i in affected:
                line += "  <- used by " + "; ".join(sorted(set(affected[i])))
            console.stdout.print(line, markup=False, highlight=False)
        summary = f"{len(changes)} change(s)"
        if contexts:
            summary += f"; {len(breaking)} breaking for the context set(s)"
        console.info(summary if changes else "no changes")
    sys.stdout.flush()
    if breaking:
        sys.exit(EXIT_FINDINGS)


def impacted(changes: list, cs, dialect: str, snapshot: dict) -> dict[int, list[str]]:  # type: ignore[no-untyped-def]
    """``{index of change: [items of cs that reference what it touches]}`` for tables and columns."""
    from ctxtool import sqlrefs
    from ctxtool.snapshot import catalog
    from ctxtool.validate.schema_refs import sql_fields

    cat = catalog(snapshot)
    uses: list[tuple[str, set[str], set[tuple[str, str]]]] = []
    for item in cs.items():
        tables: set[str] = set()
        columns: set[tuple[str, str]] = set()
        for _path, sql in sql_fields(item):
            try:
                refs = sqlrefs.references(sql, dialect, cat)
            except Exception:  # noqa: BLE001 - unparsable SQL is validate's business
                continue
            for t in refs.tables:
                ref = cat.table(t.name, t.schema)
                tables.add((ref.name if ref else t.name).lower())
            for c in refs.columns:
                ref = cat.table(c.table, c.schema)
                columns.add(((ref.name if ref else c.table).lower(), c.column.lower()))
            for literal in refs.columns_literals:
                for part in literal.split(","):
                    if "." in part:
                        table, column = part.strip().rsplit(".", 1)
                        table = table.rsplit(".", 1)[-1].strip('"`')
                        tables.add(table.lower())
                        columns.add((table.lower(), column.strip('"`').lower()))
        label = f"{item.kind[:-1].replace('_', ' ')} {item.index + 1}"
        line, _ = cs.position(item.source_pointer)
        uses.append((f"{label} (line {line})", tables, columns))
    out: dict[int, list[str]] = {}
    for i, change in enumerate(changes):
        if change.table is None:
            continue
        table = change.table.lower()
        for label, tables, columns in uses:
            if change.column is not None:
                hit = (table, change.column.lower()) in columns
            else:
                hit = table in tables
            if hit:
                out.setdefault(i, []).append(label)
    return out
