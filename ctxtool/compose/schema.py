"""The schema as composition needs it: tables, column types, and the foreign keys that join them.

A join path is the shortest chain of foreign keys from the query's tables to the table of a
condition's column. Each step says its direction: from the referencing table to the referenced one
(many to one: a join keeps the query's rows as they are) or the other way (one to many: a join would
repeat them, so the condition becomes an ``EXISTS``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxtool.compose.types import ColumnRef, ComposeError


@dataclass(frozen=True)
class Step:
    """One join: ``source.source_columns = target.target_columns``; ``to_one`` when ``source`` holds
    the foreign key (each source row meets at most one target row)."""

    source: str
    source_columns: tuple[str, ...]
    target: str
    target_columns: tuple[str, ...]
    to_one: bool


@dataclass
class SchemaGraph:
    """Tables (lower case -> as written), their columns' types, and foreign-key steps both ways."""

    tables: dict[str, str] = field(default_factory=dict)
    types: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)  # table -> col -> (name, type)
    steps: dict[str, list[Step]] = field(default_factory=dict)

    @classmethod
    def from_snapshot(cls, snapshot: dict[str, Any]) -> SchemaGraph:
        """From a snapshot (``ctxtool introspect``): every schema's tables and foreign keys."""
        tables = [t for s in snapshot.get("schemas") or [] for t in s.get("tables") or []]
        return cls.build(
            (
                t["name"],
                [(c["name"], str(c.get("type") or "")) for c in t.get("columns") or []],
                [(fk["columns"], fk["ref_table"], fk["ref_columns"]) for fk in t.get("foreign_keys") or []],
            )
            for t in tables
        )

    @classmethod
    def build(
        cls,
        tables: Iterable[
            tuple[str, Sequence[tuple[str, str]], Sequence[tuple[Sequence[str], str, Sequence[str]]]]
        ],
    ) -> SchemaGraph:
        """From ``(table, [(column, type)], [(columns, ref_table, ref_columns)])`` triples."""
        graph = cls()
        for name, columns, fks in tables:
            key = name.lower()
            graph.tables[key] = name
            graph.types[key] = {c.lower(): (c, t) for c, t in columns}
            for cols, ref, ref_cols in fks:
                graph.steps.setdefault(key, []).append(Step(name, tuple(cols), ref, tuple(ref_cols), True))
                graph.steps.setdefault(ref.lower(), []).append(
                    Step(ref, tuple(ref_cols), name, tuple(cols), False)
                )
        return graph

    def column(self, ref: ColumnRef) -> ColumnRef:
        """``ref`` spelled as the schema writes it; an error naming the table when it has no such column."""
        cols = self.types.get(ref.table.lower())
        if cols is None:
            raise ComposeError(f"no table {ref.table!r} in the schema")
        if ref.column.lower() not in cols:
            raise ComposeError(f"no column {ref.column!r} in table {self.tables[ref.table.lower()]}")
        return ColumnRef(self.tables[ref.table.lower()], cols[ref.column.lower()][0])

    def type_of(self, ref: ColumnRef) -> str:
        """The column's SQL type, lower case ("" when the schema does not say)."""
        return self.type_of_name(ref.table, ref.column)

    def type_of_name(self, table: str, column: str) -> str:
        cols = self.types.get(table.lower(), {})
        return cols.get(column.lower(), ("", ""))[1].lower()

    def path(self, sources: Sequence[str], target: str) -> list[Step]:
        """The shortest chain of foreign-key steps from any of ``sources`` to ``target`` (empty when
        ``target`` is one of them); many-to-one steps are preferred among paths of one length."""
        target_l = target.lower()
        starts = [s.lower() for s in sources]
        if target_l in starts:
            return []
        came: dict[str, Step | None] = {s: None for s in starts}
        queue = deque(starts)
        while queue:
            cur = queue.popleft()
            for step in sorted(self.steps.get(cur, []), key=lambda s: not s.to_one):
                nxt = step.target.lower()
                if nxt in came:
                    continue
                came[nxt] = step
                if nxt == target_l:
                    path = []
                    node = nxt
                    while came[node] is not None:
                        path.append(came[node])
                        node = came[node].source.lower()  # type: ignore[union-attr]
                    return list(reversed(path))  # type: ignore[arg-type]
                queue.append(nxt)
        raise ComposeError(
            f"no foreign key joins {', '.join(self.tables.get(s, s) for s in starts)} to {target}; "
            "add the key to the schema or a template that reads both"
        )
