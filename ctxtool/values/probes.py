"""Probe values for testing a value search, and the measures computed from its answers.

From values sampled out of the searched column, :func:`make_probes` derives what users really type:
the value itself, misspellings (a letter dropped, doubled, two neighbours swapped, the case
changed), a part of it (one word of several), and values that must not match anything. Everything
is deterministic for a given seed so two runs of ``test-values`` probe the same strings.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

KINDS = ("exact", "misspelling", "partial", "nomatch")
_STOP = {"the", "of", "and", "de", "la", "le", "du", "del", "airport", "international", "a", "an", "-"}


@dataclass(frozen=True)
class Probe:
    kind: str  # exact | misspelling | partial | nomatch
    text: str  # what is bound to $value
    expected: str | None  # the stored value a good search returns (None for nomatch)
    how: str = ""  # "dropped 'a'", "swapped 'ht'", "word 2 of 3"...


def _letters(value: str) -> list[int]:
    return [i for i, c in enumerate(value) if c.isalpha()]


def misspellings(value: str, rng: random.Random) -> list[Probe]:
    """A dropped, a doubled and a swapped letter, and a case change, of ``value``.

    Values shorter than four letters get only the case change: one edit in a three-letter code
    makes another plausible code, not a misspelling."""
    out: list[Probe] = []
    letters = _letters(value)
    if len(letters) >= 4:
        inner = letters[1:-1] or letters
        i = rng.choice(inner)
        out.append(Probe("misspelling", value[:i] + value[i + 1 :], value, f"dropped {value[i]!r}"))
        i = rng.choice(inner)
        out.append(Probe("misspelling", value[: i + 1] + value[i:], value, f"doubled {value[i]!r}"))
        pairs = [
            i
            for i in letters[1:-1]
            if i + 1 < len(value) and value[i + 1].isalpha() and value[i] != value[i + 1]
        ]
        if pairs:
            i = rng.choice(pairs)
            swapped = value[:i] + value[i + 1] + value[i] + value[i + 2 :]
            out.append(Probe("misspelling", swapped, value, f"swapped {value[i : i + 2]!r}"))
    if any(c.isalpha() for c in value):
        changed = value.lower() if value != value.lower() else value.upper()
        if changed != value:
            out.append(Probe("misspelling", changed, value, "case"))
    return out


def partials(value: str, rng: random.Random) -> list[Probe]:
    """One distinctive word of a multi-word value (``London Heathrow`` -> ``Heathrow``)."""
    words = [w for w in re.split(r"[\s/,()]+", value) if w]
    if len(words) < 2:
        return []
    candidates = [w for w in words if len(w) >= 4 and w.lower() not in _STOP] or [
        w for w in words if len(w) >= 3
    ]
    if not candidates:
        return []
    word = max(candidates, key=lambda w: (len(w), -words.index(w)))
    return [Probe("partial", word, value, f"word {words.index(word) + 1} of {len(words)}")]


_CONSONANTS = "bcdfghjklmnpqrstvwxz"


def nomatch(rng: random.Random, existing: Iterable[str] = (), n: int = 3) -> list[Probe]:
    """Strings no real column holds: consonant clusters and digits (``Xqzv Kwrtp 4817``)."""
    taken = {str(v).lower() for v in existing}
    out: list[Probe] = []
    while len(out) < n:
        words = [
            "".join(rng.choice(_CONSONANTS) for _ in range(rng.randint(4, 6))).capitalize() for _ in range(2)
        ]
        text = f"{words[0]} {words[1]} {rng.randint(1000, 9999)}"
        if text.lower() not in taken:
            out.append(Probe("nomatch", text, None, "nonsense"))
    return out


def make_probes(samples: Sequence[str], seed: int = 0, nomatch_count: int = 3) -> list[Probe]:
    """Every probe for the sampled values of one column, in a stable order."""
    rng = random.Random(seed)
    probes: list[Probe] = []
    for value in samples:
        probes.append(Probe("exact", value, value, "sampled"))
    for value in samples:
        probes.extend(misspellings(value, rng))
    for value in samples:
        probes.extend(partials(value, rng))
    probes.extend(nomatch(rng, samples, nomatch_count))
    return probes


# --------------------------------------------------------------------------- measures


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q`` quantile (0..1) by nearest rank; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q * len(ordered)))
    return ordered[rank - 1]


def hit_at(expected: str, returned: Sequence[str], k: int = 5) -> bool:
    """Whether ``expected`` is among the first ``k`` returned values."""
    return expected in list(returned)[:k]


def ratio(hits: int, total: int) -> float | None:
    return hits / total if total else None
