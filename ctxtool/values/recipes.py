"""Value-search SQL per engine: the query a runtime runs with ``$value`` and the DDL it needs.

Every query projects exactly ``value, columns, concept_type, distance, context`` with ``distance``
in [0, 1] and 0 meaning the stored value equals ``$value``. ``$value`` is always a bound parameter.
The recipes follow the engines' documented search features:

- PostgreSQL: ``exact`` (``=``), ``trigram`` (``pg_trgm``: ``<->`` distance; ``%`` for misspellings
  and ``ILIKE '%' || $value || '%'`` for parts of names, both served by a GIN ``gin_trgm_ops`` index;
  plus ``soundex`` from ``fuzzystrmatch`` with an expression index, where the server has it, for
  short words a trigram cannot recover), ``semantic`` (``pgvector`` cosine ``<=>`` / 2 against a stored
  embedding column with an HNSW index; the embedding of ``$value`` comes from a SQL function:
  ``google_ml.embedding`` on AlloyDB, else ctxtool's deterministic hashing embedder
  :mod:`ctxtool.values.sqlembed`, which a user may replace by their own model function).
- MySQL 8: ``exact``; ``trigram`` = FULLTEXT ``WITH PARSER ngram`` and ``MATCH ... AGAINST``.
- MariaDB (no ngram parser): ``exact``; ``trigram`` = FULLTEXT natural-language match on words plus a
  ``SOUNDEX`` of the whole value kept in an indexed generated column (misspellings).
- Spanner: ``exact`` (``CAST(... AS STRING)``); ``trigram`` = ``SEARCH_NGRAMS`` / ``SCORE_NGRAMS``
  over a ``TOKENLIST`` column built with ``TOKENIZE_NGRAMS`` and a search index, plus an indexed
  ``SOUNDEX`` column for short misspelt words (rows with no shared n-gram are dropped).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ctxtool.errors import InputError

MATCHES = ("exact", "trigram", "semantic")
MATCH_ALIASES = {"exact": "exact", "trigram": "trigram", "fuzzy": "trigram", "semantic": "semantic"}
DEFAULT_LIMIT = 10
DEFAULT_SEMANTIC_MAX_DISTANCE = 0.35  # cosine similarity >= 0.3
ALLOYDB_DEFAULT_MODEL = "text-embedding-005"
ALLOYDB_DEFAULT_DIM = 768

_TEXT_TYPES = re.compile(
    r"^(text|citext|character varying|varchar|character|char|bpchar|name|string|tinytext|mediumtext|longtext|enum)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Server:
    """What a recipe needs to know about the server: engine, flavour and installed extensions.

    ``available`` lists extensions that can be created (``CREATE EXTENSION`` in the DDL) but are not
    installed yet; it is known only when drafting against a live database.
    """

    engine: str  # postgres | mysql | spanner
    flavour: str = ""  # postgresql | alloydb | mysql | mariadb | spanner-googlesql | ...
    extensions: tuple[str, ...] = ()
    available: tuple[str, ...] = ()

    @property
    def is_mariadb(self) -> bool:
        return self.engine == "mysql" and "mariadb" in self.flavour.lower()

    @property
    def is_spanner_pg(self) -> bool:
        """A PostgreSQL-dialect Spanner database (PostgreSQL syntax, Spanner features)."""
        return self.engine == "spanner" and "postgres" in self.flavour.lower()

    @property
    def is_alloydb(self) -> bool:
        return self.engine == "postgres" and (
            self.flavour == "alloydb" or "google_ml_integration" in self.extensions
        )

    def has(self, extension: str) -> bool:
        return extension in self.extensions

    def can_have(self, extension: str) -> bool:
        return extension in self.extensions or extension in self.available


def server_from_snapshot(snapshot: dict) -> Server:
    """The :class:`Server` a snapshot describes (see ``schemas/schema_snapshot.schema.json``)."""
    engine = str(snapshot.get("engine") or snapshot.get("dialect") or "postgres").lower()
    engine = {"postgresql": "postgres", "alloydb": "postgres", "mariadb": "mysql"}.get(engine, engine)
    flavour = str(snapshot.get("flavour") or engine)
    return Server(engine, flavour, tuple(str(e) for e in snapshot.get("extensions") or ()))


@dataclass(frozen=True)
class Target:
    """One column a value search covers."""

    table: str
    column: str
    schema: str | None = None  # None: the default schema/database of the connection
    type: str = "text"
    virtual: bool = False  # a virtual generated column: computed when read, nothing to index

    @property
    def label(self) -> str:
        """``table.column`` as the ``columns`` output names it (``schema.table.column`` outside
        the default schema, so that the search names the table it reads)."""
        return f"{self.schema}.{self.table}.{self.column}" if self.schema else f"{self.table}.{self.column}"

    @property
    def is_text(self) -> bool:
        t = self.type.strip()
        return bool(_TEXT_TYPES.match(t)) and not t.endswith("]") and not t.lower().startswith("array")

    @property
    def is_padded(self) -> bool:
        """PostgreSQL ``character(n)``: values come back blank-padded; ``::text`` trims them."""
        return bool(re.match(r"^(character|bpchar)\s*(\(|$)", self.type.strip(), re.IGNORECASE))

    @property
    def is_enum(self) -> bool:
        """An enumerated type (PostgreSQL's, compared through ``::text``; MySQL's ``ENUM(...)``)."""
        t = self.type.strip().lower()
        return t == "enum" or t.startswith("enum(")

    @property
    def native(self) -> bool:
        """Compared as text without a cast (not padded, not a PostgreSQL enum, not a number)."""
        return self.is_text and not self.is_padded and self.type.strip().lower() != "enum"


@dataclass
class Recipe:
    """A drafted value search and the DDL it needs to be fast (or to work at all)."""

    target: Target
    match: str
    concept_type: str
    query: str
    description: str
    ddl: list[str] = field(default_factory=list)
    ddl_required: bool = False  # True when the query fails without the DDL (not just slower)
    notes: list[str] = field(default_factory=list)

    def value_search(self) -> dict:
        """The ``value_searches`` entry of a context set."""
        return {"query": self.query, "concept_type": self.concept_type, "description": self.description}


# --------------------------------------------------------------------------- quoting and naming


def quote_ident(name: str, engine: str) -> str:
    if engine == "postgres":
        return '"' + name.replace('"', '""') + '"'
    return "`" + name.replace("`", "``") + "`"


def quote_literal(text: str) -> str:
    """A SQL string literal (single quotes doubled), for identifiers and labels ctxtool writes itself."""
    return "'" + text.replace("'", "''") + "'"


def _mysql_literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "''") + "'"


def _table_ref(target: Target, engine: str) -> str:
    if target.schema and not (engine == "postgres" and target.schema == "public"):
        return f"{quote_ident(target.schema, engine)}.{quote_ident(target.table, engine)}"
    return quote_ident(target.table, engine)


def object_name(prefix: str, target: Target, limit: int = 63) -> str:
    """A deterministic, length-limited name for an index or column ctxtool adds."""
    base = re.sub(r"[^a-z0-9_]+", "_", f"{prefix}_{target.table}_{target.column}".lower()).strip("_")
    if len(base) <= limit:
        return base
    digest = hashlib.sha1(base.encode()).hexdigest()[:8]
    return f"{base[: limit - 9]}_{digest}"


def _helper_column(target: Target, suffix: str) -> str:
    name = f"{target.column}_{suffix}"
    return name if len(name) <= 63 else object_name(suffix, target)


def supported_matches(server: Server) -> list[str]:
    """The match kinds this server can run (installed or, live, creatable extensions count)."""
    out = ["exact"]
    if server.engine == "postgres":
        if server.can_have("pg_trgm"):
            out.append("trigram")
        if server.can_have("vector"):
            out.append("semantic")
    elif server.engine == "mysql" or (server.engine == "spanner" and not server.is_spanner_pg):
        out.append("trigram")
    return out


def normalize_match(match: str) -> str:
    try:
        return MATCH_ALIASES[match.strip().lower()]
    except KeyError:
        raise InputError(f"unknown match {match!r}: use exact, trigram or semantic") from None


# --------------------------------------------------------------------------- the recipes


def build(
    server: Server,
    target: Target,
    concept_type: str,
    match: str,
    *,
    limit: int = DEFAULT_LIMIT,
    embedding_function: str | None = None,
    embedding_dim: int | None = None,
    max_distance: float = DEFAULT_SEMANTIC_MAX_DISTANCE,
) -> Recipe:
    """Draft the value search of ``match`` kind for ``target`` on ``server``.

    Raises :class:`InputError` when the server cannot run that kind of search (for example
    ``semantic`` on Spanner, or ``trigram`` on PostgreSQL without ``pg_trgm``).
    """
    match = normalize_match(match)
    if match not in supported_matches(server):
        raise InputError(_unsupported(server, match))
    if server.engine == "postgres":
        if match == "exact":
            return _pg_exact(target, concept_type, limit)
        if match == "trigram":
            return _pg_trigram(server, target, concept_type, limit)
        return _pg_semantic(
            server, target, concept_type, limit, embedding_function, embedding_dim, max_distance
        )
    if server.engine == "mysql":
        if match == "exact":
            return _mysql_exact(target, concept_type, limit)
        if server.is_mariadb:
            return _mariadb_fuzzy(target, concept_type, limit)
        return _mysql_ngram(target, concept_type, limit)
    if server.is_spanner_pg:
        return _pg_exact(target, concept_type, limit, spanner=True)
    if server.engine == "spanner":
        if match == "exact":
            return _spanner_exact(target, concept_type, limit)
        return _spanner_ngrams(target, concept_type, limit)
    raise InputError(f"unknown engine {server.engine!r}: use postgres, mysql or spanner")


def _unsupported(server: Server, match: str) -> str:
    if server.engine == "postgres" and match == "trigram":
        return (
            "trigram search needs the pg_trgm extension, which this server does not have; use --match exact"
        )
    if server.engine == "postgres" and match == "semantic":
        return "semantic search needs the vector (pgvector) extension, which this server does not have"
    if match == "semantic":
        return f"{server.engine} has no semantic value search in the context-set format; use exact or trigram"
    return f"{match} search is not available on {server.flavour or server.engine}"


def _pg_exact(target: Target, concept_type: str, limit: int, *, spanner: bool = False) -> Recipe:
    col = quote_ident(target.column, "postgres")
    lhs = f"T.{col}" if target.native else f"T.{col}::text"
    query = (
        f"SELECT value, {quote_literal(target.label)} AS columns, {quote_literal(concept_type)} AS concept_type,\n"
        "  0::float8 AS distance, '{}'::jsonb AS context\n"
        f"FROM (SELECT DISTINCT {lhs} AS value FROM {_table_ref(target, 'postgres')} T WHERE {lhs} = $value::text) S\n"
        f"ORDER BY value\nLIMIT {limit}"
    )
    name = object_name("ctx_eq", target)
    exists = "" if spanner else "IF NOT EXISTS "
    expr = col if target.native else f"({col}::text)"
    ddl = [f"CREATE INDEX {exists}{name} ON {_table_ref(target, 'postgres')} ({expr})"]
    if target.is_enum:
        ddl = []  # an enum's text is no immutable expression to index (and it has few values)
    return Recipe(target, "exact", concept_type, query, f"Exact match on {target.label}", ddl)


def _pg_trigram(server: Server, target: Target, concept_type: str, limit: int) -> Recipe:
    col = quote_ident(target.column, "postgres")
    c = f"T.{col}" if target.native else f"T.{col}::text"
    phonetic = server.can_have("fuzzystrmatch")
    sounds = (
        f"\n     OR (soundex({c}) = soundex($value::text) AND soundex($value::text) <> '')"
        if phonetic
        else ""
    )
    query = (
        "WITH matches AS (\n"
        f"  SELECT {c} AS value, {c} <-> $value::text AS distance\n"
        f"  FROM {_table_ref(target, 'postgres')} T\n"
        f"  WHERE {c} % $value::text OR {c} ILIKE '%' || $value::text || '%'{sounds}\n"
        ")\n"
        f"SELECT value, {quote_literal(target.label)} AS columns, {quote_literal(concept_type)} AS concept_type,\n"
        "  CASE WHEN value = $value::text THEN 0 ELSE greatest(0.01, min(distance)) END::float8 AS distance,\n"
        "  '{}'::jsonb AS context\n"
        "FROM matches\n"
        "GROUP BY value\n"
        f"ORDER BY distance, value\nLIMIT {limit}"
    )
    ddl = []
    if not server.has("pg_trgm"):
        ddl.append("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    expr = col if target.native else f"({col}::text)"
    ddl.append(
        f"CREATE INDEX IF NOT EXISTS {object_name('ctx_trgm', target)} ON {_table_ref(target, 'postgres')} "
        f"USING gin ({expr} gin_trgm_ops)"
    )
    if target.is_enum:
        ddl = [s for s in ddl if s.startswith("CREATE EXTENSION")]
    if phonetic:
        if not server.has("fuzzystrmatch"):
            ddl.append("CREATE EXTENSION IF NOT EXISTS fuzzystrmatch")
        if not target.is_enum:
            ddl.append(
                f"CREATE INDEX IF NOT EXISTS {object_name('ctx_sx', target)} ON {_table_ref(target, 'postgres')} "
                f"((soundex({col if target.native else col + '::text'})))"
            )
    return Recipe(
        target,
        "trigram",
        concept_type,
        query,
        f"Trigram similarity on {target.label} (pg_trgm; misspellings and partial names"
        + (", SOUNDEX for short words)" if phonetic else ")"),
        ddl,
        ddl_required=not server.has("pg_trgm") or (phonetic and not server.has("fuzzystrmatch")),
    )


def _pg_semantic(
    server: Server,
    target: Target,
    concept_type: str,
    limit: int,
    embedding_function: str | None,
    embedding_dim: int | None,
    max_distance: float,
) -> Recipe:
    from ctxtool.values import sqlembed

    col = quote_ident(target.column, "postgres")
    emb_col = _helper_column(target, "embedding")
    e = quote_ident(emb_col, "postgres")
    table = _table_ref(target, "postgres")
    ddl: list[str] = []
    notes: list[str] = []
    if not server.has("vector"):
        ddl.append("CREATE EXTENSION IF NOT EXISTS vector")
    if embedding_function:
        dim = embedding_dim or sqlembed.DEFAULT_DIM
        embed = lambda arg: f"{embedding_function}({arg})"  # noqa: E731
        notes.append(f"{embedding_function}(text) must return vector({dim}) and be IMMUTABLE")
    elif server.is_alloydb:
        dim = embedding_dim or ALLOYDB_DEFAULT_DIM
        model = quote_literal(ALLOYDB_DEFAULT_MODEL)
        embed = lambda arg: f"google_ml.embedding({model}, {arg})::vector"  # noqa: E731
        if not server.has("google_ml_integration"):
            ddl.append("CREATE EXTENSION IF NOT EXISTS google_ml_integration")
    else:
        dim = embedding_dim or sqlembed.DEFAULT_DIM
        fn = sqlembed.function_name(dim)
        embed = lambda arg: f"{fn}({arg})"  # noqa: E731
        ddl.append(sqlembed.create_function_sql(dim))
        notes.append(
            f"{fn} is ctxtool's deterministic hashing embedder (lexical, no model); replace it with a "
            "model's embedding function (--embedding-function) for meaning-based matches"
        )
    source = col if target.native else f"{col}::text"
    ddl.append(
        f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {e} vector({dim}) "
        f"GENERATED ALWAYS AS ({embed(source)}) STORED"
    )
    ddl.append(
        f"CREATE INDEX IF NOT EXISTS {object_name('ctx_hnsw', target)} ON {table} USING hnsw ({e} vector_cosine_ops)"
    )
    value = f"T.{col}" if target.native else f"T.{col}::text"
    query = (
        "WITH nearest AS (\n"
        f"  SELECT {value} AS value, (T.{e} <=> (SELECT {embed('$value::text')})) / 2 AS distance\n"
        f"  FROM {table} T\n"
        f"  ORDER BY T.{e} <=> (SELECT {embed('$value::text')})\n"
        f"  LIMIT {limit * 4}\n"
        ")\n"
        f"SELECT value, {quote_literal(target.label)} AS columns, {quote_literal(concept_type)} AS concept_type,\n"
        "  CASE WHEN value = $value::text THEN 0::float8\n"
        "       ELSE least(1, greatest(0.000001, min(distance)))::float8 END AS distance, '{}'::jsonb AS context\n"
        "FROM nearest\n"
        f"WHERE distance <= {max_distance}\n"
        "GROUP BY value\n"
        f"ORDER BY 4, value\nLIMIT {limit}"
    )
    return Recipe(
        target,
        "semantic",
        concept_type,
        query,
        f"Embedding (cosine) similarity on {target.label}",
        ddl,
        ddl_required=True,
        notes=notes,
    )


def _mysql_exact(target: Target, concept_type: str, limit: int) -> Recipe:
    c = f"T.{quote_ident(target.column, 'mysql')}"
    lhs = c if target.is_text else f"CAST({c} AS CHAR)"
    query = (
        f"SELECT DISTINCT {lhs} AS value, {_mysql_literal(target.label)} AS columns, "
        f"{_mysql_literal(concept_type)} AS concept_type, 0.0 AS distance, JSON_OBJECT() AS context\n"
        f"FROM {_table_ref(target, 'mysql')} T\n"
        f"WHERE {lhs} = $value\n"
        f"LIMIT {limit}"
    )
    ddl = []
    if target.is_text:
        ddl.append(
            f"CREATE INDEX {object_name('ctx_eq', target, 64)} ON {_table_ref(target, 'mysql')} "
            f"({quote_ident(target.column, 'mysql')}{'(191)' if _mysql_needs_prefix(target) else ''})"
        )
    return Recipe(target, "exact", concept_type, query, f"Exact match on {target.label}", ddl)


def _mysql_needs_prefix(target: Target) -> bool:
    return target.type.lower().split("(")[0].strip() in ("text", "tinytext", "mediumtext", "longtext")


def _mysql_ngram(target: Target, concept_type: str, limit: int) -> Recipe:
    c = f"T.{quote_ident(target.column, 'mysql')}"
    against = f"MATCH({c}) AGAINST ($value IN NATURAL LANGUAGE MODE)"
    query = (
        "SELECT * FROM (\n"
        f"  SELECT M.value, {_mysql_literal(target.label)} AS columns, {_mysql_literal(concept_type)} AS concept_type,\n"
        "    CASE WHEN M.value = $value THEN 0.0\n"
        "         ELSE GREATEST(0.01, 1 - M.score / MAX(M.score) OVER ()) END AS distance,\n"
        "    JSON_OBJECT() AS context\n"
        "  FROM (\n"
        f"    SELECT {c} AS value, MAX({against}) AS score\n"
        f"    FROM {_table_ref(target, 'mysql')} T\n"
        f"    WHERE {against}\n"
        f"    GROUP BY {c}\n"
        f"    ORDER BY score DESC, value\n    LIMIT {limit}\n"
        "  ) M\n"
        ") R\n"
        "ORDER BY distance, value"
    )
    ddl = [
        f"ALTER TABLE {_table_ref(target, 'mysql')} ADD FULLTEXT INDEX {object_name('ctx_ft', target, 64)} "
        f"({quote_ident(target.column, 'mysql')}) WITH PARSER ngram"
    ]
    return Recipe(
        target,
        "trigram",
        concept_type,
        query,
        f"FULLTEXT ngram match on {target.label} (misspellings and partial names)",
        ddl,
        ddl_required=True,
    )


def _mariadb_fuzzy(target: Target, concept_type: str, limit: int) -> Recipe:
    col = quote_ident(target.column, "mysql")
    c = f"T.{col}"
    sx = quote_ident(_helper_column(target, "soundex"), "mysql")
    table = _table_ref(target, "mysql")
    against = f"MATCH({c}) AGAINST ($value IN NATURAL LANGUAGE MODE)"
    # a value starting with the same three characters ("Sha..." for "Shaghai"), closest length first
    prefix = f"{c} LIKE CONCAT(LEFT($value, 3), '%') AND CHAR_LENGTH($value) >= 2 AND LEFT($value, 1) NOT IN ('%', '_')"
    query = (
        "SELECT * FROM (\n"
        f"  SELECT M.value, {_mysql_literal(target.label)} AS columns, {_mysql_literal(concept_type)} AS concept_type,\n"
        "    CASE WHEN M.value = $value THEN 0.0\n"
        "         ELSE LEAST(1, GREATEST(0.01, 1 - (\n"
        "           0.6 * COALESCE(M.ft / NULLIF(MAX(M.ft) OVER (), 0), 0) + 0.4 * M.sx\n"
        "           + 0.15 * M.px / (1 + M.ld)))) END AS distance,\n"
        "    JSON_OBJECT() AS context\n"
        "  FROM (\n"
        "    SELECT U.value, MAX(U.ft) AS ft, MAX(U.sx) AS sx, MAX(U.px) AS px,\n"
        "      ABS(CHAR_LENGTH(U.value) - CHAR_LENGTH($value)) AS ld\n"
        "    FROM (\n"
        # the stored value itself first: FULLTEXT skips short and very common words, and many
        # values may share a SOUNDEX or a prefix ("Device 40" among "Device 1".."Device 120")
        f"      SELECT {c} AS value, 0 AS ft, 0 AS sx, 0 AS px, 1 AS ex\n"
        f"      FROM {table} T WHERE {c} = $value\n"
        "      UNION ALL\n"
        f"      SELECT {c} AS value, {against} AS ft, 0 AS sx, 0 AS px, 0 AS ex\n"
        f"      FROM {table} T WHERE {against}\n"
        "      UNION ALL\n"
        f"      SELECT {c} AS value, 0 AS ft, 1 AS sx, 0 AS px, 0 AS ex\n"
        f"      FROM {table} T WHERE T.{sx} = SOUNDEX($value) AND SOUNDEX($value) <> ''\n"
        "      UNION ALL\n"
        f"      SELECT {c} AS value, 0 AS ft, 0 AS sx, 1 AS px, 0 AS ex\n"
        f"      FROM {table} T WHERE {prefix}\n"
        "    ) U\n"
        "    GROUP BY U.value\n"
        f"    ORDER BY MAX(U.ex) DESC, MAX(U.sx) DESC, MAX(U.ft) DESC, ld, U.value\n    LIMIT {limit * 3}\n"
        "  ) M\n"
        ") R\n"
        f"ORDER BY distance, value\nLIMIT {limit}"
    )
    ddl = [
        f"ALTER TABLE {table} ADD FULLTEXT INDEX {object_name('ctx_ft', target, 64)} ({col})",
        f"ALTER TABLE {table} ADD COLUMN {sx} VARCHAR(255) AS (SOUNDEX({col})) PERSISTENT",
        f"CREATE INDEX {object_name('ctx_sx', target, 64)} ON {table} ({sx})",
        f"CREATE INDEX {object_name('ctx_eq', target, 64)} ON {table} "
        f"({col}{'(191)' if _mysql_needs_prefix(target) else ''})",
    ]
    return Recipe(
        target,
        "trigram",
        concept_type,
        query,
        f"FULLTEXT word match, SOUNDEX and prefix on {target.label} (MariaDB has no ngram parser)",
        ddl,
        ddl_required=True,
        notes=[
            "MariaDB: words match by FULLTEXT, misspellings by the SOUNDEX of the whole value and by "
            "the first three characters (closest length first)"
        ],
    )


def _spanner_value(target: Target) -> str:
    c = f"T.{quote_ident(target.column, 'spanner')}"
    return c if target.is_text else f"CAST({c} AS STRING)"


def _spanner_exact(target: Target, concept_type: str, limit: int) -> Recipe:
    v = _spanner_value(target)
    query = (
        f"SELECT value, {quote_literal(target.label)} AS columns, {quote_literal(concept_type)} AS concept_type,\n"
        "  0.0 AS distance, JSON '{}' AS context\n"
        f"FROM (SELECT DISTINCT {v} AS value FROM {_table_ref(target, 'spanner')} AS T WHERE {v} = $value)\n"
        f"ORDER BY value\nLIMIT {limit}"
    )
    ddl = [
        f"CREATE INDEX {object_name('ctx_eq', target, 128)} ON {_table_ref(target, 'spanner')} "
        f"({quote_ident(target.column, 'spanner')})"
    ]
    return Recipe(target, "exact", concept_type, query, f"Exact match on {target.label}", ddl)


def _spanner_ngrams(target: Target, concept_type: str, limit: int) -> Recipe:
    col = quote_ident(target.column, "spanner")
    tokens = quote_ident(_helper_column(target, "tokens"), "spanner")
    sx = quote_ident(_helper_column(target, "soundex"), "spanner")
    table = _table_ref(target, "spanner")
    v = _spanner_value(target)
    query = (
        f"SELECT value, {quote_literal(target.label)} AS columns, {quote_literal(concept_type)} AS concept_type,\n"
        "  distance, JSON '{}' AS context\n"
        "FROM (\n"
        "  SELECT value, IF(value = $value, 0.0, LEAST(1.0, GREATEST(0.01, MIN(d)))) AS distance\n"
        "  FROM (\n"
        f"    SELECT {v} AS value, 1 - SCORE_NGRAMS(T.{tokens}, $value) AS d\n"
        f"    FROM {table} AS T\n"
        f"    WHERE SEARCH_NGRAMS(T.{tokens}, $value)\n"
        "    UNION ALL\n"
        f"    SELECT {v} AS value, 0.9 AS d\n"
        f"    FROM {table} AS T\n"
        f"    WHERE T.{sx} = SOUNDEX($value) AND SOUNDEX($value) != ''\n"
        "  )\n"
        "  GROUP BY value\n"
        ")\n"
        "WHERE distance < 1\n"
        f"ORDER BY distance, value\nLIMIT {limit}"
    )
    source = col if target.is_text else f"CAST({col} AS STRING)"
    ddl = [
        f"ALTER TABLE {table} ADD COLUMN {tokens} TOKENLIST AS (TOKENIZE_NGRAMS({source})) HIDDEN",
        f"CREATE SEARCH INDEX {object_name('ctx_ngrams', target, 128)} ON {table}({tokens})",
        f"ALTER TABLE {table} ADD COLUMN {sx} STRING(MAX) AS (SOUNDEX({source})) STORED",
        f"CREATE INDEX {object_name('ctx_sx', target, 128)} ON {table}({sx})",
    ]
    return Recipe(
        target,
        "trigram",
        concept_type,
        query,
        f"N-gram search on {target.label} (SEARCH_NGRAMS; misspellings and partial names; SOUNDEX for short words)",
        ddl,
        ddl_required=True,
    )


def ddl_for(recipes: Iterable[Recipe]) -> list[str]:
    """The DDL of several recipes, each statement once, in order."""
    seen: dict[str, None] = {}
    for recipe in recipes:
        for stmt in recipe.ddl:
            seen.setdefault(stmt, None)
    return list(seen)
