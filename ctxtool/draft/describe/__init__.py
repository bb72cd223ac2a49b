"""Write what a SQL query asks, in words, from its sqlglot tree.

"Count of members with an order in the city with city name 'New York City'" comes from
``SELECT COUNT(*) FROM member JOIN orders ... JOIN city ... WHERE city."C2" = 'New York City'``:
the projection gives the head (count, total, average, the columns listed), ``GROUP BY`` gives "for
each ...", joins to child tables give "with an order", conditions give "with status 'A'" (on the main
table) or "in the city with ..." (on a joined table), and ``ORDER BY ... LIMIT`` gives "the 10 ...
with the highest ...". Values are kept concrete so that ``parameterize`` can align them.

The same scope resolution fills the placeholders of workload digests with values from the profile.
"""

from __future__ import annotations

import re

from sqlglot import exp

from ctxtool.draft.describe.conditions import Conditions, other_end, referenced
from ctxtool.draft.describe.fill import instantiate
from ctxtool.draft.describe.scope import Scope
from ctxtool.draft.describe.select import Select
from ctxtool.draft.describe.words import _conjuncts, _join_conditions
from ctxtool.draft.model import Model
from ctxtool.draft.workload import parse

__all__ = ["Describer", "Scope", "instantiate"]


_FIRST_LAST = re.compile(r"\b(first name|last name)(s?)(,| and) (?!\1)(first name|last name)(s?)\b", re.I)


def full_names(text: str) -> str:
    """ "First name and last name of employees" -> "Full name of employees": how people ask for both
    (the question keeps the columns' own words, so the template has both wordings)."""

    def say(m: re.Match[str]) -> str:
        word = "Full" if m.group(1)[0].isupper() else "full"
        return f"{word} name{m.group(2)}"

    return _FIRST_LAST.sub(say, text)


# "Count of X for each Y" with nothing after Y but conditions
_PER_GROUP = re.compile(
    r"^(Count|Number|Total|Average) of (.+?) for each ([\w ]+?)((?: (?:with|in|for|whose) .*)?)$"
)

_MEASURED = re.compile(
    r"^(?:Count|Number|Total|Average|Overall|Highest|Lowest|Maximum|Minimum|Latest|Earliest|First \d+ rows|The )\b"
)


def listing(phrase: str) -> str:
    """ "Name and age of members" -> "List the name and age of members": a list asked for as people
    ask for one (the question says "What are ..."); counts and measures stay as they are."""
    if not phrase or _MEASURED.match(phrase):
        return phrase
    first = phrase.split(" ", 1)[0]
    keep = len(first) > 1 and first.isupper()  # "ID of ...", "IATA code of ..."
    if phrase.lower().startswith("all "):
        return "List " + phrase[:1].lower() + phrase[1:]  # "List all details of products"
    return "List the " + (phrase if keep else phrase[:1].lower() + phrase[1:])


class Describer(Conditions, Select):
    def __init__(self, model: Model) -> None:
        self.m = model
        self._plain = False  # labels without their table's name (inside "for accounts with ...")
        self._question = False  # heads as questions ("How many cinemas ...?") instead of phrases
        self._in_set = False  # describing one side of UNION / INTERSECT / EXCEPT
        self._having_said = False  # the question's head already says its HAVING
        self._nested = False  # describing a subquery as a part of the sentence
        self._top_extra: list[str] = []  # the columns a top-groups query returns besides its groups

    def __call__(self, sql: str) -> str:
        return self.describe(sql)

    def question(self, sql: str) -> str:
        """The question a person asks for ``sql``: "How many cinemas are there?", "What are the names
        of cinemas with capacity above 300?", "Which location has the most cinemas?"."""
        self._question = True
        try:
            text = self.describe(sql)
        finally:
            self._question = False
        text = text.rstrip(" .?")
        return text[:1].upper() + text[1:] + "?"

    def wordings(self, sql: str) -> tuple[str, str]:
        """(the question, the phrase) for ``sql``: two wordings of one template for the matcher."""
        phrase = listing(self._per_group(sql, full_names(self.describe(sql))))
        # the other word for the last in time: the question says "latest", the phrase "most recent"
        phrase = re.sub(r"\bLatest\b", "Most recent", re.sub(r"\blatest\b", "most recent", phrase))
        return self.question(sql), phrase

    def _per_group(self, sql: str, phrase: str) -> str:
        """ "Count of competitions for each type" -> "Type and number of competitions" when the query
        returns its groups: people ask for the groups and their counts without saying "each"."""
        m = _PER_GROUP.match(phrase)
        tree = parse(sql, self.m.dialect) if m else None
        if (
            m is None
            or not isinstance(tree, exp.Select)
            or tree.args.get("having") is not None
            or tree.args.get("group") is None
        ):
            return phrase
        if not any(isinstance(p, exp.Column) for p in tree.expressions) or tree.args.get("order"):
            return phrase
        what = {"Count": "number", "Number": "number"}.get(m.group(1), m.group(1).lower())
        group, rest = m.group(3), m.group(4)
        return f"{group[:1].upper()}{group[1:]} and {what} of {m.group(2)}{rest}"

    def describe(self, sql: str) -> str:
        tree = parse(sql, self.m.dialect)
        if tree is None:
            return "Results of a query"
        if isinstance(tree, exp.SetOperation):
            return self.describe_set(tree)
        if not isinstance(tree, exp.Select):
            return "Results of a query"
        return self.describe_select(tree)

    def except_related(self, left: exp.Expression, right: exp.Expression) -> str | None:
        """``SELECT name FROM artist EXCEPT SELECT artist.name FROM artist JOIN album ...``: the same
        columns, less those of rows joined to another table -> "that have no album (with ...)"."""
        if not isinstance(left, exp.Select) or not isinstance(right, exp.Select):
            return None
        ls, rs = Scope(self.m, left), Scope(self.m, right)
        lcols = [ls.column(p.this if isinstance(p, exp.Alias) else p) for p in left.expressions]
        rcols = [rs.column(p.this if isinstance(p, exp.Alias) else p) for p in right.expressions]
        if not lcols or None in lcols or None in rcols or right.args.get("group") is not None:
            return None
        if left.args.get("group") is not None or len(lcols) != len(rcols):
            return None
        if lcols == rcols:
            extra = [t for t in rs.order if t not in ls.order]
        elif len(ls.order) == 1 and all(
            referenced(self.m, c) is ls.order[0] or c.name == lc.name
            for c, lc in zip(rcols, lcols, strict=True)
        ):
            # SELECT id FROM member EXCEPT SELECT memid FROM has_badge: members with no badge
            end = other_end(self.m, rcols[0].table, {ls.order[0].name.lower()})
            extra = [end or rcols[0].table]
        else:
            return None
        if not extra:
            return None
        words = []
        where = right.args.get("where")
        self._plain = True
        try:
            for c in _conjuncts(where.this) if where is not None else []:
                _, w = self.condition(rs, c)
                if w:
                    words.append(w)
        finally:
            self._plain = False
        one = extra[0].names.singular
        return f"with no {one}" + (" " + _join_conditions(words) if words else "")

    def set_as_filter(self, tree: exp.Expression) -> exp.Select | None:
        """``SELECT memid FROM member WHERE level = 3 INTERSECT SELECT memid FROM membership WHERE
        ...``: both sides return the same thing (the right side's column references the left's table)
        from different tables, so the right side is a condition on the left's rows ("ids of members
        with level 3 with a membership with ..."), as people ask it; EXCEPT is "without any". None
        when the sides are not so."""
        if not isinstance(tree, (exp.Intersect, exp.Except)) or tree.args.get("distinct") is False:
            return None
        left, right = tree.left, tree.right
        if not isinstance(left, exp.Select) or not isinstance(right, exp.Select):
            return None
        if any(
            s.args.get(k) is not None for s in (left, right) for k in ("group", "limit", "order", "having")
        ):
            return None
        if len(left.expressions) != 1 or len(right.expressions) != 1:
            return None
        ls, rs = Scope(self.m, left), Scope(self.m, right)
        lp, rp = left.expressions[0], right.expressions[0]
        lc, rc = ls.column(lp.this if isinstance(lp, exp.Alias) else lp), rs.column(rp)
        if lc is None or rc is None or lc.table is rc.table or ls.main is rs.main:
            return None
        parent = referenced(self.m, lc)
        if parent is not None and parent is referenced(self.m, rc) and len(parent.primary_key) == 1:
            # both sides are rows referencing a third table: "members with a membership and a booking"
            key = exp.column(parent.pk_columns[0].name, table=parent.name)
            out = exp.select(key).from_(exp.to_table(parent.name))
            both = exp.In(this=key.copy(), query=exp.Subquery(this=left.copy()))
            second: exp.Expression = exp.In(this=key.copy(), query=exp.Subquery(this=right.copy()))
            if isinstance(tree, exp.Except):
                second = exp.Not(this=second)
            return out.where(both, copy=False).where(second, copy=False)
        if referenced(self.m, rc) is not lc.table and not (rc.name.lower() == lc.name.lower() and lc.in_pk):
            return None
        lcol = lp.this if isinstance(lp, exp.Alias) else lp
        cond: exp.Expression = exp.In(this=lcol.copy(), query=exp.Subquery(this=right.copy()))
        if isinstance(tree, exp.Except):
            cond = exp.Not(this=cond)
        out = left.copy()
        return out.where(cond, copy=False)

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
        if isinstance(tree, exp.Except):
            related = self.except_related(tree.left, tree.right)
            if related:
                return f"{self.describe_set(tree.left)} {related}"
        as_filter = self.set_as_filter(tree)
        if as_filter is not None:
            return self.describe_select(as_filter)
        saved, self._in_set = self._in_set, True
        try:
            left = self.describe_set(tree.left).split()
            right = self.describe_set(tree.right).split()
        finally:
            self._in_set = saved
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
