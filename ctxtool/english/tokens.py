"""Words as written and their English base forms: tokens with offsets, a light stemmer, lemmas."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ctxtool.english import lemmas
from ctxtool.english.lexicon import CANONICAL_WORDS

_WORD = re.compile(r"[^\s]+")
_EDGE = re.compile(r"^[\"'“”‘’«»(\[{<,;:!?.]+|[\"'“”‘’«»)\]}>,;:!?.]+$")


@dataclass(frozen=True)
class Token:
    text: str  # as written, edge punctuation stripped
    start: int  # character offsets in the question
    end: int

    @property
    def lower(self) -> str:
        return self.text.lower()


def tokenize(text: str) -> list[Token]:
    """Whitespace tokens with edge punctuation stripped (``Hl.m.`` keeps its inner dot; ``Prague?`` loses
    the question mark); tokens that are only punctuation are kept (``-`` in ``Brno - mesto``)."""
    out: list[Token] = []
    for m in _WORD.finditer(text):
        word = m.group()
        start, end = m.start(), m.end()
        stripped = _EDGE.sub("", word)
        if stripped and stripped != word:
            lead = word.find(stripped)
            start, end = start + lead, start + lead + len(stripped)
            word = stripped
        # possessive 's
        if word.lower().endswith(("'s", "’s")) and len(word) > 3:
            word, end = word[:-2], end - 2
        out.append(Token(word, start, end))
    return out


def stem(word: str) -> str:
    """A light, predictable stemmer: plural and common verb endings (``accounts``, ``issued``, ``opening``)."""
    w = word.lower()
    if len(w) <= 3 or w.startswith("__"):
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith(("sses", "shes", "ches", "xes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if w.endswith("ing") and len(w) > 5:
        w = w[:-3]
    elif w.endswith("ed") and len(w) > 4:
        w = w[:-2]
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    return w


@lru_cache(maxsize=50_000)
def lemma(word: str) -> tuple[str, str | None]:
    """The dictionary form of an English word (``children`` -> child, ``issued`` -> issue, ``cheapest``
    -> cheap) from lemminflect's lexicon, and ``"superlative"`` / ``"comparative"`` for an adjective's
    degree; the word itself when the lexicon does not know it."""
    if not word.isalpha():
        return word, None
    forms = lemmas.forms(word)
    if not forms:
        return word, None
    adj = forms.get("ADJ")
    # a noun spelled like a comparative is the noun ("number", not a degree of "numb")
    noun = forms.get("NOUN", ())[:1] == (word,) and word not in ("better", "worse")
    if adj and adj[0] != word and word not in CANONICAL_WORDS and not noun:
        if word.endswith("est") or word in ("best", "worst"):
            return adj[0], "superlative"
        if word.endswith("er") or word in ("better", "worse"):
            return adj[0], "comparative"
    for pos in ("NOUN", "VERB", "ADJ", "ADV"):
        if pos in forms:
            return forms[pos][0], None
    return word, None


@lru_cache(maxsize=20_000)
def is_verb(word: str) -> bool:
    """Whether an English word is read as a verb: lemminflect knows it only as one ("spend",
    "receive"), or it is a verb's inflected form that is no noun's ("spent", "earned", "held")."""
    if not word.isalpha():
        return False
    forms = lemmas.forms(word)
    if "VERB" not in forms:
        return False
    if "NOUN" not in forms and "ADJ" not in forms:
        return True
    verb = forms["VERB"][0]
    return verb != word and word.endswith(("ed", "ing")) and forms.get("NOUN", (word,))[0] == word


def lemma_forms(word: str) -> dict[str, tuple[str, ...]]:
    """Every reading lemminflect knows of an English word, by part of speech (empty when none)."""
    return lemmas.forms(word)
