"""How a drafted question says things: plural labels, names, dates and ranges as people write them.

"the names", "the first names and last names", "in 1960", "in March 2024", "between 10 and 20":
small pieces shared by the schema drafts (:mod:`ctxtool.draft.questions`,
:mod:`ctxtool.draft.templates`) and the workload describer (:mod:`ctxtool.draft.describe`).
"""

from __future__ import annotations

import datetime as dt
import re

from ctxtool.draft.model import Column
from ctxtool.draft.names import pluralize

MONTHS = "January February March April May June July August September October November December".split()


def plural_label(col: Column) -> str:
    """A column's label for many rows: "names", "unit prices" (see :func:`plural_words`)."""
    return plural_words(col.label)


def plural_words(label: str) -> str:
    """A label for many rows: "name" -> "names", "date of birth" -> "dates of birth", "units in
    stock" stays; labels that are not nouns ("directed by", "founded") stay as they are."""
    m = re.match(r"(.+?)( (?:of|in|on|per|at|for) .+)$", label)
    if m:
        head = m.group(1)
        return (head if head.endswith("s") else pluralize(head)) + m.group(2)
    word = label.rsplit(" ", 1)[-1]
    if len(word) > 1 and word.isupper() and word.isalpha():
        return label + "s"  # "employee IDs", not "employee Ids"
    last = word.lower()
    if re.match(r"(?:how|what|where|when|why|which|who)\b", label.lower()):
        return label  # a question as a label ("how to get there")
    said = last.endswith("s") and not last.endswith("ss")  # "address", "class" are one
    if last in ("by", "of", "in", "at", "on", "to") or re.fullmatch(r"[a-z]+ed", last) or said:
        return label
    if not last.isalpha():
        return label
    return pluralize(label)


def verb(label: str) -> str:
    """ "is" or "are" for a label: "What are the bytes", "What is the unit price"."""
    if " and " in label:  # "the first name and last name" are two things
        return "are"
    last = label.rsplit(" ", 1)[-1].lower()
    plural = last.endswith("s") and not last.endswith(("ss", "us", "is", "ics"))
    return "are" if plural else "is"


def extremes(label: str) -> tuple[tuple[str, str], tuple[str, str]]:
    """The words for the top and the bottom of a measure, with their sort order: "the largest size
    in bytes" (not "the highest size"), else "the highest" / "the lowest"."""
    if label.lower().split()[:1] == ["size"]:
        return (("largest", "DESC"), ("smallest", "ASC"))
    return (("highest", "DESC"), ("lowest", "ASC"))


def and_list(words: list[str]) -> str:
    """ "a", "b", "c" -> "a, b and c"."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def the_names(cols: list[Column], n: int = 2) -> str:
    """The columns naming a row, for one row (``n`` = 1: "name") or many ("names"), joined by and."""
    words = [c.label if n == 1 else plural_label(c) for c in cols]
    return and_list(words) if words else "details"


def when(value: object) -> str | None:
    """A date or a period as people write it: "1960" -> "in 1960", "2024-03" -> "in March 2024",
    a date -> "on March 5, 2024"; None when it is not one."""
    text = str(value)
    if isinstance(value, (dt.date, dt.datetime)):
        return f"on {MONTHS[value.month - 1]} {value.day}, {value.year}"
    if re.fullmatch(r"\d{4}", text):
        return f"in {text}"
    m = re.fullmatch(r"(\d{4})-(\d{2})", text)
    if m and 1 <= int(m.group(2)) <= 12:
        return f"in {MONTHS[int(m.group(2)) - 1]} {m.group(1)}"
    m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})(?:[ T]00:00(?::00)?)?", text)
    if m and 1 <= int(m.group(2)) <= 12:
        return f"on {MONTHS[int(m.group(2)) - 1]} {int(m.group(3))}, {m.group(1)}"
    return None


def year_span(lo: str, hi: str) -> str | None:
    """A range that is exactly one year ("1960-01-01" up to "1961-01-01", or to "1960-12-31"): "in 1960"."""
    a = re.match(r"(\d{4})-01-01", lo)
    b = re.match(r"(\d{4})-(\d{2})-(\d{2})", hi)
    if not a or not b:
        return None
    year = int(a.group(1))
    end = (int(b.group(1)), b.group(2), b.group(3))
    if end in ((year + 1, "01", "01"), (year, "12", "31")):
        return f"in {year}"
    return None
