"""The check catalogue: every check that can lower or veto a candidate, registered once.

A check is a function ``(question, candidate, facts) -> Finding | None`` registered with
``@check(name, phase, factor)``: ``None`` when the candidate passes, a :class:`Finding` (its reason,
and its factor when it computes one, such as ``0.5`` per table the question names that the template
does not read) when it does not. The factor multiplies the candidate's evidence in the one formula
of :mod:`ctxtool.runtime.matching.score`; a factor of 0 vetoes the candidate. Checks never change a
score themselves, and no score is revised after they ran.

Phases, in the order they run:

- ``slots``: the values bound to the template's slots, before its words are read (vetoes);
- ``words``: the template's wording, its facets and values against the question's words (run for
  each wording of the template; the best wording is kept);
- ``sql``: what the template's SQL computes against what the question asks (run on the candidates
  shortlisted by the first two phases);
- ``compose``: the decided candidate's bound SQL against the question's typed parts (times, numbers,
  values, groupings, orders, measures: :mod:`ctxtool.runtime.composition`), run by the runtime's
  ``compose`` stage once a candidate is chosen. Its findings do not change the evidence: a finding
  of factor 0 stops that answer (it is asked back or declined, saying the finding's reason).

docs/runtime.md lists every check with an example that passes and one that fails; the cases in
``tests/data/checks/*.json`` run each check on its own (``tests/test_checks.py``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ctxtool.runtime.matching.candidate import Candidate, Finding
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.templates.facts import TemplateFacts

__all__ = ["CATALOGUE", "PHASES", "Check", "Finding", "check", "checks_of", "product", "run"]

PHASES = ("slots", "words", "sql", "compose")


CheckFunction = Callable[[Question, Candidate, TemplateFacts], Finding | None]


@dataclass(frozen=True)
class Check:
    name: str
    phase: str
    factor: float  # the factor of a finding that does not compute its own
    run: CheckFunction
    doc: str  # the first sentence of its docstring (docs/runtime.md quotes it)


CATALOGUE: dict[str, Check] = {}


def check(name: str, phase: str, factor: float) -> Callable[[CheckFunction], CheckFunction]:
    """Register a check under ``name`` (once), in ``phase``, with its usual ``factor``."""
    if phase not in PHASES:
        raise ValueError(f"unknown phase {phase!r}: {', '.join(PHASES)}")

    def register(fn: CheckFunction) -> CheckFunction:
        if name in CATALOGUE:
            raise ValueError(f"the check {name!r} is registered twice")
        first = " ".join((fn.__doc__ or "").strip().split("\n\n")[0].split())
        sentence = re.split(r"(?<=[.!?])\s+(?=[A-Z])", first)[0]
        CATALOGUE[name] = Check(name, phase, factor, fn, sentence)
        return fn

    return register


def checks_of(phase: str) -> list[Check]:
    """The checks of ``phase``, in the order they were registered."""
    return [c for c in CATALOGUE.values() if c.phase == phase]


def run(phase: str, question: Question, candidate: Candidate, facts: TemplateFacts) -> list[Finding]:
    """Every finding of the checks of ``phase`` against ``candidate``, named and with its factor."""
    out: list[Finding] = []
    for chk in checks_of(phase):
        found = chk.run(question, candidate, facts)
        if found is not None:
            factor = chk.factor if found.factor is None else found.factor
            out.append(Finding(found.reason, factor, chk.name, phase))
    return out


def product(findings: Iterable[Finding], skip: Any = ()) -> float:
    """The product of the findings' factors (those of the checks named in ``skip`` left out)."""
    return math.prod(f.factor for f in findings if f.check not in skip)  # type: ignore[misc]
