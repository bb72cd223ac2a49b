"""The schema's words in a question: what the tables are called, what a template's SQL computes,
and the words a question and a template share through run-together or compound names.

A template explains a question's word when its SQL reads what the word names: ``orders`` names the
table ``order``, "town" ends the column word ``hometown``, "the phone number" is a phone column.
"""

from __future__ import annotations

import re

from ctxtool.english.content import content_tokens


def table_words(table: str) -> list[str]:
    """The content words of a table name (``order`` -> order, ``airports`` -> airport)."""
    return content_tokens(table.split(".")[-1].replace("_", " "))


COMPOUND_PART = 4  # the shortest word that explains a run-together word it ends or begins


def compound_parts(q_words: set[str], t_words: set[str]) -> tuple[set[str], set[str]]:
    """Words of the question that end a run-together word of the template ("town" of "hometown",
    "date" of "birthdate"), and those template words: an English compound names a kind of its last
    word. Both directions (the question may hold the compound); never operator tokens, and never a
    word's beginning ("member" is no "membership", "product" no "production")."""
    q_out: set[str] = set()
    t_out: set[str] = set()
    for a in q_words:
        if a.startswith("__"):
            continue
        for b in t_words:
            if b.startswith("__") or a == b:
                continue
            short, long = (a, b) if len(a) < len(b) else (b, a)
            if len(short) >= COMPOUND_PART and len(long) - len(short) >= 3 and long.endswith(short):
                q_out.add(a)
                t_out.add(b)
    return q_out, t_out


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
