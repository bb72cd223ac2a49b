"""The check catalogue: every check that can lower or veto a candidate, registered once
(:mod:`.registry`), by what it reads: the operator words (:mod:`.operators`), the values
(:mod:`.values`), the conditions (:mod:`.conditions`), the measures computed (:mod:`.measures`), the
columns returned (:mod:`.shape`), the groups (:mod:`.grouping`) and the things and columns named
(:mod:`.schema`), and the question's typed parts against the answer chosen (:mod:`.parts`). Importing this package registers them all; docs/runtime.md lists them.
"""

from __future__ import annotations

from ctxtool.runtime.checks import (  # noqa: F401 (each module registers its checks)
    conditions,
    grouping,
    measures,
    operators,
    parts,
    schema,
    shape,
    values,
)
from ctxtool.runtime.checks.registry import CATALOGUE, PHASES, Check, check, checks_of, product, run

__all__ = ["CATALOGUE", "PHASES", "Check", "check", "checks_of", "product", "run"]
