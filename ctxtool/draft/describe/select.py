"""One SELECT in words: the head (count, total, average, the columns listed), "for each ...",
"the 10 ... with the highest ...", then its conditions grouped by the table they are about."""

from __future__ import annotations

import re
from typing import Any

from sqlglot import exp

from ctxtool.dialects import positional_style
from ctxtool.draft.describe.conditions import counts_things, other_end, temporal
from ctxtool.draft.describe.rows import listed_table, measured, one_to_one, role_of, scope_tables
from ctxtool.draft.describe.scope import Scope, _is_value, _value_text, _year_column, key_strength
from ctxtool.draft.describe.words import (
    _and_list,
    _article,
    _conjuncts,
    _in_order,
    _join_conditions,
    _most,
    _most_common,
    _shared_owner,
    _year_label,
)
from ctxtool.draft.model import Table
from ctxtool.draft.phrasing import plural_words, verb
from ctxtool.english.tokens import lemma

# "the member with the highest age" is "the oldest member" (said of the rows' own age)
AGE_SUPERLATIVE = {"highest age": "oldest", "lowest age": "youngest"}

HOW_MANY = {
    exp.GT: "more than",
    exp.GTE: "at least",
    exp.LT: "fewer than",
    exp.LTE: "at most",
    exp.EQ: "exactly",
}


def _count_at_least(sel: exp.Select) -> tuple[str, str] | None:
    """``HAVING COUNT(*) >= 2`` -> ("at least", "2"); None for any other HAVING."""
    having = sel.args.get("having")
    h = having.this if having is not None else None
    if type(h) not in HOW_MANY or not isinstance(h.this, exp.Count) or not _is_value(h.expression):
        return None
    arg = h.this.this
    if arg is not None and not isinstance(arg, exp.Star):
        return None
    return HOW_MANY[type(h)], _value_text(h.expression)


def _picks_rows(scope: Scope, node: exp.Expression) -> bool:
    """``name = 'a'``, ``name IN ('a', 'b')``, ``name = 'a' OR name = 'b'`` on a column whose every row
    has its own value: the condition names the rows ("of the breed with name 'Collie'"), where a shared
    value describes many ("for accounts with frequency 'monthly'")."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Or):
        return _picks_rows(scope, node.left) and _picks_rows(scope, node.right)
    if isinstance(node, exp.In) and node.args.get("query") is not None:
        return False
    if not isinstance(node, (exp.EQ, exp.In)):
        return False
    col = scope.column(node.this) or scope.column(node.args.get("expression"))
    return col is not None and not col.repeats


def _top_groups(
    n: str | None, group_labels: list[str], order_words: str, aggs: list[str]
) -> tuple[str, str] | None:
    """(question, phrase) of the top groups by a measure of theirs (``GROUP BY g ORDER BY SUM(x)
    DESC LIMIT 1``): "Which customer has the highest total amount paid, and what is it?", "The
    customer with the highest total amount paid and its total amount paid"; None for other queries."""
    if (
        not n
        or not group_labels
        or not order_words.startswith(("highest ", "lowest ", "latest ", "earliest "))
    ):
        return None
    most = _most(order_words)
    group = " and ".join(group_labels)
    said = [("number of " + a[len("Count of ") :]) if a.startswith("Count of ") else a for a in aggs]
    said = [a[:1].lower() + a[1:] for a in said]
    if n == "1":
        question = f"Which {group} has the {most}"
        phrase = f"The {group} with the {most}"
    else:
        question = f"Which {n} {plural_words(group)} have the {most}"
        phrase = f"The {n} {plural_words(group)} with the {most}"
    if said:
        question += f", and what {'is' if len(said) == 1 else 'are'} {'its' if n == '1' else 'their'} {_and_list(said)}"
        phrase += f" and {'its' if n == '1' else 'their'} {_and_list(said)}"
    return question, phrase


def _singular(label: str) -> str:
    """A plural label for one group: "formats" -> "format" (labels that are no plurals stay)."""
    head, _, last = label.rpartition(" ")
    if (
        not last.isalpha()
        or not last.islower()
        or not last.endswith("s")
        or last.endswith(("ss", "us", "is"))
    ):
        return label
    base, _ = lemma(last)
    return f"{head} {base}".strip() if base != last and base else label


def _one(value: str, things: str) -> str:
    """ "1", "books" -> "book": a count of one said in the singular ("exactly 1 book")."""
    if value != "1":
        return things
    head, sep, rest = things.partition(" ")  # "authors with a paper": the noun comes first
    if rest.startswith(("with ", "of ", "in ", "for ")):
        return f"{_singular(head)} {rest}"
    return _singular(things)


def _acronyms(one: str, many: str) -> str:
    """The plural of a label ending in an acronym: "account IDs" (not "account Ids")."""
    last = one.rsplit(" ", 1)[-1]
    return one + "s" if len(last) > 1 and last.isupper() and last.isalpha() else many


class Select:
    """The describer's SELECT phrasing (mixed into :class:`ctxtool.draft.describe.Describer`)."""

    def describe_select(self, sel: exp.Select) -> str:
        scope = Scope(self.m, sel)
        scope.subject = measured(scope, sel) or listed_table(scope, sel)
        main = scope.main
        if main is not None and len(scope.order) == 2:
            other = next(t for t in scope.order if t is not main)
            if one_to_one(self.m, scope, main, other):
                scope.same_rows = {other}  # a person's columns are the member's own: no "person age"
        role = role_of(self.m, scope)
        if role is None or main is None:
            return self._describe_select(sel, scope, None)
        # the rows are the role's ("names of members", not "names of people with a member"): the
        # main table is named by its role while the query is said
        saved, main.names = main.names, role.names
        scope.same_rows.add(role)
        try:
            return self._describe_select(sel, scope, role)
        finally:
            main.names = saved

    def _describe_select(self, sel: exp.Select, scope: Scope, role: Table | None) -> str:
        main = scope.main
        subject = main.names.plural if main else "rows"
        projections = sel.expressions
        aggs: list[str] = []
        plain: list[str] = []
        many: list[str] = []  # the plain projections' labels for many rows ("names", "unit prices")
        plain_cols: dict[int, Any] = {}  # position in ``plain`` -> its column
        for p in projections:
            a = self.aggregate(scope, p)
            if a:
                aggs.append(a)
            elif isinstance(p, exp.Star) or (isinstance(p, exp.Column) and isinstance(p.this, exp.Star)):
                plain.append("all details")
                many.append("all details")
            else:
                inner = p.this if isinstance(p, exp.Alias) else p
                yc = _year_column(scope, inner)
                if yc is not None:
                    plain.append(f"{self.label(scope, yc, inner)} year")
                    many.append(f"{self.label(scope, yc, inner)} years")
                    continue
                col = scope.column(inner)
                plain.append(self.label(scope, col, p))
                many.append(plural_words(plain[-1]) if col is not None else plain[-1])
                plain_cols[len(plain) - 1] = col
        group = sel.args.get("group")
        group_labels: list[str] = []
        entity_groups = False  # grouped by rows of a table ("for each club"), not by a value
        grouped = [scope.column(g) for g in group.expressions] if group is not None else []
        if group is not None:
            for g in group.expressions:
                yc = _year_column(scope, g)
                if yc is not None:
                    group_labels.append(_year_label(self.label(scope, yc, g)))
                    continue
                col = scope.column(g)
                if col is None and isinstance(g, exp.Column):  # GROUP BY an alias
                    alias = next(
                        (p for p in projections if isinstance(p, exp.Alias) and p.alias == g.name), None
                    )
                    if alias is not None:
                        yc = _year_column(scope, alias.this)
                        if yc is not None:
                            group_labels.append(_year_label(self.label(scope, yc, alias.this)))
                            continue
                        col = scope.column(alias.this)
                if (
                    col is not None
                    and main is not None
                    and col.table is not main
                    and (key_strength(col) == 2 or col is col.table.name_column)
                ):
                    group_labels.append(col.table.names.singular)
                    entity_groups = True
                    for k, c in plain_cols.items():  # "the artist with the most albums"
                        if c is col:
                            plain[k] = many[k] = col.table.names.singular
                elif col is not None and key_strength(col) == 2:
                    group_labels.append(col.table.names.singular)  # GROUP BY shelf.id: "for each shelf"
                    entity_groups = True
                else:
                    label = self.label(scope, col, g)
                    if col is not None and col.category == "text":
                        label = _singular(label)  # "for each format" of a column named formats
                    if label not in group_labels:
                        group_labels.append(label)
        # the columns returned besides the groups ("the order with the most payments and its date")
        self._top_extra = [
            p for k, p in enumerate(plain) if p not in group_labels and plain_cols.get(k) not in grouped
        ]
        limit = sel.args.get("limit")
        n = None
        if limit is not None:
            lim = limit.expression if limit.expression is not None else limit.this
            if isinstance(lim, exp.Literal):
                n = lim.this
        order = sel.args.get("order")
        order_words = ""
        order_tables: set[Table] = set()  # the tables the order is about: their words say they are there
        if order is not None and order.expressions:
            o = order.expressions[0]
            desc = bool(o.args.get("desc"))
            col = scope.column(o.this)
            if col is None and isinstance(o.this, exp.Column):
                alias = next(
                    (p for p in projections if isinstance(p, exp.Alias) and p.alias == o.this.name), None
                )
                if alias is not None:
                    agg = self.aggregate(scope, alias)
                    if agg:
                        order_words = ("highest " if desc else "lowest ") + agg[0].lower() + agg[1:]
                    else:
                        col = scope.column(alias.this)
            elif col is None:
                agg = self.aggregate(scope, o.this)
                if agg:
                    order_words = ("highest " if desc else "lowest ") + agg[0].lower() + agg[1:]
            if col is not None:
                order_tables.add(col.table)
            if col is not None and not order_words:
                when = temporal(col, col.label)  # "the latest launch year", not "highest"
                extreme = ("latest " if desc else "earliest ") if when else ""
                extreme = extreme or ("highest " if desc else "lowest ")
                order_words = extreme + self.label(scope, col, o.this)

        # `?` placeholders bind by position: the question must mention values in the SQL's order, so
        # the top-N (its LIMIT comes last) follows the conditions instead of leading the question
        positional = positional_style(self.m.dialect) == "qmark"
        late_top = (
            positional
            and n is not None
            and (sel.args.get("where") is not None or sel.args.get("having") is not None)
        )
        tail = ""
        # the head of the phrase
        if aggs:
            owners = {a.rsplit(" of ", 1)[-1] for a in aggs if " of " in a}
            if len(aggs) > 1 and len(owners) == 1 and all(" of " in a for a in aggs):
                owner = owners.pop()
                bare = [a.rsplit(" of ", 1)[0] for a in aggs]
                measures = {b.split(" ", 1)[-1] for b in bare}
                if len(measures) == 1 and all(" " in b for b in bare):
                    # "Lowest, highest and average price of products": the measure said once
                    words = [b.split(" ", 1)[0] for b in bare]
                    head = (
                        _and_list([words[0], *(w.lower() for w in words[1:])])
                        + f" {measures.pop()} of {owner}"
                    )
                else:
                    head = " and ".join([bare[0], *[b[0].lower() + b[1:] for b in bare[1:]]]) + f" of {owner}"
            else:
                head = " and ".join([aggs[0], *[a[0].lower() + a[1:] for a in aggs[1:]]])
            if group_labels:
                head += " for each " + " and ".join(group_labels)
            top = _top_groups(n, group_labels, order_words, self._top_extra + aggs) if not late_top else None
            if top is not None:
                head = top[1]
            elif n and order_words:
                if late_top:
                    tail = f", top {n} by {order_words}"
                else:
                    head += f", top {n} by {order_words}"
        elif n and order_words and not late_top:
            most = _most(order_words)
            one = main.names.singular if main else "row"
            shown = [
                p
                for p in plain
                if p not in order_words or p in group_labels or (not group_labels and n == "1")
            ]
            counted_order = order_words.startswith(("highest count of ", "lowest count of "))
            common = _most_common(most) if counted_order and not entity_groups and not self._nested else None
            if n == "1" and group_labels and shown and all(p in group_labels for p in shown) and common:
                head = f"The {common[0]} {_and_list(shown)} of {common[1]}"  # "the most common type of"
            elif group_labels and shown and all(p in group_labels for p in shown):
                top = _top_groups(n, shown, order_words, [])
                head = top[1] if top else f"The {_and_list(shown)} with the {most}"  # GROUP BY g ... LIMIT 1
            elif n == "1":
                head = (_and_list(shown) + f" of the {one}" if shown else f"The {one}") + f" with the {most}"
            else:
                head = _and_list(shown) + f" of the {n} {subject}" if shown else f"The {n} {subject}"
                head += f" with the {most}"
            head = head[0].upper() + head[1:]
        else:
            if sel.args.get("distinct") is not None:
                head = "Distinct " + " and ".join(many) + f" of {subject}"
            else:
                # "List the names and ages of members", as a list is asked for (a part of a
                # sentence keeps its labels: "the name of the member with ...")
                said = (
                    [_acronyms(p, m) for p, m in zip(plain, many, strict=True)] if not self._nested else plain
                )
                if not self._nested and not self._question:
                    # "all information about", the other way a whole row is asked for
                    said = ["all information" if p == "all details" else p for p in said]
                    if main is not None and not any(c.label == "name" for c in main.columns):
                        # a title names its row: "the names of books", as people call it
                        said = ["names" if p == "titles" else "name" if p == "title" else p for p in said]
                    for k, c in plain_cols.items():  # "the number of followers", as a count is asked
                        if c is not None and c.category == "number" and counts_things(plain[k]):
                            said[k] = "number of " + plain[k]
                listed = _and_list(said) if said else "details"
                head = (listed[0].upper() + listed[1:]) + f" of {subject}"
                if _count_at_least(sel) and group_labels and plain and all(p in group_labels for p in plain):
                    head = listed[0].upper() + listed[1:]  # "Colleges with at least 2 players"
            if n and order_words:
                tail = f", top {n} by {order_words}"
            elif order_words and not n:
                tail = ", " + _in_order(order_words, self._question)
            elif n and late_top:
                tail = f", first {n} rows"
            elif n:
                head = f"First {n} rows: " + head[0].lower() + head[1:]

        self._having_said = False
        if self._question:
            h = sel.args["having"].this if sel.args.get("having") is not None else None
            agg = self.aggregate(scope, h.this) if isinstance(h, exp.Binary) else None
            counted = agg[len("Count of ") :] if agg and agg.startswith("Count of ") else None
            head, tail = self._question_head(
                sel, main, aggs, plain, many, group_labels, n, order_words, tail, late_top, counted
            )

        # conditions, grouped by the table they are about
        where = sel.args.get("where")
        conds: dict[Any, list[str]] = {}
        first: dict[Any, int] = {}  # the position of each table's first condition in WHERE
        picks: dict[Any, bool] = {}  # every condition on the table is an equality to given values
        if where is not None:
            for i, c in enumerate(_conjuncts(where.this)):
                self._plain = True
                try:
                    table, words = self.condition(scope, c)
                finally:
                    self._plain = False
                if words:
                    key = table if table is not None and table is not role else main
                    key = main if key in scope.same_rows else key  # a person's height is the member's
                    conds.setdefault(key, []).append(words)
                    first.setdefault(key, i)
                    picks[key] = picks.get(key, True) and _picks_rows(scope, c)
        having = sel.args.get("having")
        having_words = ""
        if having is not None:
            h = having.this
            if isinstance(h, (exp.GT, exp.GTE, exp.LT, exp.LTE, exp.EQ)):
                agg = self.aggregate(scope, h.this)
                if agg:
                    op = {
                        exp.GT: "above",
                        exp.GTE: "at least",
                        exp.LT: "below",
                        exp.LTE: "at most",
                        exp.EQ: "equal to",
                    }[type(h)]
                    value = _value_text(h.expression)
                    if isinstance(
                        h.expression, (exp.Subquery, exp.Select)
                    ):  # "above the average salary of ..."
                        _, sub_head, sub_conds = self.subquery_words(h.expression)
                        value = "the " + sub_head + (f" {sub_conds}" if sub_conds else "")
                    having_words = f" having {agg[0].lower() + agg[1:]} {op} {value}"
                    if agg.startswith("Count of ") and _is_value(h.expression):
                        # "with at least 2 books", as people ask it (no "having count of books ...")
                        having_words = (
                            f" with {HOW_MANY[type(h)]} {value} {_one(value, agg[len('Count of ') :])}"
                        )
                    elif main is not None and agg.endswith(f" of {main.names.plural}"):
                        bare = agg[: -len(f" of {main.names.plural}")]
                        having_words = f" with {bare[0].lower() + bare[1:]} {op} {value}"
                    if self._having_said:
                        having_words = ""
                    elif self._question and agg.startswith("Count of "):
                        op = HOW_MANY[type(h)]
                        having_words = f" that have {op} {_value_text(h.expression)} {_one(_value_text(h.expression), agg[len('Count of ') :])}"

        parts: list[tuple[int, str]] = []  # (position of its first value in WHERE, words)
        main_words = _join_conditions(conds[main]) if conds.get(main) else ""
        if main_words:
            parts.append((first[main], main_words))
        for table in scope.order:
            if table is main:
                continue
            is_child = main is not None and any(
                j.child is table and self._reaches(scope, j.parent, main) for j in scope.joins
            )
            words = conds.get(table)
            groups_on_it = any(table.names.singular in g for g in group_labels)
            across = self._across_link(scope, main, table)
            shown = any(c is not None and c.table is table for c in plain_cols.values())
            if shown and not words:
                continue  # its columns are asked for: that it is there goes without saying
            if not words and table in order_tables and order_words:
                continue  # "the user with the highest review rating": joined to be ordered by
            if table is role and not words:
                continue  # the rows are named by it
            if not words and self._link_ends_in(scope, table):
                continue  # said by the table at its other end ("books on the shelf ...")
            if across and not groups_on_it:
                if not words:
                    phrase = f"with {_article(table.names.singular)} {table.names.singular}"
                elif picks.get(table):
                    phrase = f"of the {table.names.singular} " + self._named(table, words)
                else:
                    phrase = f"for {table.names.plural} " + _join_conditions(words)
                parts.append((first.get(table, -1), phrase))
            elif is_child and not groups_on_it:
                end = other_end(self.m, table, {t.name.lower() for t in scope.order})
                one = (end or table).names.singular  # books with a placed_on row: "with a shelf"
                if not words and (end or table).names.plural in head + having_words:
                    continue  # "How many club events ... for each club": counted, so there
                phrase = f"with {_article(one)} {one}"
                parts.append(
                    (first.get(table, -1), phrase + (" " + _join_conditions(words) if words else ""))
                )
            elif words and main is not None and picks.get(table) and self._reaches(scope, main, table):
                parts.append((first[table], f"in the {table.names.singular} " + self._named(table, words)))
            elif words:
                named = table.name_column
                if named is not None and any(named.label in w for w in words):
                    parts.append(
                        (first[table], f"in the {table.names.singular} " + self._named(table, words))
                    )
                else:
                    parts.append((first[table], f"for {table.names.plural} " + _join_conditions(words)))
        for table, words in conds.items():
            if table is not main and table not in scope.order:
                parts.append((first[table], _join_conditions(words)))
        if positional:
            parts.sort(key=lambda p: p[0])
        if self._question and head.startswith("How many ") and not head.endswith(" are there") and parts:
            k = min(range(len(parts)), key=lambda i: parts[i][0]) if positional else 0
            words = parts[k][1]
            if " for each " in tail:
                pass
            elif words.startswith("with "):
                # "How many ratings have stars above 3", as a count of rows with something is asked
                said = (
                    words[len("with ") :]
                    .replace(" and with ", " and have ")
                    .replace(" or with ", " or have ")
                )
                parts[k] = (parts[k][0], "have " + said)
            elif words.startswith("that are "):  # "How many products are in stock"
                parts[k] = (parts[k][0], words[len("that ") :])
            elif words.startswith(("older ", "younger ", "in the ", "of the ")):
                parts[k] = (parts[k][0], "are " + words.replace(" and with ", " and have "))
        text = head
        for k, (_, words) in enumerate(parts):
            if words:
                # the main table's conditions after another table's: a comma keeps them on the main table
                later_main = positional and k > 0 and words == main_words
                text += (", " if later_main else " ") + words
        if self._question and " for each " in tail:  # the groups' condition after the groups
            return text + tail + having_words
        return text + having_words + tail

    def _named(self, table: Table, words: list[str]) -> str:
        """The conditions that pick a row of ``table``; in the phrase, its name alone ("in the team
        'Columbus Crew'", as people name it), the question keeping "with name ..."."""
        if self._question or len(words) != 1:
            return _join_conditions(words)
        named = table.name_column
        labels = {named.label} if named is not None else {"name", "title"}
        m = re.fullmatch(r"with ([\w ]+?) ('(?:[^']|'')*')", words[0])
        if m and m.group(1) in labels:
            return m.group(2)
        return _join_conditions(words)

    def _bridges(self, scope: Scope) -> dict[str, set[str]]:
        """The query's tables that reference two others of the query (a link table such as
        placed_on between books and shelves): name -> the names of the tables they join."""
        out: dict[str, set[str]] = {}
        for t in scope.order:
            ends = {j.parent.name for j in scope.joins if j.child is t}
            ends.discard(t.name)
            if len(ends) >= 2:
                out[t.name] = ends
        return out

    def _across_link(self, scope: Scope, main: Table | None, table: Table) -> bool:
        """``table`` is joined to ``main`` through a link table of the query (books and shelves
        through lives_in)."""
        if main is None or table is main:
            return False
        return any({main.name, table.name} <= ends for ends in self._bridges(scope).values())

    def _link_ends_in(self, scope: Scope, table: Table) -> bool:
        """``table`` links two other tables of the query: the link itself needs no words."""
        return table.name in self._bridges(scope)

    def _question_head(
        self,
        sel: exp.Select,
        main: Table | None,
        aggs: list[str],
        plain: list[str],
        many: list[str],
        group_labels: list[str],
        n: str | None,
        order_words: str,
        tail: str,
        late_top: bool = False,
        counted: str | None = None,
    ) -> tuple[str, str]:
        """The head of the question a person asks for this SELECT ("How many cinemas", "What are the
        names and locations of cinemas", "Which location has the most cinemas"), and its tail."""
        subject = main.names.plural if main else "rows"
        one = main.names.singular if main else "row"
        each = " for each " + " and ".join(group_labels) if group_labels else ""
        having = _count_at_least(sel)
        if (
            having is not None
            and aggs
            and not n
            and all(a.startswith("Count of ") for a in aggs)
            and plain
            and all(p in group_labels for p in plain)
        ):
            op, value = having  # the groups and their counts: "Which X have at least 2 Y, and how many"
            self._having_said = True
            what = counted or subject
            return (
                f"Which {_and_list(many)} have {op} {value} {_one(value, what)}, and how many {what} do they have",
                tail,
            )
        if aggs:
            counts = [a for a in aggs if a.startswith(("Count of ", "Number of "))]
            if len(aggs) == 1 and counts:
                what = aggs[0].split(" of ", 1)[1]
                if what.startswith("distinct "):
                    what = "different " + what[len("distinct ") :]
                    what = plural_words(what)
                owner, has, rest = what.partition(" with a ")
                owner, has, rest = (owner, has, rest) if has else what.partition(" with an ")
                if has:  # "How many customers have an account"
                    head = f"How many {owner} have {has.split()[-1]} {rest}"
                else:
                    head = f"How many {what}"
                if each:
                    tail = " are there" + each + tail  # after the conditions: they are not the groups'
                elif not sel.args.get("where") and not sel.args.get("having") and " have a " not in head:
                    head += " are there"
            else:
                said = [
                    ("number of " + a[len("Count of ") :]) if a.startswith("Count of ") else a for a in aggs
                ]
                listed = _and_list([a[0].lower() + a[1:] for a in _shared_owner(said)])
                head = f"What {'are' if len(aggs) > 1 else 'is'} the {listed}"
                tail = each + tail  # "for each city" after the conditions: they are not the groups'
            top = _top_groups(n, group_labels, order_words, self._top_extra + aggs) if not late_top else None
            if top is not None:
                return top[0], ""
            if n and order_words and not late_top:
                head += f", top {n} by {order_words}"
                tail = ""
            return head, tail
        having = _count_at_least(sel)
        if having is not None and group_labels and plain and all(p in group_labels for p in plain):
            op, value = having  # GROUP BY g HAVING COUNT(*) >= 2: "Which locations have at least 2 cinemas"
            self._having_said = True
            return f"Which {_and_list(many)} have {op} {value} {_one(value, counted or subject)}", tail
        if n and order_words and not late_top:
            most = _most(order_words)
            shown = [
                p
                for p in plain
                if p not in order_words or p in group_labels or (not group_labels and n == "1")
            ]
            shown_many = [m for p, m in zip(plain, many, strict=True) if p in shown]
            adjective = AGE_SUPERLATIVE.get(order_words) if not group_labels else None
            if adjective:  # "the oldest member", "the 3 youngest members"
                if n == "1":
                    if not shown:
                        return f"Which {one} is the {adjective}", ""
                    return f"What {verb(shown[-1])} the {_and_list(shown)} of the {adjective} {one}", ""
                if not shown:
                    return f"Which {n} {subject} are the {adjective}", ""
                return f"What are the {_and_list(shown_many)} of the {n} {adjective} {subject}", ""
            if group_labels and shown and all(p in group_labels for p in shown):
                top = _top_groups(n, shown, order_words, [])
                return (top[0] if top else f"Which {_and_list(shown)} has the {most}"), ""
            if n == "1":
                if not shown:
                    return f"Which {one} has the {most}", ""
                return f"What {verb(shown[-1])} the {_and_list(shown)} of the {one} with the {most}", ""
            if not shown:
                return f"Which {n} {subject} have the {most}", ""
            return f"What are the {_and_list(shown_many)} of the {n} {subject} with the {most}", ""
        if not (sel.args.get("where") or sel.args.get("having") or self._in_set or tail) and many and main:
            # an unconditioned list: "the name and age of each member" (the phrase says neither)
            if plain == ["all details"]:
                return f"What are the details of each {one}", tail
            if sel.args.get("distinct") is None and len(scope_tables(sel)) == 1:
                return f"What {verb(plain[-1])} the {_and_list(plain)} of each {one}", tail
        every = "" if sel.args.get("where") or sel.args.get("having") or self._in_set else "all "
        if plain == ["all details"]:
            return f"What are all the details of {every}{subject}", tail
        listed = _and_list(many) if many else "details"
        if sel.args.get("distinct") is not None:
            # the question asks for the values as people do, "different" or not (the phrase says
            # "distinct" for those who do)
            return f"What are the {listed} of {subject}", tail
        return f"What are the {listed} of {every}{subject}", tail

    def _reaches(self, scope: Scope, parent: Table, target: Table, depth: int = 0) -> bool:
        if parent is target:
            return True
        if depth > 3:
            return False
        return any(
            j.child is parent and self._reaches(scope, j.parent, target, depth + 1) for j in scope.joins
        )
