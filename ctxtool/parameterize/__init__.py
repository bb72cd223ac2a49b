"""Deriving intent, manifest and parameterized forms of templates and facets, offline and exactly.

``parameterize_item`` completes one template or facet; ``parameterize_set`` a whole context set (used
by ``ctxtool parameterize`` and by drafting). See :mod:`ctxtool.parameterize.core` for the guarantee.
"""

from ctxtool.parameterize.core import (
    Derived,
    ItemReport,
    ItemResult,
    Param,
    derive,
    parameterize_contextset,
    parameterize_item,
    parameterize_set,
)
from ctxtool.parameterize.extract import SqlValue, extract_values

__all__ = [
    "Derived",
    "ItemReport",
    "ItemResult",
    "Param",
    "SqlValue",
    "derive",
    "extract_values",
    "parameterize_contextset",
    "parameterize_item",
    "parameterize_set",
]
