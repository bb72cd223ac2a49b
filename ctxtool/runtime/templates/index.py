"""An inverted index over the wordings of templates (or facets): token -> items, with IDF weights.

A question looks up only the posting lists of its own tokens, so the work grows with how many items
share its words, not with the size of the set; the best few candidates by summed IDF go on to full
scoring.
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence

from ctxtool.runtime.templates.compiled import Compiled

# words that ask rather than say what is asked for (text.py keeps a sentence's first "which": it asks
# for the things themselves, which a template returning rows answers); said by both sides they weigh
# as any word (capped either way: 1 wrong answer more on the Spider kit, near-duplicate templates)
ASKING = frozenset({"which"})
ASKING_WEIGHT = math.log(2.0)


class ItemIndex:
    def __init__(self, items: Sequence[Compiled]) -> None:
        self.items = list(items)
        self.postings: dict[str, list[int]] = defaultdict(list)
        for i, item in enumerate(self.items):
            for tok in item.token_set:
                self.postings[tok].append(i)
        self.n = len(self.items)
        self._sets = {tok: set(p) for tok, p in self.postings.items()}
        # posting lists longer than this are not walked once there are candidates: their items are
        # only checked for membership, so common words cost what the candidates cost, not what N costs
        self._long = max(64, self.n // 50)
        self._idf = {tok: math.log((self.n + 1) / (len(p) + 0.5)) for tok, p in self.postings.items()}
        self._unknown = math.log((self.n + 1) / 0.5)
        # what each item says in all (IDF-weighted), to prefer items the question covers fully
        self._item_weight = [sum(self._idf[t] for t in item.token_set) for item in self.items]

    def idf(self, token: str) -> float:
        """Rare words weigh more; a word no item uses weighs most (it is what the set does not cover)."""
        return self._idf.get(token, self._unknown)

    def weight(self, tokens: Iterable[str], shared: Iterable[str] = ()) -> float:
        """The summed IDF of ``tokens``; an asking word ("Which department ...") that only one side
        says (not in ``shared``) is no content however few wordings begin with it: it weighs as a
        word half of them say."""
        both = set(shared)
        return sum(
            min(self.idf(t), ASKING_WEIGHT) if t in ASKING and t not in both else self.idf(t) for t in tokens
        )

    def vocabulary(self) -> set[str]:
        return set(self.postings)

    def candidates(self, tokens: Iterable[str], k: int = 12) -> list[int]:
        """Indexes of the ``k`` items that best cover ``tokens`` (shared IDF weight, less unshared)."""
        scores: dict[int, float] = defaultdict(float)
        known = sorted((t for t in set(tokens) if t in self.postings), key=lambda t: len(self.postings[t]))
        for tok in known:  # rarest first
            plist = self.postings[tok]
            w = self._idf[tok]
            if len(plist) <= self._long or not scores:
                for i in plist:
                    scores[i] += w
            else:
                members = self._sets[tok]
                for i in scores:
                    if i in members:
                        scores[i] += w
        # shared weight, minus half of what the item says that the question does not
        weight = self._item_weight
        ranked = {i: 1.5 * shared - 0.5 * weight[i] for i, shared in scores.items()}
        if len(ranked) <= k:
            return sorted(ranked, key=lambda i: -ranked[i])
        return heapq.nlargest(k, ranked, key=ranked.__getitem__)
