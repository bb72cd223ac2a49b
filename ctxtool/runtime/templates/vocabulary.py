"""What the set's templates and facets name, as a whole, read once when the set is compiled: the words
of their tables (what a question names as an entity), of the columns their queries read, of each
table's columns, and which words name a column of several words (:class:`ColumnNames`).

Whether a question word names a column of the set, or only shares a word with one: the matcher holds a column the question names against a template that does not read it ("the
number of books on one shelf" is not the number of shelves). A column whose name is several words
(``years_worked``, ``date_order_placed``) is named by its words together; one of them alone is named
only as a thing: a verb of the question ("mechanics who *work*", "orders that were *placed*", "the
widgets *made*") or a participle of the column's own name (``years_worked``) names no such column
unless the question also says another word of it ("the years worked"). Measured on the Spider train
kit (``bench/spider.py``): +9 covered, no wrong answer more; without the verb condition (any word of
a compound column) it answered 4 uncovered questions wrongly ("the details of ..." for a
``vendor_details`` column of another table).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Set

from ctxtool.english.content import content_tokens
from ctxtool.english.reading import surface
from ctxtool.english.tokens import is_verb
from ctxtool.runtime.templates.compiled import Compiled
from ctxtool.runtime.templates.facts import name_words

__all__ = ["ColumnNames", "SetFacts", "returned_things", "table_words"]


def table_words(table: str) -> list[str]:
    """The content words of a table name (``order`` -> order, ``airports`` -> airport)."""
    return content_tokens(table.split(".")[-1].replace("_", " "))


def returned_things(tpl: Compiled) -> set[str]:
    """The tables whose columns (other than keys) the template returns: "the names of the widgets"
    asks for the column a template returns of the widgets table (a title, a label), when that table
    has no name column of its own."""
    out: set[str] = set()
    for c in tpl.facts.projected:
        table, _, column = c.rpartition(".")
        if table and not column.endswith("id"):
            out.add(table)
    return out


class ColumnNames:
    """The columns the set's queries read, by the words of their names."""

    def __init__(self, columns: Iterable[str]) -> None:
        # word -> (the other words of a column's name, whether the name says the word as a verb)
        self._named: dict[str, list[tuple[frozenset[str], bool]]] = {}
        for name in set(columns):
            parts = [(w.lower(), content_tokens(w)) for w in re.split(r"[_\W]+", name) if w]
            words = frozenset(t for _, tokens in parts for t in tokens)
            for written, tokens in parts:
                for t in tokens:
                    self._named.setdefault(t, []).append((words - {t}, is_verb(written)))

    def only_in_passing(
        self, question: str, words: set[str], q_set: set[str], before_values: Set[str] = frozenset()
    ) -> set[str]:
        """The ``words`` (content tokens of ``question``, of column names) that name no column: every
        column holding one has other words the question does not say, and the question says it as a
        verb or the column's name does; or it is a verb right before a value the template compares
        with a column of that word ("the widget named 'Zed'" of a ``name`` slot: ``before_values``),
        which says what kind of value it is."""
        written = surface(question)
        out: set[str] = set()
        for w in words:
            if w in before_values and is_verb(written.get(w, w)):
                out.add(w)
                continue
            named = self._named.get(w)
            if not named or any(not rest or rest & q_set for rest, _ in named):
                continue
            said = written.get(w, w)
            if re.search(
                rf"\b(?:is|are|was|were|be|been|being)\s+(?:not\s+)?{re.escape(said)}\b", question, re.I
            ):
                continue  # "the ones who are acting" states a condition on that column
            if is_verb(said) or all(verb for _, verb in named):
                out.add(w)
        return out


class SetFacts:
    """The set's vocabulary: what its templates and facets name (see the module's docstring)."""

    def __init__(self, templates: list[Compiled], facets: list[Compiled], wording_words: Set[str]) -> None:
        # the words of every wording of the set (its inverted index's tokens)
        self.wording_words = frozenset(wording_words)
        # the words that name what a query is about: its tables ("orders" -> order), for the entity check
        self.table_words = {t: set(table_words(t)) for item in templates + facets for t in item.tables}
        self.entity_words: set[str] = set().union(*self.table_words.values()) & self.wording_words
        # the words of the columns the set's queries read: a question naming one the template does not
        # read asks for something else ("the number of books on one shelf")
        self.all_column_words: set[str] = (
            set().union(*(t.column_words for t in templates)) if templates else set()
        )
        self.column_names = ColumnNames(c for t in templates for c in t.facts.columns)
        # the words of each column's name, to tell which column a question sorts by
        self.column_token_sets = {frozenset(name_words(c)) for t in templates for c in t.facts.columns}
        self.schema_words = self.all_column_words | self.entity_words
        # the words of each table's columns, as the templates reading that table alone read them
        self.table_columns: dict[str, set[str]] = {}
        for t in templates:
            if len(t.tables) == 1:
                self.table_columns.setdefault(next(iter(t.tables)), set()).update(t.column_words)

    def words_of_tables(self, tables: Iterable[str]) -> set[str]:
        """The words of ``tables``' names."""
        return set().union(*(self.table_words.get(t, set()) for t in tables))

    def own_columns(self, tpl: Compiled) -> set[str]:
        """The words of the columns of the template's tables (as far as the set reads them)."""
        out: set[str] = set()
        for t in tpl.tables:
            out |= self.table_columns.get(t, set())
        return out
