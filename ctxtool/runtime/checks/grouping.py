"""Whether "for each X" in a question asks for groups the template must make.

"the average price for each year" asks one row per year: a template that does not group does not
answer it. But "each" does not always ask for groups: "the total stock for each shop" of a
template that reads the shop table alone already has one row per shop (its rows are the groups),
and "older than every widget of the batch" is a quantifier ("than all"), no grouping at all. (The
matcher asks this only of a template that computes or sorts something: a bare listing answers no
"total" or "count" per row, and keeps the check.)
Measured on the Spider train kit (``bench/spider.py``): +5 covered, no wrong answer more.
"""

from __future__ import annotations

import re
from collections.abc import Set

from ctxtool.english.content import content_tokens
from ctxtool.runtime.templates.facts import TemplateFacts

__all__ = ["grouped_otherwise", "groups_asked"]

# words every key has: "each widget id" names the widget
_GENERIC = frozenset(content_tokens("id name code number"))

_EACH = re.compile(
    r"\b(than\s+)?(?:each|every|per)\s+(?:single\s+|one\s+of\s+the\s+|of\s+the\s+)?([A-Za-z]+)?", re.I
)


def _head(table: str) -> set[str]:
    """The content words of a table name's last word (``widget_parts``: part)."""
    return set(content_tokens(re.split(r"[_\W]+", table.split(".")[-1].lower())[-1]))


def groups_asked(question: str, tables: Set[str], table_words: Set[str]) -> bool:
    """Whether some "each X" / "every X" / "per X" of ``question`` asks for groups of a template
    reading ``tables`` (whose names' words are ``table_words``): not when X names the one table it
    reads (its rows are one per X: X is its head noun), nor after "than" (a quantifier)."""
    found = False
    for m in _EACH.finditer(question):
        found = True
        if m.group(1):
            continue
        words = set(content_tokens(m.group(2) or ""))
        if len(tables) == 1 and words and words <= table_words and words & _head(next(iter(tables))):
            continue  # (the table's head noun: each widget of ``widget_parts`` is no row of it)
        return True
    return not found


def grouped_otherwise(question: str, facts: TemplateFacts, named: Set[frozenset[str]]) -> bool:
    """The question asks per X ("for each order id") where X names a column or table of the set
    (``named``: each name's words), and the template groups by something else (the products of the
    orders): one row per another thing is another answer."""
    keys = facts.group_key_words
    if not keys:
        return False
    for m in _EACH.finditer(question):
        if m.group(1) or not m.group(2):
            continue
        rest = re.findall(r"[A-Za-z0-9]+", question[m.end(2) :])
        words = set(content_tokens(" ".join([m.group(2), *rest[:1]])))
        said = next((n for n in named if n and n <= words), None) or next(
            (n for n in named if n and set(content_tokens(m.group(2))) == n), None
        )
        if said is None or not said - _GENERIC:
            continue
        # (the head may come later: "each grade 3 classroom" groups by the classroom)
        near = set(content_tokens(" ".join([m.group(2), *rest[:3]]))) - _GENERIC
        if not near & keys:
            return True
    return False
