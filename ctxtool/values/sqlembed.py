"""A deterministic hashing embedder that runs inside PostgreSQL, with its exact Python twin.

A semantic value search must embed ``$value`` in the query itself (the runtime binds only the
text), so the embedding has to come from a SQL function. AlloyDB has ``google_ml.embedding``; plain
PostgreSQL with pgvector has none, so ctxtool ships this one: character trigrams and words of the
ASCII-lower-cased text, hashed with ``md5`` into ``dim`` signed buckets (feature hashing). It needs
no model and no network, it is ``IMMUTABLE`` (usable in a generated column), and
:func:`embed` computes the same vector in Python, so tests and tools can fill or check the stored
embeddings outside the database. It matches spellings, not meanings: replace it with a model's
embedding function (``--embedding-function``) for that.
"""

from __future__ import annotations

import hashlib
import math

DEFAULT_DIM = 256
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_ASCII_LOWER = str.maketrans(_UPPER, _LOWER)


def function_name(dim: int = DEFAULT_DIM) -> str:
    return f"ctxtool_embed_{dim}"


def features(text: str) -> list[str]:
    """The hashed features of ``text``: a bias, its character trigrams (padded) and its words."""
    lowered = text.translate(_ASCII_LOWER)
    padded = f" {lowered} "
    out = ["#bias"]
    out.extend(padded[k : k + 3] for k in range(len(padded) - 2))
    out.extend("w:" + w for w in lowered.split(" ") if w)
    return out


def embed(text: str, dim: int = DEFAULT_DIM) -> list[float]:
    """The vector ``ctxtool_embed_<dim>(text)`` returns in PostgreSQL (not normalized)."""
    vec = [0.0] * dim
    for feat in features(text):
        h = hashlib.md5(feat.encode("utf-8")).hexdigest()
        bucket = int(h[:7], 16) % dim
        vec[bucket] += 1.0 if int(h[7], 16) < 8 else -1.0
    return vec


def cosine_distance(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return 1.0 - dot / (na * nb) if na and nb else 1.0


def create_function_sql(dim: int = DEFAULT_DIM) -> str:
    """``CREATE OR REPLACE FUNCTION ctxtool_embed_<dim>(text) RETURNS vector`` (needs pgvector)."""
    return (
        f"CREATE OR REPLACE FUNCTION {function_name(dim)}(t text) RETURNS vector\n"
        "LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $ctxtool$\n"
        "SELECT array_agg(coalesce(w.s, 0)::real ORDER BY d.i)::vector\n"
        f"FROM generate_series(0, {dim - 1}) AS d(i)\n"
        "LEFT JOIN (\n"
        f"  SELECT ('x' || substr(h, 1, 7))::bit(28)::int % {dim} AS b,\n"
        "         sum(CASE WHEN ('x' || substr(h, 8, 1))::bit(4)::int < 8 THEN 1 ELSE -1 END) AS s\n"
        "  FROM (\n"
        "    SELECT md5(f.g) AS h FROM (\n"
        "      SELECT '#bias' AS g\n"
        "      UNION ALL\n"
        "      SELECT substr(p.s, k, 3) FROM (SELECT ' ' || translate(t, "
        f"'{_UPPER}', '{_LOWER}') || ' ' AS s) p,\n"
        "        generate_series(1, length(p.s) - 2) AS k\n"
        "      UNION ALL\n"
        f"      SELECT 'w:' || x FROM unnest(string_to_array(translate(t, '{_UPPER}', '{_LOWER}'), ' ')) AS x\n"
        "      WHERE x <> ''\n"
        "    ) f\n"
        "  ) hs\n"
        "  GROUP BY 1\n"
        ") w ON w.b = d.i\n"
        "$ctxtool$"
    )
