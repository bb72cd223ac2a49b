"""A candidate answer: a template with values in its slots and facets on top, what of the question
it explains (and by what), what the checks found against it, and its evidence.

The evidence is computed once, by :func:`ctxtool.runtime.matching.score.evidence`, from the
similarity of meanings, the word coverage and the findings' factors. ``score`` is the candidate's
standing among the question's candidates: its evidence, unless the decide stage's ranking
(:mod:`ctxtool.runtime.decide.ranking`: a calibrated probability, reverse templates the encoder
settles, a tie the question decides) puts it elsewhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ctxtool.runtime.templates.compiled import Compiled, Phrasing

__all__ = ["Candidate", "FacetUse", "Finding"]


@dataclass(frozen=True)
class Finding:
    """What a check found against a candidate: why, and the factor its evidence is multiplied by
    (None in a check's return value: the check's registered factor; see
    :mod:`ctxtool.runtime.checks.registry`)."""

    reason: str
    factor: float | None = None
    check: str = ""
    phase: str = ""


@dataclass
class FacetUse:
    """A facet added to a candidate: its slots' values and the question words it explains."""

    facet: Compiled
    bindings: dict[str, tuple[int, float]]
    explains: set[str]


@dataclass
class Candidate:
    template: Compiled
    phrasing: int  # which wording of the template is read
    score: float = 0.0  # its standing among the question's candidates (see the module docstring)
    bindings: dict[str, tuple[int, float]] = field(default_factory=dict)  # slot -> (value, fit)
    facets: list[FacetUse] = field(default_factory=list)
    q_cov: float = 0.0  # the share of the question's words it explains (IDF-weighted)
    t_cov: float = 0.0  # the share of the template's words the question says
    unexplained: list[str] = field(default_factory=list)  # question words nothing explains
    missing: list[str] = field(default_factory=list)  # template words the question does not say
    similarity: float = 0.0  # cosine of the question and the template's closest wording (encoder)
    lexical: float = 0.0  # the word score (both coverages)
    evidence: float = 0.0  # meaning x words x the findings' factors (matching/score.py)
    findings: list[Finding] = field(default_factory=list)
    # question word -> what explains it: "wording", "value", "facet #n", "returned", "asked", "part of
    # a compound", "sql" (what the SQL computes), "reworded" (said in other words)
    explained_by: dict[str, str] = field(default_factory=dict)
    apart: set[int] = field(default_factory=set)  # templates the question tells apart (decide/ranking.py)
    notes: list[str] = field(default_factory=list)  # what the ranking and follow-ups say of it
    # its bound SQL against the question's typed parts (runtime/composition.py: a Reading), read by the
    # compose stage once it is chosen; the compose phase's checks read it
    composition: Any = None

    @property
    def explained(self) -> set[str]:
        """The question words its wording, values, facets and returned columns explain."""
        return set(self.explained_by)

    @property
    def factors(self) -> dict[str, float]:
        """Each finding's factor, by check name."""
        return {f.check: float(f.factor) for f in self.findings}  # type: ignore[arg-type]

    @property
    def checks(self) -> float:
        """The product of the findings' factors (1.0: every check passed)."""
        return round(math.prod(self.factors.values()), 4)

    @property
    def reasons(self) -> list[str]:
        """Why its evidence is lower than its words and meaning say, and what the ranking noted."""
        return [f.reason for f in self.findings if f.reason] + self.notes

    def finding(self, check: str) -> Finding | None:
        return next((f for f in self.findings if f.check == check), None)

    @property
    def wording(self) -> Phrasing | None:
        """The wording of the template it reads (None: a template without one)."""
        phrasings = self.template.phrasings
        return phrasings[self.phrasing] if phrasings else None

    @property
    def wording_words(self) -> set[str]:
        """The content tokens of that wording (of every wording when it has none)."""
        wording = self.wording
        return set(wording.tokens) if wording is not None else set(self.template.token_set)

    @property
    def used_values(self) -> set[int]:
        """The question's values (their indexes) its slots and its facets' slots take."""
        out = {i for i, _ in self.bindings.values()}
        for fu in self.facets:
            out |= {i for i, _ in fu.bindings.values()}
        return out

    @property
    def facet_words(self) -> set[str]:
        """The question words its facets explain."""
        return set().union(*(fu.explains for fu in self.facets)) if self.facets else set()
