"""The shipped sample context sets work on the sample databases: every template (concrete, and
parameterized with its values bound), every facet and every value search runs on each engine, and
the value searches find what they should."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from ctxtool.dialects import sqlglot_dialect
from ctxtool.placeholders import find_sql_placeholders
from ctxtool.validate.consistency import _SQL_VALUE, capture
from ctxtool.validate.literals import forms

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
PROBES = {
    "Region": ("Prague", "Prague"),
    "Account Frequency": ("POPLATEK MESICNE", "POPLATEK MESICNE"),
    "Airport IATA Code": ("LHR", "LHR"),
    "Airport Name": ("Heathrow", "London Heathrow"),
}


def _bind_value(sql_value: str):
    """The Python value a driver binds for a SQL literal captured from the concrete SQL."""
    text = sql_value.strip()
    if text[:1] in "'\"":
        return text[1:-1].replace(text[0] * 2, text[0])
    number = next((f[1:] for f in forms(text) if f.startswith("#")), None)
    if number is not None:
        return int(number) if "." not in number else Decimal(number)
    return text


def _facet_query(snippet: str, dialect: str) -> str:
    tree = sqlglot.parse_one(snippet, read=sqlglot_dialect(dialect))
    table = next(tree.find_all(exp.Column)).table
    return f"SELECT COUNT(*) FROM {table} WHERE {snippet}"


def _exercise(dsn: str, dialect: str) -> None:
    from ctxtool.connectors import connect

    files = sorted((SAMPLES / dialect).glob("*.json"))
    assert files
    with connect(dsn) as conn:
        for path in files:
            if path.stem not in ("financial", "airports"):
                continue  # sets other features ship next to ours
            data = json.loads(path.read_text(encoding="utf-8"))
            for t in data["templates"]:
                conn.query(t["sql"], max_rows=5)
                psql = t["parameterized"]["parameterized_sql"]
                found = find_sql_placeholders(psql, dialect)
                values = capture(psql, t["sql"], found, _SQL_VALUE)
                assert values is not None
                if dialect == "postgres":
                    params = [None] * len(values)
                    for key, value in values:
                        params[int(key) - 1] = _bind_value(value)
                else:
                    params = [_bind_value(v) for _, v in values]
                conn.query(psql, params, max_rows=5)
            for f in data["facets"]:
                conn.query(_facet_query(f["sql_snippet"], dialect), max_rows=1)
            for vs in data["value_searches"]:
                probe, expected = PROBES[vs["concept_type"]]
                result = conn.query(vs["query"], {"value": probe}, max_rows=50)
                assert [c.lower() for c in result.columns] == [
                    "value",
                    "columns",
                    "concept_type",
                    "distance",
                    "context",
                ]
                assert result.rows, f"{path.name}: {vs['concept_type']} found nothing for {probe!r}"
                values = [row[0] for row in result.rows]
                assert expected in values, (vs["concept_type"], values)
                for row in result.rows:
                    assert 0 <= float(row[3]) <= 1, row
                    assert row[2] == vs["concept_type"]


@pytest.mark.postgres
def test_postgres_samples_run(pg_samples_dsn):
    _exercise(pg_samples_dsn, "postgres")


@pytest.mark.mariadb
def test_mysql_samples_run(mariadb_samples_dsn):
    _exercise(mariadb_samples_dsn, "mysql")


@pytest.mark.spanner
def test_spanner_samples_run(spanner_samples_dsn):
    _exercise(spanner_samples_dsn, "spanner")
