"""Template matching: which template answers a question, with which values in its slots and which
facets on top, and how sure we are.

The question's values (linked values, numbers, dates, quoted strings) are set aside; its remaining
content words are scored against each candidate template's wordings (from the inverted index) in
both directions, IDF-weighted: how much of the question the template (plus facets, plus what the
values stand for) explains, and how much of the template the question asks for. Slots are filled by
values of a compatible kind (a year slot takes a year, a city-name slot a value linked on
``city.name``); a template with an unfillable slot is out, and a value the question states that
neither the template nor a facet uses lowers the confidence sharply, because silently dropping a
condition is how wrong answers happen.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from ctxtool.english.content import content_tokens
from ctxtool.english.reading import (
    asks_count,
    asks_who_has_the_most,
    count_only_to_order,
    joined_twice,
    name_of,
    order_key_words,
    words_before,
)
from ctxtool.runtime.checks.columnnames import ColumnNames, returned_things
from ctxtool.runtime.checks.grouping import grouped_otherwise, groups_asked
from ctxtool.runtime.checks.shape import name_words
from ctxtool.runtime.checks.usedvalues import (
    UNUSED_LOOKALIKE,
    UNUSED_VALUE,
    said_again,
    stated_by,
    unused_weight,
)
from ctxtool.runtime.checks.verify import OPPOSITE, operator_agreement
from ctxtool.runtime.decide.confidence import calibrate
from ctxtool.runtime.matching.binding import adjacent_slots, bind_slots, overlapping
from ctxtool.runtime.matching.composing import empty_range, or_between
from ctxtool.runtime.matching.schemawords import (
    compound_parts,
    heads_of_read_columns,
    inside_name,
    table_words,
)
from ctxtool.runtime.matching.stated import split_names, stated_values
from ctxtool.runtime.question.values import Entity
from ctxtool.runtime.templates.compiled import Compiled, Slot
from ctxtool.runtime.templates.index import ItemIndex
from ctxtool.runtime.templates.semantic import SemanticIndex, masked, placeholder_spans

__all__ = [
    "UNUSED_LOOKALIKE",
    "UNUSED_VALUE",
    "Candidate",
    "FacetUse",
    "Matcher",
    "compound_parts",
    "table_words",
    "unused_weight",
]

# the encoder's cosine below SIM_FLOOR says nothing; at SIM_FULL the wordings mean the same
SIM_FLOOR = 0.5
SIM_FULL = 0.93
SEMANTIC_WEIGHT = 0.7
COLUMN_NOT_READ = 0.6
# a facet stated in other words: the words before its value, as close as this to its wording
FACET_WINDOW = 4
FACET_SIMILARITY = 0.7
_DIRECTION = {"__gt": 1, "__gte": 1, "__lt": -1, "__lte": -1}
UNGROUPED = 0.6
EITHER_ONE_VALUE = 0.7
ORDER_UNMET = 0.5
VALUE_FOR_WHO = 0.5
COUNT_NOT_RETURNED = 0.5  # "how many ..." answered by a query that counts only to rank or filter
COUNT_UNASKED = 0.5  # a count the question sorts by, returned as a column too
EMPTY_RANGE = 0.3  # conditions no row satisfies together
UNASKED_COLUMN = 0.5
NAMED_OTHERWISE = 0.5  # "height more than 5600" in a slot of a count
ONE_AGGREGATE = 0.5  # "the average distance and average price" answered with one average  # a facet's column the listing returns beside what was asked
_WHO_HAS_THE = re.compile(r"\b(?:with|has|have|had|having|gets?|got)\s+the\s+(\w+(?:\s+\w+)?)", re.I)
# not the time extremes: "the first name" is a name
NAME_WORDS = frozenset(content_tokens("name names"))
_EXTREME = frozenset({"__max", "__min", "__superlative"})
# the words of a comparison between a column's name and its value ("height more than 5600")
_BETWEEN_WORDS = frozenset(
    "than at least most more less fewer greater bigger larger higher lower smaller over above under below "
    "of is are was were the a an to equal or".split()
)
_FIXES = ("eq", "like", "in")  # operators that hold a column to the given value(s)


@dataclass
class FacetUse:
    facet: Compiled
    bindings: dict[str, tuple[int, float]]
    explains: set[str]


@dataclass
class Candidate:
    template: Compiled
    phrasing: int
    score: float
    bindings: dict[str, tuple[int, float]]
    facets: list[FacetUse] = field(default_factory=list)
    q_cov: float = 0.0
    t_cov: float = 0.0
    unexplained: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    unused: list[int] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    similarity: float = 0.0  # cosine of the question and the template's closest wording (encoder)
    lexical: float = 0.0  # the word-overlap score before the checks
    checks: float = 1.0  # product of the verification factors (polarity, entities, values...)
    evidence: float = 0.0  # meaning x words x checks, before calibration (``score`` is the confidence)
    factors: dict[str, float] = field(default_factory=dict)  # the checks one by one (their product)
    apart: set[int] = field(default_factory=set)  # templates the question tells apart (rivals.py)


class Matcher:
    """Scores templates (and chooses facets) for a question; both lists go through inverted indexes."""

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
        self.semantic = semantic
        self.calibrated = calibrated  # scores are calibrated confidences (False: the raw evidence)
        # facets "in other words" ("costs less than 20" for "cheaper than 20"): their wordings' vectors
        self.facet_semantic = (
            SemanticIndex(facets, semantic.encoder) if semantic is not None and facets else None
        )
        self.facets = facets
        self.index = ItemIndex(templates + facets)  # one IDF over all wordings
        self.template_index = ItemIndex(templates)
        self.facet_index = ItemIndex(facets)
        self.k = candidates
        # the words that name what a query is about: its tables ("orders" -> order), for the entity check
        self.table_words = {t: set(table_words(t)) for item in templates + facets for t in item.tables}
        self.entity_words: set[str] = set().union(*self.table_words.values()) & self.index.vocabulary()
        # the words of the columns the set's queries read: a question naming one the template does not
        # read asks for something else ("the number of books on one shelf")
        self.column_words = {id(t): t.column_words for t in templates}
        self.all_column_words: set[str] = set().union(*self.column_words.values()) if templates else set()
        self.column_names = ColumnNames(c for t in templates for c in t.facts.columns)
        # the words of each column's name, to tell which column a question sorts by
        self.column_token_sets = {frozenset(name_words(c)) for t in templates for c in t.facts.columns}
        self._returned: dict[int, set[str]] = {}
        self.schema_words = self.all_column_words | self.entity_words
        # the words of each table's columns, as the templates reading that table alone read them
        self._table_columns: dict[str, set[str]] = {}
        for t in templates:
            if len(t.tables) == 1:
                self._table_columns.setdefault(next(iter(t.tables)), set()).update(t.column_words)

    def vocabulary(self) -> set[str]:
        return self.index.vocabulary()

    def _returned_words(self, tpl: Compiled) -> set[str]:
        """The words of the columns the template returns: "the names of ..." is what a query that
        selects ``name`` answers, whether or not its wording says "name"."""
        words = self._returned.get(id(tpl))
        if words is None:
            words = set()
            for c in tpl.facts.projected:
                words.update(content_tokens(c.split(".")[-1].replace("_", " ")))
            self._returned[id(tpl)] = words
        return words

    def _name_returned(self, question: str, tpl: Compiled) -> bool:
        """Whether "the name of X" is what the template returns: a column named for X, or a column
        (a title, a label) of X's table when that table has no name column the set reads."""
        named = name_of(question)
        if not named:
            return False
        if named & self._returned_words(tpl):
            return True
        return any(
            named & self.table_words.get(t, set()) and not NAME_WORDS & self._table_columns.get(t, set())
            for t in returned_things(tpl)
        )

    def _own_columns(self, tpl: Compiled) -> set[str]:
        """The words of the columns of the template's tables (as far as the set reads them)."""
        out: set[str] = set()
        for t in tpl.tables:
            out |= self._table_columns.get(t, set())
        return out

    def _orders_by_other(self, question: str, key: str) -> bool:
        """The question sorts by a column of the set whose name's words are not all the template's
        first order key's (words that name no column say nothing here)."""
        said = order_key_words(question)
        if not said or not any(said <= cols for cols in self.column_token_sets):
            return False
        return not said <= set(name_words(key))

    def _returns_unasked(self, tpl: Compiled, facet: Compiled, q_tokens: list[str]) -> bool:
        """A facet's condition on a column the template returns beside others, when the question
        names that column once (for the condition): "names of members ranked above 3" asks for
        the names, not the names and ranks the listing returns."""
        output = tpl.facts.output
        if output.width < 2:
            return False
        returned = {c.split(".")[-1] for c in tpl.facts.projected} | output.aggregated
        for slot in facet.slots:
            column = (slot.column or "").split(".")[-1]
            if column not in returned:
                continue
            words = content_tokens(column.replace("_", " "))
            if words and max(q_tokens.count(w) for w in words) <= 1:
                return True
        return False

    def _named_otherwise(self, question: str, slot: Slot, e: Entity) -> bool:
        """The column word right before a value (only comparison words between: "height more than
        5600", "the governor 'X'") or, for a condition on a column, right after a number ("200
        sales") names a column of the schema that the slot taking the value is not compared with
        (a count slot is compared with none; what follows its number is what it counts)."""
        if slot.operator == "limit" or e.kind not in ("number", "linked", "quoted"):
            return False
        if e.kind != "number" and slot.column is None:
            return False
        before: list[str] = []
        for word in reversed(re.findall(r"[A-Za-z]+", question[: e.start])[-6:]):
            tokens = content_tokens(word)
            if word.lower() in _BETWEEN_WORDS or (tokens and all(t.startswith("__") for t in tokens)):
                continue  # "more than", "at least", "above", "the"
            before = tokens[-1:]
            break
        after = content_tokens(question[e.end :])[:1] if e.kind == "number" else []
        if slot.column is None:
            if set(after) & self.entity_words:
                return False  # "more than 4 customers": what follows is what is counted
            after = []
        named = [w for w in before + after if w in self.all_column_words and w not in self.entity_words]
        return bool(named) and not (set(named) & slot.type_words)

    def _called_otherwise(
        self, question: str, tpl: Compiled, bindings: dict[str, tuple[int, float]], entities: list[Entity]
    ) -> set[str]:
        """Words of the schema right before a quoted value that no search found, which the slot
        taking it is not about ("the author 'Ann Berg'" in a slot for a reader's name): the question
        says what kind of value it is."""
        out: set[str] = set()
        for slot in tpl.slots:
            e = entities[bindings[slot.key][0]]
            if e.kind != "quoted" or e.link is not None:
                continue
            before = re.findall(r"[A-Za-z]+", question[: e.start])[-1:]
            words = content_tokens(before[0]) if before else []
            own = set(slot.type_words)
            if slot.column and "." not in slot.column:  # a column named without its table: any of them
                own |= set().union(*(self.table_words.get(t, set()) for t in tpl.tables))
            if words and words[-1] in self.schema_words and words[-1] not in own:
                out.add(words[-1])
        return out

    def question_tokens(self, question: str, entities: list[Entity]) -> list[str]:
        text = list(question)
        for e in entities:
            for i in range(e.start, e.end):
                text[i] = " "
        return content_tokens("".join(text))

    def rank(self, question: str, entities: list[Entity], *, limit: int = 5) -> list[Candidate]:
        """The best candidates, best first (scores in 0..1)."""
        q_tokens = self.question_tokens(question, entities)
        descr: set[str] = set()
        for e in entities:
            descr |= e.descriptors
        lookup = set(q_tokens) | descr
        ids = self.template_index.candidates(lookup, self.k)
        sims: dict[int, float] = {}
        if self.semantic is not None:
            sims = self.semantic.nearest(question, self.k, [(e.start, e.end) for e in entities])
            ids = list(dict.fromkeys([*sims, *ids]))
        near = [self.templates[i] for i in ids]
        if stated_values(question, near, entities):
            q_tokens = self.question_tokens(question, entities)
        split_names(question, near, entities)
        if not ids and entities:
            ids = list(range(min(len(self.templates), self.k)))
        facet_ids = self.facet_index.candidates(lookup, self.k) if self.facets else []
        if self.facet_semantic is not None:
            near = self.facet_semantic.nearest(question, 5, [(e.start, e.end) for e in entities])
            facet_ids = list(dict.fromkeys([*facet_ids, *(i for i in near if self.facets[i].slots)]))
        out: list[Candidate] = []
        for i in ids:
            sim = sims[i] if i in sims else (self.semantic.similarity(question, i) if self.semantic else 0.0)
            cand = self._score(self.templates[i], q_tokens, entities, facet_ids, sim, question)
            if cand is not None:
                out.append(cand)
        out.sort(key=lambda c: -c.score)
        if not self.calibrated:
            return out[:limit]
        return calibrate(out[:limit], self.semantic is not None)

    def combine(self, similarity: float, lexical: float) -> float:
        """The evidence that the template asks what the question asks, before the checks: the
        encoder's cosine (rescaled so unrelated questions score 0) mixed with the word overlap."""
        if self.semantic is None:
            return lexical
        sem = min(max((similarity - SIM_FLOOR) / (SIM_FULL - SIM_FLOOR), 0.0), 1.0)
        # meaning can only add evidence: a question that says what the template says keeps its score
        return max(lexical, SEMANTIC_WEIGHT * sem + (1 - SEMANTIC_WEIGHT) * lexical)

    def _facet_in_other_words(
        self, question: str, facet: Compiled, fi: int, values: list[Entity]
    ) -> set[str] | None:
        """The question's words that state ``facet`` in other words, or None: the few words before
        the facet's value ("... cost less than 20") must mean what the facet's wording means (the
        encoder) and agree with its operator words (an opposite never passes)."""
        if self.facet_semantic is None or not values or not question:
            return None
        first, last = min(e.start for e in values), max(e.end for e in values)
        head = question[:first].split()[-FACET_WINDOW:]
        while head and not content_tokens(head[0]):
            head = head[1:]  # "that cost less than": from the first content word
        if not head:
            return None
        value = question[first:last]
        window = " ".join(head) + " " + value
        wording = masked(facet.parameterized_intent, placeholder_spans(facet), value)
        sim = self.facet_semantic.text_pair(window, wording)
        if sim < FACET_SIMILARITY:
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

    def _score(
        self,
        tpl: Compiled,
        q_tokens: list[str],
        entities: list[Entity],
        facet_ids: list[int],
        similarity: float = 0.0,
        question: str = "",
    ) -> Candidate | None:
        bindings = bind_slots(tpl.slots, entities, set(), adjacent_slots(tpl))
        if bindings is None or self._called_otherwise(question, tpl, bindings, entities):
            return None  # a value of the wrong kind never fills a slot (an author is no reader's name)
        used = {i for i, _ in bindings.values()}
        bound_descr: set[str] = set()
        for slot in tpl.slots:
            bound_descr |= slot.type_words
            bound_descr |= entities[bindings[slot.key][0]].descriptors
        q_set = set(q_tokens)
        literal_words: set[str] = set()
        for e in entities:
            # the template words a value of the question says ("female" for the sex 'F' it glosses)
            if e.literal is not None or e.kind == "stated":
                literal_words.update(content_tokens(e.text))
        best: Candidate | None = None
        # what the SQL computes agrees with the question's operator words of that kind (never asks for
        # them); as explanation of the words too it gave 1.0 point more covered but 4 more wrong answers
        # on the Spider kit (near-duplicate templates that differ in the column counted)
        by_sql = q_set & tpl.facts.operators
        # "Which department ..." asks for the things themselves: a template returning rows (not one
        # value) answers it, and the names or ids it returns are what "which" asks for
        # (and a template's "Which ..." is what "the names of ..." asks)
        asked_which: set[str] = set()
        if not tpl.facts.value_only:
            returned = self._returned_words(tpl)
            if "which" in q_set:
                # (not "which" itself: "Which items have 'South' in their title?" would read as well
                # as a list of titles of a category 'South')
                asked_which = set(returned)
            elif q_set & returned:
                asked_which = {"which"}
        for p_i, phrasing in enumerate(tpl.phrasings):
            t_set = set(phrasing.tokens)
            explained = q_set & (t_set | bound_descr | self._returned_words(tpl) | asked_which)
            q_parts, t_wholes = compound_parts(q_set - explained, t_set - q_set)
            explained |= q_parts
            facets: list[FacetUse] = []
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
                if or_between(question, entities, sorted(f_used), fb):
                    continue
                if any(self._named_otherwise(question, s, entities[fb[s.key][0]]) for s in facet.slots):
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
                        said = self._facet_in_other_words(
                            question, facet, fi, [entities[i] for i, _ in fb.values()]
                        )
                        if said is None:
                            continue
                        new = (q_set - explained) & said
                else:
                    cover = self.index.weight(f_tokens & (q_set | bound_descr)) / max(
                        self.index.weight(f_tokens), 1e-9
                    )
                    if cover < 0.75 or not new:
                        continue
                facets.append(FacetUse(facet, fb, new))
                equal_to |= fixed
                explained |= new
                f_used |= {i for i, _ in fb.values()}
            both = q_set & t_set
            w_q = self.index.weight(q_tokens, both)
            q_cov = self.index.weight([t for t in q_tokens if t in explained], both) / w_q if w_q else 1.0
            w_t = self.index.weight(t_set, both)
            t_cov = (
                self.index.weight(
                    t_set & (q_set | bound_descr | literal_words | asked_which | t_wholes), both
                )
                / w_t
                if w_t
                else 0.5
            )
            # weighted harmonic mean: words of the question nothing explains weigh most
            lexical = 1.0 / (0.55 / max(q_cov, 1e-6) + 0.45 / max(t_cov, 1e-6))
            # each check's factor, by name (the confidence model weighs them one by one)
            output = tpl.facts.output
            factors: dict[str, float] = {"facets": 0.97 ** len(facets)}  # on a tie, the template alone
            reasons = []
            if empty_range([(tpl, bindings), *((fu.facet, fu.bindings) for fu in facets)], entities):
                factors["empty_range"] = EMPTY_RANGE
                reasons.append("the conditions together hold a column above a bound and below a smaller one")
            if any(
                s.column is None and self._named_otherwise(question, s, entities[bindings[s.key][0]])
                for s in tpl.slots
            ):
                factors["named_otherwise"] = NAMED_OTHERWISE
                reasons.append("a value the question states of a column fills a slot compared with none")
            doubled = [
                op
                for op in ("__avg", "__sum")
                if output.counts.get(op[2:], 0) == 1
                and q_tokens.count(op) >= 2
                and joined_twice(question, op)
            ]
            if doubled:
                factors["aggregates"] = ONE_AGGREGATE
                reasons.append("the question asks two aggregates of a kind, the template returns one")
            if any(self._returns_unasked(tpl, fu.facet, q_tokens) for fu in facets):
                factors["unasked_column"] = UNASKED_COLUMN
                reasons.append(
                    "a facet's column is returned as well, the question names it only as a condition"
                )
            # words that decide what the query computes (count/average/max, above/below, not...) must
            # agree: a question about the lowest salary is not answered by the highest-salary template
            by_facets = set().union(*(fu.explains for fu in facets)) if facets else set()
            q_ops = {t for t in q_set if t.startswith("__")} - by_facets
            t_ops = {t for t in t_set if t.startswith("__")} | by_sql
            agree, clashes = operator_agreement(q_ops, t_ops)
            factors["operators"] = agree
            if clashes:
                reasons.append("the question and the template disagree on: " + ", ".join(clashes))
            # "ordered by date of birth", "in descending order": rows in no order, or in the other
            # order, are not what was asked (an order the template gives unasked is harmless)
            wanted = {"desc"} if "__desc" in q_ops else {"asc"} if "__asc" in q_ops else set()
            if ("__order" in q_set or wanted) and tpl.facts.order is None:
                factors["order"] = ORDER_UNMET
                reasons.append("the question asks for an order, the template returns rows in none")
            elif wanted and tpl.facts.order not in wanted and "__desc" not in t_ops and "__asc" not in t_ops:
                factors["order"] = OPPOSITE
                reasons.append("the question asks for the opposite order")
            elif tpl.facts.order_key and self._orders_by_other(question, tpl.facts.order_key):
                # "in order of last name" is not answered by rows sorted by first name
                factors["order"] = ORDER_UNMET
                reasons.append("the question sorts by another column than the template")
            # "the author with the most books" asks for who, not for how many: a template that
            # returns one aggregate value does not name the one with the most
            if tpl.facts.value_only and asks_who_has_the_most(question):
                factors["who"] = VALUE_FOR_WHO
                reasons.append("the question asks which one has the most, the template returns a value")
            # the question names an entity (table) the template neither reads nor says: "average order
            # amount" is not answered by "average balance of transactions", however alike the measure
            tpl_words: set[str] = set().union(*(self.table_words.get(t, set()) for t in tpl.tables))
            other = (q_set & self.entity_words) - explained - tpl_words
            if other:
                other = {w for w in other if not inside_name(w, tpl.tables)}
            if other:
                factors["entities"] = 0.5 ** len(other)
                reasons.append("the template is not about: " + ", ".join(sorted(other)))
            f_cols: set[str] = set()
            for fu in facets:
                f_cols |= fu.facet.column_words | fu.facet.token_set
            cols = (
                (q_set & self.all_column_words) - explained - tpl_words - self.column_words[id(tpl)] - f_cols
            )
            cols -= self.entity_words  # already weighed as entities
            cols = {w for w in cols if not w.startswith("__")}  # (a ``min_price`` column's "min")
            if NAME_WORDS & cols and self._name_returned(question, tpl):
                cols -= NAME_WORDS  # "the name of the building" is the building a template returns
            if cols:
                cols -= heads_of_read_columns(question, cols, self.column_words[id(tpl)]) - self._own_columns(
                    tpl
                )
            if cols:
                # "the widget named 'Zed'" of a slot on a name column: the verb says the value's column
                said_of: set[str] = set()
                for slot in tpl.slots:
                    e = entities[bindings[slot.key][0]]
                    parts = (slot.column or "").split(".")[-1].split("_")  # each word ("first", "name")
                    column = {t for part in parts for t in content_tokens(part)}
                    said_of |= words_before(question, [(e.start, e.end)]) & column
                cols -= self.column_names.only_in_passing(question, cols, q_set, said_of)
            if cols:
                factors["columns"] = COLUMN_NOT_READ ** len(cols)
                reasons.append("the template does not read: " + ", ".join(sorted(cols)))
            # "for each type" asks for groups; a template that returns one row does not answer it
            # (only with a measure: "the title of each film" lists films, "the number for each" groups)
            # "either A or B" asks for two alternatives: a template with one value does not hold both
            if "__either" in q_set and "__either" not in t_set and len(tpl.slots) == 1 and not facets:
                factors["either"] = EITHER_ONE_VALUE
                reasons.append("the question asks for either of two, the template holds one value")
            if (
                output.width
                and "count" not in output.aggregates
                and "__count" in tpl.facts.operators
                and asks_count(question)
            ):
                factors["count"] = COUNT_NOT_RETURNED
                reasons.append("the question asks how many, the template counts only to choose")
            elif output.width > 1 and "count" in output.aggregates and count_only_to_order(question):
                factors["count"] = COUNT_UNASKED
                reasons.append("the question orders by a count, the template returns it as well")
            aggregate = q_set & {"__count", "__avg", "__sum", "__max", "__min"}
            if (
                "__each" in q_set
                and aggregate
                and "__each" not in t_set
                and not tpl.facts.grouped
                and "__each" not in by_facets
                and (
                    not (output.aggregates or tpl.facts.order)  # a bare listing computes nothing asked
                    or groups_asked(question, tpl.tables, tpl_words)
                )
            ):
                factors["grouping"] = UNGROUPED
                reasons.append("the question asks per group, the template does not group")
            elif tpl.facts.grouped and grouped_otherwise(question, tpl.facts, self.column_token_sets):
                factors["grouping"] = UNGROUPED
                reasons.append("the question asks per group of another thing than the template")
            links = [entities[i].link for i, _ in bindings.values() if entities[i].link]
            for fu in facets:
                links += [entities[i].link for i, _ in fu.bindings.values() if entities[i].link]
            if links:
                worst = max(lv.distance for lv in links if lv)
                factors["links"] = 1 - 0.5 * worst
                if worst > 0:
                    reasons.append(f"closest stored value at distance {worst:.2f}")
            fit = [c for _, c in bindings.values()]
            if fit and min(fit) < 1:
                factors["fit"] = 0.85 + 0.15 * min(fit)
            unused = [
                i
                for i in range(len(entities))
                if i not in f_used
                and not entities[i].part  # a quoted name counts once, whole
                and not (overlapping(entities, i) & f_used)
                and not stated_by(entities[i], phrasing.text)
                and not said_again(entities, i, f_used)
            ]
            if unused:
                factors["unused"] = math.prod(unused_weight(entities[i], question) for i in unused)
                reasons.append(
                    "the question states values nothing uses: " + ", ".join(entities[i].text for i in unused)
                )
            checks = math.prod(factors.values())
            cand = Candidate(
                template=tpl,
                phrasing=p_i,
                score=round(self.combine(similarity, lexical) * checks, 4),
                evidence=round(self.combine(similarity, lexical) * checks, 4),
                similarity=round(similarity, 4),
                lexical=round(lexical, 4),
                checks=round(checks, 4),
                factors=factors,
                bindings=bindings,
                facets=facets,
                q_cov=round(q_cov, 3),
                t_cov=round(t_cov, 3),
                unexplained=[t for t in q_tokens if t not in explained],
                missing=sorted(t_set - q_set - bound_descr - asked_which - t_wholes),
                unused=unused,
                reasons=reasons,
            )
            if best is None or cand.score > best.score:
                best = cand
        return best
