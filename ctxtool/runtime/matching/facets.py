"""Which facets a candidate takes: a facet whose words the question states (and whose values, if it
has slots, fit them well) is added to a template that reads its tables, unless it would turn an
"or" of the question into an AND, fix the very column the template returns, or hold a column
already fixed to a second value. A facet stated in other words ("costs less than 20" for "cheaper
than 20") is found by the encoder, its direction by its SQL operator."""

from __future__ import annotations

import re

from ctxtool.english.content import content_tokens
from ctxtool.runtime.checks.conditions import named_otherwise
from ctxtool.runtime.checks.operators import operator_agreement
from ctxtool.runtime.matching.binding import bind_slots
from ctxtool.runtime.matching.candidate import FacetUse
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.question.values import Entity
from ctxtool.runtime.templates.compiled import Compiled
from ctxtool.runtime.templates.index import ItemIndex
from ctxtool.runtime.templates.semantic import SemanticIndex, masked, placeholder_spans

__all__ = ["FacetChoice", "or_between"]

# a facet stated in other words: the words before its value, as close as this to its wording
FACET_WINDOW = 4
FACET_SIMILARITY = 0.7
_DIRECTION = {"__gt": 1, "__gte": 1, "__lt": -1, "__lte": -1}
_FIXES = ("eq", "like", "in")  # operators that hold a column to the given value(s)


def or_between(
    question: str, entities: list[Entity], before: list[int], fb: dict[str, tuple[int, float]]
) -> bool:
    """The question joins a value already used (the template's, an earlier facet's) and one of this
    facet's with "or" ("height over 5000 or prominence over 1000"): a union, which an ANDed facet
    would turn into an intersection."""
    if not question or not before or not fb:
        return False
    spans = sorted(
        (entities[i].start, entities[i].end, i in before) for i in [*before, *(i for i, _ in fb.values())]
    )
    for (_, a_end, a_old), (b_start, _, b_old) in zip(spans, spans[1:], strict=False):
        if a_old != b_old and re.search(r"\bor\b", question[a_end:b_start], re.I):
            return True
    return False


class FacetChoice:
    """The set's facets, their index (sharing the templates' IDF) and their wordings' vectors."""

    def __init__(self, facets: list[Compiled], index: ItemIndex, semantic: SemanticIndex | None) -> None:
        self.facets = facets
        self.index = index  # one IDF over all wordings, templates' and facets'
        self.facet_index = ItemIndex(facets)
        self.semantic = semantic  # facets "in other words" ("costs less than 20" for "cheaper than 20")

    def candidates(self, q: Question, lookup: set[str], k: int) -> list[int]:
        """The facets worth trying for a question: by its words, and by meaning those with slots."""
        ids = self.facet_index.candidates(lookup, k) if self.facets else []
        if self.semantic is not None:
            near = self.semantic.nearest(q.text, 5, [(e.start, e.end) for e in q.values])
            ids = list(dict.fromkeys([*ids, *(i for i in near if self.facets[i].slots)]))
        return ids

    def choose(
        self,
        q: Question,
        tpl: Compiled,
        facet_ids: list[int],
        used: set[int],
        explained: set[str],
        bound_descr: set[str],
    ) -> list[FacetUse]:
        """The facets added to ``tpl`` (its slots taking ``used``, the question words ``explained``
        by its wording), in order; each takes the question words it explains that nothing before
        it did."""
        entities = list(q.values)
        q_set = q.word_set
        explained = set(explained)
        out: list[FacetUse] = []
        f_used = set(used)
        equal_to: set[str] = set()  # columns a chosen facet already holds equal to a value
        for fi in facet_ids:
            facet = self.facets[fi]
            if not facet.tables or not facet.tables <= tpl.tables:
                continue
            fixed = {s.column for s in facet.slots if s.column and s.operator in _FIXES}
            # a facet that fixes the very column the template returns makes the answer its own value;
            # a second value for a column already fixed ("A or B") is no AND of two equalities
            if fixed & (tpl.facts.projected | equal_to):
                continue
            fb = bind_slots(facet.slots, entities, f_used) if facet.slots else {}
            if fb is None:
                continue
            if or_between(q.text, entities, sorted(f_used), fb):
                continue
            if q.vocabulary is not None and any(
                named_otherwise(q.text, s, entities[fb[s.key][0]], q.vocabulary) for s in facet.slots
            ):
                continue  # "the governor 'X'" is no condition on another column that holds X
            f_tokens = facet.token_set
            f_descr: set[str] = set()
            for slot in facet.slots:
                f_descr |= slot.type_words | entities[fb[slot.key][0]].descriptors
            new = (q_set - explained) & (f_tokens | f_descr)
            strong = [c for _, c in fb.values() if c >= 0.8]
            if facet.slots:
                # a facet with values needs them to fit well and its words to be in the question
                if len(strong) < len(facet.slots):
                    continue
                # the question itself must say what the facet is about ("amount", "above")
                cover = self.index.weight(f_tokens & q_set) / max(self.index.weight(f_tokens), 1e-9)
                if cover < 0.5:
                    said = self._in_other_words(q, facet, [entities[i] for i, _ in fb.values()])
                    if said is None:
                        continue
                    new = (q_set - explained) & said
            else:
                cover = self.index.weight(f_tokens & (q_set | bound_descr)) / max(
                    self.index.weight(f_tokens), 1e-9
                )
                if cover < 0.75 or not new:
                    continue
            out.append(FacetUse(facet, fb, new))
            equal_to |= fixed
            explained |= new
            f_used |= {i for i, _ in fb.values()}
        return out

    def _in_other_words(self, q: Question, facet: Compiled, values: list[Entity]) -> set[str] | None:
        """The question's words that state ``facet`` in other words, or None: the few words before
        the facet's value ("... cost less than 20") must mean what the facet's wording means (the
        encoder) and agree with its operator words (an opposite never passes)."""
        if self.semantic is None or not values or not q.text:
            return None
        question = q.text
        first, last = min(e.start for e in values), max(e.end for e in values)
        head = question[:first].split()[-FACET_WINDOW:]
        while head and not content_tokens(head[0]):
            head = head[1:]  # "that cost less than": from the first content word
        if not head:
            return None
        value = question[first:last]
        window = " ".join(head) + " " + value
        wording = masked(facet.parameterized_intent, placeholder_spans(facet), value)
        if self.semantic.text_pair(window, wording) < FACET_SIMILARITY:
            return None
        # the encoder hardly tells "less" from "more" (it rates "cost more than 20" closer to "cheaper
        # than 20" than "cost less than 20"): the direction comes from the facet's SQL operator and
        # must be the one the window's words state
        w_tokens = set(content_tokens(" ".join(head)))
        said = {_DIRECTION[t] for t in w_tokens if t in _DIRECTION}
        wanted = {_DIRECTION.get(f"__{s.operator}") for s in facet.slots if s.operator} - {None}
        if wanted and said != wanted:
            return None
        f_ops = {t for t in facet.token_set if t.startswith("__")}
        agree, _ = operator_agreement({t for t in w_tokens if t.startswith("__")}, f_ops)
        if agree < 1.0 and f_ops:
            return None
        return w_tokens
