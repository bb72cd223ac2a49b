"""Property tests: generated templates round-trip exactly, and parameterizing twice changes nothing."""

from __future__ import annotations

import datetime as dt

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ctxtool.parameterize import parameterize_item, parameterize_set
from ctxtool.placeholders import find_sql_placeholders, find_text_placeholders, substitute

FILLER = {"how", "many", "rows", "have", "and", "equal", "to", "above", "below", "with", "the", "on"}
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]  # fmt: skip

words = st.from_regex(r"[A-Z][a-z]{2,7}(?:'[A-Z][a-z]{1,4}| [A-Z][a-z]{2,7})?", fullmatch=True)


def _sql_string(value: str, dialect: str, double: bool) -> str:
    """A string literal as each engine's users write it: quotes doubled on PostgreSQL and MySQL (a
    backslash escape reads differently under MySQL's NO_BACKSLASH_ESCAPES: the gate refuses it,
    CTX208), backslash-escaped on Spanner (GoogleSQL has no other way)."""
    if double and dialect == "spanner":
        return '"' + value.replace('"', '\\"') + '"'
    if double and dialect == "mysql":
        return '"' + value.replace('"', '""') + '"'
    if dialect in ("postgres", "mysql"):
        return "'" + value.replace("'", "''") + "'"
    return "'" + value.replace("'", "\\'") + "'"


@st.composite
def condition(draw, column: str, dialect: str):
    """(SQL condition, intent phrase text, a key identifying the value)."""
    kind = draw(st.sampled_from(["string", "int", "decimal", "date"]))
    op, word = draw(st.sampled_from([("=", "equal to"), (">", "above"), ("<", "below")]))
    if kind == "string":
        value = draw(words)
        assume(value.lower() not in FILLER)
        literal = _sql_string(value, dialect, draw(st.booleans()))
        phrase = draw(st.sampled_from([value, value.lower(), f"'{value}'", f'"{value}"']))
        key = ("s", value)
    elif kind == "int":
        n = draw(st.integers(2, 10_000_000))
        literal = str(n)
        phrase = draw(st.sampled_from([str(n), f"{n:,}", f"{n}.0", f"'{n}'"]))
        key = ("n", n)
    elif kind == "decimal":
        cents = draw(st.integers(1, 999_999))
        literal = f"{cents // 100}.{cents % 100:02d}"
        phrase = draw(st.sampled_from([literal, f"{cents // 100:,}.{cents % 100:02d}"]))
        key = ("n", cents / 100)
    else:
        day = draw(st.dates(dt.date(1950, 1, 1), dt.date(2035, 12, 31)))
        iso = day.isoformat()
        literal = draw(st.sampled_from([f"'{iso}'", f"DATE '{iso}'"]))
        phrase = draw(
            st.sampled_from(
                [
                    iso,
                    f"{MONTHS[day.month - 1]} {day.day}, {day.year}",
                    f"{day.day} {MONTHS[day.month - 1][:3]} {day.year}",
                ]
            )
        )
        key = ("d", iso)
        op, word = "=", "on"
    return f"{column} {op} {literal}", f"{column} {word} {phrase}", key, phrase


@st.composite
def template(draw):
    dialect = draw(st.sampled_from(["postgres", "mysql", "spanner"]))
    columns = draw(
        st.lists(
            st.sampled_from(["c_one", "c_two", "c_three", "city", "amount", "created"]),
            min_size=1,
            max_size=3,
            unique=True,
        )
    )
    conds = [draw(condition(c, dialect)) for c in columns]
    keys = [k for _, _, k, _ in conds]
    assume(len(set(keys)) == len(keys))
    phrases = [p.strip("'\"").lower() for _, _, _, p in conds]
    # no phrase may also be written inside another one (its mention would be ambiguous)
    for i, a in enumerate(phrases):
        for j, b in enumerate(phrases):
            assume(i == j or a not in b)
    end = draw(st.sampled_from(["?", "", "."]))
    intent = "How many rows have " + " and ".join(i for _, i, _, _ in conds) + end
    sql = "SELECT count(*) FROM t WHERE " + " AND ".join(s for s, _, _, _ in conds)
    return dialect, {"nl_query": intent, "sql": sql}, len(conds)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow]
)
@given(template())
def test_generated_templates_round_trip_exactly(case):
    dialect, item, n = case
    res = parameterize_item(item, "templates", dialect)
    assert not res.problems, res.problems
    params = res.derived.params
    assert len(params) == n
    pintent = res["parameterized"]["parameterized_intent"]
    psql = res["parameterized"]["parameterized_sql"]
    intent_found = find_text_placeholders(pintent, dialect)
    sql_found = find_sql_placeholders(psql, dialect)
    assert len(intent_found) == len(sql_found) == n
    if dialect == "postgres":
        assert [p.name for p in sql_found] == [str(i) for i in range(1, n + 1)]
    assert substitute(pintent, intent_found, [p.intent_texts[0] for p in params]) == item["nl_query"]
    assert substitute(psql, sql_found, [p.sql_texts[0] for p in params]) == item["sql"]
    assert res["manifest"].count("a given ") == n


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow]
)
@given(template())
def test_running_twice_is_a_no_op(case):
    dialect, item, _ = case
    once, _ = parameterize_set({"templates": [item]}, dialect)
    twice, report = parameterize_set(once, dialect)
    assert twice == once and report[0].status == "complete"
    forced, report = parameterize_set(once, dialect, force=True)
    assert forced == once and report[0].status == "unchanged"


@settings(max_examples=60, deadline=None)
@given(
    st.text(alphabet=st.characters(codec="utf-8", exclude_characters="$?"), max_size=60),
    st.sampled_from(["postgres", "mysql", "spanner"]),
)
def test_an_intent_without_values_is_kept_verbatim(text, dialect):
    assume(text.strip())
    res = parameterize_item(
        {"nl_query": text, "sql": "SELECT count(*) FROM account WHERE frequency = 'POPLATEK MESICNE'"},
        "templates",
        dialect,
    )
    if res.problems:  # only when the intent mentions the value
        return
    assert res["manifest"] == text
    assert res["parameterized"] == {
        "parameterized_intent": text,
        "parameterized_sql": "SELECT count(*) FROM account WHERE frequency = 'POPLATEK MESICNE'",
    }


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow]
)
@given(template(), st.randoms(use_true_random=False))
def test_question_marks_never_bind_the_wrong_value(case, rnd):
    """With the intent's values in any order, a ? form is emitted only when the n-th ? of the intent
    and the n-th ? of the SQL stand for the same value; otherwise the order is reported."""
    from ctxtool.parameterize.align import values_agree

    dialect, item, n = case
    intent = item["nl_query"]
    body = intent[len("How many rows have ") :]
    end = body[-1] if body[-1:] in "?." else ""
    parts = (body[:-1] if end else body).split(" and ")
    shuffled = parts[:]
    rnd.shuffle(shuffled)
    item = dict(item, nl_query="How many rows have " + " and ".join(shuffled) + end)
    res = parameterize_item(item, "templates", dialect)
    if dialect == "postgres" or shuffled == parts:
        assert not res.problems
    if res.problems:
        assert "another order" in res.problems[0]
        return
    for p in res.derived.params:
        assert values_agree(p.sql_texts[0], p.intent_texts[0], dialect)
    if dialect != "postgres":
        assert len(res.derived.params) == n


@settings(max_examples=200, deadline=None)
@given(
    st.text(max_size=25),
    st.text(max_size=25),
    st.from_regex(r"[A-Za-z0-9][A-Za-z0-9 .'-]{0,12}", fullmatch=True),
    st.integers(-10_000, 10_000),
    st.sampled_from(["postgres", "mysql", "spanner"]),
)
def test_any_intent_either_round_trips_exactly_or_is_reported(before, after, word, number, dialect):
    """Whatever the intent holds (?, $, quotes, digits, any script), what is emitted reads back
    through the shared placeholder readers and gives back the concrete forms; else it is reported."""
    lit = "'" + (word.replace("'", "''") if dialect == "postgres" else word.replace("'", "\\'")) + "'"
    intent = f"{before}{word} {number}{after}"
    sql = f"SELECT count(*) FROM t WHERE a = {lit} AND b = {number}"
    res = parameterize_item({"nl_query": intent, "sql": sql}, "templates", dialect)
    if res.problems:
        assert dict(res) == {"nl_query": intent, "sql": sql}
        return
    pintent = res["parameterized"]["parameterized_intent"]
    psql = res["parameterized"]["parameterized_sql"]
    params = res.derived.params
    ifound = find_text_placeholders(pintent, dialect)
    sfound = find_sql_placeholders(psql, dialect)
    assert sum(len(p.intent_texts) for p in params) == len(ifound)
    assert sum(len(p.sql_texts) for p in params) == len(sfound)
    assert substitute(pintent, ifound, [p.intent_texts[0] for p in params]) == intent
    assert substitute(psql, sfound, [p.sql_texts[0] for p in params]) == sql


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow]
)
@given(template())
def test_generated_templates_validate(case):
    import json

    from ctxtool.contextset import loads
    from ctxtool.validate import validate_set

    dialect, item, _ = case
    data, _ = parameterize_set({"templates": [item]}, dialect)
    errors = [f for f in validate_set(loads(json.dumps(data)), dialect=dialect) if f.severity == "error"]
    assert not errors, [(f.code, f.message) for f in errors]
