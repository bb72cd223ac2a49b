"""Other ways to ask a question, written with general English only: synonyms from the WordNet
thesaurus (:mod:`ctxtool.english.thesaurus`), a phrase moved to the front, another question form, a
terse form, a slip of the keyboard, a polite or irrelevant addition.

Every function takes the question, the spans it must not touch (the values a template binds: a
paraphrase of "London Heathrow" asks another question) and a seeded :class:`random.Random`; each
returns the new wording, or None when the rewrite does not apply to this question. Nothing here
knows a database.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from ctxtool.english import thesaurus
from ctxtool.english.lexicon import STOPWORDS
from ctxtool.english.spelling import SLIPPED_MIN
from ctxtool.english.tokens import lemma, lemma_forms

__all__ = [
    "distracted",
    "misspelled",
    "other_form",
    "paraphrased",
    "reordered",
    "slip",
    "terse",
]

Span = tuple[int, int]
_WORD = re.compile(r"[A-Za-z][a-z]+")

# Question forms of general English: a frame at the start of a question and the frames that ask the
# same thing ("How many" = "What is the number of" = "Count the").
FORMS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"^how many\b", re.I), ("What is the number of", "Count the", "Give me the number of")),
    (re.compile(r"^(?:what|which) (?:is|are) the\b", re.I), ("Tell me the", "Show the", "I want to know the")),
    (re.compile(r"^(?:list|show(?: me)?|give(?: me)?|display|find|get)(?: all)? the\b", re.I),
     ("What are the", "Which are the", "Tell me the")),
    (re.compile(r"^(?:list|show(?: me)?|give(?: me)?|display|find|get)(?: all)?\b", re.I),
     ("What are the", "Tell me the", "I need the")),
    (re.compile(r"^which\b", re.I), ("What",)),
    (re.compile(r"^what\b", re.I), ("Which",)),
)  # fmt: skip
# The words of the question frames: never replaced by a synonym ("how many" is no "how umpteen").
FRAME_WORDS = frozenset(w for p, frames in FORMS for f in frames for w in f.lower().split()) | frozenset(
    "how many much what which who whom whose when where list show give tell find display get there each "
    "every all per any some most least".split()
)
THERE = re.compile(r"\s+(?:are|is|were|was) there(?=\W*$)", re.I)
# The frames a terse form drops, and the articles.
TERSE_DROP = re.compile(
    r"^(?:please\s+)?(?:(?:what|which) (?:is|are|was|were)|tell me|show(?: me)?|give(?: me)?|list|find|"
    r"display|get|i want(?: to know)?|i need)\s+|\b(?:the|a|an)\s+",
    re.I,
)
POLITE = ("Please, ", "Could you tell me: ", "I'd like to know: ", "Quick question: ")
ASIDES = (
    " I need it for a report.",
    " Thanks in advance!",
    " (asking for a colleague)",
    " It's for a meeting tomorrow.",
)
# The preposition a trailing phrase starts with, for moving it to the front.
_TRAILING = re.compile(
    r"^(?P<head>.+\S)\s+(?P<pp>(?:in|for|from|by|with|at|on|during|since|before|after|of)\s+[^,?!.]+?)"
    r"\s*(?P<end>[?.!]?)\s*$",
    re.I,
)


def _free(start: int, end: int, keep: Sequence[Span]) -> bool:
    return all(end <= a or start >= b for a, b in keep)


def _synonym(word: str, rng: random.Random) -> str | None:
    """A one-word synonym of ``word`` from the thesaurus, inflected like it (a plural stays plural)."""
    low = word.lower()
    base, degree = lemma(low)
    if degree:
        return None
    rel = thesaurus.table().get(base)
    options = sorted(
        s
        for s in rel.get("s", frozenset()) | rel.get("a", frozenset())
        if s.isalpha() and s != base and len(s) > 2 and s not in STOPWORDS
    )
    if not options:
        return None
    out = rng.choice(options)
    if low != base and low == base + "s":
        if "NOUN" not in lemma_forms(out):
            return None  # "types" -> "typewrites": a plural stays a noun
        out += "es" if out.endswith(("s", "x", "ch", "sh")) else "s"
    elif low != base:
        return None  # another inflection ("issued"): not worth a wrong form
    return out.capitalize() if word[0].isupper() else out


def paraphrased(question: str, keep: Sequence[Span], rng: random.Random, words: int = 2) -> str | None:
    """Up to ``words`` content words replaced by a thesaurus synonym (values untouched)."""
    spots = [
        m
        for m in _WORD.finditer(question)
        if m.group().lower() not in STOPWORDS | FRAME_WORDS and _free(m.start(), m.end(), keep)
    ]
    rng.shuffle(spots)
    out = question
    done = 0
    for m in sorted(spots[: words * 3], key=lambda m: -m.start()):
        if done >= words:
            break
        syn = _synonym(m.group(), rng)
        if syn:
            out = out[: m.start()] + syn + out[m.end() :]
            done += 1
    return out if done else None


def reordered(question: str, keep: Sequence[Span], rng: random.Random) -> str | None:
    """A trailing phrase ("... from London Heathrow?") moved to the front ("From London Heathrow,
    how many ...?"), when the rest is still a question of three words or more."""
    m = _TRAILING.match(question)
    if not m or len(m.group("head").split()) < 3:
        return None
    pp, head = m.group("pp"), m.group("head")
    if not _free(m.start("pp"), m.start("pp") + 1, keep):
        return None
    if head[:1].isupper() and not head.split()[0].isupper():
        head = head[0].lower() + head[1:]
    return f"{pp[0].upper()}{pp[1:]}, {head}{m.group('end') or '?'}"


def other_form(question: str, keep: Sequence[Span], rng: random.Random) -> str | None:
    """The question asked with another frame ("How many X" -> "What is the number of X")."""
    for pattern, frames in FORMS:
        m = pattern.match(question)
        if m and _free(0, m.end(), keep):
            rest = question[m.end() :]
            frame = rng.choice(frames)
            if frame.endswith(" the") and rest.lstrip().lower().startswith("the "):
                rest = rest.lstrip()[3:]
            if not frame.lower().startswith(("how", "is", "are")):
                rest = THERE.sub("", rest)  # "What is the number of tracks" (no "are there")
            return frame + rest
    return None


def terse(question: str, keep: Sequence[Span], rng: random.Random) -> str | None:
    """Keywords only: the question frame, the articles and the final mark dropped, lower case
    outside the values ("how many flights from London Heathrow" stays readable)."""
    parts: list[str] = []
    last = 0
    for a, b in sorted(keep):
        parts.append(TERSE_DROP.sub("", question[last:a]).lower())
        parts.append(question[a:b])
        last = b
    parts.append(TERSE_DROP.sub("", question[last:]).lower())
    out = " ".join("".join(parts).split()).rstrip("?.! ")
    out = THERE.sub("", re.sub(r"^how many\b", "number of", out))
    return out if out and out != question.lower().rstrip("?.! ") else None


def slip(word: str, rng: random.Random) -> str:
    """One slip of the keyboard: two inner letters swapped (the first and last letters kept)."""
    if len(word) < 4:
        return word
    for _ in range(6):
        i = rng.randrange(1, len(word) - 2)
        if word[i] != word[i + 1]:
            return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    return word


def misspelled(
    question: str, keep: Sequence[Span], rng: random.Random, *, in_value: bool = False
) -> str | None:
    """One word of ``SLIPPED_MIN`` letters or more misspelled: a content word, or (``in_value``) a
    word of a value."""
    spots = [
        m
        for m in _WORD.finditer(question)
        if len(m.group()) >= SLIPPED_MIN
        and m.group().lower() not in STOPWORDS
        and _free(m.start(), m.end(), keep) != in_value
    ]
    if not spots:
        return None
    m = rng.choice(spots)
    wrong = slip(m.group(), rng)
    return None if wrong == m.group() else question[: m.start()] + wrong + question[m.end() :]


def distracted(question: str, keep: Sequence[Span], rng: random.Random) -> str | None:
    """A polite prefix, or an aside that says nothing of the query."""
    if rng.random() < 0.5:
        first = question[:1].lower() + question[1:] if not question[:2].isupper() else question
        return rng.choice(POLITE) + first
    end = question.rstrip()
    return end + ("" if end.endswith(("?", ".", "!")) else "?") + rng.choice(ASIDES)
