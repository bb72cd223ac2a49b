"""The things and columns a question names against those a candidate reads: a table the question
names that the template neither reads nor says ("the average loan amount" is not "the average
balance of transactions"), and a column it names that the template does not read ("the number of
books on one shelf" is not the number of shelves). The words come from the schema's names
(:mod:`ctxtool.runtime.templates.vocabulary`), never a database's habits.
"""

from __future__ import annotations

import re

from ctxtool.english.content import content_tokens
from ctxtool.english.lexicon import KIND_OF_VALUE_WORDS, NAME_WORD
from ctxtool.english.reading import words_before
from ctxtool.runtime.checks.registry import check
from ctxtool.runtime.matching.candidate import Candidate, Finding
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.templates.compiled import Compiled
from ctxtool.runtime.templates.facts import TemplateFacts
from ctxtool.runtime.templates.vocabulary import SetFacts, returned_things

__all__ = ["compound_columns", "heads_of_read_columns", "inside_name"]

OTHER_TABLE = 0.5  # per table the question names that the template neither reads nor says
COLUMN_NOT_READ = 0.6  # per column the question names that the template does not read
NAME_WORDS = frozenset(content_tokens(NAME_WORD))
# words of a column name that only say which kind of value a named column holds ("the phone
# number", "the room number"): the word before them names the column
_KIND_WORDS = frozenset(content_tokens(KIND_OF_VALUE_WORDS))


def inside_name(word: str, tables: set[str]) -> bool:
    """``word`` begins or ends a run-together table name ("author" of ``authorship``, "order" of
    ``customerorders``): the template reads that thing, however its table is spelled."""
    if len(word) < 5:
        return False
    for t in tables:
        name = t.split(".")[-1].lower().replace("_", "")
        if name != word and (name.startswith(word) or name.rstrip("s").endswith(word)):
            return True
    return False


def heads_of_read_columns(question: str, words: set[str], read: set[str]) -> set[str]:
    """Words that end a compound the question writes right after a word of a column the template
    reads ("the phone number" of a phone column): the compound is that column, not another one."""
    raw = re.findall(r"[A-Za-z]+|[^\sA-Za-z]", question)  # punctuation parts two words
    out: set[str] = set()
    for a, b in zip(raw, raw[1:], strict=False):
        ta, tb = content_tokens(a), content_tokens(b)
        if ta and tb and tb[0] in words and ta[-1] in read:
            out.add(tb[0])
    return out


def compound_columns(question: str, words: set[str], read: set[str]) -> set[str]:
    """The kind words among ``words`` that the question says right after a word of a column the SQL
    reads ("the phone number" of a ``phone`` column)."""
    out: set[str] = set()
    tokens = [content_tokens(w) for w in re.findall(r"[A-Za-z][\w-]*", question)]
    for before, word in zip(tokens, tokens[1:], strict=False):
        if word and word[0] in words and word[0] in _KIND_WORDS and before and set(before) <= read:
            out.add(word[0])
    return out


def _name_returned(q: Question, tpl: Compiled, voc: SetFacts) -> bool:
    """Whether "the name of X" is what the template returns: a column named for X, or a column (a
    title, a label) of X's table when that table has no name column the set reads."""
    named = q.names_of
    if not named:
        return False
    if named & tpl.returned_words:
        return True
    return any(
        named & voc.table_words.get(t, set()) and not NAME_WORDS & voc.table_columns.get(t, set())
        for t in returned_things(tpl)
    )


@check("entities", "words", OTHER_TABLE)
def entities(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """The question names a thing (a table) the template neither reads nor says: "the average order
    amount" is not answered by "the average balance of transactions", however alike the measure
    (0.5 per thing).

    Fails: "What is the average loan amount?" against "What is the average balance of transactions?".
    Passes: "What is the average amount of the transactions?"."""
    voc = q.vocabulary
    if voc is None:
        return None
    tpl = c.template
    other = (q.word_set & voc.entity_words) - c.explained - voc.words_of_tables(tpl.tables)
    other = {w for w in other if not inside_name(w, tpl.tables)}
    if not other:
        return None
    return Finding("the template is not about: " + ", ".join(sorted(other)), OTHER_TABLE ** len(other))


@check("columns", "words", COLUMN_NOT_READ)
def columns(q: Question, c: Candidate, facts: TemplateFacts) -> Finding | None:
    """The question names a column of the set that the template does not read (0.6 per column): "the
    number of books on one shelf" is not the number of shelves. A column's word said in passing (a
    verb, "the phone number" of a phone column the template reads) names no column.

    Fails: "How many books does each shelf hold?" against "How many shelves are there?".
    Passes: "How many shelves are there in the library?"."""
    voc = q.vocabulary
    if voc is None:
        return None
    tpl = c.template
    f_cols: set[str] = set()
    for fu in c.facets:
        f_cols |= fu.facet.column_words | fu.facet.token_set
    cols = (q.word_set & voc.all_column_words) - c.explained - voc.words_of_tables(tpl.tables)
    cols = cols - tpl.column_words - f_cols - voc.entity_words  # things are weighed as entities
    cols = {w for w in cols if not w.startswith("__")}  # (a ``min_price`` column's "min")
    if NAME_WORDS & cols and _name_returned(q, tpl, voc):
        cols -= NAME_WORDS  # "the name of the building" is the building a template returns
    if cols:
        cols -= heads_of_read_columns(q.text, cols, tpl.column_words) - voc.own_columns(tpl)
    if cols:
        # "the widget named 'Zed'" of a slot on a name column: the verb says the value's column
        said_of: set[str] = set()
        for slot in tpl.slots:
            e = q.values[c.bindings[slot.key][0]]
            parts = (slot.column or "").split(".")[-1].split("_")  # each word ("first", "name")
            column = {t for part in parts for t in content_tokens(part)}
            said_of |= words_before(q.text, [(e.start, e.end)]) & column
        cols -= voc.column_names.only_in_passing(q.text, cols, q.word_set, said_of)
    if cols:  # "the phone number" of a phone column: the kind word names the column read
        cols -= compound_columns(q.text, cols, tpl.column_words)
    if not cols:
        return None
    return Finding("the template does not read: " + ", ".join(sorted(cols)), COLUMN_NOT_READ ** len(cols))
