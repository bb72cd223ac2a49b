"""Value searches that run on a database as it is: no extension, index or helper column.

``draft values`` drafts these when the engine's better search (:mod:`ctxtool.values.recipes`) needs
DDL that is not in place yet, and carries that DDL as the upgrade (``--emit-ddl``, ``--apply-ddl``);
and for columns no index could serve (virtual generated columns, enums). They read the whole table.
"""

from __future__ import annotations

from ctxtool.values.recipes import (
    DEFAULT_LIMIT,
    Recipe,
    Server,
    Target,
    _mysql_literal,
    _pg_exact,
    _spanner_value,
    _table_ref,
    quote_ident,
    quote_literal,
)


def _length_distance(value: str, probe: str, length: str) -> str:
    """1 - shorter/longer length: 0 for the same length, towards 1 for a short part of a long value."""
    return (
        f"1 - LEAST({length}({value}), {length}({probe})) * 1.0 "
        f"/ GREATEST({length}({value}), {length}({probe}), 1)"
    )


def basic(server: Server, target: Target, concept_type: str, limit: int = DEFAULT_LIMIT) -> Recipe:
    """A fuzzy search that runs on ``server`` as it is (no extension, index or helper column): the
    value contains ``$value``, starts with its first three characters, or (where the engine has
    SOUNDEX without an extension) sounds like it. Reads the whole table; the upgrade is the
    engine's recipe and its DDL."""
    if server.engine == "mysql":
        c = f"T.{quote_ident(target.column, 'mysql')}"
        c = c if target.is_text else f"CAST({c} AS CHAR)"
        where = (
            f"{c} LIKE CONCAT('%', $value, '%')\n"
            f"       OR (SOUNDEX({c}) = SOUNDEX($value) AND SOUNDEX($value) <> '')\n"
            f"       OR (CHAR_LENGTH($value) >= 3 AND {c} LIKE CONCAT(LEFT($value, 3), '%'))"
        )
        query = (
            "SELECT * FROM (\n"
            f"  SELECT M.value, {_mysql_literal(target.label)} AS columns, {_mysql_literal(concept_type)} AS concept_type,\n"
            "    CASE WHEN M.value = $value THEN 0.0\n"
            f"         ELSE GREATEST(0.01, {_length_distance('M.value', '$value', 'CHAR_LENGTH')}) END AS distance,\n"
            "    JSON_OBJECT() AS context\n"
            f"  FROM (SELECT DISTINCT {c} AS value FROM {_table_ref(target, 'mysql')} T\n"
            f"    WHERE {where}) M\n"
            ") R\n"
            f"ORDER BY distance, value\nLIMIT {limit}"
        )
        how = "LIKE, SOUNDEX and prefix"
    elif server.engine == "spanner" and not server.is_spanner_pg:
        v = _spanner_value(target)
        query = (
            f"SELECT value, {quote_literal(target.label)} AS columns, {quote_literal(concept_type)} AS concept_type,\n"
            "  distance, JSON '{}' AS context\n"
            "FROM (\n"
            "  SELECT value,\n"
            f"    IF(value = $value, 0.0, GREATEST(0.01, {_length_distance('value', '$value', 'CHAR_LENGTH')})) AS distance\n"
            f"  FROM (SELECT DISTINCT {v} AS value FROM {_table_ref(target, 'spanner')} AS T\n"
            f"    WHERE STRPOS(LOWER({v}), LOWER($value)) > 0\n"
            f"       OR (CHAR_LENGTH($value) >= 3 AND STARTS_WITH(LOWER({v}), LOWER(SUBSTR($value, 1, 3))))\n"
            f"       OR (SOUNDEX({v}) = SOUNDEX($value) AND SOUNDEX($value) != ''))\n"
            ")\n"
            f"ORDER BY distance, value\nLIMIT {limit}"
        )
        how = "substring, SOUNDEX and prefix"
    else:
        if server.is_spanner_pg:
            return _pg_exact(target, concept_type, limit, spanner=True)
        col = quote_ident(target.column, "postgres")
        c = f"T.{col}" if target.native else f"T.{col}::text"
        sounds = (
            f"\n     OR (soundex({c}) = soundex($value::text) AND soundex($value::text) <> '')"
            if server.has("fuzzystrmatch")
            else ""
        )
        query = (
            "WITH matches AS (\n"
            f"  SELECT DISTINCT {c} AS value\n"
            f"  FROM {_table_ref(target, 'postgres')} T\n"
            f"  WHERE {c} ILIKE '%' || $value::text || '%'\n"
            f"     OR (length($value::text) >= 3 AND {c} ILIKE left($value::text, 3) || '%'){sounds}\n"
            ")\n"
            f"SELECT value, {quote_literal(target.label)} AS columns, {quote_literal(concept_type)} AS concept_type,\n"
            "  CASE WHEN value = $value::text THEN 0\n"
            f"       ELSE greatest(0.01, {_length_distance('value', '$value::text', 'length')}) END::float8 AS distance,\n"
            "  '{}'::jsonb AS context\n"
            "FROM matches\n"
            f"ORDER BY distance, value\nLIMIT {limit}"
        )
        how = "ILIKE and prefix" + (", SOUNDEX" if sounds else "")
    return Recipe(
        target,
        "trigram",
        concept_type,
        query,
        f"Case-insensitive {how} match on {target.label} (runs without extensions or indexes)",
    )
