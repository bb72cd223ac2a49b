"""The one formula of a candidate's evidence.

The word score is the weighted harmonic mean of how much of the question the template explains and
how much of the template the question asks for (words of the question nothing explains weigh most).
The encoder's cosine, rescaled so that unrelated questions score 0 and the same question 1, can only
add to what the words say: ``max(words, 0.7 x meaning + 0.3 x words)``. Every check's finding then
multiplies it (:mod:`ctxtool.runtime.checks.registry`):

    evidence = combine(meaning, words) x the product of the findings' factors

It is computed once per candidate, when its findings are complete; nothing revises it afterwards.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ctxtool.runtime.matching.candidate import Finding

SIM_FLOOR = 0.5  # the encoder's cosine below this says nothing
SIM_FULL = 0.93  # at this cosine the wordings mean the same
SEMANTIC_WEIGHT = 0.7
Q_WEIGHT = 0.55  # of the question's coverage in the harmonic mean (the template's: 0.45)


def word_score(q_cov: float, t_cov: float) -> float:
    """The weighted harmonic mean of both coverages."""
    return 1.0 / (Q_WEIGHT / max(q_cov, 1e-6) + (1 - Q_WEIGHT) / max(t_cov, 1e-6))


def combine(similarity: float, lexical: float, semantic: bool) -> float:
    """The evidence that the template asks what the question asks, before the checks: the encoder's
    cosine (rescaled) mixed with the word score; the word score alone without an encoder."""
    if not semantic:
        return lexical
    sem = min(max((similarity - SIM_FLOOR) / (SIM_FULL - SIM_FLOOR), 0.0), 1.0)
    return max(lexical, SEMANTIC_WEIGHT * sem + (1 - SEMANTIC_WEIGHT) * lexical)


def evidence(similarity: float, lexical: float, findings: Iterable[Finding], semantic: bool) -> float:
    """The candidate's evidence: meaning and words combined, times every finding's factor."""
    factors = math.prod(float(f.factor) for f in findings)  # type: ignore[arg-type]
    return round(combine(similarity, lexical, semantic) * factors, 4)
