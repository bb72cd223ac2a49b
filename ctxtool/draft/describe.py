"""Write what a SQL query asks, in words, from its sqlglot tree.

"Count of accounts with a loan in the district with district name 'Hl.m. Praha'" comes from
``SELECT COUNT(*) FROM account JOIN loan ... JOIN district ... WHERE district."A2" = 'Hl.m. Praha'``:
the projection gives the head (count, total, average, the columns listed), ``GROUP BY`` gives "for
each ...", joins to child tables give "with a loan", conditions give "with status 'A'" (on the main
table) or "in the district with ..." (on a joined table), and ``ORDER BY ... LIMIT`` gives "the 10 ...
with the highest ...". Values are kept concrete so that ``parameterize`` can align them.

The same scope resolution fills the placeholders of workload digests with values from the profile.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from ctxtool.dialects import positional_style
from ctxtool.draft.model import Column, Model, Table, format_number
from ctxtool.draft.templates import qualified_label
from ctxtool.draft.workload import parse


class Scope:
    """The tables of one SELECT (aliases resolved) and how to find a column's table."""

    def __init__(self, model: Model, select: exp.Select) -> None:
        self.model = model
        self.select = select
        self.aliases: dict[str, Table] = {}
        self.order: list[Table] = []
        for t in select.find_all(exp.Table):
            if t.find_ancestor(exp.Select) is not select:
                continue
            table = model.table(t.name, t.db or None)
            if table is None:
                continue
            self.aliases[(t.alias_or_name).lower()] = table
            self.aliases.setdefault(t.name.lower(), table)
            if table not in self.order:
                self.order.append(table)

    @property
    def main(self) -> Table | None:
        from_ = self.select.args.get("from") or self.select.args.get("from_")
        if from_ is not None and isinstance(from_.this, exp.Table):
            t = self.aliases.get(from_.this.alias_or_name.lower())
            if t is not None:
                return t
        return self.order[0] if self.order else None

    def column(self, node: exp.Expression | None) -> Column | None:
        """The model column a (possibly wrapped) column expression refers to."""
        while isinstance(node, (exp.Cast, exp.Paren, exp.Lower, exp.Upper, exp.Trim)):
            node = node.this
        if not isinstance(node, exp.Column):
            return None
        name = node.name
        if node.table:
            t = self.aliases.get(node.table.lower())
            return t.column(name) if t else None
        for t in self.order:
            c = t.column(name)
            if c is not None:
                return c
        return None


def _value_text(node: exp.Expression, col: Column | None = None) -> str:
    """A literal as a question writes it: strings quoted, numbers and dates bare."""
    while isinstance(node, (exp.Paren,)):
        node = node.this
    if (
        col is not None
        and col.category in ("date", "number")
        and isinstance(node, exp.Literal)
        and node.is_string
    ):
        return node.this
    if isinstance(node, exp.Neg):
        return "-" + _value_text(node.this)
    if isinstance(node, (exp.Cast, exp.TsOrDsToDate, exp.StrToDate)) and isinstance(node.this, exp.Literal):
        return node.this.this
    if isinstance(node, exp.Literal):
        return node.this if not node.is_string else f"'{node.this}'"
    if isinstance(node, exp.Boolean):
        return "true" if node.this else "false"
    if isinstance(node, (exp.Placeholder, exp.Parameter)):
        return "a given value"
    return node.sql()


def _is_value(node: exp.Expression | None) -> bool:
    while isinstance(node, (exp.Paren, exp.Neg, exp.Cast, exp.TsOrDsToDate, exp.StrToDate)):
        node = node.this
    return isinstance(node, (exp.Literal, exp.Boolean, exp.Placeholder, exp.Parameter))


def _year_column(scope: Scope, node: exp.Expression) -> Column | None:
    if isinstance(node, exp.Extract) and node.this.name.lower() == "year":
        return scope.column(node.expression)
    if isinstance(node, exp.Year):
        return scope.column(node.this)
    if isinstance(node, exp.Anonymous) and node.name.lower() == "year" and node.expressions:
        return scope.column(node.expressions[0])
    return None


class Describer:
    def __init__(self, model: Model) -> None:
        self.m = model
        self._plain = False  # labels without their table's name (inside "for accounts with ...")

    def __call__(self, sql: str) -> str:
        return self.describe(sql)

    def describe(self, sql: str) -> str:
        tree = parse(sql, self.m.dialect)
        if tree is None:
            return "Results of a query"
        if isinstance(tree, exp.SetOperation):
            return self.describe_set(tree)
        if not isinstance(tree, exp.Select):
            return "Results of a query"
        return self.describe_select(tree)

    def describe_set(self, tree: exp.Expression) -> str:
        """UNION / INTERSECT / EXCEPT as a person says them: what both sides share said once, then
        "both A and B", "A or B", "A but not B" ("Title of courses with department name both
        'Statistics' and 'Psychology'")."""
        if isinstance(tree, exp.Subquery):
            tree = tree.this
        if isinstance(tree, exp.Select):
            return self.describe_select(tree)
        if not isinstance(tree, exp.SetOperation):
            return "Results of a query"
        left = self.describe_set(tree.left).split()
        right = self.describe_set(tree.right).split()
        k = 0
        while k < min(len(left), len(right)) and left[k].lower() == right[k].lower():
            k += 1
        shared, lrest, rrest = " ".join(left[:k]), " ".join(left[k:]), " ".join(right[k:])
        rrest = rrest[:1].lower() + rrest[1:] if not k else rrest
        if isinstance(tree, exp.Intersect):
            if not lrest:
                return f"{shared} {rrest}".strip()
            return f"{shared} both {lrest} and {rrest}".strip()
        if isinstance(tree, exp.Except):
            if not lrest:
                return f"{shared} except those {rrest}".strip()
            return f"{shared} {lrest} but not {rrest}".strip()
        if not lrest or not rrest:
            return " ".join(left)
        return f"{shared} {lrest} or {rrest}".strip()

    def subquery_words(self, sub: exp.Expression) -> tuple[Table | None, str, str]:
        """(its main table, its aggregate or head in words, its conditions in words) of a subquery."""
        while isinstance(sub, (exp.Subquery, exp.Paren)):
            sub = sub.this
        if not isinstance(sub, exp.Select):
            return None, "", ""
        scope = Scope(self.m, sub)
        main = scope.main
        saved = self._plain
        self._plain = False
        try:
            full = self.describe_select(sub)
        finally:
            self._plain = saved
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
        """``age > (SELECT AVG(age) ...)`` -> "with age above the average age of singers";
        ``age = (SELECT MIN(age) ...)`` -> "with the lowest age"."""
        col = scope.column(left)
        label = self.label(scope, col, left)
        table = col.table if col else None
        inner = sub.this if isinstance(sub, (exp.Subquery, exp.Paren)) else sub
        agg = inner.expressions[0] if isinstance(inner, exp.Select) and inner.expressions else None
        agg = agg.this if isinstance(agg, exp.Alias) else agg
        _, head, conds = self.subquery_words(sub)
        if cls is exp.EQ and isinstance(agg, (exp.Max, exp.Min)) and not conds:
            return table, f"with the {'highest' if isinstance(agg, exp.Max) else 'lowest'} {label}"
        word = {exp.GT: "above", exp.GTE: "at least", exp.LT: "below", exp.LTE: "at most"}.get(
            cls, "equal to"
        )
        return table, f"with {label} {word} the {head}" + (f" {conds}" if conds else "")

    # -- pieces -------------------------------------------------------------------------------

    def label(self, scope: Scope, col: Column | None, node: exp.Expression | None = None) -> str:
        if col is None:
            return _expr_label(node) if node is not None else "value"
        if scope.main is not None and col.table is not scope.main and not self._plain:
            return qualified_label(col.table, col)
        return col.label

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
                return f"Number of distinct {self.label(scope, col, cols[0] if cols else None)}"
            if arg is None or isinstance(arg, exp.Star):
                return f"Count of {subject}"
            col = scope.column(arg)
            if col is not None and col.in_pk:
                return f"Count of {col.table.names.plural}"
            return f"Count of {subject} with a {self.label(scope, col, arg)}"
        words = {exp.Sum: "Total", exp.Avg: "Average", exp.Max: "Highest", exp.Min: "Lowest"}
        for cls, word in words.items():
            if isinstance(inner, cls):
                col = scope.column(inner.this)
                label = self.label(scope, col, inner.this)
                if col is not None and col.category == "date":
                    word = {"Highest": "Latest", "Lowest": "Earliest"}.get(word, word)
                if word == "Average" and label.lower().startswith("average "):
                    word = "Overall"
                owner = col.table.names.plural if col is not None else subject
                return f"{word} {label} of {owner}"
        return None

    def condition(self, scope: Scope, node: exp.Expression) -> tuple[Table | None, str]:
        """(the table a condition is about, its words)."""
        if isinstance(node, exp.Paren):
            return self.condition(scope, node.this)
        if isinstance(node, exp.Or):
            lt, lw = self.condition(scope, node.left)
            _, rw = self.condition(scope, node.right)
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
                    one = sub_main.names.singular
                    return (col.table if col else None), f"with {_article(one)} {one}" + (
                        f" {conds}" if conds else ""
                    )
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
                    return yc.table, f"with {label} year {word}{_value_text(right)}"
                col = scope.column(left)
                if col is not None and _is_value(right):
                    label = self.label(scope, col, left)
                    if col.is_flag and cls is exp.EQ:
                        return col.table, (
                            f"that are {label}"
                            if _value_text(right) in ("true", "1")
                            else f"that are not {label}"
                        )
                    if col.category == "date" and cls is not exp.EQ:
                        when = {
                            "above ": "after ",
                            "below ": "before ",
                            "of at least ": "on or after ",
                            "of at most ": "on or before ",
                        }.get(word, word)
                        return col.table, f"with {label} {when}{_value_text(right, col)}"
                    return col.table, f"with {label} {word}{_value_text(right, col)}"
                rcol = scope.column(right)
                if col is not None and rcol is not None:
                    return None, ""  # a join condition written in WHERE
        return None, "matching " + node.sql(
            dialect=self.m.dialect if self.m.dialect != "spanner" else "bigquery"
        )

    def describe_select(self, sel: exp.Select) -> str:
        scope = Scope(self.m, sel)
        main = scope.main
        subject = main.names.plural if main else "rows"
        projections = sel.expressions
        aggs: list[str] = []
        plain: list[str] = []
        for p in projections:
            a = self.aggregate(scope, p)
            if a:
                aggs.append(a)
            elif isinstance(p, exp.Star) or (isinstance(p, exp.Column) and isinstance(p.this, exp.Star)):
                plain.append("all details")
            else:
                inner = p.this if isinstance(p, exp.Alias) else p
                yc = _year_column(scope, inner)
                if yc is not None:
                    plain.append(f"{self.label(scope, yc, inner)} year")
                    continue
                col = scope.column(inner)
                plain.append(self.label(scope, col, p))
        group = sel.args.get("group")
        group_labels: list[str] = []
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
                if col is not None and col.in_pk and main is not None and col.table is not main:
                    group_labels.append(col.table.names.singular)
                elif col is not None and col.in_pk:
                    continue
                else:
                    label = self.label(scope, col, g)
                    if label not in group_labels:
                        group_labels.append(label)
        limit = sel.args.get("limit")
        n = None
        if limit is not None:
            lim = limit.expression if limit.expression is not None else limit.this
            if isinstance(lim, exp.Literal):
                n = lim.this
        order = sel.args.get("order")
        order_words = ""
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
            if col is not None and not order_words:
                order_words = ("highest " if desc else "lowest ") + self.label(scope, col, o.this)

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
                head = " and ".join([bare[0], *[b[0].lower() + b[1:] for b in bare[1:]]]) + f" of {owner}"
            else:
                head = " and ".join([aggs[0], *[a[0].lower() + a[1:] for a in aggs[1:]]])
            if group_labels:
                head += " for each " + " and ".join(group_labels)
            if n and order_words:
                if late_top:
                    tail = f", top {n} by {order_words}"
                else:
                    head += f", top {n} by {order_words}"
        elif n and order_words and not late_top:
            most = _most(order_words)
            one = main.names.singular if main else "row"
            shown = [p for p in plain if p not in order_words or p in group_labels]
            if n == "1" and group_labels and shown and all(p in group_labels for p in shown):
                head = f"The {_and_list(shown)} with the {most}"  # GROUP BY g ... LIMIT 1
            elif n == "1":
                head = (_and_list(shown) + f" of the {one}" if shown else f"The {one}") + f" with the {most}"
            else:
                head = _and_list(shown) + f" of the {n} {subject}" if shown else f"The {n} {subject}"
                head += f" with the {most}"
            head = head[0].upper() + head[1:]
        else:
            if sel.args.get("distinct") is not None:
                head = "Distinct " + " and ".join(plain) + f" of {subject}"
            else:
                listed = _and_list(plain) if plain else "details"
                head = (listed[0].upper() + listed[1:]) + f" of {subject}"
            if n and order_words:
                tail = f", top {n} by {order_words}"
            elif order_words and not n:
                tail = ", " + _in_order(order_words)
            elif n and late_top:
                tail = f", first {n} rows"
            elif n:
                head = f"First {n} rows: " + head[0].lower() + head[1:]

        # conditions, grouped by the table they are about
        where = sel.args.get("where")
        conds: dict[Any, list[str]] = {}
        first: dict[Any, int] = {}  # the position of each table's first condition in WHERE
        if where is not None:
            for i, c in enumerate(_conjuncts(where.this)):
                self._plain = True
                try:
                    table, words = self.condition(scope, c)
                finally:
                    self._plain = False
                if words:
                    conds.setdefault(table if table is not None else main, []).append(words)
                    first.setdefault(table if table is not None else main, i)
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
                    having_words = f" having {agg[0].lower() + agg[1:]} {op} {_value_text(h.expression)}"

        parts: list[tuple[int, str]] = []  # (position of its first value in WHERE, words)
        main_words = _join_conditions(conds[main]) if conds.get(main) else ""
        if main_words:
            parts.append((first[main], main_words))
        for table in scope.order:
            if table is main:
                continue
            is_child = main is not None and any(
                j.child is table and self._reaches(j.parent, main) for j in self.m.joins
            )
            words = conds.get(table)
            groups_on_it = any(table.names.singular in g for g in group_labels)
            if is_child and not groups_on_it:
                phrase = f"with {_article(table.names.singular)} {table.names.singular}"
                parts.append(
                    (first.get(table, -1), phrase + (" " + _join_conditions(words) if words else ""))
                )
            elif words:
                named = table.name_column
                if named is not None and any(named.label in w for w in words):
                    parts.append((first[table], f"in the {table.names.singular} " + _join_conditions(words)))
                else:
                    parts.append((first[table], f"for {table.names.plural} " + _join_conditions(words)))
        for table, words in conds.items():
            if table is not main and table not in scope.order:
                parts.append((first[table], _join_conditions(words)))
        if positional:
            parts.sort(key=lambda p: p[0])
        text = head
        for k, (_, words) in enumerate(parts):
            if words:
                # the main table's conditions after another table's: a comma keeps them on the main table
                later_main = positional and k > 0 and words == main_words
                text += (", " if later_main else " ") + words
        return text + having_words + tail

    def _reaches(self, parent: Table, target: Table, depth: int = 0) -> bool:
        if parent is target:
            return True
        if depth > 3:
            return False
        return any(j.child is parent and self._reaches(j.parent, target, depth + 1) for j in self.m.joins)


def _expr_label(node: exp.Expression) -> str:
    """Words for an expression that is not a plain column: its alias, its function, or "a computed value"."""
    if isinstance(node, exp.Alias):
        return node.alias.replace("_", " ")
    if isinstance(node, exp.Window):
        fn = node.this
        return (fn.sql_name() if isinstance(fn, exp.Func) else "window value").lower().replace("_", " ")
    if isinstance(node, exp.Column):
        return node.name.replace("_", " ")
    if isinstance(node, exp.Literal):
        return node.this
    if isinstance(node, exp.Func) and not isinstance(node, exp.Case):
        return node.sql_name().lower().replace("_", " ") + " value"
    return "a computed value"


def _most(order_words: str) -> str:
    """ "highest count of albums" -> "most albums"; other orders as they are."""
    for word, say in (("highest count of ", "most "), ("lowest count of ", "fewest ")):
        if order_words.startswith(word):
            return say + order_words[len(word) :]
    return order_words


def _in_order(order_words: str) -> str:
    """ "highest price" -> "in descending order of price"; "lowest name" -> "ordered by name"."""
    if order_words.startswith("highest "):
        return "in descending order of " + order_words[len("highest ") :]
    return "ordered by " + order_words.split(" ", 1)[-1]


def _and_list(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _year_label(label: str) -> str:
    return "year" if label.lower() == "date" else f"{label} year"


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _join_conditions(words: list[str]) -> str:
    """ "with a", "with b" -> "with a and b"."""
    out = [words[0]]
    for w in words[1:]:
        out.append(w[5:] if w.startswith("with ") and out[0].startswith("with ") else w)
    return " and ".join(out)


def _conjuncts(node: exp.Expression) -> list[exp.Expression]:
    if isinstance(node, exp.And):
        return _conjuncts(node.left) + _conjuncts(node.right)
    if isinstance(node, exp.Paren) and isinstance(node.this, exp.And):
        return _conjuncts(node.this)
    return [node]


def instantiate(sql: str, model: Model, variant: int = 0) -> str | None:
    """``sql`` (a digest with ``?``/``$n`` placeholders) with a concrete value for each placeholder,
    taken from the profile (or a sample) of the column it is compared with; ``variant`` picks other
    values, so a value that finds nothing can be replaced. None when a placeholder has no column."""
    tree = parse(sql, model.dialect)
    if tree is None:
        return None
    failed = False

    def fill(node: exp.Expression) -> exp.Expression:
        nonlocal failed
        if not isinstance(node, (exp.Placeholder, exp.Parameter)):
            return node
        parent = node.parent
        if isinstance(parent, (exp.Limit, exp.Offset)) or (
            parent is not None and isinstance(parent.parent, exp.Limit)
        ):
            return exp.Literal.number(
                10 if isinstance(parent, exp.Limit) or isinstance(parent.parent, exp.Limit) else 0
            )
        sel = node.find_ancestor(exp.Select)
        cmp = parent
        while isinstance(cmp, (exp.Cast, exp.Paren, exp.Neg, exp.Tuple)):
            cmp = cmp.parent
        if isinstance(cmp, exp.In):
            other = cmp.this
        elif isinstance(cmp, exp.Between):
            other = cmp.this
        elif isinstance(cmp, exp.Binary):
            other = cmp.expression if cmp.this is node or node in cmp.this.find_all(type(node)) else cmp.this
        else:
            failed = True
            return node
        if sel is None:
            failed = True
            return node
        scope = Scope(model, sel)
        col = scope.column(other)
        if col is None:
            failed = True
            return node
        value = _pick_value(model, col, cmp, node, variant)
        if value is None:
            failed = True
            return node
        return value

    filled = tree.transform(fill)
    if failed:
        return None
    from ctxtool.dialects import sqlglot_dialect

    return filled.sql(dialect=sqlglot_dialect(model.dialect))


def _pick_value(
    model: Model, col: Column, cmp: exp.Expression, node: exp.Expression, variant: int = 0
) -> exp.Expression | None:
    if col.category == "number" and (prof := col.profile or {}) and isinstance(prof.get("min"), (int, float)):
        lo, hi = prof["min"], prof["max"]
        if isinstance(cmp, exp.Between):
            first = cmp.args.get("low") is node
            return exp.Literal.number(format_number(lo + (hi - lo) / 4 if first else lo + 3 * (hi - lo) / 4))
        if isinstance(cmp, (exp.GT, exp.GTE, exp.LT, exp.LTE)):
            from ctxtool.draft.model import nice_number

            return exp.Literal.number(format_number(nice_number(lo + (hi - lo) / 2)))
    values = model.values(col, 10)
    if not values:
        return None
    v = values[variant % len(values)]
    if col.category == "date":
        prof = col.profile or {}
        if isinstance(cmp, exp.Between) and prof.get("min") and prof.get("max"):
            v = prof["min"] if cmp.args.get("low") is node else prof["max"]
        elif isinstance(cmp, (exp.GT, exp.GTE, exp.LT, exp.LTE)) and prof.get("min") and prof.get("max"):
            # a range of a digest (`date >= ? AND date < ?`): the profiled bounds, not one value twice
            lower = isinstance(cmp, (exp.GT, exp.GTE)) == (cmp.this is not node)
            bounds = (prof["min"], prof["max"]) if variant % 2 == 0 else (v, prof["max"])
            v = bounds[0] if lower else bounds[1]
        text = str(v)[:10] if not col.is_timestamp else str(v).replace("T", " ")
        return exp.Literal.string(text)  # a plain string, as drafted SQL writes dates
    if col.category == "number" and not isinstance(v, str):
        return exp.Literal.number(format_number(v))
    if isinstance(v, bool):
        return exp.Boolean(this=v)
    return exp.Literal.string(str(v))
