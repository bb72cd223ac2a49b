"""General English word relations: which words say the same thing ("pricy" / "expensive",
"advise" / "advisor"), and which say the opposite ("male" / "female").

People ask in their own words. The sentence encoder rates whole questions, but on single words it
cannot tell a synonym from its opposite or a sibling (all-MiniLM-L6-v2: "employees" / "staff" 0.72,
"male" / "female" 0.73, "buy" / "sell" 0.76), so a word the question says otherwise needs a
lexicon that records the relation itself. This one is derived from Princeton WordNet 3.0 and ships
with ctxtool (``ctxtool/data/wordnet/thesaurus.tsv.gz``, about 1 MB; nothing is downloaded): for each
single English word,

- ``s``: the other words of its synsets (synonyms in one of their senses: "film" / "movie");
- ``a``: adjectives similar to it ("pricy" / "expensive", "common" / "popular");
- ``d``: words derived from it or it from them ("advise" / "advisor", "enroll" / "enrollment");
- ``x``: its antonyms, which veto any other relation of the pair.

No vocabulary of any database is in it. Rebuild it from a WordNet 3.0 ``dict`` folder (Debian's
``wordnet-base`` installs one in ``/usr/share/wordnet``) with
``python -m ctxtool.english.thesaurus /usr/share/wordnet``.
"""

from __future__ import annotations

import gzip
import re
import sys
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

from ctxtool.english import lemmas as lexicon_lemmas
from ctxtool.english.sortedlines import SortedLines

DATA = Path(__file__).parent.parent / "data" / "wordnet" / "thesaurus.tsv.gz"
KINDS = "sadx"  # synonyms, similar adjectives, derivations, antonyms (see the module docstring)
_WORD = re.compile(r"[a-z][a-z'-]*[a-z]")


Relations = dict[str, frozenset[str]]  # kind -> related words


class Table:
    """Word -> its relations, in the text :func:`build` writes (lines sorted by word): a word's line
    is found by binary search and split only when it is first looked up (nothing is read before)."""

    def __init__(self, text: str | bytes) -> None:
        self._lines = SortedLines(text.encode("utf-8") if isinstance(text, str) else text)
        self._parsed: dict[str, Relations] = {}

    def __contains__(self, word: str) -> bool:
        return word in self._lines

    def get(self, word: str) -> Relations:
        """The word's relations (none for a word the table does not hold)."""
        rel = self._parsed.get(word)
        if rel is None:
            lines = self._lines.get(word)
            if not lines:
                return {}
            rel = self._parsed[word] = {f[0]: frozenset(f[2:].split(" ")) for f in lines[0].split("\t")}
        return rel


@lru_cache(maxsize=1)
def table() -> Table:
    """The shipped table (the text :func:`build` writes), read once; empty when the file is missing."""
    try:
        return Table(gzip.decompress(DATA.read_bytes()))
    except OSError:
        return Table("")


@lru_cache(maxsize=20_000)
def lemmas(word: str) -> frozenset[str]:
    """The word and its dictionary forms ("employees" -> employee, "worst" -> bad, "advises" -> advise)."""
    w = word.lower()
    out = {w}
    if w.isalpha():
        for forms in lexicon_lemmas.forms(w).values():
            out.update(forms)
    return frozenset(out)


@lru_cache(maxsize=50_000)
def related(a: str, b: str, kinds: str = "sad") -> bool:
    """Whether some form of ``a`` and some form of ``b`` are related by one of ``kinds`` (either way
    round) in the shipped table, and none of them are antonyms. Two forms of one word are not
    "related": that is the same word, which the caller compares itself."""
    return related_in(table(), a, b, kinds)


def related_in(words: Table, a: str, b: str, kinds: str = "sad") -> bool:
    """:func:`related` in the table ``words``."""
    la, lb = lemmas(a), lemmas(b)
    if la & lb:
        return False
    found = False
    for x, y in ((x, y) for x in la for y in lb):
        for one, other in ((x, y), (y, x)):
            rel = words.get(one)
            if other in rel.get("x", ()):
                return False
            found = found or any(other in rel.get(k, ()) for k in kinds)
    return found


# -- building the table from WordNet --------------------------------------------------------------
def _synsets(folder: Path):
    """(pos, offset) -> (words, pointers) of every synset of a WordNet 3.0 ``dict`` folder; a pointer
    is (symbol, target key, source word number, target word number)."""
    out = {}
    for pos in ("noun", "verb", "adj", "adv"):
        for line in (folder / f"data.{pos}").read_text(encoding="latin-1").splitlines():
            if line.startswith("  ") or not line.strip():
                continue  # the licence at the top of each file
            parts = line.split(" | ")[0].split()
            kind = "a" if parts[2] == "s" else parts[2]
            n = int(parts[3], 16)
            words = [re.sub(r"\(.*\)$", "", parts[4 + 2 * i]).lower() for i in range(n)]
            k = 4 + 2 * n
            pointers = []
            for i in range(int(parts[k])):
                sym, off, p, st = parts[k + 1 + 4 * i : k + 5 + 4 * i]
                pointers.append((sym, ("a" if p == "s" else p, off), int(st[:2], 16), int(st[2:], 16)))
            out[(kind, parts[0])] = (words, pointers)
    return out


def licence(folder: Path) -> str:
    """WordNet's licence, as the numbered lines that open each of its data files."""
    out = []
    with open(folder / "data.noun", encoding="latin-1") as fh:
        for line in fh:
            if not line.startswith("  "):
                break
            out.append(re.sub(r"^\s+\d+ ?", "", line).rstrip())
    return "\n".join(out).strip() + "\n"


def build(folder: Path) -> str:
    """The table's text from a WordNet 3.0 ``dict`` folder: one line per single word."""
    syn = _synsets(folder)
    rel: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))

    def add(kind: str, w: str, v: str) -> None:
        if w != v and _WORD.fullmatch(w) and _WORD.fullmatch(v):
            rel[w][kind].add(v)

    for words, pointers in syn.values():
        for w in words:
            for v in words:
                add("s", w, v)
        for sym, target, src, dst in pointers:
            if target not in syn:
                continue
            other = syn[target][0]
            if sym == "&":  # similar adjectives: a synset-wide relation, recorded both ways
                for w in words:
                    for v in other:
                        add("a", w, v)
                        add("a", v, w)
            elif sym in ("+", "!") and src and dst:  # derivations and antonyms relate two words
                add("d" if sym == "+" else "x", words[src - 1], other[dst - 1])
    head = ["# ctxtool thesaurus, derived from Princeton WordNet 3.0 under its licence:"]
    head += [f"# {line}" for line in licence(folder).splitlines()]
    lines = [
        w + "\t" + "\t".join(f"{k}:{' '.join(sorted(rel[w][k]))}" for k in KINDS if rel[w].get(k))
        for w in sorted(rel)
    ]
    return "\n".join(head + lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    folder = Path(args[0] if args else "/usr/share/wordnet")
    if not (folder / "data.noun").is_file():
        print(f"{folder}: no WordNet 3.0 dict files here (apt-get install wordnet-base)", file=sys.stderr)
        return 2
    DATA.parent.mkdir(parents=True, exist_ok=True)
    DATA.write_bytes(gzip.compress(build(folder).encode("utf-8"), 9, mtime=0))
    (DATA.parent / "LICENSE").write_text(licence(folder))
    print(f"wrote {DATA}", file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
