"""Small word helpers of the describer: lists, articles, orders, conjunctions."""

from __future__ import annotations

from sqlglot import exp


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


def _most_common(most: str) -> tuple[str, str] | None:
    """ "most books" -> ("most common", "books"): the group asked for by how often it comes up
    ("the most common type of books"), as people ask for it; None for an order by anything else."""
    for word, say in (("most ", "most common"), ("fewest ", "least common")):
        if most.startswith(word):
            return say, most[len(word) :]
    return None


def _in_order(order_words: str, asked: bool = False) -> str:
    """ "highest price" -> "in descending order of price"; "lowest name" -> "ordered by name" (as a
    question, ``asked``: "in ascending order of name")."""
    for word in ("highest ", "latest "):
        if order_words.startswith(word):
            return "in descending order of " + order_words[len(word) :]
    if asked:
        what = order_words.split(" ", 1)[-1]
        return "in ascending order of " + ("number of " + what[9:] if what.startswith("count of ") else what)
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


def _shared_owner(aggs: list[str]) -> list[str]:
    """ "Average age of members", "Highest age of members" -> "Average age", "highest age of members":
    the owner said once, at the end."""
    owners = {a.rsplit(" of ", 1)[-1] for a in aggs if " of " in a}
    if len(aggs) > 1 and len(owners) == 1 and all(" of " in a for a in aggs):
        bare = [a.rsplit(" of ", 1)[0] for a in aggs]
        labels = {b.split(" ", 1)[-1] for b in bare}
        if len(labels) == 1 and all(" " in b for b in bare):  # "average, lowest and highest capacity"
            return [*(b.split(" ", 1)[0] for b in bare[:-1]), aggs[-1]]
        return [*bare[:-1], aggs[-1]]
    return aggs
