"""Question text, by its concepts: the words (:mod:`~ctxtool.runtime.words`), tokens and lemmas
(:mod:`~ctxtool.runtime.tokens`), content tokens (:mod:`~ctxtool.runtime.content`) and the literals
written in a question (:mod:`~ctxtool.runtime.literals`). Re-exported here for the callers.
"""

from __future__ import annotations

from ctxtool.runtime.content import content_tokens, operator_spans
from ctxtool.runtime.literals import NUMBER_WORDS, Literal, find_literals
from ctxtool.runtime.tokens import Token, lemma, stem, tokenize
from ctxtool.runtime.words import CANONICAL_PHRASES, CANONICAL_WORDS, DIMENSIONS, STOPWORDS

__all__ = [
    "CANONICAL_PHRASES",
    "CANONICAL_WORDS",
    "DIMENSIONS",
    "NUMBER_WORDS",
    "STOPWORDS",
    "Literal",
    "Token",
    "content_tokens",
    "find_literals",
    "lemma",
    "operator_spans",
    "stem",
    "tokenize",
]
