"""``mutate_set``: add, update and delete templates, facets and value searches in a context-set file.
Thin over :func:`ctxtool.setedit.edit_set` (the one code path ``promote`` and ``improve`` use too).

An item is named by its index or by its text (a template's ``nl_query``, a facet's ``intent``, a value
search's ``concept_type``). Changed templates and facets get their derived forms (intent, manifest,
parameterized) again, the whole new file is validated, and it is written atomically only when the
changed items have no error: otherwise nothing is written and the findings say why. The file keeps its
key order, indentation, escaping and spelling (a legacy ``fragments`` file stays legacy-spelled).
"""

from __future__ import annotations

import contextlib
from typing import Any

from ctxtool.mcp.tools import DIALECT, DSN, SET_PATH, SNAPSHOT, Defaults, Tool, schema
from ctxtool.setedit import KINDS, NAME_FIELD, EditResult, edit_set

__all__ = ["KINDS", "NAME_FIELD", "TOOLS", "mutate_set", "result_payload"]


def mutate_set(
    *,
    defaults: Defaults,
    path: str,
    operations: list[dict[str, Any]],
    dialect: str | None = None,
    snapshot: str | None = None,
    dsn: str | None = None,
    parameterize: bool = True,
    dry_run: bool = False,
) -> dict[str, Any]:
    from ctxtool import snapshot as snapshots
    from ctxtool.mcp.connections import CONNECTIONS

    snap = snapshots.load(snapshot) if snapshot else None
    dsn = None if snap is not None else dsn or defaults.dsn  # checked against one of them
    stack = contextlib.ExitStack()
    connector = stack.enter_context(CONNECTIONS.session(dsn)) if dsn else None
    with stack:
        result = edit_set(
            path,
            operations,
            dialect=dialect,
            snapshot=snap,
            connector=connector,
            parameterize=parameterize,
            dry_run=dry_run,
        )
    return result_payload(result)


def result_payload(result: EditResult) -> dict[str, Any]:
    """An :class:`~ctxtool.setedit.EditResult` as tool output."""
    from ctxtool.jsondoc import pointer
    from ctxtool.mcp.checks import findings_payload

    return {
        "path": result.path,
        "written": result.written,
        "created": result.created,
        "dialect": result.dialect,
        "dialect_from": result.dialect_from,
        "checked_against": result.checked_against,
        "changed": [{"kind": k, "index": i, "pointer": pointer(k, i)} for k, i in result.changed],
        "deleted": result.deleted,
        "counts": result.counts,
        "blocking_findings": findings_payload(result.blocking),
        "other_findings": findings_payload(result.other),
        "notes": result.notes,
    }


ITEM_SELECTOR = {
    "index": {"type": "integer", "minimum": 0, "description": "Position in its list (0-based)."},
    "nl_query": {"type": "string", "description": "A template's question (selects by text)."},
    "intent": {"type": "string", "description": "A facet's intent (selects by text)."},
    "concept_type": {"type": "string", "description": "A value search's concept type (selects by text)."},
}

TOOLS = [
    Tool(
        "mutate_set",
        "Change a context-set file: add, update or delete templates, facets and value searches. Name "
        "an item by index or by its text (nl_query for templates, intent for facets, concept_type "
        "for value searches). update sets the given fields (null removes one). Changed templates and "
        "facets get their intent/manifest/parameterized forms derived again; the new file is "
        "validated and written atomically only if the changed items have no error finding, keeping "
        "the file's order and format. Returns written, the changed items, the blocking findings (why "
        "nothing was written), the other findings and the deleted items. With snapshot or dsn the changed "
        "items are checked against the database's tables and columns too. Use it instead of editing the "
        "JSON by hand.",
        schema(
            {
                "path": {**SET_PATH, "description": SET_PATH["description"] + " Created when missing."},
                "operations": {
                    "type": "array",
                    "minItems": 1,
                    "description": "Applied in order, all or nothing.",
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["op", "kind"],
                        "properties": {
                            "op": {"type": "string", "enum": ["add", "update", "delete"]},
                            "kind": {"type": "string", "enum": list(KINDS)},
                            **ITEM_SELECTOR,
                            "item": {
                                "type": "object",
                                "description": "add: the whole new item (a template needs nl_query and sql; "
                                "a facet sql_snippet and intent; a value search query and concept_type). "
                                "update: the fields to set. add with index inserts there.",
                            },
                        },
                    },
                },
                "dialect": {
                    **DIALECT,
                    "description": "SQL dialect of the set (default: the snapshot's, the database's, else "
                    "what the set's own SQL shows, else postgres).",
                },
                "snapshot": {
                    **SNAPSHOT,
                    "description": "Check that the tables and columns the changed items read exist here.",
                },
                "dsn": {
                    **DSN,
                    "description": "Check the changed items on this database (tables, columns, a plan of "
                    "each query; read-only). Default: the server's database, unless snapshot is given.",
                },
                "parameterize": {
                    "type": "boolean",
                    "default": True,
                    "description": "Derive the changed items' intent, manifest and parameterized forms.",
                },
                "dry_run": {"type": "boolean", "default": False, "description": "Check only; write nothing."},
            },
            ("path", "operations"),
        ),
        mutate_set,
        read_only=False,
        writes=("path",),
        reads=("snapshot",),
    )
]
