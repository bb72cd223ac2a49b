"""Ranking the candidates of a question: their standing (``score``) among each other.

A candidate's standing is its evidence, unless one of the rules below puts it elsewhere: the
calibrated probability (``CTXTOOL_CONFIDENCE=calibrated``: :mod:`.confidence`); reverse templates,
which the encoder settles (:func:`reverse_pairs`); and near-duplicate templates the question tells
apart (:func:`separate`).

What the question decides between near-duplicate templates:

Two templates of a set are often one query apart in a single point: DISTINCT or not, one order
direction or the other, ``<`` or ``>``, UNION or INTERSECT, a sum or an average, what is counted,
one column returned or another. Their wordings then score alike, and the best one does not lead by
enough to answer (``confidence.py``). When the question itself settles that point for the best
candidate ("the unique names" and only the best one is DISTINCT; "in descending order" and only the
best one sorts descending; "the dates the parcels were shipped" and only the best one returns a
``date_shipped`` column), the other one is no rival reading of the question: it answers another
question. Measured on the Spider train kit (``bench/spider.py``): +15 covered questions, odd and
even databases alike, no wrong answer more (the commits' messages give each rule's share).
"""

from __future__ import annotations

import re

from ctxtool.english.content import content_tokens
from ctxtool.english.lexicon import GENERIC_THING_WORDS, LARGER_WORDS, SMALLER_WORDS
from ctxtool.identifiers import split_compound
from ctxtool.runtime.decide.confidence import VERBATIM_APART, calibrate
from ctxtool.runtime.matching.candidate import Candidate
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.templates.compiled import Compiled
from ctxtool.runtime.templates.facts import name_words

__all__ = ["decided_against", "separate"]

TIE = 0.02  # two candidates this close are a tie (as ctxtool.runtime.decide.decide asks back)
# comparison words of the question, as content tokens, by the end they point to
# ("younger" and "older" read as the age itself: not here)
_SMALLER = frozenset(content_tokens(SMALLER_WORDS)) | {
    "__lt",
    "__lte",
}
_LARGER = frozenset(content_tokens(LARGER_WORDS)) | {
    "__gt",
    "__gte",
}
_OR = re.compile(r"\bor\b", re.I)
_AGGREGATES = ("__sum", "__avg")
# words every thing has: a question naming one does not say which of two columns it wants
_GENERIC = frozenset(content_tokens(GENERIC_THING_WORDS))


def _returned(tpl: Compiled) -> set[str]:
    """The words of the columns the template returns as they are (not its keys: ``widget_id``
    names the widgets, not a thing returned of them)."""
    out: set[str] = set()
    for c in tpl.facts.projected:
        words = name_words(c)
        if words and words[-1] != "id":
            out.update(words)
            # a run-together name (``widgettype``) is named by its words ("widget types")
            column = c.rpartition(".")[2]
            out.update(t for w in split_compound(column) for t in content_tokens(w))
    return out


def decided_against(q: Question, best: Candidate, rival: Candidate) -> str | None:
    """How the question tells ``rival``'s template from ``best``'s, for ``best`` (None: it does not)."""
    question, q_set = q.text, q.word_set
    a, b = best.template, rival.template
    fa, fb = a.facts, b.facts
    # (a count of a table's rows counts distinct things too)
    if "__distinct" in q_set and fa.distinct and not fb.distinct and not fb.grouped and not fb.counts_rows:
        return "the question asks for distinct values"
    wanted = "desc" if "__desc" in q_set else "asc" if "__asc" in q_set else None
    if wanted and a.facts.order == wanted and b.facts.order not in (None, wanted) and len(fa.order_keys) <= 1:
        return f"the question asks for the {wanted}ending order"
    said = ("<" if q_set & _SMALLER else "") + (">" if q_set & _LARGER else "")
    if len(said) == 1 and fa.direction == said and fb.direction not in (None, said):
        return "the question compares the other way"
    ops_a, ops_b = fa.set_operations, fb.set_operations
    if "__both" in q_set and "intersect" in ops_a and "union" in ops_b and "intersect" not in ops_b:
        return "the question asks for both"
    if (
        "__both" not in q_set
        and _OR.search(question)
        and "union" in ops_a
        and "intersect" in ops_b
        and "union" not in ops_b
    ):
        return "the question asks for either"
    for op in _AGGREGATES:  # "the total size" is no average, "the mean age" no total
        if op in q_set and op in fa.realizes and op not in fb.realizes:
            return f"the question asks for the {op[2:]}"
    asked = q.counted
    if asked:
        ta, tb = fa.tallied, fb.tallied
        if ta & asked and tb and not tb & asked:
            return "the question counts what it adds up"
    # (a column a value is compared with names the condition, not what the best returns: "with
    # 'white' as their color description"; nor one the rival sorts by: "the name of the tallest";
    # whatever the rival returns that the question says counts; aggregates are decided above)
    if a.facts.value_only or b.facts.value_only:
        return None
    compared = {t for s in (*a.slots, *b.slots) if s.column for t in name_words(s.column)}
    ra, rb = _returned(a) - compared, _returned(b)
    sorted_by = {t for k in fb.order_keys for t in name_words(k)}
    if (q_set & ra) - rb - sorted_by - _GENERIC and not (q_set & rb) - ra:
        return "the question names what it returns"
    return None


def separate(q: Question, cands: list[Candidate]) -> None:
    """Mark on the best candidate the templates the question tells apart from it (``apart``): they
    are no rival readings for the lead and the ties of :mod:`ctxtool.runtime.decide.confidence`. A
    candidate tied with the best that the question decides for comes first."""
    if len(cands) < 2:
        return
    best = cands[0]
    # a tie the question decides for another candidate: that one is the best (the tie would ask back)
    for i, c in enumerate(cands[1:], 1):
        if c.score < best.score - TIE:
            break
        if c.similarity <= best.similarity - VERBATIM_APART:
            continue  # the encoder reads it far from the question: no tie the words can break
        if decided_against(q, c, best) and not decided_against(q, best, c):
            c.score = max(c.score, best.score)
            cands.insert(0, cands.pop(i))
            best = c
            break
    best.apart = {
        c.template.index
        for c in cands[1:]
        if c.template.index != best.template.index and decided_against(q, best, c)
    }


REVERSE_MARGIN = 0.01  # the encoder's cosine must prefer one reading of a reverse pair by this much


def reverse_pairs(cands: list[Candidate]) -> None:
    """Reverse templates ("the prerequisite of X" / "the courses whose prerequisite is X", "the code
    of a description" / "the description of a code") read the same words in another order: their
    SQL holds the same tokens in another sequence, so word overlap cannot tell them apart. The
    encoder's cosine, which sees the order, decides; when it does not prefer one, both are offered
    (equal scores make the runtime ask back)."""
    if len(cands) < 2:
        return
    best = cands[0]
    bag = best.template.facts.token_bag
    for rival in cands[1:]:
        if rival.template.sql == best.template.sql or rival.template.facts.token_bag != bag:
            continue
        if rival.similarity > best.similarity + REVERSE_MARGIN:
            best.score, rival.score = (
                round(min(best.score, rival.score) - 0.01, 4),
                max(best.score, rival.score),
            )
            best.notes.append(f"its reverse, template #{rival.template.index}, reads closer to the question")
        elif rival.similarity >= best.similarity - REVERSE_MARGIN:
            rival.score = best.score
            best.notes.append(f"its reverse, template #{rival.template.index}, reads as close")
        break
    cands.sort(key=lambda c: -c.score)


def rank(q: Question, cands: list[Candidate], calibrated: bool, semantic: bool) -> list[Candidate]:
    """The candidates best first, each with its standing: its evidence, or its calibrated
    probability; reverse templates the encoder settles and a tie the question decides reordered."""
    for c in cands:
        c.score = c.evidence
    if calibrated:
        calibrate(cands, semantic)
    cands.sort(key=lambda c: -c.score)
    reverse_pairs(cands)
    separate(q, cands)
    return cands
