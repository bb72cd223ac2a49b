"""The question, read once: its text (slips of the keyboard read as the set's words), its tokens
with their places, its content words with the values it states set aside, its operator words, its
values and their kinds, and what its sentences say (what it counts, what it asks for, the column it
sorts by). Every stage and check reads these; none reads the question's text again for them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

from ctxtool.english import reading
from ctxtool.english.content import content_tokens
from ctxtool.english.literals import Literal
from ctxtool.english.reading import Reading
from ctxtool.english.tokens import Token, tokenize
from ctxtool.runtime.question.linking import LinkedValue
from ctxtool.runtime.question.values import Entity
from ctxtool.runtime.templates.vocabulary import SetFacts

__all__ = ["Question"]


@dataclass(frozen=True, eq=False)
class Question(Reading):
    text: str  # as read: the slips of the keyboard replaced by the set's words
    written: str = ""  # as the user wrote it
    slips: Mapping[str, str] = field(default_factory=dict)  # word written -> word read
    values: Sequence[Entity] = ()  # the values it states, in order (linked, numbers, dates, quoted)
    literals: Sequence[Literal] = ()
    links: Sequence[LinkedValue] = ()
    vocabulary: SetFacts | None = None  # what the set it is asked of names (its tables, its columns)

    def with_values(self, values: Sequence[Entity]) -> Question:
        """The question with ``values`` (the matcher adds the values stated in a template's own
        words): a new reading of its words with those values set aside."""
        return replace(self, values=list(values))

    # -- words --------------------------------------------------------------------------------------
    @cached_property
    def tokens(self) -> list[Token]:
        """Its whitespace tokens with their offsets."""
        return tokenize(self.text)

    @cached_property
    def words(self) -> list[str]:
        """Its content tokens (lemmas and the canonical tokens of counting, comparing, ordering),
        with the values it states set aside."""
        text = list(self.text)
        for e in self.values:
            for i in range(e.start, e.end):
                text[i] = " "
        return content_tokens("".join(text))

    @cached_property
    def word_set(self) -> frozenset[str]:
        return frozenset(self.words)

    @cached_property
    def operators(self) -> frozenset[str]:
        """Its operator words: the canonical tokens (``__count``, ``__max``, ``__gt``, ``__not``...)."""
        return frozenset(t for t in self.words if t.startswith("__"))

    @cached_property
    def all_words(self) -> list[str]:
        """Its content tokens, values included."""
        return content_tokens(self.text)

    @cached_property
    def written_words(self) -> dict[str, str]:
        """Content token -> the word as the user wrote it (for explanations)."""
        out: dict[str, str] = {}
        for tok in self.tokens:
            for norm in content_tokens(tok.text):
                out.setdefault(norm, tok.text)
        return out

    # -- what its sentences say ---------------------------------------------------------------------
    @cached_property
    def order_key(self) -> frozenset[str]:
        """The words of the column it sorts by ("ordered by last name": last, name)."""
        return reading.order_key_words(self.text)

    @cached_property
    def asks_count(self) -> bool:
        """It wants a number of things back ("how many ...", "count the ...")."""
        return reading.asks_count(self.text)

    @cached_property
    def count_only_to_order(self) -> bool:
        """Every count word comes after a word of ordering: the count sorts, it is not asked."""
        return reading.count_only_to_order(self.text)

    @cached_property
    def asks_who_has_the_most(self) -> bool:
        """ "... with the most members": it asks for the one that has the most."""
        return reading.asks_who_has_the_most(self.text)

    @cached_property
    def names_of(self) -> set[str]:
        """The things whose name it asks for ("the name of the building": building)."""
        return reading.name_of(self.text)
