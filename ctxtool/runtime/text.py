"""Question text: tokens, light stemming, canonical words, numbers, dates and quoted strings.

Matching compares *content tokens*: lower-cased, lightly stemmed words without stopwords, where the
words that decide what a query computes are mapped to canonical tokens (``how many`` / ``number of``
-> ``__count``, ``more than`` / ``over`` -> ``__gt``, ``not`` / ``without`` -> ``__not``...), so
"What is the mean loan amount" and "average amount of loans" meet, while "how many" never meets
"average".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

try:  # English lemmas (a 1 MB lexicon); without it the light stemmer alone applies
    from lemminflect import getAllLemmas as _lemmas
except ImportError:  # pragma: no cover - lemminflect is a core dependency
    _lemmas = None

# Multi-word phrases first (longest first when applied).
CANONICAL_PHRASES: list[tuple[str, str]] = [
    # the most common X is the X counted most often
    ("most common", "__max __count"),
    ("most frequent", "__max __count"),
    ("most frequently", "__max __count"),
    ("most often", "__max __count"),
    ("least often", "__min __count"),
    ("least common", "__min __count"),
    ("least frequent", "__min __count"),
    ("least frequently", "__min __count"),
    ("highest number of", "__max"),
    ("largest number of", "__max"),
    ("greatest number of", "__max"),
    ("biggest number of", "__max"),
    ("lowest number of", "__min"),
    ("smallest number of", "__min"),
    ("total number of", "__count"),
    ("in total", " "),
    ("how many", "__count"),
    ("most recent", "__max_date"),
    ("most recently", "__max_date"),
    ("number of", "__count"),
    ("numbers of", "__count"),
    ("count of", "__count"),
    ("more than", "__gt"),
    ("greater than", "__gt"),
    ("higher than", "__gt"),
    ("larger than", "__gt"),
    ("bigger than", "__gt"),
    ("at least", "__gte"),
    ("no less than", "__gte"),
    ("less than", "__lt"),
    ("fewer than", "__lt"),
    ("lower than", "__lt"),
    ("smaller than", "__lt"),
    ("at most", "__lte"),
    # "3 or more", "ten or fewer": a number and the open end of its range (as "at least 3")
    ("or more", "__gte"),
    ("or greater", "__gte"),
    ("or higher", "__gte"),
    ("or above", "__gte"),
    ("or over", "__gte"),
    ("or less", "__lte"),
    ("or fewer", "__lte"),
    ("or lower", "__lte"),
    ("or below", "__lte"),
    ("or older", "__gte"),
    ("or longer", "__gte"),
    ("or later", "__gte"),
    ("or younger", "__lte"),
    ("or shorter", "__lte"),
    ("or earlier", "__lte"),
    ("or under", "__lte"),
    ("no more than", "__lte"),
    ("prior to", "__before"),
    ("earlier than", "__before"),
    ("later than", "__after"),
    ("sum of", "__sum"),
    # an order is not a grouping: "ordered by points" keeps its rows; "in descending order of
    # points" is "ordered by points, descending" (the word "order" alone may be a thing: orders)
    ("reverse alphabetical order", "__desc __order"),
    ("reverse alphabetic order", "__desc __order"),
    ("descending order", "__desc __order"),
    ("decreasing order", "__desc __order"),
    ("ascending order", "__asc __order"),
    ("increasing order", "__asc __order"),
    ("alphabetical order", "__asc __order"),
    ("alphabetic order", "__asc __order"),
    ("in order of", "__order"),
    ("ordered by", "__order"),
    ("order by", "__order"),
    ("sorted by", "__order"),
    ("sort by", "__order"),
    ("order the results by", "__order"),
    ("order them by", "__order"),
    ("for each", "__each"),
    ("for every", "__each"),
    ("broken down by", "__each"),
    ("grouped by", "__each"),
    ("group by", "__each"),
    ("per", "__each"),
    ("each", "__each"),
    ("every", "__each"),
]
CANONICAL_WORDS: dict[str, str] = {
    "count": "__count",
    "many": "__count",
    "average": "__avg",
    "avg": "__avg",
    "mean": "__avg",
    "total": "__sum",
    "sum": "__sum",
    "overall": "__sum",
    "highest": "__max",
    "largest": "__max",
    "biggest": "__max",
    "maximum": "__max",
    "max": "__max",
    "greatest": "__max",
    "most": "__max",
    "top": "__max",
    "lowest": "__min",
    "smallest": "__min",
    "minimum": "__min",
    "min": "__min",
    "least": "__min",
    "fewest": "__min",
    "over": "__gt",
    "above": "__gt",
    "exceeding": "__gt",
    "exceed": "__gt",
    "exceeds": "__gt",
    "under": "__lt",
    "below": "__lt",
    "between": "__between",
    "after": "__after",
    "since": "__after",
    "before": "__before",
    "until": "__before",
    "not": "__not",
    "no": "__not",
    "without": "__not",
    "except": "__not",
    "excluding": "__not",
    "never": "__not",
    "descending": "__desc",
    "decreasing": "__desc",
    "ascending": "__asc",
    "increasing": "__asc",
    "alphabetical": "__asc",
    "alphabetically": "__asc",
    "alphabetic": "__asc",
    # "different", "distinct", "unique" say the same of the rows (without repeats)
    "different": "__distinct",
    "distinct": "__distinct",
    "unique": "__distinct",
    "both": "__both",
    "either": "__either",
    "oldest": "__min_date",
    "earliest": "__min_date",
    "first": "__min_date",
    "newest": "__max_date",
    "latest": "__max_date",
    "youngest": "__max_date",
    "recent": "__max_date",
}

STOPWORDS = frozenset(
    """a an the of in on at to for from with and or is are was were be been being what who whose whom
    show me list give tell find get display please i we you do does did there that this those these it its
    their they have has had can could would should will all any some as into about return want know need our
    my your s how much there's what's kind sort one ones whole data record records entry entries
    where within inside located currently ever exist exists existing value values given registered recorded
    listed stored available present them also well across than by respective respectively
    corresponding correspond""".split()
)

_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        "january february march april may june july august september october november december".split()
    )
}
_MONTHS.update({k[:3]: v for k, v in list(_MONTHS.items())})
_MONTHS["sept"] = 9

_WORD = re.compile(r"[^\s]+")
_EDGE = re.compile(r"^[\"'“”‘’«»(\[{<,;:!?.]+|[\"'“”‘’«»)\]}>,;:!?.]+$")


@dataclass(frozen=True)
class Token:
    text: str  # as written, edge punctuation stripped
    start: int  # character offsets in the question
    end: int

    @property
    def lower(self) -> str:
        return self.text.lower()


def tokenize(text: str) -> list[Token]:
    """Whitespace tokens with edge punctuation stripped (``Hl.m.`` keeps its inner dot; ``Prague?`` loses
    the question mark); tokens that are only punctuation are kept (``-`` in ``Brno - mesto``)."""
    out: list[Token] = []
    for m in _WORD.finditer(text):
        word = m.group()
        start, end = m.start(), m.end()
        stripped = _EDGE.sub("", word)
        if stripped and stripped != word:
            lead = word.find(stripped)
            start, end = start + lead, start + lead + len(stripped)
            word = stripped
        # possessive 's
        if word.lower().endswith(("'s", "’s")) and len(word) > 3:
            word, end = word[:-2], end - 2
        out.append(Token(word, start, end))
    return out


def stem(word: str) -> str:
    """A light, predictable stemmer: plural and common verb endings (``accounts``, ``issued``, ``opening``)."""
    w = word.lower()
    if len(w) <= 3 or w.startswith("__"):
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith(("sses", "shes", "ches", "xes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if w.endswith("ing") and len(w) > 5:
        w = w[:-3]
    elif w.endswith("ed") and len(w) > 4:
        w = w[:-2]
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    return w


@lru_cache(maxsize=50_000)
def lemma(word: str) -> tuple[str, str | None]:
    """The dictionary form of an English word (``children`` -> child, ``issued`` -> issue, ``cheapest``
    -> cheap) from lemminflect's lexicon, and ``"superlative"`` / ``"comparative"`` for an adjective's
    degree; the word itself when the lexicon does not know it."""
    if _lemmas is None or not word.isalpha():
        return word, None
    forms = _lemmas(word)
    if not forms:
        return word, None
    adj = forms.get("ADJ")
    # a noun spelled like a comparative is the noun ("number", not a degree of "numb")
    noun = forms.get("NOUN", ())[:1] == (word,) and word not in ("better", "worse")
    if adj and adj[0] != word and word not in CANONICAL_WORDS and not noun:
        if word.endswith("est") or word in ("best", "worst"):
            return adj[0], "superlative"
        if word.endswith("er") or word in ("better", "worse"):
            return adj[0], "comparative"
    for pos in ("NOUN", "VERB", "ADJ", "ADV"):
        if pos in forms:
            return forms[pos][0], None
    return word, None


# words before "number of" that make it a compound noun ("the phone number of", "room number of"),
# not a count: a count is "the number of", "a number of", "total number of", "how many"...
_COUNT_BEFORE = frozenset(
    "the a an total average mean largest smallest highest lowest greatest biggest maximum minimum "
    "max min same different distinct and or of by in with for per what which whose their its his her "
    "descending ascending decreasing increasing".split()
)
_COMPOUND_NUMBER = re.compile(r"(?<= )([a-z]+) number(s?) of ")
# English contractions of "not": "don't" says "do not"
_NOT = re.compile(r"\b(ca|wo|do|does|did|is|are|was|were|has|have|had|could|would|should|must|need)n[’']t\b")
# a person's names ("first name" is no "first" in time; a full name is the first and last name)
_NAMES = (
    (re.compile(r"\bfull names?\b"), "firstname lastname"),
    # "first and last names", "first, middle and last name": the first name, not the first in time
    (
        re.compile(r"\bfirst (?:and |or |& )?middle (?:and |or |& )?(?:last|family|sur) ?names?\b"),
        "firstname middlename lastname",
    ),
    (re.compile(r"\bfirst (?:and|or|&) (?:last|family|sur) ?names?\b"), "firstname lastname"),
    (re.compile(r"\bfirst names?\b"), "firstname"),
    (re.compile(r"\bmiddle names?\b"), "middlename"),
    (re.compile(r"\b(?:last|family|sur) ?names?\b"), "lastname"),
    (re.compile(r"\bnot only\b"), " "),  # "not only A but also B" asks for both
)


_WHICH = re.compile(r"\bwhich\b", re.I)
_SENTENCE_END = re.compile(r"(?:^|[.?!:;])\s*(?:\S+\s+)?$")


def _relative_which(text: str) -> str:
    """ "which" asks a question only at the start of a sentence ("Which member has ...", "In which
    year ..."); inside one it only joins a clause ("the buildings which have rooms")."""
    if "which" not in text.lower():
        return text
    return _WHICH.sub(lambda m: m.group() if _SENTENCE_END.search(text[: m.start()]) else " ", text)


# "under the category", "over its entire existence": a place or a span of time, no comparison
_PLACE_NOT_AMOUNT = re.compile(
    r"\bunder(?= (?:the|a|an|its|their|his|her|this|that|these|those) )"
    r"|\bover(?= (?:its|their|the) (?:entire|whole|years|past|last|course|period|time)\b)"
)
_SYMBOL_WORDS = {">": "__gt", ">=": "__gte", "<": "__lt", "<=": "__lte", "=": "equal"}
_SYMBOLS = re.compile(r"(?<![<>=!])\s(>=|<=|>|<)\s")


def _counting(before: str) -> bool:
    """ "<before> number of" is a count unless ``before`` is a noun ("phone number of"): after a
    function word ("the", "corresponding"), an operator word ("most") or a measure word."""
    return before in _COUNT_BEFORE or before in STOPWORDS or before in CANONICAL_WORDS


# "Where is the club located?" asks for its location
_WHERE = re.compile(r"(?:^|(?<=[.?!]\s))where\b(?=\s+(?:is|are|was|were|do|does|did)\b)", re.I)


# "ordered alphabetically", "sorted by age in descending order": the verb of an order followed by its
# direction is the order itself (alone, "ordered" may be a purchase: "the customers who ordered")
_ORDERED = re.compile(
    r"\b(?:ordered|sorted|arranged)\b(?=\s+(?:\w+\s+){0,3}?(?:alphabetically|descending|ascending|"
    r"decreasing|increasing)\b)"
)


def _canonical_text(text: str) -> str:
    text = _WHERE.sub("location", _relative_which(text))
    low = " " + re.sub(r"[?!.,;:]+(?=\s|$)", " ", re.sub(r"\s+", " ", text.lower())) + " "
    low = re.sub(r"\s+", " ", low)
    low = _NOT.sub(
        lambda m: ("can" if m.group(1) == "ca" else "will" if m.group(1) == "wo" else m.group(1)) + " not",
        low,
    )
    low = low.replace(" cannot ", " can not ")
    for rx, words in _NAMES:
        low = rx.sub(words, low)
    low = _PLACE_NOT_AMOUNT.sub(" ", low)
    low = _ORDERED.sub("__order", low)
    low = _SYMBOLS.sub(lambda m: f" {_SYMBOL_WORDS[m.group(1)]} ", low)
    low = _COMPOUND_NUMBER.sub(
        lambda m: m.group(0) if _counting(m.group(1)) else f"{m.group(1)} numeral{m.group(2)} ", low
    )
    for phrase, canon in CANONICAL_PHRASES:
        low = low.replace(f" {phrase} ", f" {canon} ")
    return low


_OPERATOR_PHRASES = re.compile(
    r"\b(?:"
    + "|".join(re.escape(p).replace("\\ ", r"\s+") for p, c in CANONICAL_PHRASES if " " in p and c.strip())
    + r")\b",
    re.I,
)


_NAME_PHRASES = re.compile(
    r"\b(?:full|first|last|middle|family|given) names?\b"
    r"|\bfirst\W+(?:(?:and|or|&)\W+)?(?:middle\W+(?:(?:and|or|&)\W+)?)?(?:last|family|sur) ?names?\b",
    re.I,
)


def operator_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` says a word of counting or comparing in several words ("greater than", "at
    least", "number of") or a person's names ("the full names"): their words are never values to
    look up."""
    found = [(m.start(), m.end()) for m in _OPERATOR_PHRASES.finditer(text)]
    return found + [(m.start(), m.end()) for m in _NAME_PHRASES.finditer(text)]


def content_tokens(text: str) -> list[str]:
    """The normalized content tokens of a piece of text (placeholders and punctuation dropped).
    Remembered per text: wordings, column names and question parts are read over and over."""
    return list(_content_tokens(text))


@lru_cache(maxsize=65_536)
def _content_tokens(text: str) -> tuple[str, ...]:
    """(See :func:`content_tokens`.)

    An adjective's superlative or comparative degree ("cheapest", "cheaper than") adds
    ``__superlative`` / ``__comparative``: an order or comparison whose direction the words alone do
    not fix, which agrees with either direction in the verification."""
    out: list[str] = []
    toks = tokenize(_canonical_text(text))
    for k, tok in enumerate(toks):
        w = tok.lower
        if not any(c.isalnum() for c in w) or w.startswith("$") or w == "?":
            continue
        w = w.strip("'\"")
        if w in ("numeral", "numerals"):
            w = "number"  # "phone number of": the word, not a count
        w = _NAME_WORDS.get(w, w)
        w = CANONICAL_WORDS.get(w, w)
        if w in STOPWORDS:
            continue
        base, degree = lemma(w)
        if base in DIMENSIONS:  # "the tallest", "older than 30", "how old": the measure
            noun, most, more = DIMENSIONS[base]
            than = any(t.lower == "than" for t in toks[k + 1 : k + 4])
            op = most if degree == "superlative" else more if degree == "comparative" and than else None
            if op is not None or degree != "superlative":
                out.extend([op, noun] if op else [noun])
                continue
        if degree == "superlative":
            out.append("__superlative")
        elif degree == "comparative" and any(t.lower == "than" for t in toks[k + 1 : k + 4]):
            out.append("__comparative")  # "cheaper than", "a higher salary than"
        base = CANONICAL_WORDS.get(base, base)
        if base.startswith("__"):
            out.append(base)
            continue
        s = stem(base)
        if s in STOPWORDS:
            continue
        s = CANONICAL_WORDS.get(s, s)
        out.append(s)
    if "__each" in out and not _AGGREGATES & set(out):
        # "the name of each pilot" lists them all; only a measure makes "each" a grouping
        out = [t for t in out if t != "__each"]
    return tuple(out)


# adjectives of a measure: its noun and the operators of the superlative and comparative ("the tallest"
# the greatest height, "older than" a greater age; "the oldest" is the earliest born: CANONICAL_WORDS)
DIMENSIONS: dict[str, tuple[str, str | None, str | None]] = {
    "tall": ("height", "__max", "__gt"),
    "heavy": ("weight", "__max", "__gt"),
    "old": ("age", None, "__gt"),
    "young": ("age", None, "__lt"),
}
# the usual short and other names of a person's names (column names "fname", "lname")
_NAME_WORDS = {"fname": "firstname", "forename": "firstname", "lname": "lastname", "surname": "lastname"}
_AGGREGATES = frozenset({"__count", "__avg", "__sum", "__max", "__min"})


# -- entities written in the question ---------------------------------------------------------------


@dataclass
class Literal:
    """A number, date or quoted string found in the question."""

    kind: str  # "number" | "date" | "quoted"
    text: str
    start: int
    end: int
    value: object  # int / float / date / str
    as_year: bool = False  # written as a point in time: "in 1997", "since 2001"
    rank: bool = False  # a count of rows to keep: "the top 3", "the 5 largest"
    bound: bool = False  # one end of a range: "2011 or later", "10 or more"
    # the comparison the words around the number state: 1 (more than, after, or later), -1 (below,
    # before, up to), 0 (none: "with 1 credit"), None (a comparison of unknown sense: "cheaper than")
    direction: int | None = 0

    @property
    def is_year(self) -> bool:
        return self.kind == "number" and isinstance(self.value, int) and 1800 <= self.value <= 2100


_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_SLASH = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")
_MONTH_WORDS = "|".join(sorted(_MONTHS, key=len, reverse=True))
_MDY = re.compile(rf"\b({_MONTH_WORDS})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I)
_DMY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_WORDS})\.?,?\s+(\d{{4}})\b", re.I)
# a number inside a code ("CIS-220", "ACCT-211", "220-B") is part of the code, not a number
_NUMBER = re.compile(
    r"(?<![\w.$])(?<![A-Za-z]-)-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])(?!-[A-Za-z])"
    r"|(?<![\w.$])(?<![A-Za-z]-)-?\d+(?:\.\d+)?(?![\w])(?!-[A-Za-z])"
)
_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|(?<![\w])'([^']+)'(?![\w])|‘([^’]+)’")
_SCALE = {"thousand": 1000, "k": 1000, "million": 1_000_000, "m": 1_000_000}
NUMBER_WORDS = {
    w: i + 2
    for i, w in enumerate(
        "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split()
    )
}
_NUMBER_WORD = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", re.I)
_TIMES = {"twice": 2, "thrice": 3}  # "used more than twice"
_TIMES_WORD = re.compile(r"\b(twice|thrice)\b", re.I)
# a letter or digit a pattern is about: "starts with A", "the letter s", "contains the character 5"
_PATTERN = re.compile(
    r"\b(?:(?:letter|character|char)|(?:starts?|starting|started|begins?|beginning|ends?|ending|ended)"
    r"\s+with(?:\s+(?:the|an?))?(?:\s+(?:letters?|characters?))?)\s+['\"‘“]?([A-Za-z0-9])['\"’”]?"
    r"(?![\w'’-])",
    re.I,
)


_RANK_BEFORE = re.compile(r"\b(?:top|first|last|bottom)\s+$", re.I)
_BOUND_AFTER = re.compile(
    r"\s*(?:or|and)\s+(later|earlier|more|less|fewer|above|below|over|under|higher|lower|greater|"
    r"after|before|older|newer|younger|longer|shorter|bigger|smaller|up|beyond)\b(?!\s+(?:than|\d))",
    re.I,
)
_DOWN = frozenset(
    {"earlier", "less", "fewer", "below", "under", "lower", "before", "younger", "shorter", "smaller"}
)
_TO = frozenset({"to", "until", "till", "through"})
_EXTREMES = frozenset({"__max", "__min", "__max_date", "__min_date", "__superlative"})


def _mark_number(lit: Literal, text: str) -> None:
    """Set what the words around a number say it is: a year, a count of rows, one end of a range."""
    before, after = text[: lit.start], text[lit.end :]
    lit.as_year = lit.is_year and bool(_TIME_PREPOSITION.search(before))
    nxt = re.match(r"\s*(\w+)", after)
    lit.rank = bool(_RANK_BEFORE.search(before)) or bool(
        nxt and _EXTREMES & set(content_tokens(nxt.group(1)))
    )
    bound = _BOUND_AFTER.match(after)
    lit.bound = bool(bound)
    if bound:
        lit.direction = -1 if bound.group(1).lower() in _DOWN else 1
        return
    words = before.split()[-3:]
    said = set(content_tokens(" ".join(words)))
    low = [w.lower() for w in words]
    if said & {"__gt", "__gte", "__after"} and "__not" not in said or (low and low[-1] == "from"):
        lit.direction = 1
    elif said & {"__lt", "__lte", "__before"} or "__not" in said or (low and low[-1] in _TO):
        lit.direction = -1
    elif "__comparative" in said or "between" in low:
        lit.direction = None


_TIME_PREPOSITION = re.compile(
    r"\b(?:in|since|during|until|till|before|after|from|by)\s+(?:the\s+year\s+)?$", re.I
)


def _safe_date(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def find_literals(text: str) -> list[Literal]:
    """Quoted strings, dates (ISO, d/m/Y, "March 5, 1996", "5 March 1996") and numbers, without overlaps."""
    found: list[Literal] = []

    def free(a: int, b: int) -> bool:
        return all(b <= lit.start or a >= lit.end for lit in found)

    for m in _QUOTED.finditer(text):
        inner = next(g for g in m.groups() if g is not None)
        found.append(Literal("quoted", inner, m.start(), m.end(), inner))
    for m in _PATTERN.finditer(text):
        lone = m.group(1) in ("a", "i") and not re.search(r"letter|char", m.group(), re.I)
        if free(m.start(1), m.end(1)) and not lone:  # "starts with a vowel" is no pattern 'a'
            found.append(Literal("quoted", m.group(1), m.start(1), m.end(1), m.group(1)))
    for rx, order in ((_ISO, "ymd"), (_SLASH, "dmy"), (_MDY, "Mdy"), (_DMY, "dMy")):
        for m in rx.finditer(text):
            if not free(m.start(), m.end()):
                continue
            g = m.groups()
            if order == "ymd":
                d = _safe_date(int(g[0]), int(g[1]), int(g[2]))
            elif order == "dmy":
                d = _safe_date(int(g[2]), int(g[1]), int(g[0])) or _safe_date(int(g[2]), int(g[0]), int(g[1]))
            elif order == "Mdy":
                d = _safe_date(int(g[2]), _MONTHS[g[0].lower()], int(g[1]))
            else:
                d = _safe_date(int(g[2]), _MONTHS[g[1].lower()], int(g[0]))
            if d is not None:
                found.append(Literal("date", m.group(), m.start(), m.end(), d))
    for m in _NUMBER.finditer(text):
        if not free(m.start(), m.end()):
            continue
        raw = m.group().replace(",", "")
        value: int | float = float(raw) if "." in raw else int(raw)
        end = m.end()
        tail = re.match(r"\s*(thousand|million|k|m)\b", text[end:], re.I)
        if tail:
            value = value * _SCALE[tail.group(1).lower()]
            end += tail.end()
        if isinstance(value, float) and value.is_integer() and (tail or "." not in raw):
            value = int(value)
        lit = Literal("number", text[m.start() : end], m.start(), end, value)
        _mark_number(lit, text)
        found.append(lit)
    for m in _NUMBER_WORD.finditer(text):
        if free(m.start(), m.end()):
            lit = Literal("number", m.group(), m.start(), m.end(), NUMBER_WORDS[m.group().lower()])
            _mark_number(lit, text)
            found.append(lit)
    for m in _TIMES_WORD.finditer(text):
        if free(m.start(), m.end()):
            lit = Literal("number", m.group(), m.start(), m.end(), _TIMES[m.group().lower()])
            _mark_number(lit, text)
            found.append(lit)
    found.sort(key=lambda lit: lit.start)
    return found
