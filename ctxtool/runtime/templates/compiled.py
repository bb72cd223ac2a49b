"""Templates and facets prepared for matching: their phrasings, slots (what each placeholder wants)
and the tables they read.

A slot's wish comes from three places: the manifest type (``a given city name``), the value the
example used (a date, a number, a year or text, recovered by aligning the intent with the
parameterized intent, or the SQL with the parameterized SQL) and the column the placeholder is
compared with in the SQL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ctxtool.english.content import content_tokens
from ctxtool.english.reading import Reading
from ctxtool.placeholders import find_text_placeholders
from ctxtool.runtime.answer import jsonable
from ctxtool.runtime.templates.equivalence import Shape
from ctxtool.runtime.templates.facts import TemplateFacts


@dataclass
class Slot:
    key: str  # "1", "2" ... (placeholder number, or position of the ``?``)
    kind: str  # "text" | "number" | "year" | "date"
    type_label: str  # manifest type ("city name"), "" when unknown
    column: str | None  # "table.column" compared with the placeholder
    example: Any  # the value of the example question/SQL, as a Python value
    operator: str | None = None
    position: int = 0  # order of the placeholder in the parameterized intent
    quoted: bool = False  # the SQL wrote the example as a string literal ('338'): bind text

    @property
    def type_words(self) -> set[str]:
        words = set(content_tokens(self.type_label))
        if self.column:
            words |= set(content_tokens(self.column.replace(".", " ").replace("_", " ")))
        return words


@dataclass
class Phrasing(Reading):
    """One wording of an item, tokenized (the parameterized intent, the intent, the question), and
    what its sentence says, read once (as a question's: :mod:`ctxtool.english.reading`)."""

    text: str
    tokens: list[str]

    @cached_property
    def words(self) -> frozenset[str]:
        """Its words as written, lower case (a code the question writes is no value when the
        wording says it)."""
        return frozenset(w.lower() for w in re.findall(r"\w+", self.text))


@dataclass
class Compiled:
    kind: str  # "template" | "facet"
    index: int
    data: dict[str, Any]
    intent: str
    sql: str  # parameterized SQL (or snippet); the concrete one when there is no parameterized form
    concrete_sql: str
    parameterized_intent: str
    manifest: str
    slots: list[Slot]
    phrasings: list[Phrasing]
    tables: set[str] = field(default_factory=set)
    facts: TemplateFacts = field(default_factory=TemplateFacts)  # what its SQL reads and computes
    shape: Shape | None = None  # its canonical form, to tell the same query spelled otherwise
    dialect: str = "postgres"

    @property
    def column_words(self) -> set[str]:
        """The content words of the columns the SQL reads (``destroyed_by_employee_id`` -> destroy,
        employee, id)."""
        out: set[str] = set()
        for c in self.facts.columns:
            out.update(content_tokens(c.replace("_", " ")))
        return out

    @property
    def column_heads(self) -> set[str]:
        """The content words of the last word of each column the SQL reads (``hours_played`` ->
        play; ``widget_status_code`` -> code): what a column measures or holds, not whose it is."""
        out: set[str] = set()
        for c in self.facts.columns:
            out.update(content_tokens(c.split("_")[-1]))
        return out

    @cached_property
    def returned_words(self) -> set[str]:
        """The words of the columns it returns: "the names of ..." is what a query that selects
        ``name`` answers, whether or not its wording says "name"."""
        words: set[str] = set()
        for c in self.facts.projected:
            words.update(content_tokens(c.split(".")[-1].replace("_", " ")))
        return words

    @property
    def label(self) -> str:
        return f"{self.kind} #{self.index}"

    @property
    def token_set(self) -> set[str]:
        out: set[str] = set()
        for p in self.phrasings:
            out.update(p.tokens)
        return out


def filled_intent(tpl: Compiled, values: dict[str, Any]) -> str:
    """The template's parameterized intent with ``values`` written in (for explanations)."""
    text = tpl.parameterized_intent
    found = find_text_placeholders(text, tpl.dialect)
    out = []
    last = 0
    qmark = 0
    for ph in found:
        out.append(text[last : ph.start])
        if ph.kind == "numbered":
            key = ph.name
        else:
            qmark += 1
            key = str(qmark)
        out.append(str(jsonable(values.get(key, ph.text))))
        last = ph.end
    out.append(text[last:])
    return "".join(out)
