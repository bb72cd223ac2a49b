"""Drafting templates and facets from the schema, the profile and the query workload.

:func:`draft` runs the whole pipeline (see :mod:`ctxtool.draft.pipeline`); the pieces are
:mod:`~ctxtool.draft.model` (what the schema says), :mod:`~ctxtool.draft.names` (plain-English names
and the glossary), :mod:`~ctxtool.draft.templates` and :mod:`~ctxtool.draft.facets` (the drafting
rules), :mod:`~ctxtool.draft.workload` and :mod:`~ctxtool.draft.describe` (queries people ran, and
their meaning in words), :mod:`~ctxtool.draft.check` (nothing is kept unchecked),
:mod:`~ctxtool.draft.merge` and :mod:`~ctxtool.draft.llm` (optional language model).
"""

from ctxtool.draft.drafts import Draft
from ctxtool.draft.pipeline import Coverage, DraftResult, coverage_of, draft

__all__ = ["Coverage", "Draft", "DraftResult", "coverage_of", "draft"]
