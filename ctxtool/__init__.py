"""ctxtool: author, check and serve NL-to-SQL context sets."""

__version__ = "0.1.0"
