"""The words that decide what a query computes, and the words that say nothing.

Canonical tokens (``how many`` / ``number of`` -> ``__count``, ``more than`` -> ``__gt``, ``not`` ->
``__not``...) let "the mean amount" meet "the average amount" while "how many" never meets "average";
stop words are general English function words dropped before matching.
"""

from __future__ import annotations

import re

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
# other words of a person's names (a name written with its initial, "fname", is an identifier's:
# ctxtool.identifiers.name_shorthand)
NAME_WORDS = {"forename": "firstname", "surname": "lastname"}
AGGREGATES = frozenset({"__count", "__avg", "__sum", "__max", "__min"})

# months by name and their short forms
MONTHS = {
    m: i + 1
    for i, m in enumerate(
        "january february march april may june july august september october november december".split()
    )
}
MONTHS.update({k[:3]: v for k, v in list(MONTHS.items())})
MONTHS["sept"] = 9
# numbers written as words ("two" .. "twenty")
NUMBER_WORDS = {
    w: i + 2
    for i, w in enumerate(
        "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split()
    )
}
# ordinals name a number too ("fourth-grade classrooms" are those of grade 4); not "first" and
# "last", which mostly mean an order or a name ("the first name")
ORDINAL_WORDS = {
    w: i + 2
    for i, w in enumerate(
        "second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
        "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth".split()
    )
}


# -- phrases and words the runtime reads questions and wordings with ---------------------------------
# the words of a comparison between a column's name and its value ("height more than 5600")
COMPARISON_FILLERS = frozenset(
    "than at least most more less fewer greater bigger larger higher lower smaller over above under below "
    "of is are was were the a an to equal or".split()
)
ALTERNATIVES = re.compile(r"\b(?:or|either|any\s+of|whichever)\b", re.I)
# a number the words before it make one end of a range, the end included ("at least 25", "no more than 3")
INCLUDED_END_BEFORE = re.compile(
    r"\b(?:(at\s+least|no\s+less\s+than|not\s+less\s+than|no\s+fewer\s+than|a\s+minimum\s+of)"
    r"|(at\s+most|no\s+more\s+than|not\s+more\s+than|a\s+maximum\s+of|up\s+to))\s*$",
    re.I,
)
EACH_OF_A_THING = re.compile(
    r"\b(than\s+)?(?:each|every|per)\s+(?:single\s+|one\s+of\s+the\s+|of\s+the\s+)?([A-Za-z]+)?", re.I
)
EVERY_THING = re.compile(r"\b(?:each|every)\s+(?:one\s+)?(?:of\s+(?:the\s+)?)?([a-z][\w-]*)", re.I)
OF_EACH_AT_THE_END = re.compile(r"\b(?:of|for|in)\s+(?:each|every)\s*(?:[,.;?!]|$)", re.I)
ASKS_ONE_COUNT = re.compile(
    r"^\s*(?:(?:please\s+)?(?:tell\s+me\s+|show\s+|give\s+|find\s+|return\s+|list\s+|report\s+)?"
    r"(?:what\s+is\s+|what's\s+)?(?:the\s+)?(?:total\s+)?(?:how\s+many|number\s+of|count\b))",
    re.I,
)
# "each" and "every" read on the question as written: a value search may have taken them for a value
GROUPING_SAID = re.compile(
    r"\b(?:by|each|every|per)\b|\b(?:for|in|across|among)\s+(?:the\s+)?(?:different|various|respective)\b",
    re.I,
)
# asking for a count, said plainly ("how many", "count the", "the number of"); not "the room count"
COUNT_SAID_PLAINLY = re.compile(
    r"\bhow\s+many\b|^\s*count\b|\bcount\s+(?:the|of|all|how)\b|\b(?:the|total)\s+number\s+of\b", re.I
)
AVERAGE_SAID = re.compile(r"\baverage\b|\b(?:the|their|its)\s+mean\b", re.I)
END_SAID = re.compile(
    r"\b(?:most|least|fewest|highest|lowest|largest|smallest|biggest|greatest|maximum|minimum|oldest"
    r"|youngest|earliest|latest|longest|shortest)\b",
    re.I,
)
# "the youngest" / "the oldest" of people or things: an end of an age, a birth date, a year
YOUNGEST_OR_OLDEST = re.compile(r"\b(?:youngest|oldest)\b(?:\s+(?:one\s+)?([a-z]\w*))?", re.I)
AGE_COLUMN_STEMS = ("age", "birth", "born", "date", "year", "found", "establish", "creat", "start", "built",
              "old", "young", "since", "time", "day", "open")  # fmt: skip
COMPOUND_NUMBER_OF = re.compile(r"\b([a-z]+)\s+numbers?\s+of\b", re.I)
TOTAL_SAID = re.compile(r"\btotal\b", re.I)
NOT_ONLY_BUT = re.compile(r"\bnot\s+only\b(?=.*\bbut\b)", re.I | re.S)
TOTAL_AMOUNT_SAID = re.compile(
    r"\bin\s+total\b|\bhow\s+much\b|\btotal\s+(?:number|amount)\s+of\s+(?:hours|minutes|seconds|days|"
    r"weeks|months|years|dollars|euros|miles|kilometers|kilometres|meters|metres)\b",
    re.I,
)
# prefixes that make a word's opposite ("female" of "male", "inactive", "unpaid", "non-smoker"); the
# ones that also begin unrelated words ("in" of "install") only before a longer word
OPPOSITE_PREFIXES = ("un", "non", "non-", "dis", "fe")
OPPOSITE_PREFIXES_LONG = ("in", "im", "il", "ir")
NAME_STEMS = frozenset({"name", "nam", "title", "titl"})  # "the name of the movie" asks for its title
IDS_SAID = re.compile(r"\bids\b", re.I)
NAMES_SAID = re.compile(r"\b(?:names?|titles?)\b", re.I)
# every column of the rows ("all information regarding instructors")
ALL_INFORMATION = re.compile(
    r"^(?:all\s+)?(?:the\s+)?(?:information|info)(?:\s+(?:regarding|about|concerning|on)\b.*)?$", re.I
)
KEY_ASKED = re.compile(r"\b(?:ids?|codes?)$", re.I)
WHICH_FIRST = re.compile(r"\s*(?:which|what)\b", re.I)
ID_ASKED = re.compile(r"\bids?$", re.I)
# endings that make another word of the same stem ("membership" is no "member", "production" no
# "product"): a longer form that is the short one and such an ending is not its long form
SUFFIXES = frozenset(
    "ship ships ment ments ness er ers or ors ee ees ion ions ation ations ity al ist ists ism hood ance ence"
    " ing ings ly es ed".split()
)
KEY_STEMS = frozenset({"id", "cod"})  # a key's own word: "the card types" name a card_type_code
EACH_OR_PER_THING = re.compile(r"\b(?:each|every|per)\s+(?:of\s+the\s+)?([a-z][\w-]*)", re.I)
MONTH_ALTERNATIVES = "|".join(sorted(MONTHS, key=len, reverse=True))
MONTH_DAY_YEAR = re.compile(
    rf"\b({MONTH_ALTERNATIVES})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I
)
DAY_MONTH_YEAR = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({MONTH_ALTERNATIVES})\.?,?\s+(\d{{4}})\b", re.I
)
SCALE_WORDS = {"thousand": 1000, "k": 1000, "million": 1_000_000, "m": 1_000_000}
NUMBER_WORD = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", re.I)
ORDINAL = re.compile(
    r"(?<![\w.$-])(?:(" + "|".join(ORDINAL_WORDS) + r")|(\d{1,3})(?:st|nd|rd|th))(?![\w])", re.I
)
TIMES = {"twice": 2, "thrice": 3}  # "used more than twice"
TIMES_WORD = re.compile(r"\b(twice|thrice)\b", re.I)
# a letter or digit a pattern is about: "starts with A", "the letter s", "contains the character 5"
PATTERN_ABOUT = re.compile(
    r"\b(?:(?:letter|character|char)|(?:starts?|starting|started|begins?|beginning|ends?|ending|ended)"
    r"\s+with(?:\s+(?:the|an?))?(?:\s+(?:letters?|characters?))?)\s+['\"‘“]?([A-Za-z0-9])['\"’”]?"
    r"(?![\w'’-])",
    re.I,
)
RANK_BEFORE = re.compile(r"\b(?:top|first|last|bottom)\s+$", re.I)
BOUND_AFTER = re.compile(
    r"\s*(?:or|and)\s+(later|earlier|more|less|fewer|above|below|over|under|higher|lower|greater|"
    r"after|before|older|newer|younger|longer|shorter|bigger|smaller|up|beyond)\b(?!\s+(?:than|\d))",
    re.I,
)
DOWNWARD_WORDS = frozenset(
    {"earlier", "less", "fewer", "below", "under", "lower", "before", "younger", "shorter", "smaller"}
)
UP_TO_WORDS = frozenset({"to", "until", "till", "through"})
MORE_X_THAN = re.compile(r"\b(more|less|fewer)\s+[a-z]+\s+than\s+$", re.I)
TIME_PREPOSITION = re.compile(
    r"\b(?:in|since|during|until|till|before|after|from|by)\s+(?:the\s+year\s+)?$", re.I
)
# "one" is a number only where a count is compared or fixed ("more than one policy", "exactly one
# enrollment"); elsewhere it is a pronoun ("the one with", "which one")
ONE_AS_A_NUMBER = re.compile(
    r"\b(?:more|fewer|less|greater)\s+than\s+(one)\b|\b(?:at\s+least|at\s+most|exactly|just|only)\s+(one)\b(?!\s+of\b)",
    re.I,
)
# generic words of a column name: what remains says what the column holds
GENERIC_COLUMN_WORDS = frozenset({"id", "name", "code", "number", "no", "num", "nam", "cod"})
# the words that say a count: "how many", "the number of", "count the total number of"
COUNT_LEAD = r"\b(?:how\s+many|(?:total\s+)?number\s+of|count\s+of|count(?:\s+the)?(?:\s+total)?(?:\s+number\s+of)?)\s+"
COUNT_PHRASE = re.compile(
    COUNT_LEAD
    + r"(?:the\s+|all\s+(?:the\s+)?)?(?:different\s+|distinct\s+|unique\s+|kinds?\s+of\s+|types?\s+of\s+)?"
    r"([a-z][\w-]*)(?:\s+([a-z][\w-]*))?",
    re.I,
)
COUNTED_PHRASE = re.compile(COUNT_LEAD + r"((?:[A-Za-z][\w-]*\s*){1,6})", re.I)
# words that end the noun phrase a count is of ("how many widgets *have* parts")
PHRASE_END = frozenset(
    "are is was were have has had do does did in of for with without that who which whose where when "
    "there by on at from to into under over after before since during between among about and or but "
    "than as per each not no any".split()
)
ASKED_FOR = re.compile(
    r"(?:\b([a-z]+)\s+)?\b(names?|ids?|titles?)\s+(?:of|for)\s+"
    r"(?:the\s+|all\s+(?:the\s+)?|each\s+|every\s+|any\s+)?([a-z][\w-]*(?:\s+[a-z][\w-]*){0,2})",
    re.I,
)
NOT_A_THING = frozenset(
    {"the", "all", "first", "last", "full", "their", "its", "his", "her", "and", "distinct"}
)
KIND_ASKED = {"name": "name", "names": "name", "title": "name", "titles": "name", "id": "id", "ids": "id"}
PLEASE = re.compile(r"^\s*(?:please|also|and|then|now)\s+", re.I)
ITEM_SEPARATOR = re.compile(r"\s*,\s*(?:and\s+|as\s+well\s+as\s+)?|\s+(?:and|as\s+well\s+as)\s+", re.I)
ITEM_LEAD = re.compile(r"^(?:their|its|his|her|the|also|all|each|every)\s+", re.I)
FULL_NAME = re.compile(r"\bfull\s+names?\b", re.I)
# what a question asks for comes first ("What are the X and their Y ..."), before the words that
# say of which rows (a relative word, a preposition, a verb)
ASK_HEAD = re.compile(
    r"^\s*(?:what\s+(?:are|is|were|was)|which|show|list|find|give(?:\s+me)?|return|tell\s+me|report|display"
    r"|get)\b\s*(?:the\s+|all\s+(?:the\s+)?|me\s+)?",
    re.I,
)
ASK_END = re.compile(
    r"\b(?:who|that|which|whose|where|whom|when|with|in|from|for|by|of|on|at|than|to|under|over|if|are|is"
    r"|was|were|has|have|do|does|did|ordered|sorted|order|sort)\b",
    re.I,
)
COUNT_OF = re.compile(r"\b(?:how\s+many|numbers?\s+of)\s+(?:the\s+)?([a-z]+)", re.I)
CONTRACTED_NOT = re.compile(
    r"\b(?:do|does|did|is|are|was|were|has|have|had|ca|could|would|should|wo|must|need)n[’']?t\b|\bcannot\b",
    re.I,
)
# "ordered by their last name", "in order of height": the column the question sorts by
ORDER_KEY = re.compile(
    r"\b(?:order(?:ed)?|sort(?:ed)?|rank(?:ed)?|arranged)\s+(?:by|of|on)\s+(?:the\s+|their\s+|its\s+)?"
    r"([a-z]+(?:\s+[a-z]+){0,2}?)(?=\s*(?:[,.;:?!]|$|\b(?:and|in|from|with|then|for)\b))",
    re.I,
)
WHO_HAS_THE = re.compile(r"\b(?:with|has|have|had|having|gets?|got)\s+the\s+(\w+(?:\s+\w+)?)", re.I)
# "how many ...", "Count the ...", "What is the number of ...": the question wants a count back
ASKS_COUNT = re.compile(
    r"\bhow\s+many\b|^\W*count\b|^\W*(?:what\s+(?:is|are|was)|what's|find|give|show|return|tell\s+me|list)"
    r"\s+the\s+(?:total\s+)?(?:number|count)\s+of\b",
    re.I,
)
COUNT_WORDS = re.compile(r"\bhow\s+many\b|\bcount\b|\bnumbers?\s+of\b|\bnumbers?\b", re.I)
ORDER_WORDS = re.compile(r"\b(?:order(?:ed)?|sort(?:ed)?|rank(?:ed)?)\s+(?:by|of|on)\b|\border\s+of\b", re.I)
NAME_OF = re.compile(r"\bnames?\s+of\s+(?:the\s+|all\s+(?:the\s+)?|each\s+|every\s+)?(\w+)", re.I)
AMOUNT_OF = re.compile(r"\bamounts?\s+of\b", re.I)
TAKE_PLACE = re.compile(r"\b(?:take|takes|taking|taken|took)\s+place\b", re.I)
# what follows a verb, not a noun ("who hold *an* account", "that end *at*"; not "which boat *owners*")
VERB_FOLLOWS = (
    r"(?:\s+(?:a|an|the|at|in|on|to|from|with|for|by|into|of|out|up|more|less|most|any|some|no|their|his"
    r"|her|its|over|under|than)\b|\s*[,.;:?!]|\s*$)"
)
ASKING_WORDS = frozenset({"which", "what", "who", "when", "where", "how", "whose"})

# -- words the checks read as tokens -------------------------------------------------------------
KEY_WORDS = "id name code number"  # words every key has: "each widget id" names the widget
POINT_IN_TIME_WORDS = (
    "date year birth born birthday"  # a column of points in time ("the oldest" is its lowest)
)
SPAN_WORDS = (
    "length duration distance time second minute hour day week month"  # spans ("the longest": the highest)
)
NAME_WORD = "name names"
KIND_OF_VALUE_WORDS = (
    "number numbers code codes id ids"  # "the phone number": the word before names the column
)
SMALLER_WORDS = "less fewer smaller lower shorter cheaper earlier below"
LARGER_WORDS = "more greater larger bigger higher longer later above"
GENERIC_THING_WORDS = "name id"  # words every thing has
PATTERN_WORDS_SAID = "contains includes substring string word phrase part character letter char like pattern"  # a piece of text in a value (a LIKE)
FUNCTION_WORDS_OF_NO_CONDITION = "he she him her his hers himself herself among amongst during regarding concerning along"  # pronouns and prepositions of no condition
LIGHT_VERB_WORDS = "make take get"  # verbs that say little on their own ("the orders made")
UPWARD_SIZE_WORDS = (
    "high large big great long expensive wide deep far"  # size adjectives whose degrees go up ("higher than")
)
DOWNWARD_SIZE_WORDS = "low small little short cheap narrow shallow near few"  # and down ("the cheapest")
LABEL_COLUMN_WORDS = (
    "name",
    "title",
    "id",
    "code",
    "type",
    "description",
)  # words of a column that labels rows
ID_WORDS = ("id", "ids", "i")  # capitals that are no code
DATE_KIND_LABELS = ("date", "time", "day", "month")  # manifest types of a date slot
NUMBER_KIND_LABELS = (
    "number",
    "count",
    "amount",
    "quantity",
    "currency",
    "percentage",
    "money",
)  # of a number slot


# -- phrases that content tokens rewrite ----------------------------------------------------------------
# words before "number of" that make it a compound noun ("the phone number of", "room number of"),
# not a count: a count is "the number of", "a number of", "total number of", "how many"...
NOT_A_NOUN_BEFORE_NUMBER_OF = frozenset(
    "the a an total average mean largest smallest highest lowest greatest biggest maximum minimum "
    "max min same different distinct and or of by in with for per what which whose their its his her "
    "descending ascending decreasing increasing".split()
)
NOUN_NUMBER_OF = re.compile(r"(?<= )([a-z]+) number(s?) of ")
# English contractions of "not": "don't" says "do not"
NOT_CONTRACTED = re.compile(
    r"\b(ca|wo|do|does|did|is|are|was|were|has|have|had|could|would|should|must|need)n[’']t\b"
)
# a person's names ("first name" is no "first" in time; a full name is the first and last name)
PERSON_NAME_PHRASES = (
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
WHICH = re.compile(r"\bwhich\b", re.I)
# "under the category", "over its entire existence": a place or a span of time, no comparison
PLACE_NOT_AMOUNT = re.compile(
    r"\bunder(?= (?:the|a|an|its|their|his|her|this|that|these|those) )"
    r"|\bover(?= (?:its|their|the) (?:entire|whole|years|past|last|course|period|time)\b)"
)
YEARS_OLD = re.compile(r" years? old ")
# units of time, money and distance: "how many hours", "the number of days" measure, they count nothing
AMOUNT_OF_UNITS = re.compile(
    r" (?:how many|(?:total )?numbers? of) (hours|minutes|seconds|days|weeks|months|years|dollars|euros|"
    r"milliseconds|miles|kilometers|kilometres|meters|metres) "
)
# "Where is the club located?" asks for its location
WHERE_IS = re.compile(r"(?:^|(?<=[.?!]\s))where\b(?=\s+(?:is|are|was|were|do|does|did)\b)", re.I)
# "ordered alphabetically", "sorted by age in descending order": the verb of an order followed by its
# direction is the order itself (alone, "ordered" may be a purchase: "the customers who ordered")
ORDERED_IN_A_DIRECTION = re.compile(
    r"\b(?:ordered|sorted|arranged)\b(?=\s+(?:\w+\s+){0,3}?(?:alphabetically|descending|ascending|"
    r"decreasing|increasing)\b)"
)
# "more expensive than", "more students than": a comparison said around its measure (as "more than")
# "from the most recent to the oldest", "from least to greatest": both ends of one order are a
# listing in that order, never its first row; the first end says the direction
UP_END = "most recent|newest|latest|highest|largest|biggest|greatest|most"
DOWN_END = "earliest|lowest|smallest|least|fewest"
FROM_END_TO_END = re.compile(
    rf" from (?:the )?(?:({UP_END})|({DOWN_END}))(?: [a-z]+)?(?: one)? to (?:the )?"
    rf"(?:{UP_END}|{DOWN_END}|oldest|youngest)(?: one)? "
)
MORE_OF_X_THAN = re.compile(r" (more|less|fewer) (?!(?:or|and|of|than|the|a|an) )([a-z]+) than ")
MORE_OPERATORS = {"more": "__gt", "less": "__lt", "fewer": "__lt"}
PERSON_NAMES_SAID = re.compile(
    r"\b(?:full|first|last|middle|family|given) names?\b"
    r"|\bfirst\W+(?:(?:and|or|&)\W+)?(?:middle\W+(?:(?:and|or|&)\W+)?)?(?:last|family|sur) ?names?\b",
    re.I,
)

# time: the calendar units with the adjectives of their periods, and the ordinals of a quarter
# (the months are MONTHS above)
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
