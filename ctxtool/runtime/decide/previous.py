"""The previous answer's template with this question's values ("and in Pisek?"): a candidate for a
question of a conversation that no template answers confidently on its own, when every value it
states fills a slot of the template the previous answer used."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ctxtool.runtime.matching.binding import bind_slots
from ctxtool.runtime.matching.candidate import Candidate
from ctxtool.runtime.question.values import Entity
from ctxtool.runtime.templates.compiled import Compiled


def previous_candidate(
    templates: Sequence[Compiled], entities: list[Entity], previous: Any, threshold: float
) -> Candidate | None:
    """The candidate reusing ``previous``'s template with ``entities`` (None when it does not fit:
    no template answer before, no values, or a value that fills no slot)."""
    if previous.template is None or previous.source not in ("template", "followup"):
        return None
    tpl = next((t for t in templates if t.index == previous.template.index), None)
    if tpl is None or not entities:
        return None
    bindings = bind_slots(tpl.slots, entities, set())
    if bindings is None:
        return None
    used = {i for i, _ in bindings.values()}
    if len(used) < len(entities):
        return None
    score = min(threshold + 0.05, previous.confidence)
    return Candidate(
        template=tpl,
        phrasing=0,
        score=round(score, 4),
        bindings=bindings,
        q_cov=1.0,
        t_cov=1.0,
        notes=[f"follow-up of {previous.question!r}: same template with the new values"],
    )
