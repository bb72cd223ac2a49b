"""Which column a question's words name: the schema's own words (identifiers split into English words,
lemmatised), never a vocabulary of one database. "per tier" names ``customer.tier``; "by category"
names the category table's name column; "the order date" a date column whose words are order and
date. The template's own tables come first, then tables nearer through the foreign keys; two columns
named equally well are no answer (the caller asks which)."""

from __future__ import annotations

from collections.abc import Sequence

from ctxtool.compose.schema import SchemaGraph
from ctxtool.compose.types import ColumnRef, ComposeError
from ctxtool.english.lexicon import STOPWORDS
from ctxtool.english.tokens import lemma
from ctxtool.identifiers import words_of

DATE_KINDS = ("date", "time")  # a type holding either is a date or a timestamp
_NAME_WORDS = frozenset({"name", "title", "label"})
_GENERIC = frozenset({"id", "code", "number", "no", "key"})


def lemmas(text: str) -> list[str]:
    """The lemmas of the content words of ``text`` (stop words left out)."""
    words = text.replace("_", " ").split()
    return [lemma(w.lower())[0] for w in words if w.isalnum() and w.lower() not in STOPWORDS]


def is_date(kind: str) -> bool:
    return any(k in kind for k in DATE_KINDS)


def _distance(schema: SchemaGraph, sources: Sequence[str], table: str) -> int | None:
    try:
        return len(schema.path(sources, table))
    except ComposeError:
        return None


def name_column(
    words: str, schema: SchemaGraph, tables: Sequence[str], *, dates: bool | None = None, whole: bool = True
) -> ColumnRef | None:
    """The column ``words`` name, reachable from ``tables``; None when none or two equally.

    ``dates`` True keeps date and timestamp columns only, False leaves them out. ``whole``: every
    word must be the column's or its table's (a grouping's "supplier country"); otherwise some may be
    the clause's verbs (a time's "orders were shipped")."""
    said = [w for w in lemmas(words) if w not in _GENERIC]
    if not said:
        return None
    best: list[tuple[float, ColumnRef, int, float]] = []
    for table_l, cols in schema.types.items():
        hops = _distance(schema, tables, table_l)
        if hops is None:
            continue
        table_words = set(lemmas(words_of(schema.tables[table_l])))
        for name, kind in cols.values():
            if dates is not None and is_date(kind) != dates:
                continue
            col_words = set(lemmas(words_of(name)))
            if col_words & _GENERIC and not set(said) & _GENERIC:
                continue  # a key is no answer to "by region": the region's name is
            hit = sum(1 for w in said if w in col_words)
            # the table's words name its name column ("by category": category.category_name)
            hit += sum(
                0.8 for w in said if w in table_words and w not in col_words and col_words & _NAME_WORDS
            )
            if not hit or (whole and hit < len(said) - 1e-9 and not _all_named(said, col_words, table_words)):
                continue
            extra = col_words - set(said) - table_words - _NAME_WORDS
            if whole and extra:
                continue  # "by authors" is not "authorder"; "student" is not "student_details"
            if (
                whole
                and set(said) <= table_words
                and not col_words & _NAME_WORDS
                and not set(said) <= col_words
            ):
                continue  # words that name a table name its name column, or none
            score = hit / len(said) - 0.1 * hops - 0.05 * len(col_words - set(said) - table_words)
            best.append((score, ColumnRef(schema.tables[table_l], name), hops, hit))
    if not best:
        return None
    best.sort(key=lambda b: -b[0])
    if len(best) > 1 and abs(best[0][0] - best[1][0]) < 1e-9:
        return None
    top = best[0]
    if top[2] > 0 and any(b[3] >= top[3] and b[2] <= top[2] + 1 for b in best[1:]):
        return None  # "by country": a supplier's or a customer's, a join apart; ask which
    return top[1] if top[0] > 0.3 else None


def date_columns(schema: SchemaGraph, tables: Sequence[str]) -> list[ColumnRef]:
    """The date and timestamp columns of ``tables``, as the schema writes them."""
    out = []
    for t in tables:
        for name, kind in schema.types.get(t.lower(), {}).values():
            if is_date(kind):
                out.append(ColumnRef(schema.tables[t.lower()], name))
    return out


def _all_named(said: list[str], col_words: set[str], table_words: set[str]) -> bool:
    return all(w in col_words or w in table_words for w in said)
