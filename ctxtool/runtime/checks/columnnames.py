"""Whether a question word names a column of the set, or only shares a word with one.

The matcher holds a column the question names against a template that does not read it ("the
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
from typing import Any

from ctxtool.english.content import content_tokens
from ctxtool.english.reading import surface, words_before
from ctxtool.runtime.matching.rewording import is_verb  # the question's words by content token

__all__ = ["ColumnNames", "returned_things", "words_before"]


def returned_things(tpl: Any) -> set[str]:
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
