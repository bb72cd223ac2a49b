"""Question text, by its concepts: the words (:mod:`~ctxtool.english.lexicon`), tokens and lemmas
(:mod:`~ctxtool.english.tokens`), content tokens (:mod:`~ctxtool.english.content`) and the literals
written in a question (:mod:`~ctxtool.runtime.literals`). Re-exported here for the callers.
"""

from __future__ import annotations

from ctxtool.english.content import content_tokens, operator_spans
from ctxtool.english.lexicon import CANONICAL_PHRASES, CANONICAL_WORDS, DIMENSIONS, STOPWORDS
from ctxtool.english.tokens import Token, lemma, stem, tokenize
from ctxtool.runtime.literals import NUMBER_WORDS, Literal, find_literals

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
