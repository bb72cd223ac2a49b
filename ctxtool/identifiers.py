"""Identifiers as English words: ``birth_date``, ``departureTime``, ``clubdesc``, ``fname``.

Schemas name things in run-together words and abbreviations. Drafting turns them into the words of
a question (:mod:`ctxtool.draft.names`); the runtime reads them to know what a column holds and what
a question names (:mod:`ctxtool.runtime.checks.shape`, :mod:`ctxtool.runtime.decide.rivals`,
:mod:`ctxtool.runtime.matching.matcher`). One splitter serves both, from English word frequencies
(``wordninja``), never from a vocabulary of one database.
"""

from __future__ import annotations

import re

# Abbreviations common in schemas, spelled out in questions (the glossary overrides them).
ABBREVIATIONS = {
    "amt": "amount",
    "qty": "quantity",
    "num": "number",
    "no": "number",
    "nbr": "number",
    "cnt": "count",
    "desc": "description",
    "dept": "department",
    "emp": "employee",
    "cust": "customer",
    "addr": "address",
    "dob": "date of birth",
    "disp": "disposition",
    "trans": "transaction",
    "txn": "transaction",
    "tx": "transaction",
    "acct": "account",
    "org": "organization",
    "cat": "category",
    "pct": "percentage",
    "avg": "average",
    "min": "minimum",
    "max": "maximum",
    "dt": "date",
    "ts": "timestamp",
    "km": "km",
    "iata": "IATA code",
    "icao": "ICAO code",
    "id": "ID",
    "dest": "destination",
    "dst": "destination",
    "orig": "origin",
    "src": "source",
}


# A one-letter prefix on "name" is the usual shorthand for which of a person's names it is.
NAME_PREFIX = {"f": "first", "l": "last", "m": "middle"}


def name_shorthand(word: str) -> str | None:
    """A person's name written with its initial (``fname``, ``LName``, ``mname``) as its word
    (firstname, lastname, middlename); None for any other word."""
    low = word.lower()
    if len(low) == 5 and low.endswith("name") and low[0] in NAME_PREFIX:
        return NAME_PREFIX[low[0]] + "name"
    return None


def split_compound(part: str) -> list[str]:
    """A run-together identifier part as its words (``clubdesc`` -> club, desc; ``unitprice`` ->
    unit, price; ``fname`` -> first, name), by English word frequencies; kept whole unless every
    piece is a real word or a known abbreviation, so codes (``a11``, ``stuid``) stay as they are."""
    low = part.lower()
    if len(low) < 5 or not low.isalpha():
        return [part]
    import wordninja

    pieces = wordninja.split(low)
    if len(pieces) == 2 and pieces[1] == "name" and pieces[0] in NAME_PREFIX:
        return [NAME_PREFIX[pieces[0]], "name"]
    if len(pieces) < 2 or len(pieces) > 3 or any(len(p) < 3 and p not in ABBREVIATIONS for p in pieces):
        return _head_split(low) or [part]
    return pieces


# The words a column label ends in ("last name", "birth date", "user account"): a run-together
# label whose last piece is one of these, after a real word, is those two words, though a dictionary
# may hold the compound whole (``lastname``) or cut it elsewhere (``invoicedate`` -> in, voice, date).
_HEAD_WORDS = frozenset(
    "name date time id code type number count amount price year status address city state country "
    "title level rank score rate total size length".split()
)


_COMMON_COST = 12.5  # wordninja's cost of a word among English's ~20,000 most frequent


def _head_split(low: str) -> list[str] | None:
    """``low`` as a word and a head word (or a known abbreviation) when it reads as one."""
    import wordninja

    known = wordninja.DEFAULT_LANGUAGE_MODEL._wordcost
    if known.get(low, 99.0) < _COMMON_COST:  # a common word of its own (velocity, nickname)
        return None
    for i in range(len(low) - 2, 3, -1):  # the shortest head first; the first word 4+ letters
        first, head = low[:i], low[i:]
        if (head in _HEAD_WORDS or (head in ABBREVIATIONS and len(head) > 2)) and first in known:
            return [first, head]
    return None


def words_of(identifier: str) -> str:
    """An identifier as words: ``birth_date`` -> "birth date", ``departureTime`` -> "departure time",
    ``clubdesc`` -> "club description"."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", identifier)
    parts = [w for p in re.split(r"[_\W]+", text) if p for w in split_compound(p)]
    out = [ABBREVIATIONS.get(p.lower(), p.lower() if not p.isupper() or len(p) > 4 else p) for p in parts]
    return " ".join(out) or identifier
