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
from typing import Any

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


_QUERIES: dict[tuple[str, tuple[str, ...]], Any] = {}


def query_vectors(encoder: Any, texts: tuple[str, ...]) -> Any:
    """The question's vectors, shared by the template and facet indexes (one encoder pass a question)."""
    key = (encoder.name, texts)
    vec = _QUERIES.get(key)
    if vec is None:
        if len(_QUERIES) > 256:
            _QUERIES.clear()
        vec = _QUERIES[key] = encoder.embed_array(list(texts))
    return vec


class SemanticIndex:
    """Cosine similarity of a question to each item (its closest wording)."""

    def __init__(self, items: list[Compiled], encoder: Any) -> None:
        import numpy as np

        from ctxtool.embeddings.cache import cached_vectors

        self._np = np
        self.encoder = encoder
        texts: list[str] = []
        owner: list[int] = []
        for i, item in enumerate(items):
            extra = masked_wording(item)
            for t in [*wordings(item), *([extra] if extra else [])]:
                texts.append(t)
                owner.append(i)
        self.n = len(items)
        self.owner = np.array(owner, dtype=np.int64)
        # rows come grouped by item, in order: the first row of each item, for one reduceat per question
        self._starts = np.flatnonzero(np.r_[True, self.owner[1:] != self.owner[:-1]]) if owner else self.owner
        self._owners = self.owner[self._starts] if owner else self.owner
        self.vectors = cached_vectors(encoder, texts) if texts else np.zeros((0, encoder.dim), np.float32)
        self._last: tuple[str, Any] | None = None
        self._texts: dict[str, Any] = {}  # parts of the current question already embedded

    def _scores(self, question: str, spans: list[tuple[int, int]] | None = None) -> Any:
        np = self._np
        if self._last is not None and self._last[0] == question:
            return self._last[1]
        self._texts = {}
        # as written and with its values masked (one batch): the masked form alone loses 1.8 points of
        # covered accuracy on the Spider kit for ~3 ms
        texts = (question, masked(question, spans)) if spans else (question,)
        q = query_vectors(self.encoder, texts)
        per_row = (self.vectors @ q.T).max(axis=1)
        best = np.full(self.n, -1.0, dtype=np.float32)
        if len(per_row):
            best[self._owners] = np.maximum.reduceat(per_row, self._starts)
        self._last = (question, best)
        return best

    def nearest(self, question: str, k: int, spans: list[tuple[int, int]] | None = None) -> dict[int, float]:
        """The ``k`` most similar items -> cosine, most similar first (``spans``: the question's
        values, also compared masked)."""
        np = self._np
        if self.n == 0:
            return {}
        best = self._scores(question, spans)
        k = min(k, self.n)
        top = np.argpartition(-best, k - 1)[:k]
        top = top[np.argsort(-best[top])]
        return {int(i): float(best[i]) for i in top}

    def similarity(self, question: str, index: int) -> float:
        return float(self._scores(question)[index])

    def _vector(self, text: str) -> Any:
        vec = self._texts.get(text)
        if vec is None:
            vec = self._texts[text] = self.encoder.embed_array([text])[0]
        return vec

    def text_pair(self, a: str, b: str) -> float:
        """Cosine of two texts (embedded once per question)."""
        return float(self._vector(a) @ self._vector(b))

    def text_similarity(self, text: str, index: int) -> float:
        """Cosine of any text (a part of the question) with item ``index``'s closest wording."""
        np = self._np
        vec = self._texts.get(text)
        if vec is None:
            vec = self._texts[text] = self.encoder.embed_array([text])[0]
        rows = np.nonzero(self.owner == index)[0]
        return float((self.vectors[rows] @ vec).max()) if len(rows) else -1.0


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
