"""Binding values to slots: which value the question states may fill which placeholder, and the
Python value bound for it.

A slot takes a value of a compatible kind: a year slot a year, a text slot compared with
``city.name`` a value linked on that column (or the template's own example the question repeats), a
code slot a code. A value of another shape than the slot's example never fills it (a code is not a
city). LIKE slots keep the template's wildcards; numbers the SQL writes quoted bind as text.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from ctxtool.runtime.question.linking import LinkedValue
from ctxtool.runtime.question.values import Entity
from ctxtool.runtime.templates.compiled import Compiled, Slot


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


def on_slot_column(column_key: str, slot: Slot) -> bool:
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
    own = [a for a in lv.alternatives if on_slot_column(a.column_key, slot)]
    if not own:
        return None
    best = min(own, key=lambda a: a.distance)
    return best if best.distance <= lv.distance + OWN_READING_SLACK else None


def compatibility(entity: Entity, slot: Slot) -> float:
    """0 (cannot fill) .. 1 (made for it)."""
    kind = slot.kind
    lit = entity.literal
    if lit is not None and lit.kind == "number":
        if slot.operator == "limit" and entity.is_year and not lit.rank:
            return 0.0  # "just for 2022" is a time: a year never fills a LIMIT
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
                entity.column is not None and on_slot_column(_column_key(entity.column), slot)
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


_ADJACENT = re.compile(r"(\$\d+|\?)[\s]+(\$\d+|\?)")


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


def own_table_value(entity: Entity, slot: Slot) -> Any:
    """The entity's value, read on the slot's own column when the value search found it there too:
    "Billy Cobam" is closest to a track name but the slot is an artist's name, where it reads
    "Billy Cobham" (a value two columns hold is resolved by the template's own tables)."""
    lv = entity.link
    if lv is None or not slot.column:
        return entity.value
    if on_slot_column(lv.column_key, slot):
        return entity.value
    own = [a for a in lv.alternatives if on_slot_column(a.column_key, slot)]
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
