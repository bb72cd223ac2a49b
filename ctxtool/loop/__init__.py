"""Closing the loop on a set: comparing evaluations (:mod:`~ctxtool.loop.compare`)."""
