"""What an English sentence says, read from its words: what it counts ("how many X") and the head
noun of X, what it asks for ("the names and ages of ..."), whose names or ids, the column it sorts
by, whether it asks for a count or only sorts by one, its verbs and the instruction a sentence
begins with, a negation in a contracted form, and phrases that say nothing of their own ("the
amount of", "took place"). A question's analyses are made once per question
(:class:`ctxtool.runtime.question.Question`), a wording's once per template.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cached_property

from ctxtool.english.content import content_tokens
from ctxtool.english.lexicon import (
    AMOUNT_OF,
    ASK_END,
    ASK_HEAD,
    ASKED_FOR,
    ASKING_WORDS,
    ASKS_COUNT,
    COUNT_OF,
    COUNT_PHRASE,
    COUNT_WORDS,
    COUNTED_PHRASE,
    FULL_NAME,
    ITEM_LEAD,
    ITEM_SEPARATOR,
    KIND_ASKED,
    NAME_OF,
    NOT_A_THING,
    ORDER_KEY,
    ORDER_WORDS,
    PHRASE_END,
    PLEASE,
    TAKE_PLACE,
    VERB_FOLLOWS,
    WHO_HAS_THE,
)
from ctxtool.english.tokens import is_verb, lemma_forms, tokenize


def words_meet(said: set[str], words: set[str]) -> bool:
    """A word of ``said`` is one of ``words``, or one is the other's abbreviation (mem / member)."""
    for a in said:
        for b in words:
            if a == b or (min(len(a), len(b)) >= 3 and (a.startswith(b) or b.startswith(a))):
                return True
    return False


def counted_words(text: str) -> set[str] | None:
    """What "how many X" / "the number of distinct X" counts: the content words of X (None when the
    text counts nothing)."""
    m = COUNT_PHRASE.search(text)
    if m is None:
        return None
    words = {t for g in m.groups() if g for t in content_tokens(g) if not t.startswith("__")}
    return words or None


def counted_head(text: str) -> str | None:
    """The head noun of what "how many X" counts: the last word before a verb or preposition
    ("how many project members were ...": member; "how many widgets have parts": widget)."""
    m = COUNTED_PHRASE.search(text)
    if m is None:
        return None
    phrase: list[str] = []
    for w in m.group(1).split():
        if w.lower() in PHRASE_END:
            break
        phrase.append(w)
    words = [t for w in phrase for t in content_tokens(w) if not t.startswith("__")]
    return words[-1] if words else None


def asked_for(text: str) -> tuple[str, set[str]] | None:
    """What a text asks for: ("name" | "id", the words of the thing) of "the names of X" (up to
    three words after "of") or "the X name of ..." (the word before)."""
    m = ASKED_FOR.search(text)
    if m is None:
        return None
    before = m.group(1)
    words = before if before and before.lower() not in NOT_A_THING else m.group(3)
    thing = {t for t in content_tokens(words) if not t.startswith("__")}
    return (KIND_ASKED[m.group(2).lower()], thing) if thing else None


_SENTENCE = re.compile(r"[^.?!;]+")


def asked_items(question: str) -> list[str]:
    """The things a question asks for, as its first words list them ("What are the names, ages and
    cities of ..." -> names, ages, cities; "Please list the city name and its GDP." -> city name,
    GDP), in the sentence that asks most of them; "the full name" is two (a first and a last)."""
    best: list[str] = []
    for sentence in _SENTENCE.findall(question):
        head = ASK_HEAD.match(PLEASE.sub("", sentence))
        if head is None:
            continue
        rest = PLEASE.sub("", sentence)[head.end() :]
        end = ASK_END.search(rest)
        span = (rest[: end.start()] if end else rest).strip()
        items = [ITEM_LEAD.sub("", i.strip()) for i in ITEM_SEPARATOR.split(span)]
        items = [i for i in items if re.match(r"[a-z]\w", i, re.I)]
        if len(items) == 1 and FULL_NAME.search(items[0]):
            items = [items[0], items[0]]
        if len(items) > len(best):
            best = items
    return best


def counted_measures(question: str, columns: set[str]) -> bool:
    """Every "how many X" / "the number of X" of the question names a column the SQL reads
    (``columns``: their content words; "how many hours do the players train", "the average number
    of stars", "ordered by number of sales"): X is a measure the rows hold, not a thing counted."""
    found = COUNT_OF.findall(question)
    if not found:
        return False
    return all(set(content_tokens(w)) and set(content_tokens(w)) <= columns for w in found)


def order_key_words(question: str) -> frozenset[str]:
    """The content words of the column a question sorts by ("ordered by last name": last, name)."""
    m = ORDER_KEY.search(question)
    return frozenset(content_tokens(m.group(1))) if m else frozenset()


_EXTREME = frozenset({"__max", "__min", "__superlative"})


def asks_who_has_the_most(question: str) -> bool:
    """ "... with the most members", "... has the smallest GDP": an extreme word right after
    "with the" / "has the" asks for the one that has it."""
    return any(_EXTREME & set(content_tokens(m.group(1))) for m in WHO_HAS_THE.finditer(question))


def asks_count(question: str) -> bool:
    """The question wants a number of things back ("how many ...", "count the ...")."""
    return bool(ASKS_COUNT.search(question))


def count_only_to_order(question: str) -> bool:
    """Every count word of the question comes after a word of ordering, in one sentence ("the
    statuses, ordered by the number of cities"): the count sorts the answer, it is not asked as a
    column ("... Return each status with its count" asks it)."""
    sentences = [s for s in re.split(r"(?<=[.?!;])\s+", question.strip()) if s]
    if len(sentences) != 1:
        return False
    order = ORDER_WORDS.search(question)
    if order is None:
        return False
    counts = [m.start() for m in COUNT_WORDS.finditer(question)]
    return bool(counts) and min(counts) > order.start()


def joined_twice(question: str, op: str) -> bool:
    """Two words of the aggregate ``op`` joined by "and" ("the average distance and average
    price"): two values of that kind asked ("total amount claimed summed" asks one)."""
    words = re.findall(r"[A-Za-z]+", question)
    marks = [i for i, w in enumerate(words) if op in content_tokens(w)]
    return any("and" in (w.lower() for w in words[a + 1 : b]) for a, b in zip(marks, marks[1:], strict=False))


def name_of(question: str) -> set[str]:
    """The things whose name the question asks for ("the name of the building" -> building)."""
    out: set[str] = set()
    for m in NAME_OF.finditer(question):
        out.update(content_tokens(m.group(1)))
    return out


def words_before(question: str, spans: Iterable[tuple[int, int]]) -> set[str]:
    """The content token of the word right before each span of ``question`` (a value's place)."""
    out: set[str] = set()
    for start, _ in spans:
        last = re.findall(r"[A-Za-z]+", question[:start])[-1:]
        out.update(content_tokens(last[0]) if last else [])
    return out


def empty_phrases(text: str) -> frozenset[str]:
    """The content tokens of the phrases of ``text`` that say nothing of their own: "the amount of
    money" is the money, "took place" happened."""
    out: set[str] = set()
    if AMOUNT_OF.search(text):
        out.update(content_tokens("amount"))
    if TAKE_PLACE.search(text):
        out.update(content_tokens("place"))
    return frozenset(out)


def surface(text: str) -> dict[str, str]:
    """Content token -> the word (lower case) it came from, for a wording or a question (remembered:
    every candidate of a question reads the question's; never changed by a caller)."""
    out: dict[str, str] = {}
    for tok in tokenize(text):
        for t in content_tokens(tok.text):
            if not t.startswith("__"):
                out.setdefault(t, tok.lower.strip("'\""))
    return out


def verb_in(word: str, text: str) -> bool:
    """Whether ``word`` is a verb in ``text``: English reads it only as one (:func:`is_verb`), or it
    follows a relative pronoun ("the customers who *hold* an account", "the ships that *sail*")."""
    if is_verb(word):
        return True
    return (
        "VERB" in lemma_forms(word)
        and re.search(rf"\b(?:who|that|which)\s+{re.escape(word)}{VERB_FOLLOWS}", text, re.I) is not None
    )


_SENTENCES = re.compile(r"(?:^|[.?!;]\s+)([A-Za-z]+)")


def imperatives(text: str) -> frozenset[str]:
    """The content tokens of the verbs the text's sentences begin with ("Report", "Compute")."""
    out: set[str] = set()
    for word in _SENTENCES.findall(text):
        w = word.lower()
        if "VERB" in lemma_forms(w) and w not in ASKING_WORDS:
            out.update(content_tokens(w))
    return frozenset(out)


class Reading:
    """What a sentence's ``text`` says, each analysis made once per object (a question, a template's
    wording) and kept: the classes that hold a sentence inherit it."""

    text: str

    @cached_property
    def counted(self) -> set[str] | None:
        """What "how many X" / "the number of X" counts (X's words), or None."""
        return counted_words(self.text)

    @cached_property
    def counted_head(self) -> str | None:
        """The head noun of what it counts ("how many project members were ...": member)."""
        return counted_head(self.text)

    @cached_property
    def asked(self) -> tuple[str, set[str]] | None:
        """("name" | "id", the thing's words) of "the names of X" / "the X ids"."""
        return asked_for(self.text)

    @cached_property
    def asked_items(self) -> list[str]:
        """The things it asks for, as its first words list them ("the names and ages of ...")."""
        return asked_items(self.text)

    @cached_property
    def surface(self) -> dict[str, str]:
        """Content token -> the word (lower case) it came from."""
        return surface(self.text)

    @cached_property
    def imperatives(self) -> frozenset[str]:
        """The verbs its sentences begin with ("Report", "Compute"): instructions, not content."""
        return imperatives(self.text)

    @cached_property
    def empty_phrases(self) -> frozenset[str]:
        """The words of its phrases that say nothing of their own ("the amount of", "took place")."""
        return empty_phrases(self.text)
