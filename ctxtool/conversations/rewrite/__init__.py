"""Rewriting the previous query for a follow-up, one module per pattern (see :mod:`.base`)."""
