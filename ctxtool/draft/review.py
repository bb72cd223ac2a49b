"""Reviewing a drafted set item by item (keep / edit / drop), saving after every decision.

The file is rewritten atomically after each drop or edit, in its own indentation and spelling; the
items already decided are remembered in a small side file (``.<name>.review.json``) so that a review
interrupted at any point resumes where it stopped and loses nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxtool.contextset import normalize_legacy
from ctxtool.errors import InputError
from ctxtool.jsondoc import load_json, write_text_atomic
from ctxtool.parameterize import parameterize_item

_LEGACY = {"sql_snippet": "fragment", "parameterized_sql_snippet": "parameterized_fragment"}


@dataclass
class ReviewItem:
    kind: str  # "templates" | "facets"
    key: str  # the list in the file ("templates", "facets" or legacy "fragments")
    index: int
    data: dict[str, Any]  # current spelling

    @property
    def question(self) -> str:
        return str(self.data.get("nl_query") or self.data.get("intent") or "")

    @property
    def sql(self) -> str:
        return str(self.data.get("sql") if self.kind == "templates" else self.data.get("sql_snippet") or "")

    @property
    def fingerprint(self) -> str:
        return hashlib.sha256(json.dumps([self.kind, self.question, self.sql]).encode()).hexdigest()[:16]


class ReviewSession:
    def __init__(self, path: str, dialect: str = "postgres") -> None:
        self.path = path
        self.dialect = dialect
        doc = load_json(path)
        if not isinstance(doc.data, dict):
            raise InputError(f"{path}:1:1: a context set is a JSON object")
        self.text = doc.text
        self.data = doc.data
        self.progress_path = Path(path).with_name(f".{Path(path).name}.review.json")
        self.done: set[str] = set()
        if self.progress_path.exists():
            try:
                self.done = set(json.loads(self.progress_path.read_text()).get("reviewed", []))
            except (ValueError, AttributeError):
                self.done = set()

    def restart(self) -> None:
        self.done = set()
        if self.progress_path.exists():
            self.progress_path.unlink()

    def items(self) -> list[ReviewItem]:
        out = []
        for kind, key in (("templates", "templates"), ("facets", "facets"), ("facets", "fragments")):
            if key == "fragments" and "facets" in self.data:
                continue
            lst = self.data.get(key)
            if not isinstance(lst, list):
                continue
            for i, raw in enumerate(lst):
                if not isinstance(raw, dict):
                    continue
                data = raw
                if key == "fragments":
                    data = normalize_legacy({"fragments": [raw]})[0]["facets"][0]
                out.append(ReviewItem(kind, key, i, data))
        return out

    def pending(self) -> list[ReviewItem]:
        return [i for i in self.items() if i.fingerprint not in self.done]

    # -- decisions (each one saved at once) ---------------------------------------------------

    def keep(self, item: ReviewItem) -> None:
        self.done.add(item.fingerprint)
        self._save_progress()

    def drop(self, item: ReviewItem) -> None:
        del self.data[item.key][item.index]
        self._save()

    def edit(self, item: ReviewItem, question: str, sql: str) -> list[str]:
        """Replace the question and SQL, re-derive the parameterized forms; return problems (the
        item is saved either way, without stale derived forms when they cannot be derived)."""
        new = dict(item.data)
        if item.kind == "templates":
            new["nl_query"] = question
            new.pop("intent", None)
            new["sql"] = sql
        else:
            new["intent"] = question
            new["sql_snippet"] = sql
        for stale in ("manifest", "parameterized"):
            new.pop(stale, None)
        res = parameterize_item(new, item.kind, self.dialect)
        updated = dict(res) if not res.problems else new
        if item.key == "fragments":
            updated = {_LEGACY.get(k, k): v for k, v in updated.items()}
            if isinstance(updated.get("parameterized"), dict):
                updated["parameterized"] = {_LEGACY.get(k, k): v for k, v in updated["parameterized"].items()}
        self.data[item.key][item.index] = updated
        self._save()
        edited = ReviewItem(item.kind, item.key, item.index, res if not res.problems else new)
        self.done.add(edited.fingerprint)
        self._save_progress()
        return list(res.problems)

    def bulk(
        self,
        *,
        drop_families: Sequence[str] = (),
        keep_families: Sequence[str] = (),
        drop_tables: Sequence[str] = (),
        keep_tables: Sequence[str] = (),
    ) -> tuple[int, int]:
        """Drop (and keep, marking them reviewed) every pending item of these families or reading
        these tables (see :func:`family_of`, :func:`tables_of`), saved once. A drop wins over a
        keep. Returns ``(dropped, kept)``."""
        dropf, keepf = {f.lower() for f in drop_families}, {f.lower() for f in keep_families}
        dropt, keept = {t.lower() for t in drop_tables}, {t.lower() for t in keep_tables}
        gone: list[ReviewItem] = []
        kept = 0
        for item in self.pending():
            fam, tables = family_of(item, self.dialect), tables_of(item, self.dialect)
            if fam in dropf or tables & dropt:
                gone.append(item)
            elif fam in keepf or tables & keept:
                self.done.add(item.fingerprint)
                kept += 1
        for item in sorted(gone, key=lambda i: (i.key, i.index), reverse=True):
            del self.data[item.key][item.index]  # from the end: the other indexes stay valid
        if gone:
            self._save()
        if kept:
            self._save_progress()
        return len(gone), kept

    def _save(self) -> None:
        from ctxtool.setedit import file_indent

        indent = file_indent(self.text)
        text = json.dumps(self.data, indent=indent, ensure_ascii=False)
        if self.text.endswith("\n") or indent is not None:
            text += "\n"
        write_text_atomic(self.path, text)
        self.text = text

    def _save_progress(self) -> None:
        write_text_atomic(
            self.progress_path,
            json.dumps({"file": os.path.basename(self.path), "reviewed": sorted(self.done)}) + "\n",
        )

    def finish(self) -> None:
        """Nothing to do: the side file stays, so the next run knows every item was decided
        (``--restart`` forgets it)."""


# the families family_of() tells apart, for `review --drop-family/--keep-family`
FAMILIES = (
    "count", "count-per", "aggregate", "aggregate-per", "top-n", "superlative", "lookup", "list", "filter",
)  # fmt: skip


def tables_of(item: ReviewItem, dialect: str) -> set[str]:
    """The tables (lower case, also ``schema.table``) an item's SQL reads."""
    from ctxtool.errors import CtxtoolError
    from ctxtool.sqlrefs import references

    try:
        refs = references(item.sql, dialect)  # a facet's condition names its columns' tables
    except CtxtoolError:
        return set()
    out = {t.name.lower() for t in refs.tables} | {c.table.lower() for c in refs.columns}
    out |= {f"{t.schema}.{t.name}".lower() for t in refs.tables if t.schema}
    return out


def family_of(item: ReviewItem, dialect: str) -> str:
    """The family of an item read from its SQL's shape (the drafting families, coarsely): count,
    count-per, aggregate, aggregate-per, top-n, superlative, lookup, list; a facet is a filter."""
    if item.kind != "templates":
        return "filter"
    import sqlglot
    from sqlglot import exp

    from ctxtool.dialects import sqlglot_dialect

    try:
        tree = sqlglot.parse_one(item.sql, read=sqlglot_dialect(dialect))
    except sqlglot.errors.SqlglotError:
        return "list"
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    if select is None:
        return "list"
    outer = [
        a
        for e in select.expressions
        for a in e.find_all(exp.AggFunc)
        if a.find_ancestor(exp.Select) is select
    ]
    grouped = select.args.get("group") is not None
    limit = select.args.get("limit")
    where = select.args.get("where")
    count = any(isinstance(a, exp.Count) for a in outer)
    if outer:
        if grouped:
            return "count-per" if count and len(outer) == 1 else "aggregate-per"
        return "count" if count and len(outer) == 1 else "aggregate"
    if limit is not None:
        n = limit.expression if isinstance(limit, exp.Limit) else None
        return "superlative" if isinstance(n, exp.Literal) and n.this == "1" else "top-n"
    if where is not None and any(isinstance(s, exp.Select) for s in where.find_all(exp.Select)):
        if any(isinstance(a, (exp.Max, exp.Min)) for a in where.find_all(exp.AggFunc)):
            return "superlative"
    if grouped:
        return "count-per"
    if where is not None:
        return "lookup"
    return "list"


def preview_sql(item: ReviewItem, dialect: str) -> str | None:
    """The statement that shows a few result rows of ``item``."""
    if item.kind == "templates":
        return item.sql
    import sqlglot

    from ctxtool.dialects import sqlglot_dialect

    try:
        tree = sqlglot.parse_one(f"SELECT 1 FROM t WHERE {item.sql}", read=sqlglot_dialect(dialect))
    except Exception:
        return None
    tables = [c.table for c in tree.find_all(sqlglot.exp.Column) if c.table]
    if not tables:
        return None
    from ctxtool.draft.model import quote_ident

    return f"SELECT * FROM {quote_ident(tables[0], dialect)} WHERE {item.sql}"
