"""``draft values`` end to end: snapshot or live database in, context set (and DDL) out.

The CLI is a thin layer over :func:`draft_values`; tests and other tools call it directly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxtool import jsondoc
from ctxtool.errors import InputError
from ctxtool.values.ddl import Applied, Planned, apply_ddl, ddl_script, plan_ddl
from ctxtool.values.draft import draft, load_snapshot, merge, server_from_connector
from ctxtool.values.recipes import Recipe, Server, ddl_for, server_from_snapshot


@dataclass
class DraftResult:
    recipes: list[Recipe]
    data: dict  # the context set written (or printed)
    server: Server
    notes: list[str] = field(default_factory=list)
    applied: list[Applied] = field(default_factory=list)
    added: int = 0
    replaced: int = 0

    @property
    def ddl(self) -> list[str]:
        return ddl_for(self.recipes)

    @property
    def ddl_script(self) -> str:
        header = (
            f"DDL for {len(self.recipes)} value searches on {self.server.flavour or self.server.engine}\n"
            "apply with `ctxtool draft values --dsn DSN --apply-ddl`, or run it yourself"
        )
        return ddl_script(self.ddl, self.server.engine, header)

    @property
    def text(self) -> str:
        return jsondoc.dumps_json(self.data)

    @property
    def summary(self) -> str:
        return f"{self.added} value searches added, {self.replaced} replaced"


def draft_values(
    *,
    dsn: str | None = None,
    snapshot_path: str | None = None,
    snapshot: dict | None = None,
    columns: Sequence[str] = (),
    match: str | None = None,
    output: str | None = None,
    merge_path: str | None = None,
    apply: bool = False,
    confirm: Callable[[list[Planned]], bool] | None = None,
    snapshot_output: str | None = None,
    timeout: float = 30.0,
    log: Callable[[str], None] | None = None,
    **recipe_options: Any,
) -> DraftResult:
    """Draft value searches from a live database (``dsn``) or a snapshot; optionally write them to
    ``output`` (a new set) or merge them into ``merge_path``, and apply their DDL (``apply``).

    Applying is planned first: ``confirm`` gets the plan (:func:`ctxtool.values.ddl.plan_ddl`) and
    returns False to stop before anything runs (nothing is applied or written). Afterwards the
    schema is read again (the DDL may add columns): ``snapshot_output`` receives the fresh snapshot."""
    log = log or (lambda _m: None)
    if apply and not dsn:
        raise InputError("--apply-ddl needs --dsn (the database to change)")
    # without --apply-ddl every search must run on the database as it is; with it, the better
    # searches are drafted and their DDL applied before the set is written
    if dsn:
        from ctxtool import snapshot as snapshots
        from ctxtool.connectors import connect

        with connect(dsn, statement_timeout=timeout) as conn:
            server = server_from_connector(conn)
            snap = snapshots.build(conn, profile=True)
            recipes, notes = draft(
                snap, server=server, columns=columns, match=match, connector=None if apply else conn,
                as_is=not apply, **recipe_options,
            )  # fmt: skip
    else:
        snap = snapshot if snapshot is not None else load_snapshot(str(snapshot_path))
        server = server_from_snapshot(snap)
        recipes, notes = draft(snap, server=server, columns=columns, match=match, **recipe_options)
    if not recipes:  # not a failure: the set is written as it was, and the note says why
        notes.append(_why_none(snap))
    for recipe in recipes:
        notes.extend(f"{recipe.target.label}: {n}" for n in recipe.notes)
        if recipe.ddl_required and not apply:  # a forced --match whose DDL is not in place
            notes.append(
                f"{recipe.target.label}: the {recipe.match} search needs its DDL (--emit-ddl, --apply-ddl)"
            )
    existing: dict = {}
    if merge_path:
        from ctxtool import contextset

        cs = contextset.load(merge_path)
        if not isinstance(cs.data, dict):
            raise InputError(f"{merge_path}: not a context set (a JSON object); cannot merge into it")
        existing = cs.data
    data, added, replaced = merge(existing, recipes)
    notes.extend(_validate(data, server))
    result = DraftResult(recipes, data, server, notes, added=added, replaced=replaced)
    if apply:  # first: a file naming searches whose DDL failed half-way is never written
        plan = plan_ddl(result.ddl, server.engine)
        if confirm is not None and not confirm(plan):
            raise InputError("--apply-ddl stopped before running anything: nothing was applied or written")
        result.applied = apply_ddl(str(dsn), result.ddl, log=log)
        result.notes.extend(_applied_notes(recipes, result.applied))
        ran = {a.statement for a in result.applied if a.status == "applied"}
        added = [p for p in plan if p.changes_table and p.statement in ran]
        if added or snapshot_output:
            _refresh_snapshot(str(dsn), timeout, snapshot_output, len(added), result.notes)
    target = output or merge_path
    if target:
        jsondoc.write_text_atomic(target, result.text)
    return result


def _refresh_snapshot(dsn: str, timeout: float, output: str | None, added: int, notes: list[str]) -> None:
    """Read the schema again after the DDL; write it to ``output`` and say what changed."""
    from ctxtool import snapshot as snapshots
    from ctxtool.connectors import connect

    with connect(dsn, statement_timeout=timeout) as conn:
        snap = snapshots.build(conn, profile=True)
    if output:
        snapshots.save(output, snap)
        notes.append(f"snapshot refreshed after the DDL -> {output}")
    if added:
        notes.append(
            f"the DDL added {added} column(s) to your tables: snapshots taken before are out of date"
            + ("" if output else "; take one again (ctxtool introspect, or --write-snapshot FILE)")
        )


def _why_none(snap: dict) -> str:
    """Why no column got a value search: the tables hold no text values yet, or none of them
    looks like what people type."""
    from ctxtool.values.draft import iter_columns

    profiles = [c.get("profile") for _s, _t, c in iter_columns(snap) if c.get("profile")]
    if profiles and all(p.get("distinct") == 0 for p in profiles):
        return "no value searches: the tables hold no values yet (draft values again once they do)"
    return "no value searches: no column looks like names, codes or categories; name columns with --column table.column"


def _applied_notes(recipes: Sequence[Recipe], applied: Sequence[Applied]) -> list[str]:
    """What ``--apply-ddl`` did: per search whose DDL it ran, then one line in all."""
    status = {a.statement: a.status for a in applied}
    notes = []
    for recipe in recipes:
        done = [s for s in recipe.ddl if status.get(s) == "applied"]
        there = [s for s in recipe.ddl if status.get(s) == "exists"]
        if done or there:
            notes.append(
                f"{recipe.target.label}: DDL of the {recipe.match} search applied "
                f"({len(done)} statement(s) run, {len(there)} already in place)"
            )
    ran = sum(1 for a in applied if a.status == "applied")
    notes.append(
        f"DDL applied: {ran} statement(s) run, {len(applied) - ran} already in place "
        f"({len(applied)} for {len(recipes)} value searches)"
    )
    return notes


def _validate(data: dict, server: Server) -> list[str]:
    """Findings the validator has on the drafted searches (a drafting bug if there are any)."""
    from ctxtool import contextset
    from ctxtool.validate import validate_set

    cs = contextset.loads(jsondoc.dumps_json({"value_searches": data.get("value_searches", [])}), "<drafted>")
    dialect = "postgres" if server.is_spanner_pg else server.engine
    out = []
    for f in validate_set(cs, dialect=dialect):
        if f.code != "CTX003" and f.is_error:
            out.append(f"warning: drafted search {f.pointer}: {f.code} {f.message}")
    return out
