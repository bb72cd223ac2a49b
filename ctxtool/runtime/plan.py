"""Planning the SQL of a chosen candidate: the template's parameterized SQL with its slots bound,
each facet's snippet injected into the WHERE (placeholders renumbered), and the explanation of what
was understood; and the "Did you mean ...?" questions when a value has rival readings.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ctxtool.runtime.answer import FacetApplied, TemplateUse
from ctxtool.runtime.matching.binding import on_slot_column, own_column_reading, param_value
from ctxtool.runtime.matching.candidate import Candidate
from ctxtool.runtime.question.values import Entity
from ctxtool.runtime.templates.compiled import Slot, filled_intent
from ctxtool.runtime.templates.params import bind_template


@dataclass
class Plan:
    """A chosen query before execution."""

    sql: str
    params: list[Any]
    source: str
    confidence: float
    explanation: str
    template: TemplateUse | None = None
    facets: list[FacetApplied] = field(default_factory=list)
    bindings: dict[str, dict[str, Any]] = field(default_factory=dict)
    candidate: Candidate | None = None


def own_reading(e: Entity, tables: set[str] | list[str], slot: Slot | None = None) -> Entity:
    """``e`` read on the template's own tables: a value two columns hold ('Porto' a city of buyers
    and of sellers) is the one on the column the template compares the slot with, else on a table
    the template reads, when that reading is as close."""
    if not e.link:
        return e
    own = own_column_reading(e.link, slot) if slot and not on_slot_column(e.link.column_key, slot) else None
    if own is not None and own.distance <= e.link.distance + 1e-6:
        rest = [e.link, *(a for a in e.link.alternatives if a is not own)]
        return replace(e, value=own.value, link=replace(own, alternatives=rest))
    if e.link.column_key.split(".")[0] in tables:
        return e
    for alt in (a for a in e.link.alternatives if a.distance <= e.link.distance + 1e-6):
        if alt.column_key.split(".")[0] in tables and str(alt.value) == str(e.link.value):
            return replace(e, link=replace(alt, alternatives=[e.link, *e.link.alternatives]))
    return e


def plan_from(
    cand: Candidate,
    entities: list[Entity],
    dialect: str,
    surface: dict[str, str] | None = None,
    source: str = "template",
) -> Plan:
    """SQL and parameters for a candidate: the template's parameterized SQL with its slots bound,
    and each facet's parameterized snippet injected into the WHERE (placeholders renumbered)."""
    tpl = cand.template
    values: dict[str, Any] = {}
    bindings: dict[str, dict[str, Any]] = {}
    why = []
    for slot in tpl.slots:
        ei, fit = cand.bindings[slot.key]
        e = own_reading(entities[ei], tpl.tables, slot)
        values[slot.key] = param_value(e, slot)
        bindings[slot.key] = {
            "value": values[slot.key],
            "from": e.text,
            "kind": slot.kind,
            "fit": round(fit, 2),
        }
        if e.link:
            bindings[slot.key]["column"] = e.link.column
            bindings[slot.key]["distance"] = round(e.link.distance, 4)
        why.append(f"{slot.key} = {e.describe()}")
    ordered = [values[s.key] for s in sorted(tpl.slots, key=lambda s: int(s.key))]
    conditions = []
    facets: list[FacetApplied] = []
    for fu in cand.facets:
        fvals = {}
        for slot in fu.facet.slots:
            ei, _ = fu.bindings[slot.key]
            fvals[slot.key] = param_value(entities[ei], slot)
        fparams = [fvals[s.key] for s in sorted(fu.facet.slots, key=lambda s: int(s.key))]
        conditions.append((fu.facet.sql, fparams))
        because = sorted({(surface or {}).get(t, t.strip("_").replace("_", " ")) for t in fu.explains})
        facets.append(FacetApplied(fu.facet.index, fu.facet.intent, fparams, because))
    if conditions:
        # composing facets edits the SQL's tree: the SQL parser loads then, not for every answer
        from ctxtool.runtime.templates.sqlparts import inject_conditions

        sql, params = inject_conditions(tpl.sql, dialect, ordered, conditions)
    else:
        sql, params = bind_template(tpl.sql, dialect, ordered)
    filled = filled_intent(tpl, values)
    use = TemplateUse(tpl.index, tpl.intent, tpl.parameterized_intent, cand.score, filled)
    parts = [
        f'template #{tpl.index} "{tpl.parameterized_intent}" (confidence {cand.score:.2f}: '
        f"{cand.q_cov:.0%} of the question's words explained, {cand.t_cov:.0%} of the template's asked)"
    ]
    if why:
        parts.append("values: " + "; ".join(why))
    for f in facets:
        parts.append(f'facet #{f.index} "{f.intent}" (for: {", ".join(f.because) or "its values"})')
    if cand.unexplained:
        parts.append("words not used: " + ", ".join(cand.unexplained))
    parts.extend(cand.reasons)
    return Plan(sql, params, source, cand.score, "; ".join(parts), use, facets, bindings, cand)
