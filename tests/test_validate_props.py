"""Property tests: whatever the input, validate never raises, never prints a traceback, and exits
0, 1 or 2."""

from __future__ import annotations

import json

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxtool.cli import cli
from ctxtool.validate import validate_text

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)

# pieces of SQL and prose, so that generated items reach the deeper layers
fragments = st.sampled_from(
    [
        "SELECT",
        " * ",
        "FROM",
        " t ",
        "WHERE",
        " x = ",
        "$1",
        "$2",
        "$value",
        "?",
        "'a'",
        "1",
        " AND ",
        "(",
        ")",
        ";",
        "t.c",
        '"A3"',
        "`A3`",
        " a given city",
        "INTO",
        " FOR UPDATE",
        "DELETE",
        "--",
        "/*",
        " AS value",
        ", ",
        "WITH m AS (",
        "JSON '{}'",
        "Prague",
        " in ",
        "\\",
        "'",
        '"',
        "@{X=1}",
    ]
)
sqlish = st.lists(fragments, max_size=12).map("".join)
templates = st.fixed_dictionaries(
    {"nl_query": sqlish, "sql": sqlish},
    optional={
        "intent": sqlish,
        "manifest": sqlish,
        "parameterized": st.fixed_dictionaries(
            {}, optional={"parameterized_intent": sqlish, "parameterized_sql": sqlish}
        ),
    },
)
facets = st.fixed_dictionaries(
    {"sql_snippet": sqlish, "intent": sqlish, "manifest": sqlish},
    optional={
        "parameterized": st.fixed_dictionaries(
            {}, optional={"parameterized_intent": sqlish, "parameterized_sql_snippet": sqlish}
        )
    },
)
value_searches = st.fixed_dictionaries({"query": sqlish, "concept_type": sqlish})
context_sets = st.fixed_dictionaries(
    {},
    optional={
        "templates": st.lists(templates, max_size=3),
        "facets": st.lists(facets, max_size=3),
        "fragments": st.lists(facets, max_size=2),
        "value_searches": st.lists(value_searches, max_size=3),
    },
)
dialects = st.sampled_from(["postgres", "mysql", "spanner"])
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(json_values, dialects)
def test_arbitrary_json_never_raises(value, dialect):
    for finding in validate_text(json.dumps(value), "x.json", dialect=dialect):
        assert finding.code.startswith("CTX") and finding.line >= 1 and finding.column >= 1


@FAST
@given(context_sets, dialects)
def test_context_set_shaped_input_never_raises(data, dialect):
    text = json.dumps(data, indent=2)
    for finding in validate_text(text, "x.json", dialect=dialect):
        assert 1 <= finding.line <= text.count("\n") + 1


@FAST
@given(st.text(max_size=200), dialects)
def test_arbitrary_text_exits_0_1_or_2(text, dialect):
    result = CliRunner().invoke(cli, ["validate", "--dialect", dialect, "-"], input=text)
    assert result.exit_code in (0, 1, 2), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output


@settings(max_examples=30, deadline=None)
@given(st.binary(max_size=100))
def test_arbitrary_bytes_exit_0_1_or_2(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("bytes") / "x.json"
    path.write_bytes(data)
    for fmt in ("text", "sarif"):
        result = CliRunner().invoke(cli, ["validate", "--format", fmt, str(path)])
        assert result.exit_code in (0, 1, 2)
        assert result.exception is None or isinstance(result.exception, SystemExit)
