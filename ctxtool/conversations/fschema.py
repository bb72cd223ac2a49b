"""The schema as follow-ups see it: columns (with comments and profiles), foreign-key join paths,
and finding the column a phrase names ("region", "card type", "year") from the schema's own words,
English lemmas and a few general synonyms."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from ctxtool.errors import InputError
from ctxtool.identifiers import words_of

# general English only (no words of any one database): words people use for a column's role;
# plurals and other inflections go through the English lemmas of ctxtool.english.content
_SYNONYMS = {
    "sex": "gender",
    "kind": "type",
    "sort": "type",
    "state": "status",
}


def base_word(word: str) -> str:
    """The lemma of ``word`` ("regions" -> region, "cards" -> card), then the general synonyms."""
    from ctxtool.english.tokens import lemma

    w = lemma(word)[0]
    return _SYNONYMS.get(w, w)


DIM_STOP = frozenset(
    "the a an their its each every of for in with and by per them those these it all which what is are".split()
)
WORD = re.compile(r"[a-z0-9]+")


class FollowupError(InputError):
    """The follow-up cannot be applied to the previous query."""


# ---------------------------------------------------------------------------------------------------
# schema: columns, comments and foreign keys from a snapshot
# ---------------------------------------------------------------------------------------------------


@dataclass
class ColumnInfo:
    table: str
    name: str
    type: str = ""
    comment: str = ""
    distinct: int | None = None


@dataclass
class Dimension:
    table: str  # real table name as written in the schema
    column: str
    label: str  # the output column name
    part: str | None = None  # "year" / "month": EXTRACT of a date column


@dataclass
class Schema:
    """Tables, columns and foreign-key edges; enough to find a column by words and join to it."""

    columns: dict[str, list[ColumnInfo]] = field(default_factory=dict)  # lower table -> columns
    names: dict[str, str] = field(default_factory=dict)  # lower table -> as written
    edges: dict[str, list[tuple[str, list[str], list[str]]]] = field(default_factory=dict)

    @classmethod
    def from_snapshot(cls, snapshot: dict[str, Any]) -> Schema:
        schema = cls()
        for sch in snapshot.get("schemas") or []:
            for table in sch.get("tables") or []:
                key = table["name"].lower()
                schema.names[key] = table["name"]
                schema.columns[key] = [
                    ColumnInfo(
                        table["name"],
                        c["name"],
                        str(c.get("type") or ""),
                        str(c.get("comment") or ""),
                        (c.get("profile") or {}).get("distinct"),
                    )
                    for c in table.get("columns") or []
                ]
                for fk in table.get("foreign_keys") or []:
                    ref = fk["ref_table"].lower()
                    schema.edges.setdefault(key, []).append((ref, fk["columns"], fk["ref_columns"]))
                    schema.edges.setdefault(ref, []).append((key, fk["ref_columns"], fk["columns"]))
        return schema

    def join_path(self, sources: Sequence[str], target: str) -> list[tuple[str, list[str], str, list[str]]]:
        """The shortest chain of foreign-key joins from any of ``sources`` to ``target``:
        ``[(from_table, from_columns, to_table, to_columns), ...]`` (empty when already there)."""
        target = target.lower()
        starts = [s.lower() for s in sources]
        if target in starts:
            return []
        prev: dict[str, tuple[str, list[str], list[str]] | None] = {s: None for s in starts}
        queue = deque(starts)
        while queue:
            cur = queue.popleft()
            for nxt, cols, ref_cols in self.edges.get(cur, []):
                if nxt in prev:
                    continue
                prev[nxt] = (cur, cols, ref_cols)
                if nxt == target:
                    path = []
                    node = nxt
                    while prev[node] is not None:
                        frm, c, rc = prev[node]  # type: ignore[misc]
                        path.append((frm, c, node, rc))
                        node = frm
                    return list(reversed(path))
                queue.append(nxt)
        raise FollowupError(f"no foreign-key path joins {', '.join(starts)} to {target}")

    def find_dimension(self, phrase: str, near: Sequence[str] = ()) -> Dimension | None:
        """The column a phrase like "region", "card type" or "year" names (ids excluded): words of
        the column name count most, then words of its comment, then its table's name (which alone
        names the table's descriptive ``name`` column)."""
        vocab = self._vocabulary()
        words = []
        for w in WORD.findall(phrase.lower()):
            if w in DIM_STOP:
                continue
            w = base_word(w)
            if w.endswith("s") and len(w) > 3 and w not in vocab and w[:-1] in vocab:
                w = w[:-1]
            words.append(w)
        if not words:
            return None
        near_l = [n.lower() for n in near]
        best: tuple[float, ColumnInfo] | None = None
        for table, cols in self.columns.items():
            table_words = {table, table.rstrip("s")}
            for col in cols:
                cname_words = WORD.findall(words_of(col.name).lower())
                if cname_words[-1:] == ["id"]:
                    continue
                name_words = set(cname_words)  # "billing_country" and "BillingCountry" alike
                comment_words = set(WORD.findall(col.comment.lower()))
                is_name = "name" in name_words or "name" in comment_words
                score = 0.0
                direct = False
                for w in words:
                    if w in name_words:
                        score += 1.0
                        direct = True
                    elif w in comment_words:
                        score += 0.9
                        direct = True
                    elif w in table_words:
                        score += 0.4
                        if is_name:
                            score += 0.3
                            direct = True
                if not direct:
                    continue
                if table in near_l:
                    score += 0.15
                if best is None or score > best[0]:
                    best = (score, col)
        part = next((p for p in ("decade", "year", "month") if p in words), None)
        if "age" in words:
            part = "age_group"
        if best is not None and part != "age_group":
            col = best[1]
            if part and _is_date(col):
                return Dimension(col.table, col.name, part, part)
            return Dimension(col.table, col.name, _label(col))
        if part == "age_group":  # ages in decades, from a birth date
            tables = near_l + [t for t in self.columns if t not in near_l]
            for table in tables:
                for col in self.columns.get(table, []):
                    if _is_date(col) and "birth" in (col.name + " " + col.comment).lower():
                        return Dimension(col.table, col.name, "age_group", part)
            return None
        if part:
            for table in near_l:
                for col in self.columns.get(table, []):
                    if _is_date(col):
                        return Dimension(col.table, col.name, part, part)
        return None

    def _vocabulary(self) -> set[str]:
        vocab: set[str] = set()
        for table, cols in self.columns.items():
            vocab.add(table)
            for col in cols:
                vocab.update(WORD.findall(words_of(col.name).lower()))
                vocab.update(WORD.findall(col.comment.lower()))
        return vocab


def _is_date(col: ColumnInfo) -> bool:
    return "date" in col.type.lower() or "time" in col.type.lower()


def date_part(col: exp.Expression, part: str) -> exp.Expression:
    """``year``/``month``: EXTRACT; ``decade``: the year rounded down to tens; ``age_group``: the age
    today rounded down to tens (20 means 20-29)."""

    def year_of(e: exp.Expression) -> exp.Expression:
        return exp.Extract(this=exp.var("YEAR"), expression=e)

    ten = exp.Literal.number(10)
    if part == "decade":
        return exp.Mul(this=exp.Floor(this=exp.Div(this=year_of(col), expression=ten)), expression=ten.copy())
    if part == "age_group":
        age = exp.Paren(this=exp.Sub(this=year_of(exp.CurrentDate()), expression=year_of(col)))
        return exp.Mul(this=exp.Floor(this=exp.Div(this=age, expression=ten)), expression=ten.copy())
    return exp.Extract(this=exp.var(part.upper()), expression=col)


def _label(col: ColumnInfo) -> str:
    """A readable output name: the column name, ``table_name`` for generic names, else the comment."""
    name = col.name
    if re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        if name in ("type", "name", "status", "date", "value", "kind"):
            return f"{col.table.lower()}_{name}"
        return name
    words = WORD.findall(col.comment.lower())[:2]
    if words:
        return "_".join(words)
    return f"{col.table.lower()}_{name.lower()}"
