"""Value linking: find the value phrases of a question and resolve them through the set's value
searches, against the database, misspellings included.

Candidate phrases are quoted strings and n-grams (up to five words) that begin and end with a word
that is neither a stopword nor part of the templates' fixed wording (their parameterized intents),
so "accounts in Prauge" asks the value searches about "Prauge" and not about "accounts". Each
candidate is run through every value search (``$value`` bound, never pasted); results within the
distance limit compete, the closest first and the longer phrase on ties, without overlaps. Every
result keeps its stored value, column, concept type and distance, and the runner-up readings stay
as alternatives for disambiguation.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from ctxtool.english.content import content_tokens, operator_spans
from ctxtool.english.lexicon import CANONICAL_WORDS, STOPWORDS
from ctxtool.english.literals import Literal
from ctxtool.english.tokens import Token, stem, tokenize
from ctxtool.errors import CtxtoolError

MAX_NGRAM = 5
MAX_PHRASES = 16  # value searches run per phrase: bound the round trips of one question


@dataclass
class LinkedValue:
    phrase: str  # as the user wrote it
    start: int
    end: int
    value: Any  # the stored value found
    column: str  # "table.column" where it was found
    concept_type: str
    distance: float  # 0 = exact, at most 1
    search: int  # index of the value search that found it
    context: Any = None
    alternatives: list[LinkedValue] = field(default_factory=list)
    part: bool = False  # one word of a quoted two-word name, found exactly ("Anna" of "Anna Berg")

    @property
    def column_key(self) -> str:
        """``table.column`` in lower case (a schema in front, ``sales.orders.status``, dropped)."""
        return ".".join(self.column.lower().split(".")[-2:])

    def to_dict(self, alternatives: bool = True) -> dict[str, Any]:
        out = {
            "phrase": self.phrase,
            "value": self.value,
            "column": self.column,
            "concept_type": self.concept_type,
            "distance": round(self.distance, 4),
            "value_search": self.search,
        }
        if self.context not in (None, "", {}):
            out["context"] = self.context
        if alternatives and self.alternatives:
            out["alternatives"] = [a.to_dict(False) for a in self.alternatives]
        return out


def _is_content(tok: Token, vocabulary: set[str], first: bool) -> bool:
    low = tok.lower.strip("'\"")
    if not any(c.isalnum() for c in low):
        return False
    if low in STOPWORDS or low in CANONICAL_WORDS:
        return False
    if tok.text[:1].isupper() and not first:
        return True  # a capitalized word inside a sentence is a name even when templates use it
    if low.isdigit() or not content_tokens(low):  # "each", "per": words of how a question is built
        return False
    return stem(low) not in vocabulary and low not in vocabulary


def candidate_phrases(
    question: str, literals: Sequence[Literal], vocabulary: set[str]
) -> list[tuple[int, int, str]]:
    """``(start, end, text)`` of the phrases worth asking the value searches about."""
    out: list[tuple[int, int, str]] = []
    seen: set[tuple[int, int]] = set()
    for lit in literals:
        if lit.kind == "quoted":
            out.append((lit.start, lit.end, lit.text))
            seen.add((lit.start, lit.end))
    numbered = {lit.start for lit in literals if _begins_name(lit, question)}
    blocked = [(lit.start, lit.end) for lit in literals if lit.kind != "quoted" and lit.start not in numbered]
    quoted = [(lit.start, lit.end) for lit in literals if lit.kind == "quoted"]
    tokens = [
        t
        for t in tokenize(question)
        if not any(a <= t.start < b for a, b in blocked) and not any(a <= t.start < b for a, b in quoted)
    ]
    ops = operator_spans(question)  # "greater than": words of comparing, not a name to look up
    content = [
        _is_content(t, vocabulary, i == 0) and not any(a <= t.start < b for a, b in ops)
        for i, t in enumerate(tokens)
    ]
    for i, ti in enumerate(tokens):
        if not content[i] and ti.start not in numbered:
            continue
        for j in range(i, min(i + MAX_NGRAM, len(tokens))):
            tj = tokens[j]
            # no gap across a removed literal
            if j > i and any(tokens[j - 1].end <= a < tj.start for a, _ in blocked + quoted):
                break
            if not content[j]:
                continue
            span = (ti.start, tj.end)
            if span in seen:
                continue
            text = question[ti.start : tj.end]
            if len(text) < 2:
                continue
            seen.add(span)
            out.append((ti.start, tj.end, text))
    return out


def _begins_name(lit: Literal, question: str) -> bool:
    """A whole number followed by a capitalized word may begin a stored name: the number of a
    house in a street ("254 Mill Lane"). Only an exact match makes it one (see :meth:`ValueLinker.link`)."""
    return (
        lit.kind == "number"
        and lit.text.isdigit()
        and re.match(r" [A-Z][a-z]", question[lit.end : lit.end + 3]) is not None
    )


def _edits(a: str, b: str, cap: int) -> int:
    """Optimal string alignment distance of ``a`` and ``b`` (a transposition is one edit), or
    ``cap + 1`` as soon as it exceeds ``cap``."""
    if abs(len(a) - len(b)) > cap:
        return cap + 1
    before: list[int] | None = None
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if before is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], before[j - 2] + 1)
        if min(cur) > cap:
            return cap + 1
        before, prev = prev, cur
    return prev[-1]


def _typo_distance(phrase: str, value: Any) -> float:
    """The distance of a stored value a value search returned to the phrase when they differ by
    a typo or two (a missing, extra, wrong or transposed letter), else 1.0 (the same text included:
    how exact that is stays the search's word).

    Engines measure closeness their own way, and trigram distance is harsh on short words: the
    transposed "Wjocik" is 0.44 from "Wojcik", and MariaDB has no edit distance at all. Phrases of
    at least 6 characters only (one edit is then at most 0.17, as PostgreSQL's levenshtein over the
    length gives), one edit under 16 characters and two from there."""
    if not isinstance(value, str) or len(phrase) < 6:
        return 1.0
    a, b = phrase.casefold(), value.casefold()
    cap = 1 if max(len(a), len(b)) < 16 else 2
    edits = _edits(a, b, cap)
    return 1.0 if edits > cap or edits == 0 else edits / max(len(a), len(b))


def _spelling_distance(phrase: str, value: Any) -> float:
    """How unlike the stored value is to the phrase, letter by letter (1 - the matching blocks'
    share of both, case-insensitively): "Prauge" is 0.17 from "Prague", "Compute the mean price" 0.53
    from "Complete Walletectomy" although a search that compares lengths after a shared beginning
    finds them as close."""
    if not isinstance(value, str) or not value:
        return 0.0
    a, b = phrase.casefold(), value.casefold()
    if re.search(r"(?<!\w)" + re.escape(a) + r"(?!\w)", b):
        return 0.0  # words of the value ("York" of "New York City"): the search's measure decides
    return 1.0 - SequenceMatcher(None, a, b, autojunk=False).ratio()


def _proper_name(value: Any) -> bool:
    """A stored value written as a name: capitalized, no word of four letters or more in lower
    case ("Princess of the Dawn", not "Collectible card game")."""
    if not isinstance(value, str) or not value[:1].isupper():
        return False
    return not any(len(w) >= 4 and w.islower() for w in re.findall(r"[^\W\d_]+", value))


def _lookalike(question: str, start: int, phrase: str, hit: LinkedValue) -> bool:
    """Everyday words of the question only resembling a name ("taken" ~ 'Takeshi', "price of the
    tune" ~ 'Princess of the Dawn'): words in lower case, not quoted, are not a name misspelt. A
    column of names only: a category's capitalized label ('Nominated') is an everyday word."""
    quoted = question[start : start + 1] in "\"'“‘" or (start > 0 and question[start - 1] in "\"'“‘")
    named = "name" in hit.column_key.rpartition(".")[2] or "name" in hit.concept_type.lower()
    return named and not quoted and not any(c.isupper() for c in phrase) and _proper_name(hit.value)


class ValueLinker:
    """Links question phrases to stored values with the set's value searches through a connector."""

    def __init__(
        self,
        value_searches: Sequence[dict[str, Any]],
        connector: Any,
        *,
        vocabulary: Iterable[str] = (),
        max_distance: float = 0.35,
        cache_size: int = 4096,
    ) -> None:
        self.value_searches = [vs for vs in value_searches if isinstance(vs, dict) and vs.get("query")]
        self.connector = connector
        self.vocabulary = set(vocabulary)
        self.max_distance = max_distance
        self._local = threading.local()  # warnings of the question being linked, per thread
        self._disabled: set[int] = set()
        self._cache: dict[tuple[int, str], list[LinkedValue]] = {}
        self._cache_size = cache_size

    @property
    def warnings(self) -> list[str]:
        """This thread's warnings since the caller last cleared them (servers link on many threads)."""
        if not hasattr(self._local, "warnings"):
            self._local.warnings = []
        return self._local.warnings

    def _search(self, index: int, phrase: str) -> list[LinkedValue]:
        key = (index, phrase.lower())
        cached = self._cache.get(key)  # one lookup: another thread may clear the cache meanwhile
        if cached is not None:
            return cached
        vs = self.value_searches[index]
        try:
            result = self.connector.query(vs["query"], {"value": phrase})  # the session row cap
        except CtxtoolError as exc:
            if getattr(exc, "transient", False):  # no database session just now: not the search's fault
                raise
            self._disabled.add(index)
            self.warnings.append(
                f"value search #{index} ({vs.get('concept_type', '?')}) failed and is skipped: {exc}"
            )
            return []
        cols = [c.lower() for c in result.columns]
        found: list[LinkedValue] = []
        for row in result.rows[:25]:
            rec = dict(zip(cols, row, strict=False))
            try:
                distance = float(rec.get("distance") if rec.get("distance") is not None else 1.0)
            except (TypeError, ValueError):
                distance = 1.0
            distance = min(max(distance, 0.0), 1.0)
            if distance > 0:  # a search's own measure may see only lengths: the spelling must agree
                distance = max(distance, _spelling_distance(phrase, rec.get("value")))
            distance = min(distance, _typo_distance(phrase, rec.get("value")))
            context = rec.get("context")
            if isinstance(context, str) and context.strip().startswith("{"):
                try:
                    context = json.loads(context)
                except ValueError:
                    pass
            found.append(
                LinkedValue(
                    phrase=phrase,
                    start=0,
                    end=0,
                    value=rec.get("value"),
                    column=str(rec.get("columns") or ""),
                    concept_type=str(rec.get("concept_type") or vs.get("concept_type") or ""),
                    distance=distance,
                    search=index,
                    context=context,
                )
            )
        if len(self._cache) >= self._cache_size:
            self._cache.clear()
        self._cache[key] = found
        return found

    def link(self, question: str, literals: Sequence[Literal]) -> list[LinkedValue]:
        """The linked values of ``question``, non-overlapping, in question order."""
        if not self.value_searches or self.connector is None:
            return []
        hits: list[LinkedValue] = []
        exact: list[tuple[int, int]] = []  # spans an exact match already explains: skip their parts
        phrases = candidate_phrases(question, literals, self.vocabulary)
        numbered = {lit.start for lit in literals if _begins_name(lit, question)}
        if len(phrases) > MAX_PHRASES:  # quoted strings and capitalized words first, then the longest
            phrases.sort(
                key=lambda p: (question[p[0] : p[0] + 1] not in "\"'“‘", not p[2][:1].isupper(), p[0] - p[1])
            )
            phrases = phrases[:MAX_PHRASES]
        phrases.sort(key=lambda p: p[0] - p[1])  # longest first: an exact match explains its parts
        for start, end, text in phrases:
            if any(a <= start and end <= b for a, b in exact):
                continue
            for i in range(len(self.value_searches)):
                if i in self._disabled:
                    continue
                for hit in self._search(i, text):
                    if hit.distance > 0 and (_lookalike(question, start, text, hit) or start in numbered):
                        continue
                    if hit.distance <= self.max_distance and hit.value is not None:
                        if hit.distance == 0:
                            exact.append((start, end))
                        hits.append(
                            LinkedValue(
                                hit.phrase,
                                start,
                                end,
                                hit.value,
                                hit.column,
                                hit.concept_type,
                                hit.distance,
                                hit.search,
                                hit.context,
                            )
                        )
        # closest first; on ties the longer phrase; then value-search order
        hits.sort(key=lambda h: (round(h.distance, 3), -(h.end - h.start), h.search))
        chosen: list[LinkedValue] = []
        for h in hits:
            if any(not (h.end <= c.start or h.start >= c.end) for c in chosen):
                continue
            same_span = [
                o
                for o in hits
                if o.start == h.start
                and o.end == h.end
                and o is not h
                and (o.value, o.column) != (h.value, h.column)
            ]
            uniq: dict[tuple[str, str], LinkedValue] = {}
            for o in same_span:
                uniq.setdefault((str(o.value), o.column), o)
            h.alternatives = list(uniq.values())[:8]
            h = _not_its_own_author(question, h)
            if h is not None:
                chosen.append(h)
        chosen.extend(self._name_parts(question, literals, chosen))
        chosen.sort(key=lambda h: (h.start, h.part))
        return chosen

    def _name_parts(
        self, question: str, literals: Sequence[Literal], chosen: list[LinkedValue]
    ) -> list[LinkedValue]:
        """The words of a quoted two-word name that no search found whole exactly, each found exactly
        ("OTHA MOYER": a first name and a last name), with every column that holds it: which table
        the person is in tells the templates apart. Both words or neither."""
        out: list[LinkedValue] = []
        for lit in literals:
            words = list(re.finditer(r"\S+", lit.text)) if lit.kind == "quoted" else []
            base = question.find(lit.text, lit.start)
            if len(words) != 2 or base < 0:
                continue
            if any(c.distance == 0 and not (c.end <= lit.start or c.start >= lit.end) for c in chosen):
                continue  # found whole: its words are not asked about
            parts = []
            for w in words:
                exact = [
                    h
                    for i in range(len(self.value_searches))
                    if i not in self._disabled
                    for h in self._search(i, w.group())
                    if h.distance == 0 and h.value is not None
                ]
                if not exact:
                    break
                a = base + w.start()
                first, *rest = exact
                part = LinkedValue(
                    w.group(), a, a + len(w.group()), first.value, first.column, first.concept_type, 0.0,
                    first.search, first.context, part=True,
                )  # fmt: skip
                part.alternatives = [
                    LinkedValue(
                        w.group(), a, part.end, h.value, h.column, h.concept_type, 0.0, h.search, h.context
                    )
                    for h in rest
                ][:8]
                parts.append(part)
            if len(parts) == 2:
                out.extend(parts)
        return out


_BY_BEFORE = re.compile(r"([A-Za-z]+)\s+by\s+(?:the\s+)?$", re.I)


def _not_its_own_author(question: str, h: LinkedValue) -> LinkedValue | None:
    """``h``, or its reading on another table when the question says "<things> by <value>" and the
    value was found among those very things ("the albums by Iron Maiden" names whoever made the
    albums, not an album titled so); None when no other table holds it."""
    m = _BY_BEFORE.search(question[: h.start])
    if m is None:
        return h
    noun = set(content_tokens(m.group(1)))
    own = set(content_tokens(h.column_key.partition(".")[0].replace("_", " ")))
    if not noun or not noun & own:
        return h
    other = [
        a
        for a in h.alternatives
        if not set(content_tokens(a.column_key.partition(".")[0].replace("_", " "))) & noun
    ]
    if not other:
        return None
    best = other[0]
    best.alternatives = [a for a in h.alternatives if a is not best]
    return best


def descriptor_tokens(link: LinkedValue) -> set[str]:
    """Words a linked value stands for: its concept type and column ("City Name", city.name)."""
    words = set(content_tokens(link.concept_type))
    table, _, column = link.column_key.partition(".")
    words |= set(content_tokens(table.replace("_", " ")))
    if column and not (len(column) <= 3 and any(c.isdigit() for c in column)):
        words |= set(content_tokens(column.replace("_", " ")))
    return words
