"""The matching stage: which templates (with which values in their slots and which facets on top)
may answer the question, and how much of the question each one explains."""
