"""The values a question states: linked stored values, numbers, dates, quoted strings, and the
template example values the question repeats (:mod:`ctxtool.runtime.matching.stated`), each with
its kind and its place in the question."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ctxtool.english.literals import Literal
from ctxtool.runtime.question.linking import LinkedValue, descriptor_tokens


@dataclass
class Entity:
    """A value the question states."""

    kind: str  # "linked" | "number" | "date" | "quoted" | "stated"
    text: str
    start: int
    end: int
    value: Any
    link: LinkedValue | None = None
    literal: Literal | None = None
    column: str | None = None  # "stated": the column whose template value the question repeats
    part: bool = False  # one word of a quoted name written for two slots ("$1 $2": first, last name)

    @property
    def is_year(self) -> bool:
        return self.literal is not None and self.literal.is_year

    @property
    def descriptors(self) -> set[str]:
        return descriptor_tokens(self.link) if self.link else set()

    def describe(self) -> str:
        if self.link:
            lv = self.link
            how = "exact" if lv.distance == 0 else f"distance {lv.distance:.2f}"
            return f"'{self.text}' -> {lv.value!r} ({lv.concept_type}, {lv.column}, {how})"
        return f"'{self.text}' -> {self.value!r} ({self.kind})"


def entities_of(literals: list[Literal], links: list[LinkedValue]) -> list[Entity]:
    out: list[Entity] = []
    for lv in links:
        out.append(Entity("linked", lv.phrase, lv.start, lv.end, lv.value, link=lv, part=lv.part))
    for lit in literals:
        if any(not (lit.end <= e.start or lit.start >= e.end) for e in out if not e.part):
            continue  # a quoted string that was linked (not only its words: the whole stays)
        out.append(Entity(lit.kind, lit.text, lit.start, lit.end, lit.value, literal=lit))
    out.sort(key=lambda e: (e.start, -e.end))  # a quoted name before its words
    return out
