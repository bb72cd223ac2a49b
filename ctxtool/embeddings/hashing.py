"""The built-in embedder: feature hashing of words and character n-grams. No model, no download.

Text is normalized (Unicode NFKD, accents stripped, lower case), split into words; each word, each
pair of neighbouring words and each character 3- and 4-gram of `` word `` is hashed with BLAKE2b
(stable across processes, unlike ``hash()``) to a bucket and a sign. Shared words and word pieces
("customers" / "customer") give similar vectors, which is what chat retrieval and value linking need
without a neural model. Deterministic: the same text gives the same vector on every machine.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from functools import lru_cache

_WORD = re.compile(r"[a-z0-9]+")

# weights of the feature families: whole words count most, n-grams catch inflections and typos
_WORD_WEIGHT = 1.0
_BIGRAM_WEIGHT = 0.5
_NGRAM_WEIGHT = 0.35


def normalize_text(text: str) -> str:
    """Lower case, accents stripped (``Brno - měst`` -> ``brno - mest``)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def words(text: str) -> list[str]:
    return _WORD.findall(normalize_text(text))


@lru_cache(maxsize=200_000)
def _bucket(feature: str, dim: int) -> tuple[int, float]:
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    return value % dim, (1.0 if (value >> 63) & 1 else -1.0)


class HashingEmbedder:
    """Feature-hashing embedder; ``dim`` buckets, L2-normalized output."""

    def __init__(self, dim: int = 384, ngrams: tuple[int, ...] = (3, 4)) -> None:
        if dim < 8:
            from ctxtool.errors import InputError

            raise InputError(f"hashing embedder dimension {dim} is too small: use at least 8 (default 384)")
        self._dim = dim
        self.ngrams = ngrams
        self.name = f"hash:{dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def features(self, text: str) -> dict[str, float]:
        """The weighted features of ``text`` (exposed for tests and debugging)."""
        feats: dict[str, float] = {}
        toks = words(text)
        for tok in toks:
            feats["w:" + tok] = feats.get("w:" + tok, 0.0) + _WORD_WEIGHT
            padded = f" {tok} "
            for n in self.ngrams:
                if len(padded) < n:
                    continue
                for i in range(len(padded) - n + 1):
                    key = "c:" + padded[i : i + n]
                    feats[key] = feats.get(key, 0.0) + _NGRAM_WEIGHT
        for a, b in zip(toks, toks[1:], strict=False):
            key = f"b:{a} {b}"
            feats[key] = feats.get(key, 0.0) + _BIGRAM_WEIGHT
        return feats

    def embed_one(self, text: str) -> list[float]:
        vec = [0.0] * self._dim
        for feat, weight in self.features(text).items():
            index, sign = _bucket(feat, self._dim)
            # sublinear term frequency: a word repeated ten times is not ten times as important
            vec[index] += sign * (1.0 + math.log(weight)) if weight > 1.0 else sign * weight
        norm = math.sqrt(math.fsum(x * x for x in vec))
        if norm == 0.0:
            return vec
        return [x / norm for x in vec]

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_one(t) for t in texts]
