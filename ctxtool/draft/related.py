"""Questions along foreign keys and link tables: "the X with the most Ys", "Xs without any Y", a
child listed with its parent, the rows of a named parent.

A mixin of :class:`ctxtool.draft.questions.QuestionDrafter` (it gives ``m``, ``add`` and ``cols``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ctxtool.draft.model import Column, Join, Table
from ctxtool.draft.phrasing import the_names, verb
from ctxtool.draft.rows import describing, naming
from ctxtool.draft.templates import key_columns, references, say, tally

if TYPE_CHECKING:
    from ctxtool.draft.model import Model


def agreeing_verb(label: str) -> str:
    """ "is" or "are" agreeing with a label's head noun: "What are the units in stock", "What is
    the date of birth"."""
    return verb(re.split(r" (?:of|in|on|per|at|for|to) ", label, maxsplit=1)[0])


class RelatedQuestions:
    m: Model

    def add(self, question: str, sql: str, family: str, *tables: Table, also: str | None = None) -> None:
        raise NotImplementedError

    def cols(self, cols: list[Column], alias: str | None = None) -> str:
        raise NotImplementedError

    def join(self, j: Join) -> None:
        m = self.m
        c, p = j.child, j.parent
        if c.name.lower() == p.name.lower():
            return
        if sum(1 for k in m.joins if k.child is c and k.parent is p) > 1:
            self.own_of_two(j)
            return
        pnames = naming(p)
        cnames = naming(c)
        src = f"{m.table_sql(c)} JOIN {m.table_sql(p)} ON {m.join_on(j)}"
        self.parent_of_named(j, cnames, pnames, src)
        if not pnames:  # "How many visitors have no visits?" needs no names
            self._count_without(j, c.names.plural)
            return
        self._most_and_without(j, pnames, c.names.plural, "join-top", one_each=j.one_per_parent)
        if cnames:
            self.add(
                f"Show the {the_names(cnames)} of all {c.names.plural} and the {the_names(pnames)} of their "
                f"{p.names.plural}.",
                f"SELECT {self.cols(cnames)}, {self.cols(pnames)} FROM {src}",
                "join-list",
                c,
                p,
            )
            self.of_named(pnames, cnames, p, src, "join-of-named", c, p)

    def own_of_two(self, j: Join) -> None:
        """A child referencing its parent twice (a course and its prerequisite course): the
        reference named as the parent's own key (``course_id``) is the row's own, the other a role;
        "Which courses have no prerequisites?" reads the own one. Not when neither or both are."""
        own = [
            k
            for k in self.m.joins
            if k.child is j.child
            and k.parent is j.parent
            and len(k.pairs) == 1
            and k.pairs[0][0].name.lower() == k.pairs[0][1].name.lower()
        ]
        if own != [j]:
            return
        names = naming(j.parent)
        self._count_without(j, j.child.names.plural)
        if names:
            self._without(j, names, j.child.names.plural)

    def parent_of_named(self, j: Join, cnames: list[Column], pnames: list[Column], src: str) -> None:
        """ "Which owner does the dog named 'X' belong to?": the parent's name (and a column
        or two describing it) looked up by the name of one of its children (named by one column)."""
        m = self.m
        c, p = j.child, j.parent
        if len(cnames) != 1 or not (values := m.values(cnames[0], 1)):
            return
        name, v = cnames[0], values[0]
        others = [[col] for col in describing(p) if col not in pnames and not col.in_fk and not col.in_pk]
        for cols in ([pnames] if pnames else []) + others[: 3 - bool(pnames)]:
            said = the_names(cols, 1) if cols is pnames else cols[0].label
            self.add(
                f"What {agreeing_verb(said)} the {said} of the {p.names.singular} of the {c.names.singular} named "
                f"{say(v, name)}?",
                f"SELECT {self.cols(cols)} FROM {src} WHERE {m.col(name)} = {m.literal(v, name)}",
                "join-parent-of-named",
                c,
                p,
            )

    def of_named(
        self, pnames: list[Column], shown: list[Column], p: Table, src: str, kind: str, *tables: Table
    ) -> None:
        """ "What are the names of the dogs of the owner named 'X'?": the rows of a parent one
        names (``src`` joins them); a parent named by one column only (two say a person, whose
        values a question gives apart)."""
        m = self.m
        values = m.values(pnames[0], 1) if len(pnames) == 1 else []
        if not values:
            return
        name, v = pnames[0], values[0]
        rows = tables[0] if kind == "join-of-named" else tables[-1]
        self.add(
            f"What are the {the_names(shown)} of the {rows.names.plural} of the {p.names.singular} named "
            f"{say(v, name)}?",
            f"SELECT {self.cols(shown)} FROM {src} WHERE {m.col(name)} = {m.literal(v, name)}",
            kind,
            *tables,
        )

    def link(self, own: Join, other: Join) -> None:
        """Through a link table: "the shelf with the most books", "books on no shelf"."""
        a, b = own.parent, other.parent
        if a.name.lower() == b.name.lower():
            return
        fk = own.pairs[0][0]
        self.add(  # "How many clubs have some event?": the distinct references in the link table
            f"How many {a.names.plural} have at least one {b.names.singular}?",
            f"SELECT COUNT(DISTINCT {self.m.col(fk)}) FROM {self.m.table_sql(own.child)}",
            "link-exists",
            own.child,
            a,
        )
        anames = naming(a)
        if anames:
            self._most_and_without(own, anames, b.names.plural, "link-top")
            bnames = naming(b)
            link = own.child
            if bnames and len(own.pairs) == 1 and len(other.pairs) == 1:
                m = self.m
                src = (
                    f"{m.table_sql(link)} JOIN {m.table_sql(a)} ON {m.join_on(own)} "
                    f"JOIN {m.table_sql(b)} ON {m.join_on(other)}"
                )  # "the names of the members of the club named 'X'"
                self.of_named(anames, bnames, a, src, "link-of-named", link, a, b)

    def _most_and_without(
        self, j: Join, names: list[Column], counted: str, top_kind: str, one_each: bool = False
    ) -> None:
        """ "The X with the most Ys" and "Xs with no Y", counting the rows of ``j``'s child (the Ys
        themselves, or the link table's rows that stand for them); ``one_each``: a child that is
        a kind of its parent (one row per parent) is never "the most" of anything."""
        m = self.m
        child, parent = j.child, j.parent
        fk, pk = j.pairs[0]
        src = f"{m.table_sql(child)} JOIN {m.table_sql(parent)} ON {m.join_on(j)}"
        sql = self.cols(names)
        keys = ", ".join(m.col(k) for k in key_columns(parent))
        if one_each:
            self._count_without(j, counted)
            self._without(j, names, counted)
            return
        self.add(
            f"What {verb(the_names(names, 1))} the {the_names(names, 1)} of the {parent.names.singular} with the most "
            f"{counted}?",
            f"SELECT {sql} FROM {src} GROUP BY {keys}, {sql} ORDER BY {tally(m, child)} DESC LIMIT 1",
            top_kind,
            child,
            parent,
            also=f"Which {parent.names.singular} has the largest number of {counted}? Give its "
            f"{the_names(names, 1)}.",
        )
        for words, op, n in (("at least", ">=", 2), ("more than", ">", 1)):
            self.add(
                f"Which {parent.names.plural} have {words} {n} {counted}? Give their {the_names(names)}.",
                f"SELECT {sql} FROM {src} GROUP BY {keys}, {sql} HAVING {tally(m, child)} {op} {n}",
                "having",
                child,
                parent,
            )
        if not references(fk):  # a code the child holds is broken down by itself ("for each role code")
            self.add(
                f"How many {counted} does each {parent.names.singular} have? Give the {the_names(names, 1)} "
                f"and the number.",
                f"SELECT {sql}, {tally(m, child)} FROM {src} GROUP BY {keys}, {sql}",
                "per-parent",
                child,
                parent,
                also=f"Show the {the_names(names)} of all {parent.names.plural} and the number of {counted} of each.",
            )
        self._count_without(j, counted)
        self._without(j, names, counted)

    def _count_without(self, j: Join, counted: str) -> None:
        """ "How many Xs have no Ys?" (``NOT IN`` the child's references)."""
        m = self.m
        child, parent = j.child, j.parent
        fk, pk = j.pairs[0]
        self.add(
            f"How many {parent.names.plural} have no {counted}?",
            f"SELECT COUNT(*) FROM {m.table_sql(parent)} WHERE {m.col(pk)} NOT IN "
            f"(SELECT {m.col(fk)} FROM {m.table_sql(child)} WHERE {m.col(fk)} IS NOT NULL)",
            "count-without",
            child,
            parent,
            also=f"Count the {parent.names.plural} that do not have any {counted}.",
        )

    def _without(self, j: Join, names: list[Column], counted: str) -> None:
        """ "Which Xs have no Ys? Give their names." """
        m = self.m
        child, parent = j.child, j.parent
        fk, pk = j.pairs[0]
        sql = self.cols(names)
        self.add(
            f"Which {parent.names.plural} have no {counted}? Give their {the_names(names)}.",
            f"SELECT {sql} FROM {m.table_sql(parent)} WHERE {m.col(pk)} NOT IN "
            f"(SELECT {m.col(fk)} FROM {m.table_sql(child)} WHERE {m.col(fk)} IS NOT NULL)",
            "without",
            child,
            parent,
            also=f"What are the {the_names(names)} of {parent.names.plural} that do not have any {counted}?",
        )
