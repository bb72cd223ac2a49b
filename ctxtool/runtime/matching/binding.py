"""Binding values to slots: which value the question states may fill which placeholder, and the
Python value bound for it.

A slot takes a value of a compatible kind: a year slot a year, a text slot compared with
``city.name`` a value linked on that column (or the template's own example the question repeats), a
code slot a code. A value of another shape than the slot's example never fills it (a code is not a
city). LIKE slots keep the template's wildcards; numbers the SQL writes quoted bind as text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from ctxtool.english.content import content_tokens
from ctxtool.runtime.question.linking import LinkedValue, descriptor_tokens
from ctxtool.runtime.question.literals import Literal
from ctxtool.runtime.templates.compiled import Compiled, Slot


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


def value_shape(value: Any) -> str | None:
    """``"code"`` (letters and digits, no spaces: ``A12``, ``PRG-01``), ``"words"`` (lower-case
    letters or spaces: ``Porto``, ``New York``) or None (cannot tell: ``USA``, ``42``)."""
    if not isinstance(value, str):
        return None
    v = value.strip().strip("%")
    if not v:
        return None
    if " " not in v and any(c.isdigit() for c in v) and any(c.isalpha() for c in v):
        return "code"
    if not any(c.isdigit() for c in v) and (" " in v or any(c.islower() for c in v)):
        return "words"
    return None


def same_kind(entity: Entity, slot: Slot) -> bool:
    """A value of another shape than the slot's example never fills it: a code is not a city."""
    a, b = value_shape(entity.value), value_shape(slot.example)
    return a is None or b is None or a == b


def _written_like(text: str, example: str) -> bool:
    """The same digits-and-separators shape ("08/30/2015" and "05/12/2014")."""
    return bool(re.search(r"\d", example)) and re.sub(r"\d", "9", text) == re.sub(r"\d", "9", example)


def _year_like(example: Any) -> bool:
    return example is None or (isinstance(example, int) and 1800 <= example <= 2100)


def _column_key(column: str) -> str:
    """``table.column`` in lower case, a schema in front dropped (as :attr:`LinkedValue.column_key`)."""
    return ".".join(column.lower().split(".")[-2:])


_SENSE = {"gt": 1, "gte": 1, "lt": -1, "lte": -1}
_NUMERIC = re.compile(r"-?\d+(?:\.\d+)?")
# a reading on the slot's own column at most this much farther than the closest one is as good
OWN_READING_SLACK = 0.05


def _on_slot_column(column_key: str, slot: Slot) -> bool:
    """``column_key`` is the slot's column (a slot whose SQL names no table matches by column name)."""
    if not slot.column:
        return False
    key = _column_key(slot.column)
    if column_key == key:
        return True
    # a column named without its table on either side matches by its name
    return ("." not in key or "." not in column_key) and column_key.split(".")[-1] == key.split(".")[-1]


def own_column_reading(lv: LinkedValue, slot: Slot) -> LinkedValue | None:
    """The closest other reading of a linked phrase on the slot's own column, when it is as close as
    the reading that won: a value two columns hold is read on the column the template compares."""
    own = [a for a in lv.alternatives if _on_slot_column(a.column_key, slot)]
    if not own:
        return None
    best = min(own, key=lambda a: a.distance)
    return best if best.distance <= lv.distance + OWN_READING_SLACK else None


def compatibility(entity: Entity, slot: Slot) -> float:
    """0 (cannot fill) .. 1 (made for it)."""
    kind = slot.kind
    lit = entity.literal
    if lit is not None and lit.kind == "number":
        if lit.rank and slot.operator not in ("limit", None):
            return 0.0  # "the top 3 rates" keeps three rows; it is no rate above 3
        if lit.bound and slot.operator in ("eq", "in", "like", "gt", "lt"):
            return 0.0  # "2011 or later" is a range from 2011 on: not 2011 alone, not after 2011
        sense = _SENSE.get(slot.operator or "")
        if sense and lit.direction is not None and lit.direction != sense:
            return 0.0  # "with 1 credit" is not "more than 1", "30 or younger" not "above 30"
    slot_key = _column_key(slot.column) if slot.column else ""
    if kind == "text":
        if entity.kind in ("linked", "quoted") and not (
            entity.link is not None and slot_key and entity.link.column_key == slot_key
        ):
            if not same_kind(entity, slot):
                return 0.0
        if entity.kind == "linked":
            lv = entity.link
            assert lv is not None
            if slot.column:
                if lv.column_key == slot_key:
                    return 1.0
                own = own_column_reading(lv, slot)
                if own is not None:  # as close on the slot's own column ("Oak" a wood and a street name)
                    return 1.0 if own.distance <= lv.distance + 1e-9 else 0.95
                # same column name on another table (city.name vs a join alias): type words decide
                if lv.column_key.split(".")[-1] == slot.column.split(".")[-1]:
                    return 0.8
                return 0.0
            words = slot.type_words
            if words and words & entity.descriptors:
                return 0.8
            return 0.4
        if entity.kind == "quoted":
            return 0.5
        if entity.kind == "date" and isinstance(slot.example, str):
            # a date the database keeps as text ('08/30/2015'): written as the example writes one
            return 0.9 if _written_like(entity.text, slot.example.strip("%")) else 0.0
        if entity.kind == "stated":
            same = entity.column == slot.column or (
                entity.column is not None and _on_slot_column(_column_key(entity.column), slot)
            )
            return 1.0 if same else 0.0
        return 0.0
    if kind == "number":
        if lit is not None and lit.text.lower() == "one" and slot.example not in (1, None):
            return 0.0  # "more than one" compares a count with one: only a template about one
        if entity.kind == "quoted" and _NUMERIC.fullmatch(entity.text.strip()):
            return 0.9  # majoring in "600": a number in quotes
        if entity.kind == "number":
            if entity.literal is not None and entity.literal.as_year and not _year_like(slot.example):
                return 0.0  # "issued in 1997" is a time, not a duration of 24 months
            return 0.7 if entity.is_year and "year" not in slot.type_label.lower() else 1.0
        return 0.0
    if kind == "year":
        if entity.kind == "number" and entity.is_year:
            return 1.0
        return 0.0
    if kind == "date":
        if entity.kind == "date":
            return 1.0
        return 0.0
    return 0.0


def bind_slots(
    slots: list[Slot], entities: list[Entity], used: set[int], pairs: frozenset[str] = frozenset()
) -> dict[str, tuple[int, float]] | None:
    """slot key -> (entity index, compatibility); None when a slot cannot be filled. Slots take the
    best compatible entity, the earliest on ties, so "between 1995 and 1997" fills in order. The
    words of a quoted name (see :func:`split_names`) are tried only when the whole name leaves a
    slot empty."""
    parts = {i for i, e in enumerate(entities) if e.part}
    if not parts:
        return _bind(slots, entities, used, set())
    out = _bind(slots, entities, used, parts)
    if out is not None or not pairs:
        return out
    # the words of a name go to the two side-by-side slots only (``pairs``: see adjacent_slots)
    wholes = {j for i in parts for j in overlapping(entities, i) if not entities[j].part}
    out = _bind(slots, entities, used, wholes)
    if out is not None and any(entities[i].part and k not in pairs for k, (i, _) in out.items()):
        return None
    return out


def adjacent_slots(tpl: Compiled) -> frozenset[str]:
    """The keys of slots whose placeholders the template's wording writes side by side ("$1 $2")."""
    keys: set[str] = set()
    for m in _ADJACENT.finditer(tpl.parameterized_intent):
        for g in m.groups():
            if g.startswith("$"):
                keys.add(g[1:])
    return frozenset(keys)


def _bind(
    slots: list[Slot], entities: list[Entity], used: set[int], skip: set[int]
) -> dict[str, tuple[int, float]] | None:
    out: dict[str, tuple[int, float]] = {}
    taken = set(used) | skip
    for i in used:
        taken |= overlapping(entities, i)
    for slot in slots:
        best: tuple[float, int] | None = None
        alone = sum(1 for s in slots if s.kind == slot.kind) == 1
        for i, e in enumerate(entities):
            if i in taken:
                continue
            c = compatibility(e, slot)
            if c <= 0:
                continue
            tie = best is not None and c > best[0] - 1e-9
            if best is None or c > best[0] + 1e-9 or (tie and _closer(e, entities[best[1]], slot, alone)):
                best = (c, i)
        if best is None:
            return None
        out[slot.key] = (best[1], best[0])
        taken.add(best[1])
        taken |= overlapping(entities, best[1])  # a name and its words are one value
    return out


def _closer(e: Entity, other: Entity, slot: Slot, alone: bool) -> bool:
    """Of two values as fit for a slot, ``e`` is the stored value found exactly and ``other`` only
    approximately ("Fast As a Shark" itself, not words of the question near another name), or
    ``e`` is the template's own example the question repeats ("at least two rooms and 10 desks"
    against "... two rooms and $1 desks" with 10 the example: the "two" is the wording's own), for
    the template's only slot of its kind (two slots take their values in order: "between $1 and $2")."""
    a, b = e.link, other.link
    if a is not None and b is not None and a.distance == 0 < b.distance:
        return True
    return alone and e.kind == "number" == other.kind and e.value == slot.example != other.value


def overlapping(entities: list[Entity], i: int) -> set[int]:
    """The other entities over the same words as entity ``i`` (a quoted name and its two parts)."""
    e = entities[i]
    return {j for j, o in enumerate(entities) if j != i and not (o.end <= e.start or o.start >= e.end)}


_ADJACENT = re.compile(r"(\$\d+|\?)[\s]+(\$\d+|\?)")


def split_names(question: str, templates: list[Compiled], entities: list[Entity]) -> bool:
    """Add the words of a two-word quoted value as parts when a template writes two placeholders
    side by side ("How many clubs does "$1 $2" belong to?": a first and a last name): "Linda Smith"
    fills both. The whole value stays; a template binds either it or its parts. True when added."""
    if not any(e.kind == "quoted" for e in entities):
        return False
    pairs = any(
        _ADJACENT.search(t.parameterized_intent) and sum(1 for s in t.slots if s.kind == "text") >= 2
        for t in templates
    )
    if not pairs:
        return False
    added = False
    for e in list(entities):
        if e.kind != "quoted" or not isinstance(e.value, str):
            continue
        words = list(re.finditer(r"\S+", e.text))
        if len(words) != 2:
            continue
        base = question.find(e.text, e.start)
        if base < 0:
            continue
        for w in words:
            a, b = base + w.start(), base + w.end()
            if any(o.part and (o.start, o.end) == (a, b) for o in entities):
                continue
            entities.append(Entity("quoted", w.group(), a, b, w.group(), part=True))
            added = True
    if added:
        entities.sort(key=lambda x: (x.start, -x.end))
    return added


def own_table_value(entity: Entity, slot: Slot) -> Any:
    """The entity's value, read on the slot's own column when the value search found it there too:
    "Billy Cobam" is closest to a track name but the slot is an artist's name, where it reads
    "Billy Cobham" (a value two columns hold is resolved by the template's own tables)."""
    lv = entity.link
    if lv is None or not slot.column:
        return entity.value
    if _on_slot_column(lv.column_key, slot):
        return entity.value
    own = [a for a in lv.alternatives if _on_slot_column(a.column_key, slot)]
    return min(own, key=lambda a: a.distance).value if own else entity.value


def param_value(entity: Entity, slot: Slot) -> Any:
    """The Python value bound for ``slot``: the stored value for linked text, ints for years,
    ``date`` for dates."""
    v = own_table_value(entity, slot)
    if entity.kind == "date" and slot.kind == "text":
        v = entity.text  # kept as written: the column holds dates as text
    if slot.operator == "like" and isinstance(slot.example, str):
        # the template's pattern keeps its wildcards: '%North%' with "South" binds '%South%'
        text = str(v)
        if slot.example.startswith("%") and not text.startswith("%"):
            text = "%" + text
        if slot.example.endswith("%") and not slot.example.endswith("\\%") and not text.endswith("%"):
            text += "%"
        return text
    if slot.quoted and isinstance(v, (int, float)) and not isinstance(v, bool):
        return entity.text if entity.kind == "number" and entity.text.strip().isdigit() else str(v)
    if slot.kind == "date" and isinstance(v, date):
        # the SQL wrote the example as a string ('2010-10-23'): the column may keep dates as text,
        # and a string parameter compares with a date column as the literal did
        return v.isoformat() if slot.quoted else v
    quoted_number = entity.kind == "quoted" and isinstance(v, str) and _NUMERIC.fullmatch(v.strip())
    if slot.kind == "number" and not slot.quoted and quoted_number:
        v = float(v) if "." in v else int(v)
    if slot.kind in ("number", "year") and isinstance(v, (int, float)):
        if isinstance(slot.example, float) or isinstance(v, float):
            return v
        return int(v)
    return v


def _displaceable(entity: Entity, start: int, end: int) -> bool:
    """A reading that the template's own example, repeated word for word over ``start..end``, is
    better than: a stored value found only approximately ("ACCT-211" ~ 'Accounting'), or a number
    inside the repeated value ("DRE 102")."""
    if entity.kind == "linked":
        return entity.link is not None and entity.link.distance > 0
    if entity.kind == "quoted":  # words in capitals, quoted by their case alone
        return entity.literal is not None and entity.literal.capitals
    if entity.kind == "number":
        return start <= entity.start and entity.end <= end and (end - start) > (entity.end - entity.start)
    return False


def _also_read_as(
    entity: Entity, m: re.Match[str], core: str, column: str, question: str = "", wording: str = ""
) -> bool:
    """A phrase linked exactly on another column that is also the template's example on its own
    ("Fall" a person's name and the example season; a quoted "CV" a type code and the example
    of a title pattern), or the example with words the template's own wording writes beside it
    ("Green Valley" a region, and 'Green' in "... in $1 Valley"): that reading is kept as an
    alternative, for the templates that compare the example's column. True when ``entity`` now
    carries it."""
    lv = entity.link
    spans = {(entity.start, entity.end)} | ({_unquoted(entity, question)} if question else set())
    if lv is None or lv.distance > 0:
        return False
    if m.span() not in spans:
        a, b = _unquoted(entity, question) if question else (entity.start, entity.end)
        if not (a <= m.start() and m.end() <= b) or not question or not wording:
            return False
        rest = content_tokens(question[a : m.start()] + " " + question[m.end() : b])
        if not rest or not set(rest) <= set(content_tokens(wording)):
            return False
    if not any(a.column == column and str(a.value) == core for a in lv.alternatives):
        lv.alternatives.append(LinkedValue(lv.phrase, lv.start, lv.end, core, column, "", 0.0, -1))
    return True


def _repeated(core: str, question: str) -> re.Match[str] | None:
    """Where ``question`` repeats the example value ``core``: as a word, case-insensitively; a single
    letter ("sex is F", "a grade C") only as a capital standing alone, and never the article "A" or
    the pronoun "I" unless "an" announces it ("received an A")."""
    if len(core) >= 2:  # "Boeing 737-800s", "cats" for 'Cat': a plural of the value is the value
        plural = r"'?s?" if len(core) >= 4 else r"s?" if len(core) == 3 and core.isalpha() else ""
        return re.search(r"(?<![\w])" + re.escape(core) + r"(?=" + plural + r"(?![\w]))", question, re.I)
    if not (core.isalpha() and core.isupper()):
        return None
    for m in re.finditer(r"(?<![\w'’-])" + re.escape(core) + r"(?![\w'’-])", question):
        if core in "AI" and not re.search(r"\ban\s+$", question[: m.start()], re.I):
            continue
        return m
    return None


_CODE = re.compile(r"[A-Z]{1,3}")


def _word_at(question: str, word: str) -> re.Match[str] | None:
    """``word`` standing alone in ``question`` (case-insensitively; "all-female" holds "female"), or
    its plural."""
    return re.search(r"(?<![\w])" + re.escape(word) + r"(?:s|es)?(?![\w])", question, re.I)


def _glosses(core: str, wording: str) -> list[str]:
    """The words of a template's own wording that an example code in parentheses abbreviates:
    "female (sex is F)", "the male ward (with gender M)": one of the two words before the
    parenthesis, beginning with the code's letters."""
    out: list[str] = []
    for m in re.finditer(r"([A-Za-z][\w'-]*(?:\s+[A-Za-z][\w'-]*)?)\s*\(([^()]*)\)", wording):
        if not re.search(r"(?<![\w])" + re.escape(core) + r"(?![\w])", m.group(2)):
            continue
        for w in m.group(1).split():
            low = w.lower()
            if len(low) >= 3 and low != core.lower() and low.startswith(core.lower()) and low.isalpha():
                toks = content_tokens(low)  # a word of counting ("many") glosses nothing
                if not toks or any(t.startswith("__") for t in toks) or low in out:
                    continue
                out.append(low)
    return out


def _abbreviated(core: str, question: str, wording: str) -> re.Match[str] | None:
    """Where ``question`` states the example value ``core`` in its long or short form: the initials
    of a name of several words ("LA" for 'Los Angeles', "UK" for 'United Kingdom'), a capitalized
    word an upper-case code begins ("Xanadu" for 'XA'), or the word the template's own wording
    glosses a one-letter code with ("female" for 'F' in "female (sex is F)")."""
    words = core.split()
    if len(words) >= 2 and all(w[:1].isupper() for w in words):
        initials = "".join(w[0] for w in words)
        return re.search(r"(?<![\w.])" + re.escape(initials) + r"(?![\w])", question)
    if not _CODE.fullmatch(core):
        return None
    if len(core) >= 2:
        rx = r"(?<![\w])" + re.escape(core[0]) + re.escape(core[1:].lower()) + r"[a-z]{3,}(?![\w])"
        m = re.search(rx, question)
        if m is not None:
            return m
    for gloss in _glosses(core, wording):
        m = _word_at(question, gloss)
        if m is not None:
            return m
    return None


def _unquoted(entity: Entity, question: str) -> tuple[int, int]:
    """The entity's span without the quotes around it (a quoted string keeps them in its span)."""
    a, b = entity.start, entity.end
    while a < b and question[a] in "\"'“”‘’":
        a += 1
    while b > a and question[b - 1] in "\"'“”‘’":
        b -= 1
    return a, b


def stated_values(question: str, templates: list[Compiled], entities: list[Entity]) -> bool:
    """Add to ``entities`` the text values of ``templates``' examples that the question repeats word
    for word ("... born in California" against a template whose example is 'California'): a value no
    value search covers is still the question's own value. The repetition replaces a reading it
    overlaps that is only approximate (see :func:`_displaceable`). True when any was added."""
    added = False
    for tpl in templates:
        for slot in tpl.slots:
            ex = slot.example
            if slot.kind != "text" or not isinstance(ex, str) or not slot.column:
                continue
            core = ex.strip("%")
            if not core.strip():
                continue
            m = _repeated(core, question) or _abbreviated(core, question, tpl.intent)
            if m is None:
                continue
            overlap = [e for e in entities if not (m.end() <= e.start or m.start() >= e.end)]
            if len(overlap) == 1 and _also_read_as(
                overlap[0], m, core, slot.column, question, tpl.parameterized_intent
            ):
                continue
            if not all(_displaceable(e, m.start(), m.end()) for e in overlap):
                continue
            for e in overlap:
                entities.remove(e)
            entities.append(Entity("stated", m.group(), m.start(), m.end(), core, column=slot.column))
            added = True
    if added:
        entities.sort(key=lambda e: e.start)
    return added
