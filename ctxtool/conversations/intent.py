"""Classifying a follow-up by what it asks of the previous query (breakdown, filter, topn, sort,
result), and telling a question that leans on the previous answer ("of these", "them")."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twenty": 20,
}

# ---------------------------------------------------------------------------------------------------
# classification
# ---------------------------------------------------------------------------------------------------

_TOPN = re.compile(
    r"\b(?P<dir>top|first|best|bottom|worst|last|highest|lowest|largest|smallest)\s+(?P<n>\d+|"
    + "|".join(_NUMBER_WORDS)
    + r")\b(?:\s+(?P<noun>[a-z]+))?"
)
# "the three biggest", "5 largest", "the 2 lowest"
_TOPN_AFTER = re.compile(
    r"\b(?:the\s+)?(?P<n>\d+|"
    + "|".join(_NUMBER_WORDS)
    + r")\s+(?P<dir>biggest|largest|highest|best|most|top|greatest|smallest|lowest|fewest|least|worst)\b"
)
_NOT_NOUNS = frozenset(
    "with and by of in the rows row results result ones entries items values only please including include "
    "plus ranked rank sorted ordered".split()
)
_SORT = re.compile(
    r"\b(?:sort|sorted|order|ordered|arrange|arranged|rank them|list them)\s+(?:it\s+|them\s+|the\s+result\s+|the\s+rows\s+|the\s+list\s+)?"
    r"(?:by|on)\s+(?P<key>[a-z0-9 ]+?)(?:\s+(?P<dir>asc|ascending|desc|descending|alphabetically))?\s*(?:[?.!,]|$)"
)
_SORT_DIR = re.compile(
    r"\b(?P<w>ascending|descending|alphabetical(?:ly)?|reverse (?:the )?order|"
    r"(?:lowest|smallest|fewest|least) first|(?:highest|largest|biggest|most) first)\b"
)
_BREAKDOWN = re.compile(
    r"(?:\bbreak(?:\s+(?:it|that|this|them))?\s+(?:out|down)\b.*?|\bsplit\b.*?|\bgroup(?:ed)?\b.*?|\b)"
    r"(?:\bby|\bper|\bfor each|\bfor every|\bacross|\bbroken down by)\s+(?:their\s+|the\s+|each\s+|its\s+)?"
    r"(?P<dim>[a-z][a-z ]*?)\s*(?=$|[?.!,;]|\band\b|\bwith\b|\binclud|\bkeep|\bsorted|\bordered|\binstead)"
)
_RESULT = re.compile(
    r"\b(?:which (?:(?:one|ones) )?(?:of|among) (?:these|those|them)|among (?:these|those|them)|which one|"
    r"how many of (?:these|those|them)|(?:most|highest|largest|biggest|lowest|least|fewest|smallest|top|best|worst) "
    r"(?:\w+ )?(?:of|among) (?:these|those|them)|"
    r"how many (?:are there|rows|of them|results|were there|is that|in (?:the|that) (?:list|result))|"
    r"how many \w+ (?:are|were) (?:there )?in (?:the|that|this) (?:result|list|answer)|"
    r"how many \w+ (?:is that|is this|are those|are these|are they|were they)|"
    r"(?:the )?(?:total|sum|average|mean) of (?:these|those|them|that|the result)|"
    r"which \w+ (?:has|had|is|was|have) the (?:most|highest|largest|biggest|lowest|least|fewest|smallest)|"
    r"(?:previous|last) (?:result|answer))\b"
)
_MOST_COMMON = re.compile(
    r"\b(?:what|which) (?P<dim>[a-z][a-z ]*?) (?:is|are|was|were) (?:the )?(?P<dir>most|least) "
    r"(?:common|frequent|popular|usual)\b|\b(?:the )?(?P<dir2>most|least) (?:common|frequent) (?P<dim2>[a-z][a-z ]*?)\s*[?.!]?\s*$"
)
# "which of those ordered something in 1998?": the previous rows, restricted (not a pick) unless
# what follows is a superlative ("which of these has the most?")
_WHICH_OF = re.compile(r"\b(?:which|what) (?:(?:one|ones) )?(?:of|among) (?:these|those|them)\b(?P<rest>.*)$")
_SUPERLATIVE = re.compile(
    r"\b(?:most|highest|largest|biggest|lowest|least|fewest|smallest|top|best|worst|greatest|maximum|minimum)\b"
)
_COUNT_OF_THEM = re.compile(
    r"\bhow many (?:of (?:them|these|those)|\w+ of (?:them|these|those)) (?:are|is|were|was|have|had)\s+(?P<rest>.+)$"
)
_MEASURE_WORDS = frozenset("number count total sum amount average avg size value values".split())
_FILTER_LEAD = re.compile(
    r"^\s*(?:and\s+)?(?:what|how)\s+about\s+|^\s*(?:and\s+)?(?:only|just)\s+|^\s*(?:and\s+)?(?:same|the same)\s+(?:for|in)\s+|"
    r"^\s*(?:and\s+)?(?:now\s+)?(?:for|in)\s+|^\s*and\s+|\binstead\b|^\s*now\s+"
)
_ONLY = re.compile(r"\b(?:only|just|also|as well|in addition|additionally|restricted to|limited to)\b")


@dataclass
class Intent:
    """What a follow-up asks for; several parts may combine ("top 5 districts by count, with rank")."""

    kinds: list[str] = field(default_factory=list)
    dimension: str | None = None
    add_dimension: bool = False  # "and also by X" keeps the existing grouping
    top_n: int | None = None
    topn_dimension: str | None = None  # the noun after "top N"
    ascending: bool = False
    rank: bool = False
    sort_key: str | None = None
    sort_dir: str | None = None  # "asc" | "desc" | "reverse"
    result_op: str | None = None  # "count" | "max" | "min" | "sum" | "avg"
    filter_text: str | None = None
    add_filter: bool = False
    restrict: bool = False  # "which of those ...": only the previous rows, narrowed


def _cut(text: str, m: re.Match[str]) -> str:
    return text[: m.start()] + " " + text[m.end() :]


_FILTER_LEAD_I = re.compile(_FILTER_LEAD.pattern, re.I)


def classify(question: str) -> Intent:
    """What the follow-up asks of the previous query (an empty ``kinds`` means: a new question)."""
    original = " " + re.sub(r"\s+", " ", question.replace("’", "'")).strip() + " "
    q = original.lower()
    if len(q) != len(original):  # a character whose lower case is longer: keep the case-folded text
        original = q
    intent = Intent()
    rest = q
    rest_o = original
    m = _MOST_COMMON.search(q)
    if m:
        # "What age group is most common": a breakdown by that, keeping the top (or bottom) one
        intent.kinds += ["breakdown", "topn"]
        intent.dimension = (m.group("dim") or m.group("dim2")).strip()
        intent.top_n = 1
        intent.ascending = (m.group("dir") or m.group("dir2")) == "least"
        return intent
    m = _COUNT_OF_THEM.search(q)
    if m and m.group("rest").strip(" ?.!"):
        # "how many of them are gold?": the previous rows, narrowed by a value
        intent.kinds.append("filter")
        intent.filter_text = original[m.start("rest") : m.end("rest")].strip(" ?.!,")
        intent.add_filter = True
        intent.restrict = True
        return intent
    m = _WHICH_OF.search(q)
    if m and m.group("rest").strip(" ?.!") and not _SUPERLATIVE.search(m.group("rest")):
        # "which of those haven't been discontinued?": the previous rows, narrowed
        intent.kinds.append("filter")
        intent.filter_text = original[m.start("rest") : m.end("rest")].strip(" ?.!,")
        intent.add_filter = True
        intent.restrict = True
        return intent
    m = _RESULT.search(q)
    if m:
        intent.kinds.append("result")
        if re.search(r"\bhow many\b", q):
            intent.result_op = "count"
        elif re.search(r"\b(?:total|sum)\b", q):
            intent.result_op = "sum"
        elif re.search(r"\b(?:average|mean)\b", q):
            intent.result_op = "avg"
        elif re.search(r"\b(?:least|lowest|fewest|smallest|minimum|worst)\b", q):
            intent.result_op = "min"
        else:
            intent.result_op = "max"
        return intent
    m = _TOPN.search(q) or _TOPN_AFTER.search(q)
    if m:
        intent.kinds.append("topn")
        n = m.group("n")
        intent.top_n = int(n) if n.isdigit() else _NUMBER_WORDS[n]
        intent.ascending = m.group("dir") in ("bottom", "worst", "lowest", "smallest", "fewest", "least")
        intent.rank = bool(re.search(r"\brank(?:ed|ing)?\b", q)) and not re.search(r"\brank(?:ed)? by\b", q)
        noun = m.groupdict().get("noun")
        if noun and noun not in _NOT_NOUNS:
            intent.topn_dimension = noun  # "top 5 districts": maybe a grouping to switch to
        rest = q[: m.start()] + " " + q[m.end() :]
        rest_o = original[: m.start()] + " " + original[m.end() :]
    elif re.search(r"\b(?:include|add|with|show)\b.*\brank(?:ing)?\b", q):
        intent.kinds.append("rank")
        intent.rank = True
    m = _SORT.search(rest)
    if m:
        intent.kinds.append("sort")
        intent.sort_key = m.group("key").strip()
        d = m.group("dir") or ""
        intent.sort_dir = "desc" if d.startswith("desc") else ("asc" if d else None)
        rest, rest_o = _cut(rest, m), _cut(rest_o, m)
    else:
        m = _SORT_DIR.search(rest)
        if m:
            w = m.group("w")
            intent.kinds.append("sort")
            if w.startswith("reverse"):
                intent.sort_dir = "reverse"
            elif w.startswith(("ascending", "alphabetical", "lowest", "smallest", "fewest", "least")):
                intent.sort_dir = "asc"
                if w.startswith("alphabetical"):
                    intent.sort_key = "__label__"
            else:
                intent.sort_dir = "desc"
            rest, rest_o = _cut(rest, m), _cut(rest_o, m)
    m = _BREAKDOWN.search(rest)
    if m and "topn" in intent.kinds:
        rest, rest_o = _cut(rest, m), _cut(rest_o, m)  # "top 5 ... by their purchases": the ranking measure
        m = None
    if m and m.group("dim").strip():
        dim = m.group("dim").strip()
        intent.kinds.append("breakdown")
        intent.dimension = dim
        intent.add_dimension = bool(re.search(r"\b(?:also|additionally|and then|as well)\b", q))
        rest, rest_o = _cut(rest, m), _cut(rest_o, m)
    if not intent.kinds or _FILTER_LEAD.search(q):
        text = _FILTER_LEAD_I.sub(" ", rest_o).strip(" ?.!,")
        if text and (_FILTER_LEAD.search(q) or not intent.kinds):
            if not intent.kinds and not _FILTER_LEAD.search(q):
                return intent  # no follow-up marker at all: a new question
            intent.kinds.append("filter")
            intent.filter_text = text
            intent.add_filter = bool(_ONLY.search(q)) and not re.search(
                r"\b(?:what|how) about\b|\binstead\b", q
            )
    return intent


_LEANS = re.compile(
    r"^\s*(?:and|but|also|now|then|so|what about|how about|only|just|keep|sort|order|arrange|break|split|group|"
    r"by|per|for each|for every|of (?:these|those|them)|which of|among|same|instead|include|add|rank|top|bottom|"
    r"lowest|highest|largest|smallest|the (?:first|top|bottom)|give me (?:just|only) the)\b"
    r"|\b(?:them|those|these|that one|the result|the list|as well|instead)\b",
    re.I,
)


def leans_on_previous(question: str) -> bool:
    """Whether the wording itself leans on the previous answer (an opener such as "and", "what about",
    "keep", "break out", or a reference such as "them", "those", "the result")."""
    return bool(_LEANS.search(question))
