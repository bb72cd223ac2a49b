"""Deciding what to do with the ranked candidates: answer with the best one, ask back ("did you
mean ...?") when a value has rival readings or another template scores as high, suggest the closest
templates, or decline. A wrong answer is worse than none: below the threshold nothing runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ctxtool.runtime.answer import Answer
from ctxtool.runtime.decide.confidence import confident, reads_apart
from ctxtool.runtime.decide.previous import previous_candidate
from ctxtool.runtime.matching.binding import compatibility, on_slot_column
from ctxtool.runtime.matching.candidate import Candidate
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.question.values import Entity
from ctxtool.runtime.templates.compiled import Compiled, filled_intent
from ctxtool.runtime.templates.equivalence import same_query

TIE = 0.02  # another template this close to the best one is a rival reading of the question


def distinct(choices: list[str]) -> list[str]:
    """The choices in order, each once (two templates may read the same in words)."""
    return list(dict.fromkeys(choices))


@dataclass
class Decision:
    """What the decide stage settled: to answer with a candidate (from a template, or the previous
    answer's template with new values: ``source``), to ask back between rival readings
    (``choices``), or nothing confident (``none``: a model may write the SQL, else the closest
    templates are suggested or the question is declined)."""

    kind: str  # "answer" | "ask back" | "none"
    candidate: Candidate | None = None
    source: str = "template"  # "template" | "followup"
    choices: list[str] = field(default_factory=list)
    reason: str = ""  # why a chosen candidate is not answered (a compose-phase check's finding)


def decide(
    q: Question,
    cands: list[Candidate],
    templates: list[Compiled],
    threshold: float,
    calibrated: bool,
    previous: Any = None,
) -> Decision:
    """Answer with the best candidate when it is confident (:func:`confident`) and has no rival; a
    follow-up that no template answers confidently may reuse ``previous``'s template with its new
    values; rival readings of a value, or another template as close, are asked back."""
    entities = list(q.values)
    best = cands[0] if cands else None
    sure = best is not None and confident(best, cands, threshold, calibrated)
    if previous is not None and not sure:
        follow = previous_candidate(templates, entities, previous, threshold)
        if follow is not None:
            return Decision("answer", follow, "followup")
    if best is None or not sure:
        return Decision("none")
    choices = rival_readings(cands, entities)
    if choices:
        return Decision("ask back", choices=choices)
    return Decision("answer", best)


def rival_readings(cands: list[Candidate], entities: list[Entity]) -> list[str]:
    """The "did you mean" questions between the best candidate's readings: a bound value's equally
    close readings, else the best and the other templates as close to it (with other SQL, not told
    apart by the question or the encoder); empty when it has no rival."""
    best = cands[0]
    rivals = ambiguity(best, entities)
    if rivals:
        return rivals
    close = [
        c
        for c in cands[1:]
        if c.score >= best.score - TIE
        and not same_query(c.template, best.template)
        and c.template.index not in best.apart
        and not reads_apart(best, c)
    ]
    return distinct([did_you_mean(c, entities) for c in [best, *close]])[:4] if close else []


def ask_back(
    ans: Answer,
    decision: Decision,
    cands: list[Candidate],
    entities: list[Entity],
    threshold: float,
    suggest_threshold: float,
) -> None:
    """No plan: the rivals the decision found, else the closest templates as suggestions, else
    decline; and why (the closest template, its score and what it left unexplained)."""
    if decision.kind == "ask back":
        ans.status = "disambiguate"
        ans.disambiguation = decision.choices
    if ans.status != "disambiguate":
        suggestions = [c for c in cands if c.score >= suggest_threshold][:3]
        if suggestions:
            ans.status = "disambiguate"
            ans.disambiguation = distinct([did_you_mean(c, entities) for c in suggestions])
            ans.text = "No confident answer; did you mean one of these?"
        else:
            ans.status = "declined"
            ans.text = "No confident answer: no template of this set covers the question."
        if decision.reason:
            ans.text = f"No confident answer. {decision.reason}"
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


def ambiguity(cand: Candidate, entities: list[Entity]) -> list[str]:
    """ "Did you mean" questions when a bound value has equally close alternative readings.

    Only distinct readings count (the same value found twice is one reading), and a value that
    two columns hold is resolved by the column the template compares the slot with, else by the
    template's own tables: a reading on a table the template does not read is no rival of one on a
    table it reads."""

    tables = cand.template.tables
    for slot in cand.template.slots:
        e = entities[cand.bindings[slot.key][0]]
        if not e.link or not e.link.alternatives:
            continue
        close = [e.link, *(a for a in e.link.alternatives if a.distance <= e.link.distance + 1e-6)]
        # one value as close on the very column the SQL compares the slot with: that is the reading
        pinned = {str(lv.value) for lv in close if on_slot_column(lv.column_key, slot)}
        if len(pinned) == 1:
            continue
        # readings on the template's own tables first, whichever value search found them first
        own = any(lv.column_key.split(".")[0] in tables for lv in close)
        seen = {(e.link.column_key, str(e.link.value))}
        rivals = []
        for alt in e.link.alternatives:
            if alt.distance > e.link.distance + 1e-6:
                continue
            if own and alt.column_key.split(".")[0] not in tables:
                continue
            key = (alt.column_key, str(alt.value))
            if key in seen:
                continue
            alt_entity = Entity("linked", e.text, e.start, e.end, alt.value, link=alt)
            if compatibility(alt_entity, slot) >= cand.bindings[slot.key][1] - 1e-6:
                seen.add(key)
                rivals.append(alt)
        readings = [e.link, *rivals]
        if own:
            readings = [lv for lv in readings if lv.column_key.split(".")[0] in tables]
        out: list[str] = []
        for lv in readings[:5]:
            values = {
                s.key: (lv.value if s.key == slot.key else entities[cand.bindings[s.key][0]].value)
                for s in cand.template.slots
            }
            filled = filled_intent(cand.template, values).rstrip("?. ")
            choice = f"Did you mean: {filled} ({lv.concept_type} {lv.value!r})?"
            if choice not in out:
                out.append(choice)
        if len(out) > 1:
            return out
    return []


def did_you_mean(cand: Candidate, entities: list[Entity]) -> str:
    values = {k: entities[i].value for k, (i, _) in cand.bindings.items()}
    return f"Did you mean: {filled_intent(cand.template, values).rstrip('?. ')}?"
