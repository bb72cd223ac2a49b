"""Golden datasets made from a context set and its database (``ctxtool dataset generate``).

:mod:`~ctxtool.golden.wording` writes other wordings of a question with general English;
:mod:`~ctxtool.golden.generate` makes the items, checks their SQL read-only, tags them and splits
off a held-out part.
"""

from ctxtool.golden.generate import NEGATIVE_TAG, Dataset, GoldenItem, generate_dataset, heldout_path

__all__ = ["NEGATIVE_TAG", "Dataset", "GoldenItem", "generate_dataset", "heldout_path"]
