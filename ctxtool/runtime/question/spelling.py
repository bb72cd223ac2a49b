"""Spelling: a question's slip of the keyboard read as the word the set uses ("deparment",
"salaray", "mininum", "naems").

A misspelled word matches nothing: no wording explains it, so it reads as a condition the template
leaves out, and an operator word misspelled ("mininum") is no operator at all. Before anything else
reads the question, a lower-case word that English does not know (lemminflect's lexicon, the
thesaurus) and the set does not use is replaced by the one word of the set's vocabulary (its
wordings, its tables' and columns' names, the operator words) that is one slip away from it: a
letter inserted, dropped, changed, or two swapped (Damerau distance 1). Words of under five letters
are read only with two letters swapped ("tahn"). Of two such neighbours the one that keeps the
word's first letter is read ("acounts": accounts, not counts); a word with two neighbours still is
left as written. Quoted text and capitalised words are values and names: never touched (a value's own
misspelling is the value searches' business).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from ctxtool.english import lemmas, thesaurus
from ctxtool.english.content import content_tokens
from ctxtool.english.lexicon import CANONICAL_WORDS
from ctxtool.english.literals import QUOTED
from ctxtool.english.spelling import edits1

SLIP_MIN = 5  # the shortest word read as another by an inserted, dropped or changed letter
SWAP_MIN = 4  # the shortest word read as another by two letters swapped
_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")  # contractions whole ("didn't")


def _deletions(word: str) -> set[str]:
    """The word and every word it makes with one letter dropped."""
    return {word, *(word[:i] + word[i + 1 :] for i in range(len(word)))}


def _swapped(a: str, b: str) -> bool:
    return len(a) == len(b) and a != b and sorted(a) == sorted(b) and edits1(a, b)


@lru_cache(maxsize=20_000)
def is_english(word: str) -> bool:
    """Whether English knows the (lower-case) word: lemminflect's lexicon or the thesaurus."""
    if lemmas.forms(word):
        return True
    return word in thesaurus.table()


class Speller:
    """The vocabulary of one set, and the question words read as its words."""

    def __init__(self, texts: Iterable[str]) -> None:
        words: set[str] = {w for w in CANONICAL_WORDS if w.isalpha()}
        for text in texts:
            words.update(w.lower() for w in _WORD.findall(text.replace("_", " ")))
        self.words = frozenset(words)
        self.tokens = frozenset(t for w in words for t in content_tokens(w))
        # each word under each of its one-letter deletions: a word one slip away from another shares
        # one of them with it (SymSpell's index), so a question word looks up a few keys, not the vocabulary
        self._near: dict[str, set[str]] = {}
        for w in words:
            if len(w) < SWAP_MIN:
                continue
            forms = [w, w + "s"] if w.isalpha() and not w.endswith("s") else [w]  # "naems" of "name"
            for form in forms:
                for key in _deletions(form):
                    self._near.setdefault(key, set()).add(form)

    def known(self, word: str) -> bool:
        low = word.lower()
        return low in self.words or is_english(low) or set(content_tokens(low)) <= self.tokens

    def fix(self, word: str) -> str | None:
        """The set's word that ``word`` (lower case, unknown) is a slip of, or None."""
        if len(word) < SWAP_MIN or self.known(word):
            return None
        near = set()
        for key in _deletions(word):
            for w in self._near.get(key, ()):
                if _swapped(word, w) if len(word) < SLIP_MIN or len(w) < SLIP_MIN else edits1(word, w):
                    near.add(w)
        if len(near) > 1:  # people seldom slip on a word's first letter ("acounts": accounts, not counts)
            near = {w for w in near if w[0] == word[0]}
        return near.pop() if len(near) == 1 else None

    def correct(self, question: str) -> tuple[str, dict[str, str]]:
        """The question with its slips read as the set's words, and what was read as what."""
        quoted = [m.span() for m in QUOTED.finditer(question)]
        fixed: dict[str, str] = {}
        out = []
        last = 0
        for m in _WORD.finditer(question):
            word = m.group(0)
            if not word.islower() or any(a <= m.start() < b for a, b in quoted):
                continue
            new = self.fix(word)
            if new is None:
                continue
            fixed[word] = new
            out.append(question[last : m.start()] + new)
            last = m.end()
        if not fixed:
            return question, {}
        return "".join(out) + question[last:], fixed
