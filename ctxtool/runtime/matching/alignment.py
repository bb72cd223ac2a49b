"""Alignment: the question's words that the template's SQL explains when its wording does not.

The word score (:mod:`ctxtool.runtime.matching.matcher`) counts a question word as explained when the
template's wording, a bound value or a returned column says it. People ask in other words than the
template's author wrote: "the *different* buildings" of a ``SELECT DISTINCT``, "for *each* game" of a
``GROUP BY`` game, "*sorted* by" of an ``ORDER BY``. Such a word is explained by what the SQL
computes, so a paraphrase is not held against its own template for saying what the SQL does.

Only a candidate no check spoke against is realigned: measured on the Spider train kit
(``bench/spider.py``), the realignment answers 17 more covered questions for one wrong answer more
(even databases +11 / 0, odd +6 / +1); explaining question words by the SQL's operators, the words
of its columns, or "which" / "when" as well answered more, but with a wrong answer more for every
five or six, and every candidate realigned (not only the clean ones) twice as many wrong answers.
Nothing here knows a database: the words come from the SQL's constructs.
"""

from __future__ import annotations

import re
from typing import Any

from ctxtool.english.content import content_tokens
from ctxtool.runtime.matching.rescore import raise_words, set_factor
from ctxtool.runtime.templates.facts import TemplateFacts

_EACH = re.compile(r"\b(?:each|every|per)\s+(?:of\s+the\s+)?([a-z][\w-]*)", re.I)


def groups_what_is_asked(question: str, facts: TemplateFacts) -> bool:
    """Whether the SQL's GROUP BY columns are what "for each X" names (the column's or its table's
    words meet X): a GROUP BY of another thing does not explain "each"."""
    asked = [set(content_tokens(w)) for w in _EACH.findall(question)]
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


def realign(cand: Any, q_tokens: list[str], matcher: Any, question: str) -> None:
    """Count the question words the candidate's SQL explains (:func:`sql_words`) as explained, for a
    candidate every check passed: its word score, and its evidence with it, rise as if the wording
    had said them."""
    if matcher is None or getattr(matcher, "calibrated", False) or not cand.unexplained:
        return
    if cand.checks < 0.999:
        return
    extra = sql_words(question, cand.template.facts)
    still = [t for t in cand.unexplained if t not in extra]
    if len(still) == len(cand.unexplained):
        return
    index = matcher.index
    w_q = index.weight(q_tokens)
    if w_q <= 0 or cand.evidence <= 0:
        return
    raise_words(cand, matcher, max(0.0, (w_q - index.weight(still)) / w_q), cand.t_cov, still)


_COLUMNS_REASON = "the template does not read: "
# words of a column name that only say which kind of value a named column holds ("the phone
# number", "the room number"): the word before them names the column
_KIND_WORDS = frozenset(content_tokens("number numbers code codes id ids"))


def compound_columns(question: str, words: set[str], read: set[str]) -> set[str]:
    """The kind words among ``words`` that the question says right after a word of a column the SQL
    reads ("the phone number" of a ``phone`` column)."""
    out: set[str] = set()
    tokens = [content_tokens(w) for w in re.findall(r"[A-Za-z][\w-]*", question)]
    for before, word in zip(tokens, tokens[1:], strict=False):
        if word and word[0] in words and word[0] in _KIND_WORDS and before and set(before) <= read:
            out.add(word[0])
    return out


def recolumned(question: str, c: Any, column_not_read: float) -> None:
    """Lift the matcher's factor for column words the template does not read from the kind words
    of a column it reads (:func:`compound_columns`)."""
    old = c.factors.get("columns")
    reason = next((r for r in c.reasons if r.startswith(_COLUMNS_REASON)), None)
    if not old or reason is None:
        return
    cols = {w.strip() for w in reason[len(_COLUMNS_REASON) :].split(",")}
    kept = cols - compound_columns(question, cols, c.template.column_words)
    if kept == cols:
        return
    set_factor(c, "columns", column_not_read ** len(kept))
    c.reasons = [r for r in c.reasons if r != reason]
    if kept:
        c.reasons.append(_COLUMNS_REASON + ", ".join(sorted(kept)))
