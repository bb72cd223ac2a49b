"""Spanner GoogleSQL for sqlglot: its ``bigquery`` dialect, extended where Spanner differs."""

from __future__ import annotations

from sqlglot.dialects.bigquery import BigQuery


class Spanner(BigQuery):
    """GoogleSQL as Spanner speaks it. Differences from BigQuery are added here as they are found."""
