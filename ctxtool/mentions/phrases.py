"""The words that name a thing after an operator word: "the average *length of tracks*", "per *music
genre*", "the most *tracks*". A phrase runs over ordinary words and stops at a function word, a
verb of the clause, punctuation or another operator."""

from __future__ import annotations

import re

from lemminflect import getAllLemmas

from ctxtool.english.content import content_tokens
from ctxtool.english.lexicon import STOPWORDS
from ctxtool.english.tokens import lemma

_WORD = re.compile(r"[A-Za-z][\w'-]*|\S")
# words that end a noun phrase besides the stop words: the verbs of a clause and linking words
_ENDS = frozenset(
    "was were is are be been has have had did do does made make sold bought paid placed appear appears "
    "appeared belong belongs live lives there than who which that where when whose while since before "
    "after until during between per each every versus vs broken split grouped sorted ordered ranked".split()
)
# a person's names ("the last name"): two words of one noun, never an order in time
_NAME = re.compile(r"(?:first|last|middle|full|family|given)\s+names?\b", re.I)
# operator words that are also nouns at the end of a noun phrase ("the invoice total")
_NOUNS = frozenset({"total", "count", "sum", "average", "maximum", "minimum"})
_KEEP = frozenset({"of"})
_LEADING = frozenset("the a an of each every their its his her our your my these those all".split())
# stop words that are also nouns or verbs of a compound ("the list price", "the record label")
_NOUNS_TOO = frozenset(
    "list show data record records entry entries value values kind sort one ones whole".split()
)
_TIME_WORD = re.compile(
    r"q[1-4]$|(?:1[89]|20)\d\d$", re.I
)  # "the average length of tracks": "of" joins two nouns of one phrase


def phrase_after(text: str, at: int, *, limit: int = 4, join_of: bool = False) -> tuple[str, int]:
    """The noun phrase that begins at offset ``at`` (leading articles skipped) and where it ends.

    Returns ``("", at)`` when no content word follows."""
    words: list[re.Match[str]] = []
    skip_to = at
    for m in _WORD.finditer(text, at):
        if m.start() < skip_to:
            continue
        w = m.group().lower()
        name = _NAME.match(text, m.start())
        if name:
            words.append(name)
            skip_to = name.end()
            continue
        if not words and w in _LEADING:
            continue
        if not w[0].isalpha():
            break
        if w in _KEEP and join_of and words:
            words.append(m)
            continue
        if (
            _TIME_WORD.match(w)
            or w in _ENDS
            or (w in STOPWORDS and w not in _KEEP | _NOUNS_TOO)
            or w in _KEEP
        ):
            break
        particle = re.match(
            r"\s+(?:after|from|into|onto|up|out|over|on|to|at|with|for|in)\b", text[m.end() :]
        )
        if len(words) >= 2 and particle and w not in _NOUNS and "VERB" in getAllLemmas(w):
            break  # "each support rep look after": a phrasal verb ends the noun phrase
        if words and (_verb(w) or (m.group()[0].isupper() and words[-1].group()[0].islower())):
            break  # "the revenue comes from", "orders use Speedy": the clause's verb or a name
        if w in _NOUNS and not re.match(r"\s+(?:of|number)\b", text[m.end() :]):
            words.append(m)  # "the invoice total": the noun, the phrase's last word
            break
        if any(t.startswith("__") for t in content_tokens(w)) or lemma(w)[1] is not None:
            break
        words.append(m)
        if len([x for x in words if x.group().lower() not in _KEEP]) >= limit:
            break
    while words and words[-1].group().lower() in _KEEP:
        words.pop()
    if not words:
        return "", at
    return text[words[0].start() : words[-1].end()], words[-1].end()


def _verb(word: str) -> bool:
    """A word English reads only as a verb ("comes", "handled"), never as a noun or adjective."""
    forms = getAllLemmas(word)
    verb = forms.get("VERB", (word,))[0]
    if "VERB" not in forms or verb == word or "ADJ" in forms:
        return False  # a base form ("use", "look") may be a noun; a participle may be an adjective
    noun = forms.get("NOUN", (None,))[0]
    return noun is None or noun == word
