"""Whether a question word names a column of the set, or only shares a word with one.

The matcher holds a column the question names against a template that does not read it ("the
number of books on one shelf" is not the number of shelves). A column whose name is several words
(``years_played``, ``date_order_made``) is named by its words together; one of them alone is named
only as a thing: a verb of the question ("players who *play*", "events that *took* place", "the
widgets *made*") or a participle of the column's own name (``years_played``) names no such column
unless the question also says another word of it ("the years played"). Measured on the Spider train
kit (``bench/spider.py``): +7 covered, no wrong answer more; without the verb condition (any word of
a compound column) it answered 4 uncovered questions wrongly ("the details of ..." for a
``customer_details`` column of another table).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ctxtool.runtime.content import content_tokens
from ctxtool.runtime.rewording import _surface, is_verb  # the question's words by content token

__all__ = ["ColumnNames"]


class ColumnNames:
    """The columns the set's queries read, by the words of their names."""

    def __init__(self, columns: Iterable[str]) -> None:
        # word -> (the other words of a column's name, whether the name says the word as a verb)
        self._named: dict[str, list[tuple[frozenset[str], bool]]] = {}
        for name in set(columns):
            parts = [(w.lower(), content_tokens(w)) for w in re.split(r"[_\W]+", name) if w]
            words = frozenset(t for _, tokens in parts for t in tokens)
            for surface, tokens in parts:
                for t in tokens:
                    self._named.setdefault(t, []).append((words - {t}, is_verb(surface)))

    def only_in_passing(self, question: str, words: set[str], q_set: set[str]) -> set[str]:
        """The ``words`` (content tokens of ``question``, of column names) that name no column: every
        column holding one has other words the question does not say, and the question says it as a
        verb or the column's name does."""
        surface = _surface(question)
        out: set[str] = set()
        for w in words:
            named = self._named.get(w)
            if not named or any(not rest or rest & q_set for rest, _ in named):
                continue
            if is_verb(surface.get(w, w)) or all(verb for _, verb in named):
                out.add(w)
        return out
