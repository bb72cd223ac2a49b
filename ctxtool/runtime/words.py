"""The words that decide what a query computes, and the words that say nothing.

Canonical tokens (``how many`` / ``number of`` -> ``__count``, ``more than`` -> ``__gt``, ``not`` ->
``__not``...) let "the mean amount" meet "the average amount" while "how many" never meets "average";
stop words are general English function words dropped before matching.
"""

from __future__ import annotations

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
    # a total said of a count is the count ("the total count of", "the number of total papers")
    ("number of total", "__count"),
    ("total count of", "__count"),
    ("total count", "__count"),
    ("total number of", "__count"),
    ("in total", " "),
    ("how many", "__count"),
    ("most recent", "__max_date"),
    ("most recently", "__max_date"),
    ("number of", "__count"),
    ("numbers of", "__count"),
    ("count of", "__count"),
    # "greater than or equal to": one end of a range that includes it, before "greater than"
    ("greater than or equal to", "__gte"),
    ("more than or equal to", "__gte"),
    ("higher than or equal to", "__gte"),
    ("larger than or equal to", "__gte"),
    ("less than or equal to", "__lte"),
    ("fewer than or equal to", "__lte"),
    ("lower than or equal to", "__lte"),
    ("smaller than or equal to", "__lte"),
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
    ("other than", "__not"),  # "the regions other than Denmark": all but it, as "except"
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
    ("in the order of", "__order"),
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
    "outside": "__not",  # "born outside California": not in it
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
    # holding a piece of text: "names that include 'Ann'", "the substring 'Ann'" (a LIKE pattern)
    "include": "contain",
    "includes": "contain",
    "including": "contain",
    "substring": "contain",
    "substrings": "contain",
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

# adjectives of a measure: its noun and the operators of the superlative and comparative ("the tallest"
# the greatest height, "older than" a greater age; "the oldest" is the earliest born: CANONICAL_WORDS)
DIMENSIONS: dict[str, tuple[str, str | None, str | None]] = {
    "tall": ("height", "__max", "__gt"),
    "heavy": ("weight", "__max", "__gt"),
    "old": ("age", None, "__gt"),
    "young": ("age", None, "__lt"),
}
# the usual short and other names of a person's names (column names "fname", "lname")
NAME_WORDS = {"fname": "firstname", "forename": "firstname", "lname": "lastname", "surname": "lastname"}
AGGREGATES = frozenset({"__count", "__avg", "__sum", "__max", "__min"})

# time: the months (full and short names), the calendar units with the adjectives of their periods,
# and the ordinals of a quarter
MONTHS: dict[str, int] = {
    name: i + 1
    for i, name in enumerate(
        "january february march april may june july august september october november december".split()
    )
}
MONTHS.update({name[:3]: number for name, number in list(MONTHS.items())})
MONTHS["sept"] = 9
TIME_UNITS = ("day", "week", "month", "quarter", "year")
PERIOD_ADJECTIVES = {
    "daily": "day",
    "weekly": "week",
    "monthly": "month",
    "quarterly": "quarter",
    "yearly": "year",
    "annual": "year",
    "annually": "year",
}
QUARTER_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
# units of time a number can be a duration in, in seconds
DURATION_SECONDS = {
    "millisecond": 0.001,
    "ms": 0.001,
    "second": 1.0,
    "sec": 1.0,
    "minute": 60.0,
    "min": 60.0,
    "hour": 3600.0,
    "hr": 3600.0,
    "day": 86400.0,
    "week": 604800.0,
}
