"""Deciding what to do with the ranked candidates: answer with the best one, ask back ("did you
mean ...?") when a value has rival readings or another template scores as high, suggest the closest
templates, or decline. A wrong answer is worse than none: below the threshold nothing runs."""

from __future__ import annotations

from collections.abc import Callable

from ctxtool.errors import InputError
from ctxtool.runtime.answer import Answer
from ctxtool.runtime.decide.confidence import reads_apart
from ctxtool.runtime.matching.candidate import Candidate
from ctxtool.runtime.plan import Plan, ambiguity, did_you_mean
from ctxtool.runtime.question.values import Entity
from ctxtool.runtime.templates import sqlparts
from ctxtool.runtime.templates.equivalence import same_query

TIE = 0.02  # another template this close to the best one is a rival reading of the question


def distinct(choices: list[str]) -> list[str]:
    """The choices in order, each once (two templates may read the same in words)."""
    return list(dict.fromkeys(choices))


def choose(
    cands: list[Candidate],
    entities: list[Entity],
    dialect: str,
    plan_of: Callable[[Candidate], Plan],
    ans: Answer,
) -> Plan | None:
    """The plan of the best candidate, which the caller found confident
    (:func:`ctxtool.runtime.decide.confidence.confident`), when it has no rival; else None, with ``ans``
    set to ask back when there are rivals."""
    best = cands[0] if cands else None
    if best is None:
        return None
    rivals = ambiguity(best, entities, dialect)
    close = [
        c
        for c in cands[1:]
        if c.score >= best.score - TIE
        and not same_query(c.template, best.template)
        and c.template.index not in best.apart
        and not reads_apart(best, c)
    ]
    if rivals:
        ans.status = "disambiguate"
        ans.disambiguation = rivals
    elif close:
        ans.status = "disambiguate"
        ans.disambiguation = distinct([did_you_mean(c, entities, dialect) for c in [best, *close]])[:4]
    else:
        try:
            return plan_of(best)
        except (sqlparts.InjectError, InputError) as exc:
            ans.warnings.append(f"template #{best.template.index} could not take its facets: {exc}")
    return None


def ask_back(
    ans: Answer,
    cands: list[Candidate],
    entities: list[Entity],
    threshold: float,
    suggest_threshold: float,
    dialect: str,
) -> None:
    """No plan: the rivals already found, else the closest templates as suggestions, else decline;
    and why (the closest template, its score and what it left unexplained)."""
    if ans.status != "disambiguate":
        suggestions = [c for c in cands if c.score >= suggest_threshold][:3]
        if suggestions:
            ans.status = "disambiguate"
            ans.disambiguation = distinct([did_you_mean(c, entities, dialect) for c in suggestions])
            ans.text = "No confident answer; did you mean one of these?"
        else:
            ans.status = "declined"
            ans.text = "No confident answer: no template of this set covers the question."
    else:
        ans.text = "The question is ambiguous; did you mean one of these?"
    best = cands[0] if cands else None
    if best is not None:
        ans.confidence = best.score
        ans.explanation = (
            f'closest template #{best.template.index} "{best.template.parameterized_intent}" '
            f"scored {best.score:.2f} (threshold {threshold:.2f})"
            + (f"; words not covered: {', '.join(best.unexplained)}" if best.unexplained else "")
            + ("; " + "; ".join(best.reasons) if best.reasons else "")
        )
