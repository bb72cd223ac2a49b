"""Finding candidates by meaning: the question's sentence vector against every template wording's.

Words alone miss "the smallest amount of horsepower" for "the minimum horsepower"; a pretrained
sentence encoder (all-MiniLM-L6-v2, see :mod:`ctxtool.embeddings.minilm`) puts such paraphrases
close together. The set's vectors are computed once and cached by content hash; a question costs
one encoder pass and one matrix product. Similarity only proposes: it cannot tell "most" from
"fewest", so the matcher's checks (values, polarity, entities) still decide.

``CTXTOOL_MATCHER`` chooses: ``hybrid`` (the default: encoder plus words) or ``lexical`` (words
only, also what happens when the encoder is not installed, with a warning on each answer).
"""

from __future__ import annotations

import os
from array import array
from operator import mul
from typing import Any

from ctxtool.embeddings.cache import cached_rows, floats
from ctxtool.errors import InputError
from ctxtool.placeholders import find_text_placeholders
from ctxtool.runtime.templates.compiled import Compiled

MATCHERS = ("hybrid", "lexical")


def wordings(item: Compiled) -> list[str]:
    """The texts of an item that read as a question: its question and intent as written (with their
    example values), else its manifest ("... a given city")."""
    out: list[str] = []
    for text in (item.data.get("nl_query"), item.intent):
        if isinstance(text, str) and text.strip() and text.strip() not in out:
            out.append(text.strip())
    if not out and item.manifest:
        out.append(item.manifest)
    if not out and item.parameterized_intent:
        out.append(item.parameterized_intent)
    return out


MASK = "something"


def masked(text: str, spans: list[tuple[int, int]], mask: str = MASK) -> str:
    """``text`` with each value span replaced by a neutral word, so that a question and a template
    that differ only in their values ("... in Leeds?" / "... in New York City?") read the same."""
    out, last = [], 0
    for a, b in sorted(spans):
        if a < last:
            continue
        out.append(text[last:a])
        out.append(mask)
        last = b
    out.append(text[last:])
    return "".join(out)


def placeholder_spans(item: Compiled) -> list[tuple[int, int]]:
    return [(p.start, p.end) for p in find_text_placeholders(item.parameterized_intent, item.dialect)]


def masked_wording(item: Compiled) -> str | None:
    """The parameterized intent with its placeholders masked (None when it has none)."""
    spans = placeholder_spans(item)
    return masked(item.parameterized_intent, spans) if spans else None


# rows (wordings) up to which a question is scored in plain Python: numpy's import costs a process
# more than the products of a small set (~70 ms against ~1 ms for 40 wordings); a larger set is
# scored with numpy, as before
SMALL = 1024

_QUERIES: dict[tuple[str, tuple[str, ...]], list[bytes]] = {}
# every text an index of this process holds, with its vector (float32 bytes): a question in one of
# the set's own wordings (or a part of it that is one) needs no encoder pass, so the encoder is not
# even loaded
_KNOWN: dict[tuple[str, str], bytes] = {}


def _known(encoder: Any, texts: list[str], rows: list[bytes]) -> None:
    if len(_KNOWN) > 200_000:
        _KNOWN.clear()
    for text, row in zip(texts, rows, strict=True):
        _KNOWN.setdefault((encoder.name, text), row)


def embed(encoder: Any, texts: list[str]) -> list[bytes]:
    """The vectors of ``texts`` (float32 bytes): those an index holds already, the others from the
    encoder."""
    found = [_KNOWN.get((encoder.name, t)) for t in texts]
    missing = [t for t, v in zip(texts, found, strict=True) if v is None]
    if missing:
        fresh = iter([row.astype("<f4").tobytes() for row in encoder.embed_array(missing)])
        found = [v if v is not None else next(fresh) for v in found]
    return found  # type: ignore[return-value]


def query_vectors(encoder: Any, texts: tuple[str, ...]) -> list[bytes]:
    """The question's vectors, shared by the template and facet indexes (one encoder pass a question)."""
    key = (encoder.name, texts)
    vec = _QUERIES.get(key)
    if vec is None:
        if len(_QUERIES) > 256:
            _QUERIES.clear()
        vec = _QUERIES[key] = embed(encoder, list(texts))
    return vec


def _float32(x: float) -> float:
    """``x`` as numpy's float32 products give it (the numpy path's similarities are float32)."""
    return array("f", (x,))[0]


def _dot(a: array, b: array) -> float:
    return sum(map(mul, a, b))


class SemanticIndex:
    """Cosine similarity of a question to each item (its closest wording)."""

    def __init__(self, items: list[Compiled], encoder: Any) -> None:
        self.encoder = encoder
        texts: list[str] = []
        owner: list[int] = []
        for i, item in enumerate(items):
            extra = masked_wording(item)
            for t in [*wordings(item), *([extra] if extra else [])]:
                texts.append(t)
                owner.append(i)
        self.n = len(items)
        self._owner = owner
        rows = cached_rows(encoder, texts) if texts else []
        _known(encoder, texts, rows)
        self._rows: list[array] | None = None
        self._np: Any = None
        if len(rows) <= SMALL:
            self._rows = [floats(r) for r in rows]
        else:
            # numpy (a large set): one matrix product and one reduceat per question
            import numpy as np

            self._np = np
            self.vectors = np.frombuffer(b"".join(rows), dtype="<f4").reshape(len(rows), encoder.dim)
            owners = np.array(owner, dtype=np.int64)
            # rows come grouped by item, in order: the first row of each item
            self._starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
            self._owners = owners[self._starts]
        self._last: tuple[str, Any] | None = None
        self._texts: dict[str, array] = {}  # parts of the current question already embedded

    def _scores(self, question: str, spans: list[tuple[int, int]] | None = None) -> Any:
        if self._last is not None and self._last[0] == question:
            return self._last[1]
        self._texts = {}
        # as written and with its values masked (one batch): the masked form alone loses 1.8 points of
        # covered accuracy on the Spider kit for ~3 ms
        texts = (question, masked(question, spans)) if spans else (question,)
        query = query_vectors(self.encoder, texts)
        if self._rows is not None:
            qs = [floats(q) for q in query]
            best = [-1.0] * self.n
            for item, row in zip(self._owner, self._rows, strict=True):
                best[item] = max(best[item], *(_dot(row, q) for q in qs))
            scores: Any = [_float32(b) for b in best]
        else:
            np = self._np
            q = np.frombuffer(b"".join(query), dtype="<f4").reshape(len(query), -1)
            per_row = (self.vectors @ q.T).max(axis=1)
            scores = np.full(self.n, -1.0, dtype=np.float32)
            if len(per_row):
                scores[self._owners] = np.maximum.reduceat(per_row, self._starts)
        self._last = (question, scores)
        return scores

    def nearest(self, question: str, k: int, spans: list[tuple[int, int]] | None = None) -> dict[int, float]:
        """The ``k`` most similar items -> cosine, most similar first (``spans``: the question's
        values, also compared masked)."""
        if self.n == 0:
            return {}
        best = self._scores(question, spans)
        k = min(k, self.n)
        if self._rows is not None:
            top = sorted(range(self.n), key=lambda i: -best[i])[:k]
            return {i: float(best[i]) for i in top}
        np = self._np
        order = np.argpartition(-best, k - 1)[:k]
        order = order[np.argsort(-best[order])]
        return {int(i): float(best[i]) for i in order}

    def similarity(self, question: str, index: int) -> float:
        return float(self._scores(question)[index])

    def _vector(self, text: str) -> array:
        vec = self._texts.get(text)
        if vec is None:
            vec = self._texts[text] = floats(embed(self.encoder, [text])[0])
        return vec

    def text_pair(self, a: str, b: str) -> float:
        """Cosine of two texts (embedded once per question)."""
        return _float32(_dot(self._vector(a), self._vector(b)))


def matcher_mode(mode: str | None = None) -> str:
    mode = (mode or os.environ.get("CTXTOOL_MATCHER") or "hybrid").strip().lower()
    if mode not in MATCHERS:
        raise InputError(f"unknown matcher {mode!r} (CTXTOOL_MATCHER): use {' or '.join(MATCHERS)}")
    return mode


def semantic_index(items: list[Compiled], mode: str | None = None) -> tuple[SemanticIndex | None, str | None]:
    """The semantic index for ``items`` in the chosen mode, and a warning when the encoder is missing."""
    if matcher_mode(mode) == "lexical" or not items:
        return None, None
    from ctxtool.embeddings import minilm

    if not minilm.available():
        return None, (
            "the sentence encoder is not installed, so questions are matched by their words only: "
            + minilm.INSTALL_HINT
        )
    return SemanticIndex(items, minilm.shared()), None
