"""What a template returns against what the question asks to be returned.

Two readings go wrong without it: a question that asks *how many* answered by a query that
returns the group (``ORDER BY COUNT(*) ... LIMIT 1`` counts but returns the name), and a count the
question only sorts by ("ordered by the number of ...") answered by a query that returns it as a
column too; a facet's condition on a column the listing returns likewise adds a column no one
asked for when the question names that column only to state the condition.
"""

from __future__ import annotations

import re

from ctxtool.english.content import content_tokens

# "how many ...", "Count the ...", "What is the number of ...": the question wants a count back
_ASKS_COUNT = re.compile(
    r"\bhow\s+many\b|^\W*count\b|^\W*(?:what\s+(?:is|are|was)|what's|find|give|show|return|tell\s+me|list)"
    r"\s+the\s+(?:total\s+)?(?:number|count)\s+of\b",
    re.I,
)
_COUNT_WORDS = re.compile(r"\bhow\s+many\b|\bcount\b|\bnumbers?\s+of\b|\bnumbers?\b", re.I)
_ORDER_WORDS = re.compile(r"\b(?:order(?:ed)?|sort(?:ed)?|rank(?:ed)?)\s+(?:by|of|on)\b|\border\s+of\b", re.I)


def asks_count(question: str) -> bool:
    """The question wants a number of things back ("how many ...", "count the ...")."""
    return bool(_ASKS_COUNT.search(question))


def count_only_to_order(question: str) -> bool:
    """Every count word of the question comes after a word of ordering, in one sentence ("the
    statuses, ordered by the number of cities"): the count sorts the answer, it is not asked as a
    column ("... Return each status with its count" asks it)."""
    sentences = [s for s in re.split(r"(?<=[.?!;])\s+", question.strip()) if s]
    if len(sentences) != 1:
        return False
    order = _ORDER_WORDS.search(question)
    if order is None:
        return False
    counts = [m.start() for m in _COUNT_WORDS.finditer(question)]
    return bool(counts) and min(counts) > order.start()


def joined_twice(question: str, op: str) -> bool:
    """Two words of the aggregate ``op`` joined by "and" ("the average distance and average
    price"): two values of that kind asked ("total amount claimed summed" asks one)."""
    words = re.findall(r"[A-Za-z]+", question)
    marks = [i for i, w in enumerate(words) if op in content_tokens(w)]
    return any("and" in (w.lower() for w in words[a + 1 : b]) for a, b in zip(marks, marks[1:], strict=False))
