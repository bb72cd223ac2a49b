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
from ctxtool.english.tokens import is_verb, lemma_forms, tokenize

# the words that say a count: "how many", "the number of", "count the total number of"
_COUNT_LEAD = r"\b(?:how\s+many|(?:total\s+)?number\s+of|count\s+of|count(?:\s+the)?(?:\s+total)?(?:\s+number\s+of)?)\s+"
_COUNT_PHRASE = re.compile(
    _COUNT_LEAD
    + r"(?:the\s+|all\s+(?:the\s+)?)?(?:different\s+|distinct\s+|unique\s+|kinds?\s+of\s+|types?\s+of\s+)?"
    r"([a-z][\w-]*)(?:\s+([a-z][\w-]*))?",
    re.I,
)


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
    m = _COUNT_PHRASE.search(text)
    if m is None:
        return None
    words = {t for g in m.groups() if g for t in content_tokens(g) if not t.startswith("__")}
    return words or None


_COUNTED_PHRASE = re.compile(_COUNT_LEAD + r"((?:[A-Za-z][\w-]*\s*){1,6})", re.I)
# words that end the noun phrase a count is of ("how many widgets *have* parts")
_PHRASE_END = frozenset(
    "are is was were have has had do does did in of for with without that who which whose where when "
    "there by on at from to into under over after before since during between among about and or but "
    "than as per each not no any".split()
)


def counted_head(text: str) -> str | None:
    """The head noun of what "how many X" counts: the last word before a verb or preposition
    ("how many project members were ...": member; "how many widgets have parts": widget)."""
    m = _COUNTED_PHRASE.search(text)
    if m is None:
        return None
    phrase: list[str] = []
    for w in m.group(1).split():
        if w.lower() in _PHRASE_END:
            break
        phrase.append(w)
    words = [t for w in phrase for t in content_tokens(w) if not t.startswith("__")]
    return words[-1] if words else None


_ASKED = re.compile(
    r"(?:\b([a-z]+)\s+)?\b(names?|ids?|titles?)\s+(?:of|for)\s+"
    r"(?:the\s+|all\s+(?:the\s+)?|each\s+|every\s+|any\s+)?([a-z][\w-]*(?:\s+[a-z][\w-]*){0,2})",
    re.I,
)
_NOT_A_THING = frozenset(
    {"the", "all", "first", "last", "full", "their", "its", "his", "her", "and", "distinct"}
)
_KIND = {"name": "name", "names": "name", "title": "name", "titles": "name", "id": "id", "ids": "id"}


def asked_for(text: str) -> tuple[str, set[str]] | None:
    """What a text asks for: ("name" | "id", the words of the thing) of "the names of X" (up to
    three words after "of") or "the X name of ..." (the word before)."""
    m = _ASKED.search(text)
    if m is None:
        return None
    before = m.group(1)
    words = before if before and before.lower() not in _NOT_A_THING else m.group(3)
    thing = {t for t in content_tokens(words) if not t.startswith("__")}
    return (_KIND[m.group(2).lower()], thing) if thing else None


_SENTENCE = re.compile(r"[^.?!;]+")
_PLEASE = re.compile(r"^\s*(?:please|also|and|then|now)\s+", re.I)
_ITEM_SEP = re.compile(r"\s*,\s*(?:and\s+|as\s+well\s+as\s+)?|\s+(?:and|as\s+well\s+as)\s+", re.I)
_ITEM_LEAD = re.compile(r"^(?:their|its|his|her|the|also|all|each|every)\s+", re.I)

_FULL_NAME = re.compile(r"\bfull\s+names?\b", re.I)


def asked_items(question: str) -> list[str]:
    """The things a question asks for, as its first words list them ("What are the names, ages and
    cities of ..." -> names, ages, cities; "Please list the city name and its GDP." -> city name,
    GDP), in the sentence that asks most of them; "the full name" is two (a first and a last)."""
    best: list[str] = []
    for sentence in _SENTENCE.findall(question):
        head = _ASK_HEAD.match(_PLEASE.sub("", sentence))
        if head is None:
            continue
        rest = _PLEASE.sub("", sentence)[head.end() :]
        end = _ASK_END.search(rest)
        span = (rest[: end.start()] if end else rest).strip()
        items = [_ITEM_LEAD.sub("", i.strip()) for i in _ITEM_SEP.split(span)]
        items = [i for i in items if re.match(r"[a-z]\w", i, re.I)]
        if len(items) == 1 and _FULL_NAME.search(items[0]):
            items = [items[0], items[0]]
        if len(items) > len(best):
            best = items
    return best


# what a question asks for comes first ("What are the X and their Y ..."), before the words that
# say of which rows (a relative word, a preposition, a verb)
_ASK_HEAD = re.compile(
    r"^\s*(?:what\s+(?:are|is|were|was)|which|show|list|find|give(?:\s+me)?|return|tell\s+me|report|display"
    r"|get)\b\s*(?:the\s+|all\s+(?:the\s+)?|me\s+)?",
    re.I,
)
_ASK_END = re.compile(
    r"\b(?:who|that|which|whose|where|whom|when|with|in|from|for|by|of|on|at|than|to|under|over|if|are|is"
    r"|was|were|has|have|do|does|did|ordered|sorted|order|sort)\b",
    re.I,
)

_COUNT_OF = re.compile(r"\b(?:how\s+many|numbers?\s+of)\s+(?:the\s+)?([a-z]+)", re.I)


def counted_measures(question: str, columns: set[str]) -> bool:
    """Every "how many X" / "the number of X" of the question names a column the SQL reads
    (``columns``: their content words; "how many hours do the players train", "the average number
    of stars", "ordered by number of sales"): X is a measure the rows hold, not a thing counted."""
    found = _COUNT_OF.findall(question)
    if not found:
        return False
    return all(set(content_tokens(w)) and set(content_tokens(w)) <= columns for w in found)


CONTRACTED_NOT = re.compile(
    r"\b(?:do|does|did|is|are|was|were|has|have|had|ca|could|would|should|wo|must|need)n[’']?t\b|\bcannot\b",
    re.I,
)

# "ordered by their last name", "in order of height": the column the question sorts by
_ORDER_KEY = re.compile(
    r"\b(?:order(?:ed)?|sort(?:ed)?|rank(?:ed)?|arranged)\s+(?:by|of|on)\s+(?:the\s+|their\s+|its\s+)?"
    r"([a-z]+(?:\s+[a-z]+){0,2}?)(?=\s*(?:[,.;:?!]|$|\b(?:and|in|from|with|then|for)\b))",
    re.I,
)


def order_key_words(question: str) -> frozenset[str]:
    """The content words of the column a question sorts by ("ordered by last name": last, name)."""
    m = _ORDER_KEY.search(question)
    return frozenset(content_tokens(m.group(1))) if m else frozenset()


_WHO_HAS_THE = re.compile(r"\b(?:with|has|have|had|having|gets?|got)\s+the\s+(\w+(?:\s+\w+)?)", re.I)
_EXTREME = frozenset({"__max", "__min", "__superlative"})


def asks_who_has_the_most(question: str) -> bool:
    """ "... with the most members", "... has the smallest GDP": an extreme word right after
    "with the" / "has the" asks for the one that has it."""
    return any(_EXTREME & set(content_tokens(m.group(1))) for m in _WHO_HAS_THE.finditer(question))


# "how many ...", "Count the ...", "What is the number of ...": the question wants a count back
_ASKS_COUNT = re.compile(
    r"\bhow\s+many\b|^\W*count\b|^\W*(?:what\s+(?:is|are|was)|what's|find|give|show|return|tell\s+me|list)"
    r"\s+the\s+(?:total\s+)?(?:number|count)\s+of\b",
    re.I,
)
_COUNT_WORDS = re.compile(r"\bhow\s+many\b|\bcount\b|\bnumbers?\s+of\b|\bnumbers?\b", re.I)
_ORDER_WORDS = re.compile(r"\b(?:order(?:ed)?|sort(?:ed)?|rank(?:ed)?)\s+(?:by|of|on)\b|\border\s+of\b", re.I)


def asks_count(question: str) -> bool:
    """The question wants a number of things back ("how many ...", "count the ...")."""
    return bool(_ASKS_COUNT.search(question))


def count_only_to_order(question: str) -> bool:
    """Every count word of the question comes after a word of ordering, in one sentence ("the
    statuses, ordered by the number of cities"): the count sorts the answer, it is not asked as a
    column ("... Return each status with its count" asks it)."""
    sentences = [s for s in re.split(r"(?<=[.?!;])\s+", question.strip()) if s]
    if len(sentences) != 1:
        return False
    order = _ORDER_WORDS.search(question)
    if order is None:
        return False
    counts = [m.start() for m in _COUNT_WORDS.finditer(question)]
    return bool(counts) and min(counts) > order.start()


def joined_twice(question: str, op: str) -> bool:
    """Two words of the aggregate ``op`` joined by "and" ("the average distance and average
    price"): two values of that kind asked ("total amount claimed summed" asks one)."""
    words = re.findall(r"[A-Za-z]+", question)
    marks = [i for i, w in enumerate(words) if op in content_tokens(w)]
    return any("and" in (w.lower() for w in words[a + 1 : b]) for a, b in zip(marks, marks[1:], strict=False))


_NAME_OF = re.compile(r"\bnames?\s+of\s+(?:the\s+|all\s+(?:the\s+)?|each\s+|every\s+)?(\w+)", re.I)


def name_of(question: str) -> set[str]:
    """The things whose name the question asks for ("the name of the building" -> building)."""
    out: set[str] = set()
    for m in _NAME_OF.finditer(question):
        out.update(content_tokens(m.group(1)))
    return out


def words_before(question: str, spans: Iterable[tuple[int, int]]) -> set[str]:
    """The content token of the word right before each span of ``question`` (a value's place)."""
    out: set[str] = set()
    for start, _ in spans:
        last = re.findall(r"[A-Za-z]+", question[:start])[-1:]
        out.update(content_tokens(last[0]) if last else [])
    return out


_AMOUNT_OF = re.compile(r"\bamounts?\s+of\b", re.I)
_TAKE_PLACE = re.compile(r"\b(?:take|takes|taking|taken|took)\s+place\b", re.I)


def empty_phrases(text: str) -> frozenset[str]:
    """The content tokens of the phrases of ``text`` that say nothing of their own: "the amount of
    money" is the money, "took place" happened."""
    out: set[str] = set()
    if _AMOUNT_OF.search(text):
        out.update(content_tokens("amount"))
    if _TAKE_PLACE.search(text):
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
        and re.search(rf"\b(?:who|that|which)\s+{re.escape(word)}{_VERB_FOLLOWS}", text, re.I) is not None
    )


# what follows a verb, not a noun ("who hold *an* account", "that end *at*"; not "which boat *owners*")
_VERB_FOLLOWS = (
    r"(?:\s+(?:a|an|the|at|in|on|to|from|with|for|by|into|of|out|up|more|less|most|any|some|no|their|his"
    r"|her|its|over|under|than)\b|\s*[,.;:?!]|\s*$)"
)


ASKING_WORDS = frozenset({"which", "what", "who", "when", "where", "how", "whose"})
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
