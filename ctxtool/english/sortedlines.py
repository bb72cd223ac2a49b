"""A word table read where it lies: a text of lines sorted by their first field, searched by halving.

The English tables (lemminflect's lemmas, the WordNet thesaurus) hold 60,000-80,000 words; a
question looks up a few dozen. Building a dictionary of every line costs a process ~0.1 s of CPU
before its first answer; finding a line by binary search over the bytes costs microseconds, and
nothing is parsed but the lines looked up.
"""

from __future__ import annotations

__all__ = ["SortedLines"]


class SortedLines:
    """Lines ``key<sep>rest`` sorted by ``key`` (byte order, as ``LC_ALL=C sort``); comment lines
    (``#``) may only come first. One key may have several adjacent lines."""

    def __init__(self, data: bytes, sep: bytes = b"\t") -> None:
        self._data = data if not data or data.endswith(b"\n") else data + b"\n"
        self._sep = sep

    def _line(self, start: int) -> tuple[bytes, int, int]:
        """The key of the line at ``start``, where its rest begins and where the line ends."""
        end = self._data.find(b"\n", start)
        cut = self._data.find(self._sep, start, end)
        if cut < 0:
            return self._data[start:end], end, end
        return self._data[start:cut], cut + len(self._sep), end

    def _first(self, key: bytes) -> int:
        """The start of the first line of ``key``; -1 when there is none."""
        data = self._data
        lo, hi = 0, len(data)  # the first line whose key is not below ``key`` starts in [lo, hi]
        while lo < hi:
            mid = (lo + hi) // 2
            start = data.rfind(b"\n", lo, mid) + 1 or lo
            start = max(start, lo)
            k, _, end = self._line(start)
            if k < key:
                lo = end + 1
            else:
                hi = start
        if lo < len(data) and self._line(lo)[0] == key:
            return lo
        return -1

    def get(self, key: str) -> list[str]:
        """The rests of ``key``'s lines, in order (empty when the table does not hold it)."""
        bkey = key.encode("utf-8")
        start = self._first(bkey)
        out: list[str] = []
        while 0 <= start < len(self._data):
            k, rest, end = self._line(start)
            if k != bkey:
                break
            out.append(self._data[rest:end].decode("utf-8"))
            start = end + 1
        return out

    def __contains__(self, key: str) -> bool:
        return self._first(key.encode("utf-8")) >= 0
