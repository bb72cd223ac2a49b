"""Slips of the keyboard between two English words: one letter inserted, dropped, changed, or two
swapped (Damerau distance 1)."""

from __future__ import annotations

SLIPPED_MIN = 5  # the shortest word a one-letter slip is read as another (shorter words collide)


def edits1(a: str, b: str) -> bool:
    """One letter inserted, dropped, changed or two swapped (Damerau distance 1)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i:] == b[i + 1 :]


def slipped(a: str, b: str) -> bool:
    """One word written for the other with a letter slipped (both long enough to tell)."""
    return min(len(a), len(b)) >= SLIPPED_MIN and edits1(a, b)
