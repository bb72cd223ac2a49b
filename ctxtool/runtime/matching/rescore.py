"""Rescoring a candidate after verification: the one way a check's finding moves its scores.

The later checks (:mod:`~ctxtool.runtime.matching.alignment`, :mod:`~ctxtool.runtime.matching.rewording`,
:mod:`~ctxtool.runtime.checks.grounding`) find that a question word is explained after all, or that a
factor the matcher gave was too harsh. Either way the candidate's score, evidence and checks move by
the same ratio, so that what the matcher combined stays combined the same way.
"""

from __future__ import annotations

from typing import Any


def word_score(q_cov: float, t_cov: float) -> float:
    """The word score's weighted harmonic mean of both coverages (:mod:`ctxtool.runtime.matching.matcher`)."""
    return 1.0 / (0.55 / max(q_cov, 1e-6) + 0.45 / max(t_cov, 1e-6))


def raise_words(
    cand: Any,
    matcher: Any,
    q_cov: float,
    t_cov: float,
    unexplained: list[str],
    missing: list[str] | None = None,
) -> bool:
    """Give the candidate the word coverages ``q_cov`` / ``t_cov`` (question words left
    ``unexplained``, template words ``missing``) when they raise its combined score; False when not."""
    before = matcher.combine(cand.similarity, word_score(cand.q_cov, cand.t_cov))
    lexical = word_score(q_cov, t_cov)
    after = matcher.combine(cand.similarity, lexical)
    if before <= 0 or after <= before:
        return False
    ratio = after / before
    cand.evidence = round(min(cand.evidence * ratio, 1.0), 4)
    cand.score = round(min(cand.score * ratio, 1.0), 4)
    cand.lexical = round(max(cand.lexical, lexical), 4)
    cand.q_cov = round(q_cov, 3)
    cand.t_cov = round(t_cov, 3)
    cand.unexplained = unexplained
    if missing is not None:
        cand.missing = missing
    return True


def set_factor(cand: Any, name: str, new: float) -> None:
    """Replace the candidate's factor ``name`` by ``new``; score, evidence and checks move with it."""
    ratio = new / cand.factors[name]
    cand.factors[name] = round(new, 4)
    cand.score = round(min(cand.score * ratio, 1.0), 4)
    cand.evidence = round(min(cand.evidence * ratio, 1.0), 4)
    cand.checks = round(min(cand.checks * ratio, 1.0), 4)
