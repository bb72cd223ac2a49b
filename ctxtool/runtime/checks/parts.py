"""The question's typed parts against the answer chosen for it (the ``compose`` phase): a time, a
number, a value, a grouping, an order or a measure the answer would not use, and what the template
computes that nobody asked. They read the candidate's reading (:mod:`ctxtool.runtime.composition`,
made by the runtime's ``compose`` stage once the candidate is chosen); a candidate not read passes.

A finding here stops the answer whatever its score ("never confidently wrong"): the runtime asks
back or declines, and the finding's reason names the unused parts, the closest template and what the
set's author can add.
"""

from __future__ import annotations

from dataclasses import replace

from ctxtool.runtime.checks.registry import check
from ctxtool.runtime.matching.candidate import Candidate, Finding
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.templates.facts import TemplateFacts


@check("unused_part", "compose", 0.0)
def unused_part(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """A time, a number, a value, or a grouping, order or measure whose words the template's wording
    does not say, that the answer (the template plus the edits that can be made) would not use: the
    answer would drop a condition or answer another month, so it is not given, whatever its score.

    Fails: "How many rentals were made in March 2006?" against "How many rentals are there?" on a
    table with two date columns and no word choosing one. Passes: "How many rentals were made in
    2006?" against "How many rentals were made in 2005?" (its year a typed slot)."""
    r = c.composition
    if r is None:
        return None
    found = r.decisive
    if not found:
        return None
    return Finding(replace(r.edits, unused=found, mismatch=[]).decline(r.closest))


@check("unasked_computation", "compose", 0.0)
def unasked_computation(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """The template computes what the question does not ask: one row per group where the question
    asks for no groups, or a measure where it lists rows; the answer would be another one.

    Asked of a template the answer would edit (a time, a number or a value added), or of one whose
    wording leaves a word of what the question measures unexplained ("How many units of chai ...?"
    against "How many units of each product were sold?": then only its groups and its measure
    count, and a question that says "each" or "per" asks for groups); otherwise the matcher's checks
    weigh it. Fails: "What is the total amount paid in 2006?" against "What is the total amount paid
    per rental?". Passes: "What is the total amount paid per rental in 2006?" against the same
    template."""
    r = c.composition
    if r is None:
        return None
    edited = bool(r.needed())
    if not edited and not r.measures_unexplained(q.text):
        return None  # a template whose wording says every word, and that no edit adds to, is the matcher's
    found = []
    for m in r.edits.mismatch:
        per_group = m.startswith("the template answers per")
        # a template that returns its groups' keys and no measure ("the hometowns shared by at least
        # two teachers": GROUP BY ... HAVING) lists values; only groups it measures answer per group
        if per_group and (not facts.outer_aggregates or "__each" in q.operators):
            continue
        if not edited and not (per_group or m.startswith("the template computes a")):
            continue  # (which of a table read twice a condition is on matters to an edit only)
        found.append(m)
    if not found:
        return None
    return Finding(replace(r.edits, unused=[], mismatch=found).decline(r.closest))
