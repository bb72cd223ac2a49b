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

from ctxtool.runtime.content import content_tokens

__all__ = ["groups_asked"]

_EACH = re.compile(
    r"\b(than\s+)?(?:each|every|per)\s+(?:single\s+|one\s+of\s+the\s+|of\s+the\s+)?([A-Za-z]+)?", re.I
)


def groups_asked(question: str, tables: Set[str], table_words: Set[str]) -> bool:
    """Whether some "each X" / "every X" / "per X" of ``question`` asks for groups of a template
    reading ``tables`` (whose names' words are ``table_words``): not when X names the one table it
    reads (its rows are one per X), nor after "than" (a quantifier)."""
    found = False
    for m in _EACH.finditer(question):
        found = True
        if m.group(1):
            continue
        words = set(content_tokens(m.group(2) or ""))
        if len(tables) == 1 and words and words <= table_words:
            continue
        return True
    return not found
