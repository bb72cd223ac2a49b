"""Rewording: the question's words that say a template's words in other words.

The word score (:mod:`ctxtool.runtime.matching.matcher`) counts a question word as explained only when the
template's wording (or a value, a returned column) says it, and a word no wording of the set uses
weighs most. People ask in their own words: a verb of their own for the relation the template's
joins already hold ("the customers who *hold* an account" for "have"), a misspelling of the
template's word ("deparment"), a short or long form of it ("info", "bedroom" for "bed"). Such a word
is no condition the template leaves out, so it is not held against the template; the template's own
relation verb ("published", "offered") is not asked of the question either.

The words that ask for a LIKE ("includes the string", "has the substring", "in part of the name")
are one condition however they are said, and an operator the SQL grounds (the count of "the most
X", "how many hours" of an hours column: :mod:`ctxtool.runtime.checks.grounding`; "the oldest" of the
highest age or the earliest date, "the shortest" of the lowest duration: :func:`said_ends`) is said.

A verb counts only when the schema does not name it (a column or table word is a thing the question
asks about, whatever its part of speech), only when it leaves no other question word unexplained, a
verb on each side is two relations (never paired), and only for a candidate no check spoke against (a
word explained here cannot hide a disagreement). Measured on the Spider train kit
(``bench/spider.py``): about 25 more covered questions, no wrong answer more; a question verb explained
whatever else it leaves gave 19 more for 5 wrong. Nothing here knows a database: the words come from
general English (lemminflect's lexicon, the WordNet-derived :mod:`ctxtool.english.thesaurus`: "pricy" of
"expensive", "who advises" of "the advisor", +4 on the kit, none wrong) and the set's own names.

Operator words said in other words are paired once the grounding (:mod:`ctxtool.runtime.checks.grounding`)
finds the operators agree: a size adjective with its degree and the comparison or end in the same
direction ("higher than" / "greater than", "the lowest price" / "the cheapest"), "the lowest age" of
a wording's "the youngest", "the different X" of a GROUP BY of X, an aggregate or an order the SQL
computes; pronouns and prepositions ("he or she", "among") are no condition while no operator word
of the question is left; an end the wording states of rows its SQL lists in that order ("starting
from the most recent one") is the question's "in descending order". On the Spider train kit: 22
more covered questions (10 on the even databases, 12 on the odd), no wrong answer more on either
half; the listed ends, with "more X than" read as a comparison (:mod:`ctxtool.english.content`),
3 more (2 / 1); a spelled-out number and a slip in the wording's spelling 3 more (1 / 2); light
verbs ("the payments made") and "the amount of" 5 more (4 / 1); none wrong. ("When" of a template
returning a date answered nothing more: not kept.)
"""

from __future__ import annotations

import re
from typing import Any

from ctxtool.english import thesaurus
from ctxtool.english.content import content_tokens
from ctxtool.english.lexicon import (
    DOWNWARD_SIZE_WORDS,
    EACH_OR_PER_THING,
    FUNCTION_WORDS_OF_NO_CONDITION,
    KEY_STEMS,
    LIGHT_VERB_WORDS,
    NUMBER_WORDS,
    PATTERN_WORDS_SAID,
    SUFFIXES,
    UPWARD_SIZE_WORDS,
)
from ctxtool.english.reading import (
    counted_head,
    counted_measures,
    verb_in,
)
from ctxtool.english.spelling import slipped
from ctxtool.english.tokens import is_verb
from ctxtool.runtime.checks.grouping import lists_each
from ctxtool.runtime.checks.operators import implied_ops, listed_ends, said_ends, said_total
from ctxtool.runtime.matching.candidate import Candidate
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.templates.facts import TemplateFacts, name_words
from ctxtool.runtime.templates.index import ItemIndex
from ctxtool.runtime.templates.vocabulary import SetFacts

PART_MIN = 3  # the shortest word a longer form begins with ("info" of "information", "bed" of "bedroom")
# words that say a piece of text is in a value (a LIKE '%...%'), as content tokens
PATTERN_WORDS = frozenset(content_tokens(PATTERN_WORDS_SAID))
# pronouns and prepositions of no condition, as content tokens (a question's "he or she", "among all")
FUNCTION_WORDS = frozenset(content_tokens(FUNCTION_WORDS_OF_NO_CONDITION))
# verbs that say little on their own ("the orders made", "took place"), as content tokens
LIGHT_VERBS = frozenset(content_tokens(LIGHT_VERB_WORDS))


def _said_otherwise(a: str, b: str) -> bool:
    """English words of one meaning: synonyms, similar adjectives, or a verb and the noun derived
    from it ("who advises" of "the advisor"; not two nouns: a membership is no member)."""
    if thesaurus.related(a, b, "sa"):
        return True
    return is_verb(a) != is_verb(b) and thesaurus.related(a, b, "d")


def _pairs(
    unexplained: set[str],
    missing: set[str],
    q_words: dict[str, str],
    t_words: dict[str, str],
    schema: set[str],
) -> tuple[set[str], set[str]]:
    """The question words and the template words that say one another: a one-letter slip, one the
    beginning of the other, or English words of one meaning (:func:`_said_otherwise`: "pricy" of
    "expensive", "advises" of "advisor"), unless the schema names the question's word:
    then it is that table or column, not the template's ("classes" of a ``class`` table are no
    "courses")."""
    q_out: set[str] = set()
    t_out: set[str] = set()
    for u in unexplained:
        for m in missing:
            a, b = q_words.get(u, u), t_words.get(m, m)
            if (
                slipped(a, b)
                or slipped(u, m)  # "appears" of "appearring": appear, appearr
                or _begins(a, b)  # "info" of "information"
                or _begins(u, m)  # "beds" of "bedrooms": bed, bedroom
                or (u not in schema and _said_otherwise(a, b))
            ):
                q_out.add(u)
                t_out.add(m)
    return q_out, t_out


def _begins(a: str, b: str) -> bool:
    """One word the beginning of the other, and the rest no ending that makes another word of it."""
    short, long = (a, b) if len(a) < len(b) else (b, a)
    rest = long[len(short) :]
    return len(short) >= PART_MIN and len(rest) >= 2 and long.startswith(short) and rest not in SUFFIXES


def _named(word: str, schema: set[str]) -> bool:
    """The schema names the word, or a word it begins or ends ("direct" of a ``director`` column)."""
    if word in schema:
        return True
    return len(word) >= 4 and any(len(w) >= 4 and (w.startswith(word) or word.startswith(w)) for w in schema)


def _reversed(q_tokens: list[str], t_tokens: list[str], schema: set[str]) -> bool:
    """Whether the things both sides name come in another order: "the shelves that have the most
    books" is not "the books that stand on the most shelves", so a verb one side says is the
    relation read the other way, no rewording."""
    shared = [t for t in dict.fromkeys(q_tokens) if t in schema and t in t_tokens]
    if len(shared) < 2:
        return False
    return shared != [t for t in dict.fromkeys(t_tokens) if t in shared]


# adjectives of a size by the direction their degrees take ("higher than" a greater value, "the
# cheapest" the lowest): said with the degree, they are the template's comparison or end in other words
_UP = frozenset(content_tokens(UPWARD_SIZE_WORDS))
_DOWN = frozenset(content_tokens(DOWNWARD_SIZE_WORDS))
_DEGREE_OPS = {
    ("__comparative", 1): frozenset({"__gt", "__gte"}),
    ("__comparative", -1): frozenset({"__lt", "__lte"}),
    ("__superlative", 1): frozenset({"__max"}),
    ("__superlative", -1): frozenset({"__min"}),
}
_OPPOSITE_OPS = {
    "__gt": "__lt",
    "__gte": "__lt",
    "__lt": "__gt",
    "__lte": "__gt",
    "__max": "__min",
    "__min": "__max",
}


def _degree_pairs(said: set[str], other: set[str], other_all: set[str]) -> tuple[set[str], set[str]]:
    """A degree and a size adjective of one side (``said``: "higher", "the cheapest") and the
    comparison or end the other side states in its own words (``other``: "greater than", "the
    lowest") in the same direction; nothing when the other side also states the opposite."""
    adjs_up, adjs_down = said & _UP, said & _DOWN
    if bool(adjs_up) == bool(adjs_down):
        return set(), set()
    direction, adjs = (1, adjs_up) if adjs_up else (-1, adjs_down)
    for degree in ("__comparative", "__superlative"):
        if degree not in said:
            continue
        ops = _DEGREE_OPS[(degree, direction)] & other
        if ops and not any(_OPPOSITE_OPS[o] in other_all for o in ops):
            return {degree, *adjs}, ops
    return set(), set()


def _grouped_by_asked(facts: TemplateFacts, q_tokens: set[str]) -> bool:
    """A GROUP BY key the question names in all its words (but a key's own "id" / "code")."""
    for key in facts.group_keys:
        words = set(key) - KEY_STEMS
        if words and words <= q_tokens:
            return True
    return False


def _counts_distinct(question: str, tpl: Any) -> bool:
    """The query counts the distinct things whose head noun the question counts: ``COUNT(DISTINCT
    transaction_type)`` of "the different types of transactions", ``COUNT(*)`` of a ``customers``
    table (its rows are distinct customers) of "the number of distinct customers"; not "the different
    dorm amenities" of a count of distinct dorms."""
    head = counted_head(question)
    if head is None:
        return False
    counted = {w for col in tpl.facts.count_distinct for w in name_words(col)}
    return head in (counted or tpl.facts.counted_rows)


def sql_said_ops(
    unexplained: set[str], tpl: Any, q_tokens: set[str] = frozenset(), question: str = ""
) -> set[str]:
    """The question's operator words the template's SQL computes although its wording does not say
    them: "the different X" of a GROUP BY of X, "how many" / "the total" / "the average" of the
    aggregate the SQL takes, an order of the rows the SQL lists in it, "the different X" of a count
    of distinct X (:func:`_counts_distinct`). (Not "different" of any COUNT(DISTINCT ...) nor "for
    each" of any GROUP BY: on the Spider kit, 3 and 2 wrong answers more, "how many distinct X" of a
    count of another column, "the students of each sport" of a count per student.)"""
    realized = tpl.facts.realizes
    out: set[str] = set()
    grouped = tpl.facts.grouped
    if "__distinct" in unexplained and (
        (grouped and _grouped_by_asked(tpl.facts, q_tokens)) or _counts_distinct(question, tpl)
    ):
        out.add("__distinct")
    out |= {t for t in ("__count", "__sum", "__avg") if t in unexplained and t in realized}
    order = tpl.facts.order
    if order is not None and "one end" not in realized:  # rows listed in an order, not the first one
        out |= {t for t in ("__order", f"__{order}") if t in unexplained}
    return out


_DIGITS = re.compile(r"(?<![\w.])(\d+)(?![\w.])")


def _numbers_said(wording: str, question: str) -> set[str]:
    """The content tokens of the number words of ``wording`` whose number ``question`` states, in
    digits or in words."""
    stated = {int(d) for d in _DIGITS.findall(question)}
    stated |= {NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", question.lower()) if w in NUMBER_WORDS}
    out: set[str] = set()
    for w in re.findall(r"[a-z]+", wording.lower()):
        if NUMBER_WORDS.get(w) in stated:
            out.update(content_tokens(w))
    return out


Rewritten = tuple[float, float, list[str], list[str] | None]  # q_cov, t_cov, unexplained, missing


def reword(
    c: Candidate, q: Question, index: ItemIndex, voc: SetFacts, clean: bool, op_clean: bool, values_only: bool
) -> Rewritten | None:
    """The candidate's word coverage with the question words that reword the template's
    (:func:`_pairs`, relation verbs the schema does not name) explained and the template's own
    relation verbs not asked; None when nothing is reworded.

    ``values_only``: every check but the values' fit passed; ``clean``: every check passed, values
    fitting their slots well included (the pairs and the verbs need it: a loose value and a
    reworded word answered wrong); ``op_clean``: once the operator words are grounded too, for the
    rules that pair operator words themselves (a verb or a measure credited on a grounding's looser
    agreement answered wrong: "the most X" is not "the latest X")."""
    if not values_only or not (c.unexplained or c.missing):
        return None
    cand = c
    question = q.text
    q_tokens = q.words
    tpl = cand.template
    phrasing = c.wording
    if phrasing is None:
        return None
    schema = voc.all_column_words | voc.entity_words
    q_words = q.surface
    t_words = phrasing.surface
    unexplained = {t for t in cand.unexplained if not t.startswith("__") and t != "which"}
    missing = {t for t in cand.missing if not t.startswith("__")}
    # pronouns and prepositions say no thing and no condition ("the patients he or she treats"), nor
    # do a light verb ("the payments made", "employees making more than") and "the amount of"
    # (words that say nothing need no value to fit well: only the other checks passed)
    function = (unexplained | missing) & FUNCTION_WORDS
    function |= {w for w in (unexplained | missing) & LIGHT_VERBS if not _named(w, schema)}
    function |= (unexplained & q.empty_phrases) | (missing & phrasing.empty_phrases)
    unexplained -= function
    missing -= function
    q_done, t_done = _pairs(unexplained, missing, q_words, t_words, schema) if clean else (set(), set())
    if clean:
        # two words of the question that the wording runs together ("tried out" of "the tryout")
        for a, b in zip(q_tokens, q_tokens[1:], strict=False):
            if a + b in missing and {a, b} <= unexplained:
                q_done |= {a, b}
                t_done.add(a + b)
        # a misspelling of any word of the wording ("charactersitic" of a slot's "characteristic")
        said = {t for t in phrasing.tokens if not t.startswith("__")}
        q_done |= {u for u in unexplained for m in said if slipped(q_words.get(u, u), t_words.get(m, m))}
        q_verbs = {u for u in unexplained - q_done if verb_in(q_words.get(u, u), question)}
        t_verbs = {m for m in missing - t_done if verb_in(t_words.get(m, m), phrasing.text)}
        # a verb of each side is a relation each states: "the users who write" is not "the items that
        # receive"; one side's verb alone is its way of saying what the joins hold
        if not (q_verbs and t_verbs) and not _reversed(q_tokens, phrasing.tokens, schema):
            q_done |= {u for u in q_verbs if not _named(u, schema)}
            t_done |= {m for m in t_verbs if not _named(m, schema)}
    if values_only:
        # a slip in the wording's own spelling of a word the question says ("aritist"), and a number
        # the wording spells out that the question states ("at least two" of "2 or more")
        q_said = {t for t in q_tokens if not t.startswith("__")}
        t_done |= {m for m in missing if any(slipped(t_words.get(m, m), q_words.get(u, u)) for u in q_said)}
        t_done |= {m for m in missing if m in _numbers_said(phrasing.text, question)}
    # the verb a sentence of the wording begins with is an instruction ("Report the name of ...",
    # "Compute the number of ..."), not what is asked
    if clean:
        t_done |= {m for m in missing if m in phrasing.imperatives}
        q_done |= {u for u in unexplained if u in q.imperatives}
    # a question word left unexplained is a condition or a thing the template may not hold: the
    # question's own words count as reworded only when they leave none
    if unexplained - q_done:
        q_done = set()
    q_done |= function & set(cand.unexplained)
    t_done |= function & set(cand.missing)
    # operator words the SQL grounds: "the most cities" of a template counting them, "how many
    # hours" of an hours column (ctxtool.runtime.checks.grounding)
    q_ops = {t for t in q_tokens if t.startswith("__")}
    t_ops = {t for t in phrasing.tokens if t.startswith("__")}
    if clean:
        t_done |= implied_ops(q_ops, t_ops, tpl.facts.realizes) & set(cand.missing)
        if "__count" in cand.unexplained and counted_measures(question, tpl.column_heads):
            q_done.add("__count")
    if op_clean:
        ends, end_tokens = said_ends(q_tokens, tpl.facts)
        q_done |= ends & set(cand.unexplained)
        t_done |= end_tokens & set(cand.missing) if ends & set(cand.unexplained) else set()
        # the other way round: "the lowest age" of a template that says "the youngest"
        # (the question names the column the end is taken of, which the wording does not)
        t_ends, q_end_tokens = said_ends(phrasing.tokens, tpl.facts)
        end_words = {t for _, words in tpl.facts.ends for w in words for t in content_tokens(w)}
        if (
            t_ends & set(cand.missing)
            and q_end_tokens & set(cand.unexplained)
            and end_words & set(cand.unexplained)
        ):
            t_done |= t_ends & set(cand.missing)
            q_done |= (q_end_tokens | end_words) & set(cand.unexplained)
        # "higher than" of "greater than", "the lowest price" of "the cheapest"
        q_all, t_all = set(q_tokens), set(phrasing.tokens)
        for said, other, other_all, flip in (
            (set(cand.unexplained), set(cand.missing), t_all, False),
            (set(cand.missing), set(cand.unexplained), q_all, True),
        ):
            a, b = _degree_pairs(said, other, other_all)
            q_done |= b if flip else a
            t_done |= a if flip else b
        q_done |= sql_said_ops(set(cand.unexplained) - q_done, tpl, set(q_tokens), question)
        if "__sum" in cand.missing and said_total(question, q_ops, t_ops, tpl.facts.realizes):
            t_done.add("__sum")  # "how much ... in total" of the wording's "the total"
        # "from the most recent one" of rows the SQL lists latest first, and "in descending order"
        _, t_kept = listed_ends(q_ops, t_ops, tpl.facts.realizes)
        if t_ops - t_kept:
            t_done |= (t_ops - t_kept) & set(cand.missing)
            q_done |= {"__asc", "__desc", "__order"} & set(cand.unexplained)
        # "each X" of a template that lists the X, one row each (ctxtool.runtime.checks.grounding.lists_each)
        if "__each" in cand.unexplained and lists_each(question, cand, voc.table_words):
            q_done.add("__each")
    # a question operator word left unexplained asks something else: no function word is credited
    if any(t.startswith("__") and t not in q_done for t in cand.unexplained):
        q_done -= function
        t_done -= function
    # "whose name includes the string X", "has X in part of the name", "contains the word X": one
    # LIKE of a slot, however it is said (the template's words only when the question says one too)
    if any(s.operator == "like" for s in tpl.slots):
        said = {t for t in cand.unexplained if t in PATTERN_WORDS}
        if said or PATTERN_WORDS & set(q_tokens):
            q_done |= said
            t_done |= {m for m in cand.missing if m in PATTERN_WORDS}
    if not q_done and not t_done:
        return None
    q_set = set(q_tokens)
    t_set = set(phrasing.tokens)
    w_q = index.weight(q_tokens)
    w_t = index.weight(t_set, q_set & t_set)
    if w_q <= 0 or w_t <= 0:
        return None
    still = [t for t in cand.unexplained if t not in q_done]
    q_cov = max(0.0, (w_q - index.weight(still)) / w_q) if still else 1.0
    t_left = max(0.0, w_t * (1.0 - cand.t_cov) - index.weight(t_done & set(cand.missing), q_set & t_set))
    t_cov = 1.0 - t_left / w_t
    missing = [m for m in cand.missing if m not in t_done]
    return max(q_cov, cand.q_cov), max(t_cov, cand.t_cov), still, missing


# -- words the SQL explains (alignment) --------------------------------------------------------------
# A paraphrase is not held against its own template for saying what the SQL does: "the *different*
# buildings" of a ``SELECT DISTINCT``, "for *each* game" of a ``GROUP BY`` game, "*sorted* by" of an
# ``ORDER BY``. Only a candidate no check spoke against is realigned: measured on the Spider train kit
# (``bench/spider.py``), the realignment answers 17 more covered questions for one wrong answer more
# (even databases +11 / 0, odd +6 / +1); explaining question words by the SQL's operators, the words
# of its columns, or "which" / "when" as well answered more, but with a wrong answer more for every
# five or six, and every candidate realigned (not only the clean ones) twice as many wrong answers.


def groups_what_is_asked(question: str, facts: TemplateFacts) -> bool:
    """Whether the SQL's GROUP BY columns are what "for each X" names (the column's or its table's
    words meet X): a GROUP BY of another thing does not explain "each"."""
    asked = [set(content_tokens(w)) for w in EACH_OR_PER_THING.findall(question)]
    if not facts.group_columns or not asked:
        return False
    return any(a & facts.group_columns for a in asked)


def sql_words(question: str, facts: TemplateFacts) -> set[str]:
    """The canonical tokens of the question that the SQL's constructs account for."""
    out: set[str] = set()
    if facts.distinct_rows:
        out.add("__distinct")
    if "__order" in facts.operators:
        out |= {"__order", "__asc", "__desc"}
    if groups_what_is_asked(question, facts):
        out.add("__each")
    return out


def realign(c: Candidate, q: Question, index: ItemIndex) -> Rewritten | None:
    """The candidate's word coverage with the question words its SQL explains (:func:`sql_words`)
    explained; None when it explains none of the words left."""
    if not c.unexplained:
        return None
    extra = sql_words(q.text, c.template.facts)
    still = [t for t in c.unexplained if t not in extra]
    if len(still) == len(c.unexplained):
        return None
    w_q = index.weight(q.words)
    if w_q <= 0:
        return None
    return max(0.0, (w_q - index.weight(still)) / w_q), c.t_cov, still, None
