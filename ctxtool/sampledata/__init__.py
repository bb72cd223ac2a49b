"""The financial and airports sample databases: one schema, DDL per engine, deterministic rows.

``load(dsn)`` creates and fills the sample tables on PostgreSQL/AlloyDB, MySQL/MariaDB or Spanner
(GoogleSQL or PostgreSQL dialect); the quickstart, the tests and users trying ctxtool all use it.
``python -m ctxtool.sampledata --dsn DSN [--scale S]`` does the same from a shell.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from ctxtool.sampledata.generate import BASE_COUNTS, generate, scaled_counts
from ctxtool.sampledata.loaders import LOADERS, Progress
from ctxtool.sampledata.schema import DATASETS, ENGINES, TABLES, ddl, ddl_text, tables

__all__ = [
    "BASE_COUNTS",
    "DATASETS",
    "ENGINES",
    "TABLES",
    "LoadResult",
    "ddl",
    "ddl_text",
    "generate",
    "load",
    "scaled_counts",
    "tables",
    "write_ddl_files",
]


@dataclass
class LoadResult:
    """What :func:`load` wrote: rows per table and the seconds it took."""

    engine: str
    rows: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def total_rows(self) -> int:
        return sum(self.rows.values())


def load(
    dsn: str,
    datasets: tuple[str, ...] | list[str] = DATASETS,
    scale: float = 1.0,
    *,
    replace: bool = False,
    progress: Progress | None = None,
) -> LoadResult:
    """Create the sample tables of ``datasets`` in the database of ``dsn`` and fill them.

    The rows are the same on every run and every engine for a given ``scale`` (1.0 is about
    100,000 rows in all). Existing sample tables are an error unless ``replace`` drops them first.
    """
    from ctxtool.connectors.dsn import parse

    parsed = parse(dsn)
    datasets = tuple(datasets)
    started = time.perf_counter()
    data = generate(datasets, scale)
    LOADERS[parsed.engine](parsed, data, datasets, replace, progress)
    return LoadResult(
        parsed.engine, {name: len(rows) for name, rows in data.items()}, time.perf_counter() - started
    )


ENGINE_DIRS = {
    "postgres": "postgres",
    "mysql": "mysql",
    "spanner": "spanner",
    "spanner-pg": "spanner/postgresql-dialect",
}


def write_ddl_files(root: str | Path) -> list[Path]:
    """Write ``<root>/<engine>/<dataset>.sql`` for every engine and dataset; return the paths."""
    from ctxtool.jsondoc import write_text_atomic

    written = []
    for engine, folder in ENGINE_DIRS.items():
        for dataset in DATASETS:
            path = Path(root) / folder / f"{dataset}.sql"
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(path, ddl_text(engine, dataset))
            written.append(path)
    return written
