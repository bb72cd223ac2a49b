"""English lemmas: every dictionary form of a word by part of speech, from lemminflect's lexicon.

The same answers as ``lemminflect.getAllLemmas(word)`` (its lookup table and its overrides, the
case of the word kept), read from lemminflect's own data files where they lie
(:class:`~ctxtool.english.sortedlines.SortedLines`): importing lemminflect would import numpy for
its out-of-vocabulary model, which ctxtool does not use, and would build a dictionary of all 80,000
words before the first answer.
"""

from __future__ import annotations

import gzip
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path

from ctxtool.english.sortedlines import SortedLines

__all__ = ["available", "forms"]


def _resources() -> Path | None:
    spec = find_spec("lemminflect")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "resources"


def _upos(category: str) -> str:
    upos = category.upper()
    return "AUX" if upos == "MODAL" else upos


@lru_cache(maxsize=1)
def _tables() -> tuple[SortedLines, dict[str, dict[str, tuple[str, ...]]]] | None:
    folder = _resources()
    if folder is None:
        return None
    try:
        lookup = SortedLines(gzip.decompress((folder / "lemma_lu.csv.gz").read_bytes()), b",")
        overrides: dict[str, dict[str, tuple[str, ...]]] = {}
        for line in (folder / "lemma_overrides.csv").read_text().splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                word, pos, form = line.split(",")
                overrides.setdefault(word, {})[pos] = (form,)
    except OSError:
        return None
    return lookup, overrides


def available() -> bool:
    """Whether lemminflect's lexicon is installed."""
    return _tables() is not None


def _caps(word: str, style: str) -> str:
    if style == "all_upper":
        return word.upper()
    if style == "first_upper":
        return word.capitalize()
    return word.lower()


@lru_cache(maxsize=50_000)
def _forms(word: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    tables = _tables()
    if tables is None:
        return ()
    lookup, overrides = tables
    style = "all_upper" if word.isupper() else "first_upper" if word and word[0].isupper() else "lower"
    low = word.lower()
    found: dict[str, tuple[str, ...]] = {}
    for rest in lookup.get(low):
        category, spellings = rest.split(",")
        found[_upos(category)] = tuple(spellings.split("/"))
    found.update(overrides.get(low, {}))
    return tuple((pos, tuple(_caps(f, style) for f in fs)) for pos, fs in found.items())


def forms(word: str) -> dict[str, tuple[str, ...]]:
    """Part of speech (NOUN, VERB, ADJ, ADV, AUX, ...) -> the word's dictionary forms; empty when
    the lexicon does not know the word (or is not installed)."""
    return dict(_forms(word))
