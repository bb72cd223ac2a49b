"""Verifying a candidate: the checks that similarity cannot make.

A sentence encoder rates "Which artist has the most albums?" and "... the fewest albums?" 0.92
alike; what tells them apart is the words that decide what a query computes (the canonical tokens
of :mod:`ctxtool.runtime.text`). They are compared by *axis*: an opposite on the same axis (most vs
fewest, above vs below, before vs after, a negation on one side only) is a different question; a
word on one side only (the question says "most", the template says nothing of an order) is weaker
evidence against; words of the same direction ("more than" / "at least") agree.
"""

from __future__ import annotations

import re
from typing import Any

from ctxtool.runtime.text import content_tokens

# canonical token -> (axis, direction)
_AXES: dict[str, tuple[str, int]] = {
    "__max": ("extreme", 1),
    "__min": ("extreme", -1),
    "__max_date": ("recency", 1),
    "__min_date": ("recency", -1),
    "__gt": ("compare", 1),
    "__gte": ("compare", 1),
    "__lt": ("compare", -1),
    "__lte": ("compare", -1),
    "__after": ("time", 1),
    "__before": ("time", -1),
    "__not": ("negation", 1),
    "__desc": ("order", 1),  # descending vs ascending (alphabetical): stated or not, never opposite
    "__asc": ("order", -1),
    "__both": ("conjunction", 1),  # both A and B (an intersection) against either A or B (a union)
    "__either": ("conjunction", -1),
    # an adjective's degree without a known direction ("cheapest", "cheaper than"): either way
    "__superlative": ("extreme", 0),
    "__comparative": ("compare", 0),
}
_AGGREGATES = frozenset({"__count", "__avg", "__sum"})

OPPOSITE = 0.3  # most vs fewest: another question
NEGATION = 0.4  # "do not have" vs "have"
ONE_SIDED = 0.75  # an order or comparison only one side states
AGGREGATE_CLASH = 0.6  # average vs total
AGGREGATE_ONE_SIDED = 0.9  # "number of" is often only how people say it ("the most number of songs")
AGGREGATE_UNSAID = 0.75  # "how many campuses" is not "which campuses"; "crimes in 1995" may be short for it


def _label(token: str) -> str:
    return token.strip("_").replace("_", " ")


def operator_agreement(question_ops: set[str], template_ops: set[str]) -> tuple[float, list[str]]:
    """A factor in (0, 1] and the disagreements found, for the operator words of both sides."""
    factor = 1.0
    found: list[str] = []
    q_axes: dict[str, set[int]] = {}
    t_axes: dict[str, set[int]] = {}
    for tok in question_ops:
        if tok in _AXES:
            axis, d = _AXES[tok]
            q_axes.setdefault(axis, set()).add(d)
    for tok in template_ops:
        if tok in _AXES:
            axis, d = _AXES[tok]
            t_axes.setdefault(axis, set()).add(d)
    for axis in set(q_axes) | set(t_axes):
        q, t = q_axes.get(axis, set()), t_axes.get(axis, set())
        if q == t or (q and t and (0 in q or 0 in t)):
            continue
        if axis in ("conjunction", "order") and not (q and t):
            continue  # "or" alone is how people list things
        if axis == "negation":
            factor *= NEGATION
            found.append("negation (" + ("the question" if q else "the template") + " says not)")
        elif q and t and not (q & t):
            factor *= OPPOSITE
            found.append(f"opposite {axis}")
        elif q and t:
            continue  # "the largest and the smallest" against "the largest": the template covers a part
        else:
            factor *= ONE_SIDED
            found.append(f"{axis} stated by the {'question' if q else 'template'} only")
    qa, ta = question_ops & _AGGREGATES, template_ops & _AGGREGATES
    if qa and ta and not (qa & ta):
        factor *= AGGREGATE_CLASH
        found.append(f"{'/'.join(sorted(map(_label, qa)))} vs {'/'.join(sorted(map(_label, ta)))}")
    else:
        for side, ops, alone in (("question", question_ops, qa - ta), ("template", template_ops, ta - qa)):
            if not alone:
                continue
            if "extreme" in {_AXES[t][0] for t in ops if t in _AXES}:
                factor *= AGGREGATE_ONE_SIDED  # "the most number of songs": an order, said twice
            else:
                factor *= AGGREGATE_UNSAID ** len(alone)
                found.append(f"{'/'.join(sorted(map(_label, alone)))} asked by the {side} only")
    return factor, found


# -- the review of ranked candidates ---------------------------------------------------------------
# The checks below read the template's SQL, which the similarity of the wordings cannot see: what a
# COUNT(DISTINCT ...) counts, which way an ORDER BY ... LIMIT goes, whether two conditions are ANDed
# or ORed, which columns come back. Each one lowers a candidate whose SQL computes something else
# than the question asks; none of them names a word of any database.

COUNTED_OTHER = 0.5  # "how many accounts" is not answered by counting the distinct customers
COLUMN_UNASKED = 0.6  # the template returns a column the question does not ask for
CONJUNCTION_CLASH = 0.3  # "A or B" answered with A AND B
OTHER_TABLE = 0.3  # a customer's first name in a slot for a staff member's first name
# generic words of a column name: what remains says what the column holds
_GENERIC = frozenset({"id", "name", "code", "number", "no", "num", "nam", "cod"})
_NAMES = frozenset({"name", "nam", "title", "titl"})  # "the name of the movie" asks for its title
_COUNT_PHRASE = re.compile(
    r"\b(?:how\s+many|(?:total\s+)?number\s+of|count\s+of|count(?:\s+the)?(?:\s+number\s+of)?)\s+"
    r"(?:the\s+|all\s+(?:the\s+)?)?(?:different\s+|distinct\s+|unique\s+|kinds?\s+of\s+|types?\s+of\s+)?"
    r"([a-z][\w-]*)(?:\s+([a-z][\w-]*))?",
    re.I,
)
_COUNT_DISTINCT = re.compile(r"\bcount\s*\(\s*distinct\s+(?:\w+\.)?\"?(\w+)\"?\s*\)", re.I)
_CONTRACTED_NOT = re.compile(
    r"\b(?:do|does|did|is|are|was|were|has|have|had|ca|could|would|should|wo|must|need)n[’']?t\b|\bcannot\b",
    re.I,
)
_SQL_LIMIT = re.compile(r"\blimit\s+\d+\s*;?\s*$", re.I)


def name_words(name: str) -> list[str]:
    """The content words of an identifier (``destroyed_by_employee_id`` -> destroy, employee, id;
    ``roomName`` -> room, name; ``stuid`` -> stu, id)."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name.split(".")[-1]).replace("_", " ")
    out: list[str] = []
    for w in content_tokens(spaced):
        if len(w) > 4 and w.endswith("id") and w not in ("paid", "valid", "liquid"):
            out += [w[:-2], "id"]  # "stuid", "custid": a key written in one word
        else:
            out.append(w)
    return out


def _words_meet(said: set[str], words: set[str]) -> bool:
    """A word of ``said`` is one of ``words``, or one is the other's abbreviation (stu / student)."""
    for a in said:
        for b in words:
            if a == b or (min(len(a), len(b)) >= 3 and (a.startswith(b) or b.startswith(a))):
                return True
    return False


def counted_words(text: str) -> set[str] | None:
    """What "how many X" / "the number of distinct X" counts: the content words of X (None when the
    text counts nothing)."""
    m = _COUNT_PHRASE.search(text)
    if m is None:
        return None
    words = {t for g in m.groups() if g for t in content_tokens(g) if not t.startswith("__")}
    return words or None


def _counted_column_words(tpl: Any) -> set[str] | None:
    """The words naming what the template's ``COUNT(DISTINCT col)`` counts: the column's own words
    without the generic ones, or its table's words when the column is only a key or a name."""
    m = _COUNT_DISTINCT.search(tpl.sql)
    if m is None:
        return None
    col = m.group(1).lower()
    own = set(name_words(col)) - _GENERIC
    if own:
        return own
    tables = [t for t in tpl.tables]
    words: set[str] = set()
    for t in tables:
        words |= set(name_words(t))
    return words or None


def counted_thing(question: str, tpl: Any) -> str | None:
    """A reason when the template counts distinct values of a column that is not what the question
    counts ("How many accounts?" against ``COUNT(DISTINCT customer_id)``). Applies only when the
    template's own wording counts what its column names (so a cryptic column decides nothing)."""
    col_words = _counted_column_words(tpl)
    if not col_words:
        return None
    asked = counted_words(question)
    if not asked:
        return None
    own = [w for w in (counted_words(p.text) for p in tpl.phrasings) if w]
    if not own or not any(_words_meet(w, col_words) for w in own):
        return None
    if _words_meet(asked, col_words) or any(asked <= w for w in own):
        return None
    return f"the question counts {'/'.join(sorted(asked))}, the template counts distinct {'/'.join(sorted(col_words))}"


def sql_extreme(tpl: Any) -> int | None:
    """Which end the template's SQL takes: 1 (``ORDER BY ... DESC LIMIT``, ``MAX(...)`` alone), -1
    (``ASC LIMIT``, ``MIN``), None (neither, or both)."""
    sql = tpl.sql.strip()
    if tpl.reads.order and _SQL_LIMIT.search(sql):
        return 1 if tpl.reads.order == "desc" else -1
    if tpl.reads.value_only:
        hi, lo = bool(re.search(r"\bmax\s*\(", sql, re.I)), bool(re.search(r"\bmin\s*\(", sql, re.I))
        if hi != lo:
            return 1 if hi else -1
    return None


def extreme_direction(q_tokens: set[str], tpl: Any) -> str | None:
    """A reason when the question asks for one end ("the highest price") and the template's wording
    has a superlative of no known direction ("cheapest") while its SQL takes the other end."""
    q = {_AXES[t][1] for t in q_tokens if t in _AXES and _AXES[t][0] == "extreme"} - {0}
    t_ops = {t for t in tpl.token_set if t in _AXES and _AXES[t][0] == "extreme"}
    if len(q) != 1 or "__superlative" not in t_ops or t_ops & {"__max", "__min"}:
        return None
    d = sql_extreme(tpl)
    if d is None or d in q:
        return None
    return (
        "the question asks for the "
        + ("highest" if 1 in q else "lowest")
        + ", the template's SQL takes the other end"
    )


def _negated(text: str) -> bool:
    return "__not" in content_tokens(text) or bool(_CONTRACTED_NOT.search(text))


def contracted_negation(question: str, phrasing_text: str) -> str | None:
    """A reason when one side says "don't" / "cannot" and the other has no negation at all (the word
    checks see "not" and "no", not the contracted forms)."""
    q_tok, t_tok = "__not" in content_tokens(question), "__not" in content_tokens(phrasing_text)
    if q_tok != t_tok:
        return None  # the word checks saw it already
    q, t = _negated(question), _negated(phrasing_text)
    if q == t:
        return None
    return "negation (" + ("the question" if q else "the template") + " says not)"


def _connective(text: str, words: tuple[str, str] = ("or", "and")) -> str | None:
    """``"or"`` or ``"and"`` when ``text`` joins by one of ``words`` only (None: neither, or both)."""
    has_or = bool(re.search(rf"\b{words[0]}\b", text, re.I))
    has_and = bool(re.search(rf"\b{words[1]}\b", text, re.I))
    if has_or == has_and:
        return None
    return "or" if has_or else "and"


def conjunction(question: str, entities: list[Any], cand: Any, dialect: str) -> str | None:
    """A reason when the question joins two of its values with "or" and the SQL ANDs their conditions
    (or INTERSECTs), or joins values of two columns with "and" ("size A4 and speed below 5") or says
    "both" while the SQL ORs them."""
    from ctxtool.placeholders import find_sql_placeholders

    tpl = cand.template
    if len(tpl.slots) < 2:
        return None
    places = find_sql_placeholders(tpl.sql, dialect)
    by_key: dict[str, int] = {}
    for n, ph in enumerate(places):
        key = ph.name if ph.kind == "numbered" else str(n + 1)
        by_key.setdefault(key, ph.start)
    slots = sorted(tpl.slots, key=lambda s: entities[cand.bindings[s.key][0]].start)
    for a, b in zip(slots, slots[1:], strict=False):
        if a.key not in by_key or b.key not in by_key:
            continue
        ea, eb = entities[cand.bindings[a.key][0]], entities[cand.bindings[b.key][0]]
        said = _connective(question[ea.end : eb.start])
        lo, hi = sorted((by_key[a.key], by_key[b.key]))
        between = re.sub(r"'(?:[^']|'')*'", "''", tpl.sql[lo:hi])
        # "the years shared by A or B" is often an INTERSECT: only conditions of one WHERE decide "or"
        sql_said = _connective(between)
        set_op = _connective(between, ("union", "intersect"))
        both = bool(re.search(r"\bboth\b", question[: ea.start + 1], re.I))
        if said == "or" and sql_said == "and" and set_op is None:
            return f"the question says '{ea.text}' or '{eb.text}', the template requires both"
        if said == "and" and "or" in (sql_said, set_op) and "and" not in (sql_said, set_op):
            if both or (a.column and b.column and a.column != b.column):
                return f"the question says '{ea.text}' and '{eb.text}', the template takes either"
    return None


def unasked_columns(q_tokens: set[str], cand: Any, entities: list[Any]) -> list[str]:
    """The columns the template returns that its own wording names and the question does not
    ("the names of wines" against "the names and scores of wines"): an answer with more columns than
    asked is another answer."""
    tpl = cand.template
    wording: set[str] = set()
    for p in tpl.phrasings:
        wording |= set(p.tokens)
    slot_cols = {s.column.split(".")[-1] for s in tpl.slots if s.column}
    said = set(q_tokens)
    for i, _ in cand.bindings.values():
        said |= entities[i].descriptors
    out = []
    for col in sorted(tpl.reads.projected):
        name = col.split(".")[-1]
        if name in slot_cols:
            continue
        all_words = set(name_words(name))
        words = all_words - _GENERIC
        if not words or not (words & wording):
            continue  # a cryptic column, or one the template's wording does not name either
        if all_words & _GENERIC & said or (all_words & _NAMES and said & _NAMES):
            continue  # "the ids", "the full names": asked by the kind of column
        if not _words_meet(said, words):
            out.append(name)
    return out


def value_of_other_table(q_tokens: set[str], cand: Any, entities: list[Any]) -> str | None:
    """A reason when a slot holds a value found on a column of the same name in another table (a
    customer's first name for ``staff.first_name``) and nothing says it belongs to the slot's table:
    the value was only approximately found, or the question names the value's table and not the
    slot's."""
    for slot in cand.template.slots:
        e = entities[cand.bindings[slot.key][0]]
        lv = e.link
        if lv is None or not slot.column or "." not in slot.column:
            continue
        slot_key = ".".join(slot.column.lower().split(".")[-2:])
        if lv.column_key == slot_key or any(a.column_key == slot_key for a in lv.alternatives):
            continue
        own, theirs = set(name_words(slot_key.split(".")[0])), set(name_words(lv.column_key.split(".")[0]))
        named = _words_meet(q_tokens, theirs - own) and not _words_meet(q_tokens, own - theirs)
        if lv.distance > 0 or named:
            return f"'{e.text}' is a value of {lv.column_key}, the template's slot is {slot_key}"
    return None


def review(
    question: str,
    entities: list[Any],
    cands: list[Any],
    q_tokens: list[str],
    dialect: str,
) -> list[Any]:
    """Lower each candidate whose SQL does not compute what the question asks (see the checks above),
    and tell reverse templates apart (:func:`reverse_pairs`); the list comes back best first."""
    q_set = set(q_tokens)
    for c in cands:
        factor = 1.0
        found: list[str] = []
        tpl = c.template
        phrasing = tpl.phrasings[c.phrasing].text if tpl.phrasings else tpl.intent
        why = value_of_other_table(q_set, c, entities)
        if why:
            factor *= OTHER_TABLE
            found.append(why)
        why = counted_thing(question, tpl)
        if why:
            factor *= COUNTED_OTHER
            found.append(why)
        why = extreme_direction(q_set, tpl)
        if why:
            factor *= OPPOSITE
            found.append(why)
        why = contracted_negation(question, phrasing)
        if why:
            factor *= NEGATION
            found.append(why)
        why = conjunction(question, entities, c, dialect)
        if why:
            factor *= CONJUNCTION_CLASH
            found.append(why)
        cols = unasked_columns(q_set, c, entities)
        if cols:
            factor *= COLUMN_UNASKED ** len(cols)
            found.append("the template also returns what the question does not ask: " + ", ".join(cols))
        if factor < 1.0:
            c.score = round(c.score * factor, 4)
            c.evidence = round(c.evidence * factor, 4)
            c.checks = round(c.checks * factor, 4)
            c.reasons.append("the SQL disagrees with the question: " + "; ".join(found))
    cands.sort(key=lambda c: -c.score)
    reverse_pairs(cands)
    return cands


REVERSE_MARGIN = 0.01  # the encoder's cosine must prefer one reading of a reverse pair by this much


def _sql_bag(sql: str) -> tuple[str, ...]:
    return tuple(sorted(re.findall(r"\w+|[^\s\w]", sql.lower())))


def reverse_pairs(cands: list[Any]) -> None:
    """Reverse templates ("the prerequisite of X" / "the courses whose prerequisite is X", "the code
    of a description" / "the description of a code") read the same words in another order: their
    SQL holds the same tokens in another sequence, so word overlap cannot tell them apart. The
    encoder's cosine, which sees the order, decides; when it does not prefer one, both are offered
    (equal scores make the runtime ask back)."""
    if len(cands) < 2:
        return
    best = cands[0]
    bag = _sql_bag(best.template.sql)
    for rival in cands[1:]:
        if rival.template.sql == best.template.sql or _sql_bag(rival.template.sql) != bag:
            continue
        if rival.similarity > best.similarity + REVERSE_MARGIN:
            best.score, rival.score = (
                round(min(best.score, rival.score) - 0.01, 4),
                max(best.score, rival.score),
            )
            best.reasons.append(
                f"its reverse, template #{rival.template.index}, reads closer to the question"
            )
        elif rival.similarity >= best.similarity - REVERSE_MARGIN:
            rival.score = best.score
            best.reasons.append(f"its reverse, template #{rival.template.index}, reads as close")
        break
    cands.sort(key=lambda c: -c.score)
