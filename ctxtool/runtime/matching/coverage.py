"""How much of the question a template explains, and how much of the template the question asks:
the word coverage of a candidate, IDF-weighted over the set's wordings.

A question word is explained by the template's wording, by what a bound value stands for (its
column and concept), by the columns the template returns ("the names of ..." of ``SELECT name``),
by "which" of a template returning rows, by the part it ends of a run-together word of the wording
("town" of "hometown"), or by a facet. The words nothing explains weigh most in the word score
(:mod:`ctxtool.runtime.matching.score`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ctxtool.runtime.matching.score import word_score
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.templates.compiled import Compiled, Phrasing
from ctxtool.runtime.templates.index import ItemIndex

__all__ = ["Coverage", "compound_parts", "coverage", "explained_first"]


COMPOUND_PART = 4  # the shortest word that explains a run-together word it ends or begins


def compound_parts(q_words: set[str], t_words: set[str]) -> tuple[set[str], set[str]]:
    """Words of the question that end a run-together word of the template ("town" of "hometown",
    "date" of "birthdate"), and those template words: an English compound names a kind of its last
    word. Both directions (the question may hold the compound); never operator tokens, and never a
    word's beginning ("member" is no "membership", "product" no "production")."""
    q_out: set[str] = set()
    t_out: set[str] = set()
    for a in q_words:
        if a.startswith("__"):
            continue
        for b in t_words:
            if b.startswith("__") or a == b:
                continue
            short, long = (a, b) if len(a) < len(b) else (b, a)
            if len(short) >= COMPOUND_PART and len(long) - len(short) >= 3 and long.endswith(short):
                q_out.add(a)
                t_out.add(b)
    return q_out, t_out


@dataclass
class Coverage:
    q_cov: float
    t_cov: float
    lexical: float
    unexplained: list[str]
    missing: list[str]
    explained_by: dict[str, str] = field(default_factory=dict)  # question word -> what explains it


def explained_first(
    q: Question, tpl: Compiled, phrasing: Phrasing, bound_descr: set[str], asked_which: set[str]
) -> tuple[dict[str, str], set[str]]:
    """The question words the wording, the values, the returned columns, "which" and the parts of
    run-together words explain (word -> by what), and the template words those parts explain."""
    q_set = q.word_set
    t_set = set(phrasing.tokens)
    by: dict[str, str] = {}
    for w in q_set & t_set:
        by[w] = "wording"
    for w in (q_set & bound_descr) - set(by):
        by[w] = "value"
    for w in (q_set & tpl.returned_words) - set(by):
        by[w] = "returned"
    for w in (q_set & asked_which) - set(by):
        by[w] = "asked"
    q_parts, t_wholes = compound_parts(q_set - set(by), t_set - q_set)
    for w in q_parts:
        by[w] = "part of a compound"
    return by, t_wholes


def coverage(
    q: Question,
    phrasing: Phrasing,
    index: ItemIndex,
    explained_by: dict[str, str],
    t_said: set[str],
    t_asked: set[str],
) -> Coverage:
    """The coverages of the question's words by ``explained_by`` and of the wording's by ``t_said``
    (the wording's words the question says, in its words or through its values); the wording's
    words not in ``t_asked`` are missing from the question."""
    q_tokens = q.words
    q_set = q.word_set
    t_set = set(phrasing.tokens)
    explained = set(explained_by)
    both = q_set & t_set
    w_q = index.weight(q_tokens, both)
    q_cov = index.weight([t for t in q_tokens if t in explained], both) / w_q if w_q else 1.0
    w_t = index.weight(t_set, both)
    t_cov = index.weight(t_set & t_said, both) / w_t if w_t else 0.5
    return Coverage(
        q_cov,
        t_cov,
        word_score(q_cov, t_cov),
        [t for t in q_tokens if t not in explained],
        sorted(t_set - t_asked),
        dict(explained_by),
    )
