"""SQL dialects ctxtool speaks, their sqlglot names and their placeholder styles.

``postgres`` covers PostgreSQL, AlloyDB and Cloud SQL for PostgreSQL (``$1..$n`` placeholders);
``mysql`` covers MySQL 8 and MariaDB (``?``); ``spanner`` is Spanner GoogleSQL (``?``), parsed with
sqlglot's ``bigquery`` dialect extended where Spanner differs (see :mod:`ctxtool.sqlglot_spanner`).
"""

from __future__ import annotations

from ctxtool.errors import InputError

DIALECTS = ("postgres", "mysql", "spanner")
ALIASES = {
    "postgres": "postgres",
    "postgresql": "postgres",
    "pg": "postgres",
    "alloydb": "postgres",
    "mysql": "mysql",
    "mariadb": "mysql",
    "spanner": "spanner",
    "googlesql": "spanner",
}


def normalize(name: str) -> str:
    """Map a user-given dialect name (``alloydb``, ``postgresql``...) to one of :data:`DIALECTS`."""
    try:
        return ALIASES[name.strip().lower()]
    except KeyError:
        raise InputError(
            f"unknown dialect {name!r}: use one of postgres, mysql, spanner (alloydb means postgres)"
        ) from None


def sqlglot_dialect(dialect: str) -> str | type:
    """The sqlglot dialect (name or class) used to parse ``dialect``."""
    dialect = normalize(dialect)
    if dialect == "spanner":
        from ctxtool.sqlglot_spanner import Spanner

        return Spanner
    return dialect


def positional_style(dialect: str) -> str:
    """``"numbered"`` (``$1..$n``) or ``"qmark"`` (``?``) for template and facet parameters."""
    return "numbered" if normalize(dialect) == "postgres" else "qmark"
