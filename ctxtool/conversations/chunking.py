"""Splitting chat messages into chunks for vectorization, at natural boundaries.

A chunk is at most ``size`` characters (default 400). The split point is the last boundary inside
the window, tried in order: a custom boundary (e.g. ``----``), a paragraph break, a line break, a
space; only a word longer than the window is cut mid-word.
"""

from __future__ import annotations

from ctxtool.errors import InputError

DEFAULT_CHUNK_SIZE = 400
BOUNDARIES = ("\n\n", "\n", " ")


def chunk_text(text: str, size: int = DEFAULT_CHUNK_SIZE, boundary: str | None = None) -> list[str]:
    """``text`` split into stripped, non-empty chunks of at most ``size`` characters."""
    if size < 1:
        raise InputError(f"chunk size {size} is invalid: use a positive number of characters (default 400)")
    boundaries = ((boundary,) if boundary else ()) + BOUNDARIES
    chunks: list[str] = []
    rest = text.strip()
    while rest:
        if len(rest) <= size:
            chunks.append(rest)
            break
        window = rest[: size + 1]  # a boundary right after the window still lets the window be whole
        cut = -1
        sep_len = 0
        for sep in boundaries:
            pos = window.rfind(sep)
            if pos > 0:
                cut, sep_len = pos, len(sep)
                break
        if cut <= 0:
            cut, sep_len = size, 0
        piece = rest[:cut].strip()
        if piece:
            chunks.append(piece)
        rest = rest[cut + sep_len :].strip()
    return [c for c in chunks if c]
