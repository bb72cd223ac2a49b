"""Template matching: which templates may answer a question, with which values in their slots and
which facets on top, what of the question each explains, and what the checks find against each.

The question's values (linked values, numbers, dates, quoted strings) are set aside; its remaining
content words are scored against each candidate template's wordings (found by the inverted index and
by the sentence encoder) in both directions, IDF-weighted (:mod:`.coverage`). Slots are filled by
values of a compatible kind (:mod:`.binding`); a template with an unfillable slot is out. The checks
of the ``slots`` and ``words`` phases run on every wording of a candidate (the best one is kept),
those of the ``sql`` phase on the shortlisted candidates; a clean candidate's words said in other
words, or by what its SQL computes, then count as explained (:mod:`.rewording`). The evidence is
computed once, when the findings are complete (:mod:`.score`).
"""

from __future__ import annotations

from ctxtool.english.content import content_tokens
from ctxtool.runtime.checks import registry
from ctxtool.runtime.checks.operators import grounded_operators, word_agreement
from ctxtool.runtime.matching.binding import adjacent_slots, bind_slots
from ctxtool.runtime.matching.candidate import Candidate
from ctxtool.runtime.matching.coverage import coverage, explained_first
from ctxtool.runtime.matching.facets import FacetChoice
from ctxtool.runtime.matching.rewording import Rewritten, realign, reword
from ctxtool.runtime.matching.score import combine, evidence, word_score
from ctxtool.runtime.matching.stated import split_names, stated_values
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.templates.compiled import Compiled
from ctxtool.runtime.templates.index import ItemIndex
from ctxtool.runtime.templates.semantic import SemanticIndex
from ctxtool.runtime.templates.vocabulary import SetFacts

__all__ = ["Matcher"]

SHORTLIST = 5  # candidates verified against their SQL (and ranked) per question
# the findings that weigh how well the values fit (the slot's kind, the stored value's distance, a
# facet added), not a disagreement of the template with the question
VALUE_CHECKS = frozenset({"fit", "links", "facets"})


class Matcher:
    """Finds and scores the candidates of a question; templates and facets go through inverted
    indexes (one IDF over all wordings) and, with an encoder, by meaning."""

    def __init__(
        self,
        templates: list[Compiled],
        facets: list[Compiled],
        *,
        candidates: int = 20,
        semantic: SemanticIndex | None = None,
        calibrated: bool = False,
    ) -> None:
        self.templates = templates
        self.facets = facets
        self.semantic = semantic
        self.calibrated = calibrated  # scores become calibrated probabilities (decide/ranking.py)
        self.index = ItemIndex(templates + facets)  # one IDF over all wordings
        self.template_index = ItemIndex(templates)
        self.set_facts = SetFacts(templates, facets, self.index.vocabulary())
        facet_semantic = SemanticIndex(facets, semantic.encoder) if semantic is not None and facets else None
        self.facet_choice = FacetChoice(facets, self.index, facet_semantic)
        self.k = candidates

    def vocabulary(self) -> set[str]:
        """The words of every wording of the set."""
        return self.index.vocabulary()

    def closest(self, text: str, k: int) -> list[int]:
        """The ``k`` templates whose wordings share most words with ``text``."""
        return self.template_index.candidates(set(content_tokens(text)), k)

    # -- ranking --------------------------------------------------------------------------------------
    def rank(self, q: Question, *, limit: int = SHORTLIST) -> tuple[Question, list[Candidate]]:
        """The question with the values it states in the templates' own words, and its best
        candidates (at most ``limit``), verified, best evidence first."""
        descr: set[str] = set()
        for e in q.values:
            descr |= e.descriptors
        lookup = set(q.words) | descr
        ids = self.template_index.candidates(lookup, self.k)
        sims: dict[int, float] = {}
        if self.semantic is not None:
            sims = self.semantic.nearest(q.text, self.k, [(e.start, e.end) for e in q.values])
            ids = list(dict.fromkeys([*sims, *ids]))
        near = [self.templates[i] for i in ids]
        values = list(q.values)
        stated = stated_values(q.text, near, values)
        split = split_names(q.text, near, values)
        if stated or split:
            q = q.with_values(values)
        if not ids and values:
            ids = list(range(min(len(self.templates), self.k)))
        facet_ids = self.facet_choice.candidates(q, lookup, self.k)
        out: list[Candidate] = []
        for i in ids:
            sim = sims[i] if i in sims else (self.semantic.similarity(q.text, i) if self.semantic else 0.0)
            cand = self.read(q, self.templates[i], facet_ids, sim)
            if cand is not None:
                out.append(cand)
        out.sort(key=lambda c: -c.evidence)
        shortlist = out[:limit]
        for c in shortlist:
            self.verify(q, c)
        shortlist.sort(key=lambda c: -c.evidence)
        return q, shortlist

    def read(
        self, q: Question, tpl: Compiled, facet_ids: list[int] | None = None, similarity: float = 0.0
    ) -> Candidate | None:
        """The candidate of ``tpl``: its slots bound, then each wording read (facets, coverage, the
        checks of the ``words`` phase); the wording with the best evidence is kept (None: a slot no
        value fills, or a veto). ``facet_ids``: the facets to try (default: as :meth:`rank` finds them)."""
        if facet_ids is None:
            facet_ids = self.facet_choice.candidates(q, set(q.words), self.k)
        values = list(q.values)
        bindings = bind_slots(tpl.slots, values, set(), adjacent_slots(tpl))
        if bindings is None:
            return None  # a value of the wrong kind never fills a slot
        probe = Candidate(template=tpl, phrasing=0, bindings=bindings)
        if any(f.factor == 0 for f in registry.run("slots", q, probe, tpl.facts)):
            return None  # vetoed: an author is no reader's name
        used = {i for i, _ in bindings.values()}
        bound_descr: set[str] = set()
        for slot in tpl.slots:
            bound_descr |= slot.type_words
            bound_descr |= values[bindings[slot.key][0]].descriptors
        q_set = q.word_set
        literal_words: set[str] = set()
        for e in values:
            # the template words a value of the question says ("female" for the sex 'F' it glosses)
            if e.literal is not None or e.kind == "stated":
                literal_words.update(content_tokens(e.text))
        # "Which department ..." asks for the things themselves: a template returning rows (not one
        # value) answers it, and the names or ids it returns are what "which" asks for (and a
        # template's "Which ..." is what "the names of ..." asks)
        asked_which: set[str] = set()
        if not tpl.facts.value_only:
            if "which" in q_set:
                asked_which = set(tpl.returned_words)
            elif q_set & tpl.returned_words:
                asked_which = {"which"}
        best: Candidate | None = None
        for p_i, phrasing in enumerate(tpl.phrasings):
            explained_by, t_wholes = explained_first(q, tpl, phrasing, bound_descr, asked_which)
            facets = self.facet_choice.choose(q, tpl, facet_ids, used, set(explained_by), bound_descr)
            for fu in facets:
                for w in fu.explains:
                    explained_by.setdefault(w, f"facet #{fu.facet.index}")
            said = q_set | bound_descr | asked_which | t_wholes
            cov = coverage(q, phrasing, self.index, explained_by, said | literal_words, said)
            cand = Candidate(
                template=tpl,
                phrasing=p_i,
                bindings=bindings,
                facets=facets,
                q_cov=round(cov.q_cov, 3),
                t_cov=round(cov.t_cov, 3),
                unexplained=cov.unexplained,
                missing=cov.missing,
                similarity=round(similarity, 4),
                lexical=round(cov.lexical, 4),
                explained_by=cov.explained_by,
            )
            cand.findings = registry.run("words", q, cand, tpl.facts)
            cand.evidence = evidence(similarity, cov.lexical, cand.findings, self.semantic is not None)
            if best is None or cand.evidence > best.evidence:
                best = cand
        return best

    def verify(self, q: Question, c: Candidate) -> None:
        """The checks of the ``sql`` phase; for a candidate no check of the ``words`` phase spoke
        against, the words its SQL explains and the words said in other words; then its evidence."""
        facts = c.template.facts
        semantic = self.semantic is not None
        words = list(c.findings)
        if not self.calibrated and c.evidence > 0:
            # the gates of rewording read the words phase's findings with the operator words as the
            # wording says them (strict) and as the SQL computes them without the values (grounded)
            others = registry.product(words, skip={"operators"})
            strict = word_agreement(q, c, facts)
            grounded = strict if strict >= 0.999 else grounded_operators(q.text, [], c, q.word_set)[0]
            checks = round(others * strict, 4)
            values_only = registry.product(words, skip={"operators"} | VALUE_CHECKS) * grounded >= 0.999
            op_clean = checks * (grounded / strict) >= 0.999
            if checks >= 0.999:
                self._explain(c, realign(c, q, self.index), "sql")
            self._explain(
                c,
                reword(c, q, self.index, self.set_facts, checks >= 0.999, op_clean, values_only),
                "reworded",
            )
        c.findings = words + registry.run("sql", q, c, facts)
        c.evidence = evidence(c.similarity, c.lexical, c.findings, semantic)
        c.score = c.evidence

    def _explain(self, c: Candidate, rewritten: Rewritten | None, by: str) -> None:
        """Take the rewritten word coverage when it raises the candidate's words and meaning."""
        if rewritten is None:
            return
        q_cov, t_cov, still, missing = rewritten
        semantic = self.semantic is not None
        before = combine(c.similarity, word_score(c.q_cov, c.t_cov), semantic)
        lexical = word_score(q_cov, t_cov)
        if before <= 0 or combine(c.similarity, lexical, semantic) <= before:
            return
        for w in set(c.unexplained) - set(still):
            c.explained_by.setdefault(w, by)
        c.lexical = round(max(c.lexical, lexical), 4)
        c.q_cov, c.t_cov = round(q_cov, 3), round(t_cov, 3)
        c.unexplained = still
        if missing is not None:
            c.missing = missing
