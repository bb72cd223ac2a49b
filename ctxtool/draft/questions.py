"""The questions a team curates first, drafted from the schema and the data alone.

:mod:`ctxtool.draft.templates` drafts counts, breakdowns and top-10s; this module adds the shapes
people ask most, each answering exactly what is asked (the columns named, nothing more): listings of
an entity's describing columns, lookups of a column by the name users type, the average / maximum /
minimum of real measures, "the name of the X with the highest Y", listings in order and above a
threshold, distinct values of a dimension, "which Y has the most X", above-the-average questions and,
along foreign keys and link tables, "the X with the most Ys", "Xs without any Y" and a child listed
with its parent. How it is said comes from :mod:`ctxtool.draft.phrasing`.
"""

from __future__ import annotations

import re
from typing import Any

from ctxtool.draft.drafts import Draft, template
from ctxtool.draft.model import Column, Join, Model, Table
from ctxtool.draft.phrasing import and_list, extremes, plural_label, the_names, verb
from ctxtool.draft.related import RelatedQuestions, agreeing_verb
from ctxtool.draft.rows import describing, has_duplicates, naming, natural_key
from ctxtool.draft.templates import (
    categories,
    identifying,
    is_additive,
    measures,
    relationship,
    said_by_value,
    say,
    tally,
    threshold,
    total_of,
)

# Columns of free text, written row by row rather than chosen from a few values.
FREE_TEXT = re.compile(r"\b(?:description|details|summary|comments?|notes?|remarks|text)$", re.I)

MAX_LISTED = 6  # describing columns listed one by one
MAX_PAIRED = 5  # columns listed beside the name
MAX_LOOKUPS = 4  # columns looked up by name

__all__ = ["describing", "draft_questions", "naming"]


class QuestionDrafter(RelatedQuestions):
    def __init__(self, model: Model) -> None:
        self.m = model
        self.out: list[Draft] = []

    def add(self, question: str, sql: str, family: str, *tables: Table, also: str | None = None) -> None:
        """One draft; ``also`` is the other way people often say it (its intent: the runtime
        matches a question against both wordings)."""
        d = template(question, sql, f"schema:{family}", [t.name for t in tables])
        if also and also != question:
            d.item["intent"] = also
        self.out.append(d)

    def run(self) -> list[Draft]:
        for t in self.m.tables:
            if not relationship(t):
                self.table(t)
        for j in self.m.joins:
            if not relationship(j.child) and j.child is not j.parent and len(j.pairs) == 1:
                self.join(j)
            elif relationship(j.child) and not j.child.is_link and len(j.pairs) == 1:
                self.most_common_in(j)
        for link in self.m.links:
            for own, other in ((link.a, link.b), (link.b, link.a)):
                if own.parent is not other.parent and len(own.pairs) == 1:
                    self.link(own, other)
        return self.out

    # -- one table ------------------------------------------------------------------------------

    def extreme(self, meas: Column, order: str) -> str:
        """The SQL after ``FROM`` that keeps the row at the top (``DESC``) or bottom of ``meas``:
        ``LIMIT 1`` over the rows that have a value (a NULL sorts first in PostgreSQL's descending
        order: the answer would be a row of unknown value). Every tied row (``= (SELECT MAX(...))``)
        was measured and not kept: on the Spider kit it answered one question with all the tied rows
        where the gold's ``LIMIT 1`` names one (wrong 12 -> 13 of 1460; docs/draft.md)."""
        mc = self.m.col(meas)
        nulls = meas.nullable and (meas.profile or {}).get("null_fraction", 1) != 0
        return f"{f' WHERE {mc} IS NOT NULL' if nulls else ''} ORDER BY {mc} {order} LIMIT 1"

    def cols(self, cols: list[Column], alias: str | None = None) -> str:
        return ", ".join(self.m.col(c, alias) for c in cols)

    def table(self, t: Table) -> None:
        m, p, s = self.m, t.names.plural, t.names.singular
        src = nsrc = m.table_sql(t)
        names = naming(t)
        if not names and (borrowed := self.borrowed_names(t)) is not None:
            names, nsrc = borrowed  # a body builder is named by the person it is
        shown = describing(t)
        said = the_names(names)  # "names", "first names and last names"
        if names:
            self.add(
                f"What are the {said} of all {p}?", f"SELECT {self.cols(names)} FROM {nsrc}", "list-names", t
            )
        listed = [c for c in shown if c not in names or len(names) > 1][:MAX_LISTED]
        for c in listed:
            # a column whose values repeat is listed by its values, each once ("the locations of
            # cinemas"): one draft, not a listing and a "distinct" listing that a reader cannot tell apart
            # (people listing a column whose values repeat mostly want each value once)
            dimension = c.is_categorical and c.category == "text"
            # (not free text, a description or a summary: two rows alike there are chance, each row is
            # its own; nor a column with no values at all, every row NULL)
            repeated = has_duplicates(c) and bool(c.distinct) and not FREE_TEXT.search(c.label)
            distinct = "DISTINCT " if dimension or repeated else ""
            self.add(
                f"What are the {plural_label(c)} of all {p}?",
                f"SELECT {distinct}{m.col(c)} FROM {src}",
                "list-column",
                t,
                also=f"What are the different {plural_label(c)} of {p}?" if distinct else None,
            )
        if names:
            for c in [c for c in shown if c not in names][:MAX_PAIRED]:
                self.add(
                    f"What are the {and_list([*[plural_label(n) for n in names], plural_label(c)])} of all {p}?",
                    f"SELECT {self.cols(names)}, {m.col(c)} FROM {nsrc}",
                    "list-with-name",
                    t,
                )
        name = names[0] if len(names) == 1 else None
        if name is not None and (values := m.values(name, 1)):
            self.lookups(
                t, name, values[0], shown, f"the {s} named {say(values[0], name)}", nsrc, "lookup-column"
            )
        self.lookups_by_code(t, names, shown)
        for meas in measures(t):
            mc = m.col(meas)
            label = meas.label
            for word, agg in (("average", "AVG"), ("maximum", "MAX"), ("minimum", "MIN")):
                self.add(
                    f"What is the {word} {label} of all {p}?",  # the subject is "the average"
                    f"SELECT {agg}({mc}) FROM {src}",
                    "aggregate",
                    t,
                )
            if is_additive(meas):
                self.add(
                    f"What is the {total_of(meas)} of all {p}?",
                    f"SELECT SUM({mc}) FROM {src}",
                    "aggregate",
                    t,
                )
            self.add(
                f"What are the average and maximum {label} of all {p}?",
                f"SELECT AVG({mc}), MAX({mc}) FROM {src}",
                "min-max",
                t,
            )
            self.add(
                f"What are the maximum and minimum {label} of all {p}?",
                f"SELECT MAX({mc}), MIN({mc}) FROM {src}",
                "min-max",
                t,
            )
            self.add(
                f"What are the average, minimum and maximum {label} of all {p}?",
                f"SELECT AVG({mc}), MIN({mc}), MAX({mc}) FROM {src}",
                "min-max",
                t,
            )
            for words, order in (("in ascending order", "ASC"), ("in descending order", "DESC")):
                self.add(  # "List the ages of all people in ascending order.": the values themselves
                    f"List the {plural_label(meas)} of all {p} {words}.",
                    f"SELECT {mc} FROM {src} ORDER BY {mc} {order}",
                    "ordered-measure",
                    t,
                )
            if not names:
                continue
            nsql = self.cols(names)
            for word, order in extremes(label):
                self.add(
                    f"What {verb(the_names(names, 1))} the {the_names(names, 1)} of the {s} with the {word} {label}?",
                    f"SELECT {nsql} FROM {nsrc}{self.extreme(meas, order)}",
                    "superlative",
                    t,
                    also=f"Which {s} has the {word} {label}? Give its {the_names(names, 1)}.",
                )
            for c in [c for c in shown if c not in names and c is not meas][:3]:
                for word, order in extremes(label):
                    self.add(
                        f"What {agreeing_verb(c.label)} the {c.label} of the {s} with the {word} {label}?",
                        f"SELECT {m.col(c)} FROM {src}{self.extreme(meas, order)}",
                        "superlative",
                        t,
                    )
            for word, order in extremes(label):
                self.add(
                    f"What are the {and_list([*[n.label for n in names], label])} of the {s} with the "
                    f"{word} {label}?",
                    f"SELECT {nsql}, {mc} FROM {nsrc}{self.extreme(meas, order)}",
                    "superlative",
                    t,
                )
            self.add(
                f"List the {said} of all {p} ordered by {label}.",
                f"SELECT {nsql} FROM {nsrc} ORDER BY {mc}",
                "ordered",
                t,
            )
            self.add(
                f"List the {said} of all {p} in descending order of {label}.",
                f"SELECT {nsql} FROM {nsrc} ORDER BY {mc} DESC",
                "ordered",
                t,
            )
            limit = threshold(meas)
            if limit is not None:
                self.add(
                    f"What are the {said} of {p} with {label} greater than {limit}?",
                    f"SELECT {nsql} FROM {nsrc} WHERE {mc} > {limit}",
                    "list-threshold",
                    t,
                )
                self.add(
                    f"What are the {said} of {p} with {label} less than {limit}?",
                    f"SELECT {nsql} FROM {nsrc} WHERE {mc} < {limit}",
                    "list-threshold",
                    t,
                )
            self.add(
                f"Which {p} have {label} above the average? Give their {said}.",
                f"SELECT {nsql} FROM {nsrc} WHERE {mc} > (SELECT AVG({mc}) FROM {src})",
                "above-average",
                t,
                also=f"What are the {said} of {p} whose {label} is higher than the average?",
            )
            self.add(
                f"Which {p} have {label} below the average? Give their {said}.",
                f"SELECT {nsql} FROM {nsrc} WHERE {mc} < (SELECT AVG({mc}) FROM {src})",
                "above-average",
                t,
                also=f"What are the {said} of {p} whose {label} is lower than the average?",
            )
        if names:
            self.add(
                f"List the {said} of all {p} in alphabetical order.",
                f"SELECT {self.cols(names)} FROM {nsrc} ORDER BY {self.cols(names)}",
                "ordered",
                t,
            )
            self.add(
                f"List the {said} of all {p} in reverse alphabetical order.",
                f"SELECT {self.cols(names)} FROM {nsrc} ORDER BY "
                + ", ".join(f"{m.col(c)} DESC" for c in names),
                "ordered",
                t,
                also=f"Sort the {said} of all {p} in descending alphabetical order.",
            )
            for d in [c for c in shown if c.is_date][:2]:
                self.add(
                    f"List the {said} of all {p} ordered by {d.label}.",
                    f"SELECT {self.cols(names)} FROM {nsrc} ORDER BY {m.col(d)}",
                    "ordered",
                    t,
                )
                for word, order in (("earliest", "ASC"), ("latest", "DESC")):
                    self.add(
                        f"What {verb(the_names(names, 1))} the {the_names(names, 1)} of the {s} with the {word} {d.label}?",
                        f"SELECT {self.cols(names)} FROM {nsrc} WHERE {m.col(d)} IS NOT NULL "
                        f"ORDER BY {m.col(d)} {order} LIMIT 1",
                        "date-superlative",
                        t,
                        also=f"Which {s} has the {word} {d.label}? Give its {the_names(names, 1)}.",
                    )
        others = [c for c in shown if c not in names][:4]
        for i, a in enumerate(others):  # two describing columns side by side
            for b in others[i + 1 :]:
                self.add(
                    f"What are the {plural_label(a)} and {plural_label(b)} of all {p}?",
                    f"SELECT {m.col(a)}, {m.col(b)} FROM {src}",
                    "list-pair",
                    t,
                )
        cats = categories(t, m)
        for c in [
            c
            for c in shown
            if c not in cats
            and c not in listed
            and c.repeats
            and c.distinct
            and c.distinct > 1
            and not identifying(c)
        ][:4]:
            self.add(
                f"What are the distinct {plural_label(c)} of {p}?",
                f"SELECT DISTINCT {m.col(c)} FROM {src}",
                "distinct",
                t,
            )
        for c in [
            c
            for c in listed
            if c not in cats and c.category == "text" and has_duplicates(c) and not identifying(c)
        ][:3]:
            # "How many different colours do products come in?": a listed column whose values repeat
            self.add(
                f"How many distinct {plural_label(c)} do {p} have?",
                f"SELECT COUNT(DISTINCT {m.col(c)}) FROM {src}",
                "count-distinct",
                t,
                also=f"How many different {plural_label(c)} of {p} are there?",
            )
        for cat in [c for c in categories(t, m) if c not in names]:  # a name is not a dimension
            cc = m.col(cat)
            if cat not in listed:
                self.add(
                    f"What are the distinct {plural_label(cat)} of {p}?",
                    f"SELECT DISTINCT {cc} FROM {src}",
                    "distinct",
                    t,
                )
            self.add(
                f"How many distinct {plural_label(cat)} do {p} have?",
                f"SELECT COUNT(DISTINCT {cc}) FROM {src}",
                "count-distinct",
                t,
                also=f"How many different {plural_label(cat)} of {p} are there?",
            )
            self.add(
                f"Which {cat.label} has the most {p}?",
                f"SELECT {cc} FROM {src} GROUP BY {cc} ORDER BY {tally(m, t)} DESC LIMIT 1",
                "most-category",
                t,
                also=f"What is the most common {cat.label} of {p}?",
            )
            for words, op, n in (("at least", ">=", 2), ("more than", ">", 1)):
                self.add(
                    f"Which {plural_label(cat)} have {words} {n} {p}?",
                    f"SELECT {cc} FROM {src} GROUP BY {cc} HAVING {tally(m, t)} {op} {n}",
                    "having",
                    t,
                )
            if names and said_by_value(cat) and (values := m.values(cat, 1)):
                v = values[0]
                self.add(
                    f"What are the {said} of {p} with {cat.label} {say(v, cat)}?",
                    f"SELECT {self.cols(names)} FROM {nsrc} WHERE {cc} = {m.literal(v, cat)}",
                    "list-where",
                    t,
                )
                self.add(  # "shops whose kind is not 'kiosk'": the negation said, not dropped
                    f"What are the {said} of {p} whose {cat.label} is not {say(v, cat)}?",
                    f"SELECT {self.cols(names)} FROM {nsrc} WHERE {cc} <> {m.literal(v, cat)}",
                    "list-where-not",
                    t,
                )

    def most_common_in(self, j: Join) -> None:
        """ "What is the most common skill?" of a table stating facts (``has_skill``) that
        references the skills, its other side undeclared: the parent its rows name most often,
        said by the parent's code as the facts hold it (a text key people read) or its names."""
        m, rel, parent = self.m, j.child, j.parent
        fk, pk = j.pairs[0]
        names = naming(parent)
        if names:
            shown, src = names, f"{m.table_sql(rel)} JOIN {m.table_sql(parent)} ON {m.join_on(j)}"
            group = ", ".join(dict.fromkeys(m.col(c) for c in [pk, *names]))
        elif natural_key(pk):
            shown, src, group = [fk], m.table_sql(rel), m.col(fk)
        else:
            return
        self.add(
            f"What is the most common {parent.names.singular}?",
            f"SELECT {self.cols(shown)} FROM {src} GROUP BY {group} ORDER BY COUNT(*) DESC LIMIT 1",
            "most-common-in",
            rel,
            parent,
            also=f"Which {parent.names.singular} is the most common?",
        )

    def lookups_by_code(self, t: Table, names: list[Column], shown: list[Column]) -> None:
        """ "What is the description of the role with role code 'ED'?": a table keyed by a code
        people type (a text key of its own, not its name) looked up by that code."""
        m = self.m
        keys = t.pk_columns
        if len(keys) != 1:
            return
        key = keys[0]
        if key in names or not natural_key(key) or key.category != "text" or not (values := m.values(key, 1)):
            return
        v = values[0]
        said = f"the {t.names.singular} with {key.label} {say(v, key)}"
        self.lookups(t, key, v, shown, said, m.table_sql(t), "lookup-by-code")

    def lookups(
        self, t: Table, by: Column, v: Any, shown: list[Column], said: str, src: str, family: str
    ) -> None:
        """ "What is the C of <said>?" for the first shown columns, the row picked by ``by = v``."""
        m = self.m
        for c in [c for c in shown if c is not by][:MAX_LOOKUPS]:
            self.add(
                f"What {agreeing_verb(c.label)} the {c.label} of {said}?",
                f"SELECT {m.col(c)} FROM {src} WHERE {m.col(by)} = {m.literal(v, by)}",
                family,
                t,
            )

    def borrowed_names(self, t: Table) -> tuple[list[Column], str] | None:
        """The names of a table with none of its own, from the one table it references row for row
        (a subtype or role: each ``body_builder`` row is one person): (those columns, the join)."""
        m = self.m
        joins = [j for j in m.parents_of(t) if len(j.pairs) == 1]
        if len(joins) != 1:
            return None
        j = joins[0]
        fk = j.pairs[0][0]
        names = naming(j.parent)
        d, rows = fk.distinct, t.rows
        if not names or j.parent.is_link or d is None or not rows or rows <= 0 or d < rows:
            return None
        return names, f"{m.table_sql(t)} JOIN {m.table_sql(j.parent)} ON {m.join_on(j)}"

    # -- along a foreign key ----------------------------------------------------------------------


def draft_questions(model: Model) -> list[Draft]:
    """The curated-first questions of ``model`` (not yet parameterized or checked)."""
    return QuestionDrafter(model).run()
