"""What a template's SQL reads and computes: read once, when the set is compiled, by :mod:`.sqlread`.

The SQL is parsed once, in the set's dialect (PostgreSQL, MySQL or Spanner GoogleSQL), with its
placeholders as sentinels (:mod:`.sqlparts`); every fact a check needs comes from that tree: the
tables and columns it reads, what the outermost SELECT returns and how many columns, its
aggregates, what it counts and sums, how it groups and orders, which end a ``LIMIT`` or ``MAX``
takes, whether it compares, negates or joins two queries by a set operation, and which numbers it
compares with as written. No check parses SQL or searches its text when a question is asked: the
checks read these facts, and this module (what the facts are) does not import the SQL parser.

A few facts are about the text around the placeholders (whether ``OR`` or ``AND`` joins two slots'
conditions, which way each slot is compared): they are read from the SQL text, once, with the
placeholders' offsets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ctxtool.english import thesaurus
from ctxtool.english.content import content_tokens

__all__ = ["SENTINEL", "Output", "TemplateFacts", "name_words"]

SENTINEL = re.compile(r"__ctxp_[a-z0-9_]+?__")


def name_words(name: str) -> list[str]:
    """The content words of an identifier (``destroyed_by_employee_id`` -> destroy, employee, id;
    ``roomName`` -> room, name; ``playerid`` -> player, id: a key written in one word, where a word
    that ends in "id" and is no English word, as "paid" or "valid" are, is a key's)."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name.split(".")[-1]).replace("_", " ")
    out: list[str] = []
    for w in content_tokens(spaced):
        if len(w) > 4 and w.endswith("id") and w not in thesaurus.table():
            out += [w[:-2], "id"]
        else:
            out.append(w)
    return out


@dataclass(frozen=True)
class Output:
    """The outermost SELECT's columns: how many, which aggregate functions, on which columns."""

    width: int = 0
    aggregates: frozenset[str] = field(default_factory=frozenset)  # "count", "sum", ...
    aggregated: frozenset[str] = field(default_factory=frozenset)  # column names inside them
    counts: dict[str, int] = field(default_factory=dict, hash=False, compare=False)  # per aggregate


@dataclass
class TemplateFacts:
    """What one template's (or facet's) SQL reads and computes; see the module's docstring."""

    parsed: bool = False  # False: the SQL did not parse, and every fact below is empty
    columns: set[str] = field(default_factory=set)  # column names (lower case), placeholders excluded
    grouped: bool = False  # a GROUP BY anywhere
    # ``table.column`` (lower case) the outermost SELECT returns as they are (not inside a function)
    projected: set[str] = field(default_factory=set)
    # the outermost ORDER BY: None (rows in no stated order), "asc" or "desc" (of its first key)
    order: str | None = None
    order_key: str = ""  # the column (lower case, no table) the first key is, bare; "" otherwise
    order_keys: tuple[str, ...] = ()  # each outermost ORDER BY key's first word ("count", "t1.name")
    # the outermost SELECT returns aggregates only, in one row (``MAX(x)``, ``COUNT(*)``): a value
    value_only: bool = False
    output: Output = field(default_factory=Output)
    # the operator tokens the SQL computes (__count, __avg, __sum, __max, __min, __distinct, __each,
    # __order, __not): what agrees with the question's operator words
    operators: frozenset[str] = frozenset()
    # the axes and aggregates it realizes: "end" (an ORDER BY, MIN or MAX), "one end" (ORDER BY with
    # LIMIT, MIN or MAX), "range" (<, >, BETWEEN), "listed asc|desc" (rows listed in an order, no
    # LIMIT), "negation", "counted" (HAVING COUNT), "__count", "__sum", "__avg"
    realizes: frozenset[str] = frozenset()
    # the ends it takes of a column: (True for MAX / DESC, the column's words) of MAX(col), MIN(col)
    # and ``ORDER BY col [ASC|DESC] LIMIT``
    ends: tuple[tuple[bool, tuple[str, ...]], ...] = ()
    extreme: int | None = None  # 1: it takes the highest (DESC LIMIT, MAX alone), -1 the lowest
    end_columns: tuple[str, ...] = ()  # the columns it orders by or takes a MIN/MAX of
    group_key_words: frozenset[str] = frozenset()  # the outermost GROUP BY's columns' and tables' words
    group_keys: tuple[tuple[str, ...], ...] = ()  # each GROUP BY key's words (every GROUP BY)
    # the words of the first GROUP BY's columns, and of the tables they are qualified with
    group_columns: frozenset[str] = frozenset()
    distinct_rows: bool = False  # SELECT DISTINCT somewhere
    distinct: bool = False  # DISTINCT anywhere (COUNT(DISTINCT ...) too)
    count_distinct: tuple[str, ...] = ()  # the columns of its COUNT(DISTINCT col), in order
    counted_rows: frozenset[str] = frozenset()  # the head noun of t of a bare SELECT COUNT(*) FROM t
    tallied: frozenset[str] = frozenset()  # the words of what its first COUNT or SUM adds up
    counts_rows: bool = False  # COUNT(*) somewhere
    constants: frozenset[float] = frozenset()  # numbers compared as written (not LIMIT / OFFSET)
    identifier_words: frozenset[str] = frozenset()  # the words of its identifiers, lower case
    letter_runs: frozenset[str] = frozenset()  # its words (identifiers and keywords), lower case
    set_operations: frozenset[str] = frozenset()  # "union", "intersect", "except"
    ors: bool = False  # an OR somewhere
    direction: str | None = None  # "<" or ">" when every comparison of the query points one way
    having: bool = False
    limited: bool = False  # a LIMIT somewhere
    aggregate_call: bool = False  # an aggregate function somewhere
    outer_aggregates: tuple[str, ...] = ()  # the aggregate functions the outermost SELECT calls
    outer_width: int | None = None  # the outermost SELECT's expressions (None: ``*``)
    outer_aggregate_first: bool = False  # its first expression is an aggregate
    outer_columns: frozenset[str] = frozenset()  # the column names the outermost SELECT mentions
    averages: bool = False  # it averages, or returns a column named as an average
    takes_end: bool = False  # an ORDER BY, MIN, MAX, ALL or ANY
    # its tokens, sorted: two queries of the same tokens in another order are reverse readings
    token_bag: tuple[str, ...] = ()
    # per slot key: the senses the placeholder is compared in (1: >, >=; -1: <, <=)
    slot_senses: dict[str, frozenset[int]] = field(default_factory=dict)
    # per pair of slot keys (in the SQL's order): how the text between their placeholders joins them,
    # ("or" | "and" | None, "union" | "intersect" | None)
    between_slots: dict[tuple[str, str], tuple[str | None, str | None]] = field(default_factory=dict)
