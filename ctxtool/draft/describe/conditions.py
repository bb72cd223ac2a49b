"""Conditions, aggregates and subqueries in words: "with capacity above 300", "the average age of
members", "without any schedules", "with age above the average age of members"."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from sqlglot import exp

from ctxtool.draft.describe.scope import Scope, _is_value, _value_text, _year_column, dated, key_strength
from ctxtool.draft.describe.words import _article, _expr_label, _join_conditions
from ctxtool.draft.model import Column, Model, Table
from ctxtool.draft.phrasing import plural_words
from ctxtool.english.tokens import lemma


def referenced(model: Model, col: Column) -> Table | None:
    """The table a (one-column) reference points to: by a foreign key, or, where none is declared,
    the other table whose key has the column's name (``shelfid`` -> shelf)."""
    for j in model.joins:
        if j.child is col.table and len(j.pairs) == 1 and j.pairs[0][0] is col and j.parent is not col.table:
            return j.parent
    if col.in_pk and len(col.table.primary_key) == 1:
        return None
    mine = key_strength(col)
    found = [
        (key_strength(k), t)
        for t in model.tables
        if t is not col.table and (k := t.column(col.name)) is not None and key_strength(k) > mine
    ]
    best = [t for strength, t in found if strength == max(s for s, _ in found)] if found else []
    return best[0] if len(best) == 1 else None  # the surest key of that name, when only one


def other_end(model: Model, table: Table, besides: set[str] = frozenset()) -> Table | None:
    """For a table that references two others (a link table, book_author between books and
    allergy types), the one it references other than ``besides`` (names, lower-case): what a person
    names when counting or excluding its rows ("books with an author"). None for other tables."""
    refs: list[Table] = []
    own = 0  # columns that are not references: a link table has at most one (a date, a room)
    for c in table.columns:
        t = referenced(model, c)
        if t is not None and t not in refs:
            refs.append(t)
        elif t is None and key_strength(c) < 2:
            own += 1
    if len(refs) < 2 or own > 1:
        return None
    rest = [t for t in refs if t.name.lower() not in besides]
    return rest[0] if rest else None


def _ends_of(model: Model, col: Column) -> set[str]:
    """The tables a compared column stands for: its own and the one it references."""
    ref = referenced(model, col)
    return {col.table.name.lower()} | ({ref.name.lower()} if ref is not None else set())


# words of a label that say when something happened: a column of such years is a point in time
TIME_WORDS = frozenset(
    "season launch launched founded established opened built joined released started ended left "
    "elected retired born debut".split()
)


def yearly(col: Column, label: str) -> bool:
    """A number that is a year (``year``, ``open_year``, a ``season`` of four-digit years): compared
    with "after" / "before", as people say it."""
    words = label.lower().split()
    prof = col.profile or {}
    if col.category == "text":  # '1958' of a "left office" column: years written as text
        values = [v for v in (prof.get("min"), prof.get("max")) if v is not None]
        return bool(values and TIME_WORDS & set(words)) and all(
            isinstance(v, str) and re.fullmatch(r"1\d{3}|2[01]\d{2}", v.strip()) for v in values
        )
    if col.category != "number":
        return False
    if col.is_year or "year" in words:
        return True
    lo, hi = prof.get("min"), prof.get("max")
    return (
        bool(TIME_WORDS & set(words))
        and isinstance(lo, (int, float))
        and isinstance(hi, (int, float))
        and float(lo).is_integer()
        and float(hi).is_integer()
        and 1000 <= lo <= hi <= 2200
    )


def temporal(col: Column | None, label: str) -> bool:
    """A point in time: a date column, a date held as text, a year, or a column its label calls a
    date or a time ("release date" held as '12-Feb-2000'): ordered as latest / earliest."""
    if col is None:
        return False
    return dated(col) or yearly(col, label) or label.lower().split()[-1:] in (["date"], ["time"])


def is_age(label: str) -> bool:
    """A label whose last word is "age": higher is older."""
    return label.lower().split()[-1:] == ["age"]


def counts_things(label: str) -> bool:
    """A numeric column named by a plural noun ("cows", "working horses") holds a count of things."""
    last = label.rsplit(" ", 1)[-1].lower()
    if not last.isalpha() or not last.endswith("s") or last.endswith(("ss", "us", "is")):
        return False
    if label.lower().startswith(("total ", "number ", "count ", "num ")):
        return False
    base, _ = lemma(last)
    return base != last


def spoken_label(model: Model, col: Column) -> str:
    """The label without a one-letter prefix standing for its table: ``gname`` / ``gtype`` of video
    games -> "name" / "type", ``cname`` of a college (or of a row referencing colleges) -> "name";
    only when the rest is one English word, so codes and other run-together names stay as they are."""
    label = col.label
    low = label.lower()
    key = _shortened_key(model, col)
    if key is not None:
        return key
    if low == col.name.lower() and low.isalpha() and len(low) >= 8:
        import wordninja

        parts = wordninja.split(low)  # "instock" -> "in stock", "maxoccupancy" -> ...
        if 2 <= len(parts) <= 3 and all(len(p) > 1 for p in parts):
            return " ".join(parts)
    if low != col.name.lower() or not low.isalpha() or len(low) < 5:
        return label

    def initials(t: Table) -> set[str]:
        return {w[:1].lower() for w in re.split(r"[_\W]+|(?<=[a-z])(?=[A-Z])", t.name) if w}

    ref = referenced(model, col)
    rest = low[1:]
    own = low[0] in initials(col.table)
    if not own and (ref is None or low[0] not in initials(ref)):
        return label
    import wordninja

    if wordninja.split(low) != [low[0], rest]:  # "price" is a word, "gtype" is g + type
        return label
    return rest if own else f"{ref.names.singular} {rest}"  # cname of a tryout: "college name"


_SHORT_ID = re.compile(r"([a-z]{1,4}) ?id", re.I)


_YES_NO = ({"y", "n"}, {"yes", "no"}, {"t", "f"}, {"true", "false"})


def yes_or_no(col: Column, value: exp.Expression) -> bool | None:
    """A text column holding only yes / no (``'Y'``/``'N'``) compared with one of them: True for
    yes, False for no; None for any other column or value."""
    if col.category != "text" or not isinstance(value, exp.Literal) or not value.is_string:
        return None
    values = {str(v).strip().lower() for v in col.common_values if v is not None}
    if not any(values == pair for pair in _YES_NO) and not any(
        len(values) == 1 and values <= pair for pair in _YES_NO
    ):
        return None
    said = value.this.strip().lower()
    return said in ("y", "yes", "t", "true") if said in set().union(*_YES_NO) else None


def _shortened_key(model: Model, col: Column) -> str | None:
    """A key named by a short form of its table and "id" (``memid`` of members, ``f_id`` of files,
    ``bid`` of a review referencing books): "id" of its own table, "book id" of the one it
    references, as people say it; None for any other column."""
    m = _SHORT_ID.fullmatch(col.label.strip())
    if m is None:
        return None
    short = m.group(1).lower()
    ref = referenced(model, col)
    for table, said in ((ref, f"{ref.names.singular} id" if ref else ""), (col.table, "id")):
        if table is None:
            continue
        name = re.sub(r"[^a-z]", "", table.name.lower())
        words = [w.lower() for w in re.split(r"[_\W]+|(?<=[a-z])(?=[A-Z])", table.name) if w]
        if short != table.names.singular.lower() and (
            name.startswith(short) or short == "".join(w[0] for w in words)
        ):
            if table is col.table and not (col.in_pk or key_strength(col)):
                continue  # a short id of its own table that is not its key is not this table's id
            return said
    return None


def _unqualified(node: exp.Expression) -> str:
    def bare(n: exp.Expression) -> exp.Expression:
        return exp.column(n.name) if isinstance(n, exp.Column) else n

    return node.transform(bare).sql().lower()


def _same_rows(outer: exp.Select, inner: exp.Expression) -> bool:
    """The subquery's conditions are the outer query's own (``gender = 'male' AND age = (SELECT
    MIN(age) ... WHERE gender = 'male')``): "the youngest male", the extreme among the rows asked."""
    from ctxtool.draft.describe.words import _conjuncts

    where, owhere = inner.args.get("where"), outer.args.get("where")
    if not isinstance(inner, exp.Select) or where is None or owhere is None:
        return False
    mine = {_unqualified(c) for c in _conjuncts(owhere.this)}
    return all(_unqualified(c) in mine for c in _conjuncts(where.this))


def merged_label(table: Table, col: Column, label: str | None = None) -> str:
    """A column of another table named with its table, the word they share said once: "amenity
    name" of a club event -> "club event name"; "region" of a city -> "city region"."""
    own = label or col.label
    singular = table.names.singular
    if own.lower().startswith(singular.lower()) or singular.lower() in own.lower():
        label = own
    else:
        label = f"{singular} {own}"
    first, _, rest = own.partition(" ")
    singular = table.names.singular
    if rest and label != own and singular.lower().endswith(" " + first.lower()):
        return f"{singular} {rest}"
    return label


class Conditions:
    """The describer's clause words (mixed into :class:`ctxtool.draft.describe.Describer`)."""

    m: object
    _plain: bool
    _question: bool
    _in_set: bool
    _nested: bool

    @contextmanager
    def _as_part(self) -> Iterator[None]:
        """Describe a nested query as a part of the sentence: no question form, no plain labels, not
        inside a set operation; the outer query's state comes back afterwards."""
        saved = self._plain, self._question, self._in_set, self._nested
        self._plain = self._question = self._in_set = False
        self._nested = True
        try:
            yield
        finally:
            self._plain, self._question, self._in_set, self._nested = saved

    def subquery_words(self, sub: exp.Expression) -> tuple[Table | None, str, str]:
        """(its main table, its aggregate or head in words, its conditions in words) of a subquery."""
        while isinstance(sub, (exp.Subquery, exp.Paren)):
            sub = sub.this
        if not isinstance(sub, exp.Select):
            return None, "", ""
        scope = Scope(self.m, sub)
        main = scope.main
        with self._as_part():
            full = self.describe_select(sub)
        conds = ""
        if main is not None:
            marker = f" of {main.names.plural}"
            at = full.find(marker)
            if at >= 0:
                conds = full[at + len(marker) :].strip()
                full = full[: at + len(marker)]
        return main, full[:1].lower() + full[1:], conds

    def compared_to_subquery(
        self, scope: Scope, left: exp.Expression, cls: type, sub: exp.Expression
    ) -> tuple[Table | None, str]:
        """``age > (SELECT AVG(age) ...)`` -> "with age above the average age of members";
        ``age = (SELECT MIN(age) ...)`` -> "with the lowest age"."""
        col = scope.column(left)
        label = self.label(scope, col, left)
        table = col.table if col else None
        inner = sub.this if isinstance(sub, (exp.Subquery, exp.Paren)) else sub
        agg = inner.expressions[0] if isinstance(inner, exp.Select) and inner.expressions else None
        agg = agg.this if isinstance(agg, exp.Alias) else agg
        _, head, conds = self.subquery_words(sub)
        if (
            cls is exp.EQ
            and isinstance(agg, (exp.Max, exp.Min))
            and (not conds or _same_rows(scope.select, inner))
        ):
            if is_age(label):  # "the oldest", as ages are compared
                return table, f"who are the {'oldest' if isinstance(agg, exp.Max) else 'youngest'}"
            if temporal(col, label):  # "with the latest year"
                return table, f"with the {'latest' if isinstance(agg, exp.Max) else 'earliest'} {label}"
            return table, f"with the {'highest' if isinstance(agg, exp.Max) else 'lowest'} {label}"
        word = {exp.GT: "above", exp.GTE: "at least", exp.LT: "below", exp.LTE: "at most"}.get(
            cls, "equal to"
        )
        if temporal(col, label):  # "with order date after the earliest ..."
            word = {
                "above": "after",
                "below": "before",
                "at least": "on or after",
                "at most": "on or before",
            }.get(word, word)
        beyond = (cls in (exp.GT, exp.GTE) and isinstance(agg, exp.Max)) or (
            cls in (exp.LT, exp.LTE) and isinstance(agg, exp.Min)
        )
        first, _, rest = head.partition(" ")
        if beyond and first in ("highest", "lowest") and " of " in rest:
            # above the highest: "with salary above the salary of all employees with ...", as asked
            what, _, owner = rest.partition(" of ")
            head = f"{what} of all {owner}"
        the = "" if head.startswith("the ") else "the "
        return table, f"with {label} {word} {the}{head}" + (f" {conds}" if conds else "")

    # -- pieces -------------------------------------------------------------------------------

    def label(self, scope: Scope, col: Column | None, node: exp.Expression | None = None) -> str:
        if col is None:
            return _expr_label(node) if node is not None else "value"
        spoken = spoken_label(self.m, col)
        if (
            scope.main is not None
            and col.table is not scope.main
            and not self._plain
            and col.table not in scope.same_rows
        ):
            return merged_label(col.table, col, spoken)
        return spoken

    def aggregate(self, scope: Scope, node: exp.Expression) -> str | None:
        inner = node.this if isinstance(node, exp.Alias) else node
        main = scope.main
        subject = main.names.plural if main else "rows"
        if isinstance(inner, exp.Count):
            arg = inner.this
            if isinstance(arg, exp.Distinct):
                cols = arg.expressions
                col = scope.column(cols[0]) if cols else None
                if col is not None and col.in_pk and len(col.table.primary_key) == 1:
                    return f"Number of {col.table.names.plural}"
                parent = referenced(self.m, col) if col is not None else None
                if parent is not None and col is not None:  # COUNT(DISTINCT dormid) FROM has_amenity
                    end = other_end(self.m, col.table, {parent.name.lower()})
                    one = (end or col.table).names.singular
                    return f"Number of {parent.names.plural} with {_article(one)} {one}"
                label = self.label(scope, col, cols[0] if cols else None)
                owner = f" of {col.table.names.plural}" if col is not None else ""
                if col is not None and label.lower() in (
                    col.table.names.plural.lower(),
                    col.table.names.singular.lower(),
                ):
                    owner = ""  # "the number of different colours", not "... of colours"
                return f"Number of distinct {plural_words(label)}{owner}"
            if arg is None or isinstance(arg, exp.Star):
                counted = scope.bottom() if scope.select.args.get("group") is not None else None
                counted = counted or main  # (a GROUP BY of a join counts the rows of its bottom table)
                if counted is not None:
                    # the rows of a link table counted: the things at its other end ("books")
                    used = {
                        c.name.lower()
                        for k in ("group", "where")
                        if (n := scope.select.args.get(k))
                        for c in n.find_all(exp.Column)
                    }
                    used_tables = {
                        t.name.lower()
                        for c in counted.columns
                        if c.name.lower() in used and (t := referenced(self.m, c))
                    }
                    group = scope.select.args.get("group")
                    if group is not None:  # counted per group of another table: that table is not counted
                        grouped = [scope.column(g) for g in group.expressions]
                        used_tables |= {
                            c.table.name.lower() for c in grouped if c is not None and c.table is not counted
                        }
                    else:
                        used_tables |= {t.name.lower() for t in scope.order if t is not counted}
                    # a bare COUNT(*) of one table counts its own rows (a store referencing its
                    # manager and address is no link table to be read through)
                    bare = len(scope.order) == 1 and not used
                    end = None if bare else other_end(self.m, counted, used_tables)
                    if end is not None:
                        return f"Count of {end.names.plural}"
                return f"Count of {counted.names.plural if counted else subject}"
            col = scope.column(arg)
            if col is not None and col.in_pk:
                return f"Count of {col.table.names.plural}"
            return f"Count of {subject} with a {self.label(scope, col, arg)}"
        words = {exp.Sum: "Total", exp.Avg: "Average", exp.Max: "Highest", exp.Min: "Lowest"}
        for cls, word in words.items():
            if isinstance(inner, cls):
                col = scope.column(inner.this)
                label = self.label(scope, col, inner.this)
                if temporal(col, label):  # "the latest year"
                    word = {"Highest": "Latest", "Lowest": "Earliest"}.get(word, word)
                if word == "Average" and label.lower().startswith("average "):
                    word = "Overall"
                if self._question and word in ("Highest", "Lowest") and not dated(col):
                    word = {"Highest": "Maximum", "Lowest": "Minimum"}[word]  # as questions say it
                if (
                    col is not None
                    and col.category == "number"
                    and counts_things(label)
                    and (self._question or word != "Total")
                ):
                    # a column that counts things: "the average number of horses", "maximum number of"
                    word = {"Highest": "Maximum", "Lowest": "Minimum"}.get(word, word)
                    label = "number of " + label
                elif (
                    self._question
                    and word == "Total"
                    and col is not None
                    and col.category == "number"
                    and "number" not in label.lower().split()
                    and counts_things((label[6:] if label.lower().startswith("total ") else label).split()[0])
                ):
                    # a sum of things counted ("games played", "hours"): "the total number of games
                    # played", as questions say it (the phrase keeps "total games played")
                    label = "number of " + (label[6:] if label.lower().startswith("total ") else label)
                owner = col.table.names.plural if col is not None else subject
                if word == "Total" and label.lower().startswith("total "):
                    return f"{label[:1].upper()}{label[1:]} of {owner}"  # no "total total points"
                return f"{word} {label} of {owner}"
        return None

    def condition(self, scope: Scope, node: exp.Expression) -> tuple[Table | None, str]:
        """(the table a condition is about, its words)."""
        if isinstance(node, exp.Paren):
            return self.condition(scope, node.this)
        if isinstance(node, exp.And):  # inside an OR: "(a AND b) OR c"
            lt, lw = self.condition(scope, node.left)
            _, rw = self.condition(scope, node.right)
            return lt, _join_conditions([lw, rw])
        if isinstance(node, exp.Or):
            lt, lw = self.condition(scope, node.left)
            _, rw = self.condition(scope, node.right)
            head = re.match(r"with [^']+? (?=')", lw)
            if head and re.fullmatch(re.escape(head.group(0)) + r"'(?:[^']|'')*'", rw):
                # "with country 'China' or 'Japan'": one column, two values, said once
                return lt, f"{lw} or {rw[len(head.group(0)) :]}"
            return lt, f"{lw} or {rw}"
        if isinstance(node, exp.Not):
            inner = node.this
            if isinstance(inner, exp.Is):
                col = scope.column(inner.this)
                return (col.table if col else None), f"with a known {self.label(scope, col, inner.this)}"
            if isinstance(inner, exp.Paren):
                inner = inner.this
            if isinstance(inner, exp.In) and inner.args.get("query") is not None:
                col = scope.column(inner.this)
                sub_main, _, conds = self.subquery_words(inner.args["query"])
                if sub_main is not None:
                    if col is not None and (end := other_end(self.m, sub_main, _ends_of(self.m, col))):
                        sub_main = end  # NOT IN (SELECT stuid FROM has_allergy): "without any allergy types"
                    return (col.table if col else None), f"without any {sub_main.names.plural}" + (
                        f" {conds}" if conds else ""
                    )
            if isinstance(inner, exp.EQ):
                t, words = self.condition(scope, exp.NEQ(this=inner.this, expression=inner.expression))
                return t, words
            t, words = self.condition(scope, inner)
            return t, f"not {words}"
        if isinstance(node, exp.Is):
            col = scope.column(node.this)
            label = self.label(scope, col, node.this)
            if node.args.get("negate"):
                return (col.table if col else None), f"with a known {label}"
            return (col.table if col else None), f"without a {label}"
        if isinstance(node, exp.Between):
            col = scope.column(node.this)
            yc = _year_column(scope, node.this)
            col = col or yc
            lo, hi = _value_text(node.args["low"], col), _value_text(node.args["high"], col)
            what = self.label(scope, col, node.this) + (" year" if yc else "")
            return (col.table if col else None), f"with {what} between {lo} and {hi}"
        if isinstance(node, exp.In):
            col = scope.column(node.this)
            if node.args.get("query") is not None:
                label = self.label(scope, col, node.this)
                sub_main, _, conds = self.subquery_words(node.args["query"])
                if sub_main is not None:
                    if col is not None and (end := other_end(self.m, sub_main, _ends_of(self.m, col))):
                        sub_main = end  # IN (SELECT stuid FROM has_allergy ...): "with an allergy type"
                    one = sub_main.names.singular
                    for said in (f"in the {one} ", f"of the {one} "):  # "with a game with name 'X'"
                        if conds.startswith(said):
                            conds = conds[len(said) :]
                    return (col.table if col else None), f"with {_article(one)} {one}" + (
                        f" {conds}" if conds else ""
                    )
                sub = node.args["query"]
                sub = sub.this if isinstance(sub, exp.Subquery) else sub
                if (
                    isinstance(sub, exp.SetOperation)
                    and isinstance(sub.left, exp.Select)
                    and isinstance(sub.right, exp.Select)
                ):  # IN (SELECT ... INTERSECT SELECT ...): "with a sports info ... and a sports info ..."
                    first = exp.In(this=node.this.copy(), query=exp.Subquery(this=sub.left.copy()))
                    second: exp.Expression = exp.In(
                        this=node.this.copy(), query=exp.Subquery(this=sub.right.copy())
                    )
                    if isinstance(sub, exp.Except):
                        second = exp.Not(this=second)
                    t, lw = self.condition(scope, first)
                    _, rw = self.condition(scope, second)
                    if "found by a subquery" not in lw + rw:
                        joint = " or " if isinstance(sub, exp.Union) else " and "
                        rw = rw[5:] if rw.startswith("with ") and lw.startswith("with ") else rw
                        return t, lw + joint + rw
                if isinstance(sub, exp.SetOperation):  # IN (SELECT ... INTERSECT SELECT ...)
                    with self._as_part():
                        among = self.describe_set(sub)
                    return (
                        col.table if col else None
                    ), f"with {label} among the {among[:1].lower()}{among[1:]}"
                return (col.table if col else None), f"with {_article(label)} {label} found by a subquery"
            values = [_value_text(e) for e in node.expressions]
            joined = (
                ", ".join(values[:-1]) + (" or " if len(values) > 1 else "") + values[-1] if values else ""
            )
            return (col.table if col else None), f"with {self.label(scope, col, node.this)} {joined}"
        if isinstance(node, (exp.Like, exp.ILike)):
            col = scope.column(node.this)
            pattern = node.expression
            text = pattern.this if isinstance(pattern, exp.Literal) else _value_text(pattern)
            label = self.label(scope, col, node.this)
            core = text.strip("%")
            if text.startswith("%") and text.endswith("%"):
                words = f"whose {label} contains '{core}'"
            elif text.endswith("%"):
                words = f"whose {label} starts with '{core}'"
            elif text.startswith("%"):
                words = f"whose {label} ends with '{core}'"
            else:
                words = f"whose {label} matches '{text}'"
            return (col.table if col else None), words
        ops = {
            exp.EQ: "",
            exp.NEQ: "other than ",
            exp.GT: "above ",
            exp.GTE: "of at least ",
            exp.LT: "below ",
            exp.LTE: "of at most ",
        }
        for cls, word in ops.items():
            if isinstance(node, cls):
                left, right = node.this, node.expression
                if _is_value(left) and not _is_value(right):
                    left, right = right, left
                    word = {
                        "above ": "below ",
                        "below ": "above ",
                        "of at least ": "of at most ",
                        "of at most ": "of at least ",
                    }.get(word, word)
                if isinstance(right, (exp.Subquery, exp.Select)) or (
                    isinstance(right, exp.Paren) and isinstance(right.this, exp.Select)
                ):
                    return self.compared_to_subquery(scope, left, cls, right)
                yc = _year_column(scope, left)
                if yc is not None:
                    label = self.label(scope, yc, left)
                    if cls is exp.EQ:
                        return yc.table, f"with {label} in {_value_text(right)}"
                    when = _when(word, "in")
                    return yc.table, f"with {label} year {when}{_value_text(right)}"
                col = scope.column(left)
                if col is not None and _is_value(right):
                    label = self.label(scope, col, left)
                    if col.is_flag and cls is exp.EQ:
                        return col.table, (
                            f"that are {label}"
                            if _value_text(right) in ("true", "1")
                            else f"that are not {label}"
                        )
                    said = yes_or_no(col, right)  # (both wordings: a value one of them kept would be a slot)
                    if said is not None and cls in (exp.EQ, exp.NEQ):
                        # instock = 'Y': "that are in stock"
                        return col.table, f"that are {label}" if said == (
                            cls is exp.EQ
                        ) else f"that are not {label}"
                    if dated(col) and cls is not exp.EQ:
                        when = _when(word, "on")
                        return col.table, f"with {label} {when}{_value_text(right, col)}"
                    if yearly(col, label) and cls in (exp.GT, exp.LT, exp.GTE, exp.LTE):
                        # a year is a point in time: "with year after 2000", "in or before 1990"
                        flipped = {exp.GT: exp.LT, exp.LT: exp.GT, exp.GTE: exp.LTE, exp.LTE: exp.GTE}
                        op = cls if left is node.this else flipped[cls]  # the value written first
                        when = {exp.GT: "after ", exp.LT: "before ", exp.GTE: "in or after "}.get(
                            op, "in or before "
                        )
                        return col.table, f"with {label} {when}{_value_text(right, col)}"
                    if (
                        self._question and cls in (exp.GT, exp.LT) and is_age(label) and (left is node.this)
                    ):  # "older than 30": how people compare ages
                        return (
                            col.table,
                            f"{'older' if cls is exp.GT else 'younger'} than {_value_text(right)}",
                        )
                    if cls is exp.NEQ and self._question:  # "whose status is not 'Village'"
                        return col.table, f"whose {label} is not {_value_text(right, col)}"
                    if (
                        cls in (exp.GTE, exp.LTE)
                        and self._question
                        and word in ("of at least ", "of at most ")
                    ):
                        # "aged 25 or older", "opened in 2011 or later": the bound said after the value
                        later = col.is_year or "year" in label.lower().split()
                        more = (
                            ("later" if later else "more")
                            if word == "of at least "
                            else ("earlier" if later else "less")
                        )
                        return col.table, f"with {label} {_value_text(right, col)} or {more}"
                    return col.table, f"with {label} {word}{_value_text(right, col)}"
                rcol = scope.column(right)
                if col is not None and rcol is not None:
                    return None, ""  # a join condition written in WHERE
        return None, "matching " + node.sql(
            dialect=self.m.dialect if self.m.dialect != "spanner" else "bigquery"
        )


def _when(word: str, at: str) -> str:
    """A comparison word said of a point in time: "above" -> "after", "of at least" -> "in or after"
    (a year) or "on or after" (a date)."""
    return {
        "above ": "after ",
        "below ": "before ",
        "of at least ": f"{at} or after ",
        "of at most ": f"{at} or before ",
    }.get(word, word)
