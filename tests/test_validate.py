"""ctxtool.validate: every rule triggers on a case made for it and stays quiet on a near miss; the
samples validate clean; every samples/invalid file yields exactly its rule."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from ctxtool import contextset
from ctxtool.validate import RULES, all_rules, validate_set, validate_text
from ctxtool.validate.report import render_rules_markdown

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
INVALID = sorted((SAMPLES / "invalid").glob("*.json"))
VALID = sorted(p for d in ("postgres", "mysql", "spanner") for p in (SAMPLES / d).glob("*.json"))

SQL = (
    'SELECT COUNT(*) FROM account AS a JOIN district AS d ON a.district_id = d.district_id WHERE d."A3" = {v}'
)
PRAGUE_SQL = SQL.format(v="'Prague'")
PARAM_SQL = SQL.format(v="$1")
VS = (
    "SELECT $value AS value, 'district.A3' AS columns, 'Region' AS concept_type, 0 AS distance, "
    '\'{}\'::text AS context FROM "district" T WHERE T."A3" = $value'
)


def template(
    nl="How many accounts are in Prague?",
    sql=PRAGUE_SQL,
    psql=PARAM_SQL,
    pintent="How many accounts are in $1?",
    manifest="How many accounts are in a given region?",
    intent=None,
):
    t = {"nl_query": nl, "sql": sql}
    if intent is not None:
        t["intent"] = intent
    t["manifest"] = manifest
    t["parameterized"] = {"parameterized_intent": pintent, "parameterized_sql": psql}
    return t


def plain(nl, sql):
    return {
        "nl_query": nl,
        "sql": sql,
        "manifest": nl,
        "parameterized": {"parameterized_intent": nl, "parameterized_sql": sql},
    }


def facet(
    snip='district."A11" > 9000',
    psnip='district."A11" > $1',
    intent="salary above 9000",
    manifest="salary above a given number",
    pintent="salary above $1",
):
    return {
        "sql_snippet": snip,
        "intent": intent,
        "manifest": manifest,
        "parameterized": {"parameterized_intent": pintent, "parameterized_sql_snippet": psnip},
    }


def vs(query=VS, concept="Region"):
    return {"query": query, "concept_type": concept}


def base():
    return {"templates": [template()], "facets": [facet()], "value_searches": [vs()]}


def codes(data, dialect="postgres") -> list[str]:
    text = data if isinstance(data, str) else json.dumps(data, indent=2)
    return sorted({f.code for f in validate_text(text, "t.json", dialect=dialect)})


def with_(mutate):
    d = base()
    mutate(d)
    return d


def _set(path, value):
    def mutate(d):
        target = d
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return mutate


# (rule, dialect, data that triggers it, near miss that must not trigger it)
CASES = [
    ("CTX001", "postgres", '{"templates": [}', '{"templates": []}'),
    (
        "CTX002",
        "postgres",
        {
            "templates": [template()],
            "fragments": [
                {
                    "fragment": 'district."A11" > 9000',
                    "intent": "x",
                    "manifest": "x",
                    "parameterized": {
                        "parameterized_intent": "x",
                        "parameterized_fragment": 'district."A11" > 9000',
                    },
                }
            ],
        },
        base(),
    ),
    ("CTX003", "postgres", {"facets": [facet()]}, {"templates": [template()]}),
    ("CTX101", "postgres", with_(_set(("templates", 0, "sql"), 42)), base()),
    ("CTX101", "postgres", [], {}),
    (
        "CTX102",
        "postgres",
        with_(lambda d: d["templates"][0].pop("manifest")),
        with_(lambda d: d["value_searches"][0].pop("description", None)),
    ),
    ("CTX103", "postgres", with_(_set(("templates", 0, "notes"), "x")), with_(_set(("$schema",), "x.json"))),
    (
        "CTX104",
        "postgres",
        with_(_set(("value_searches", 0, "concept_type"), "")),
        with_(_set(("value_searches", 0, "description"), "")),
    ),
    (
        "CTX201",
        "postgres",
        with_(lambda d: d["templates"].append(plain("q?", "SELECT COUNT(* FROM account"))),
        with_(lambda d: d["templates"].append(plain("q?", "SELECT COUNT(*) FROM account"))),
    ),
    (
        "CTX201",
        "mysql",
        with_(lambda d: d["templates"].append(plain("q?", 'SELECT "A3" FROM district WHERE'))),
        with_(lambda d: d["templates"].append(plain("q?", "SELECT `A3` FROM district"))),
    ),
    (
        "CTX202",
        "postgres",
        with_(lambda d: d["templates"].append(plain("q?", "DELETE FROM loan"))),
        with_(lambda d: d["templates"].append(plain("q?", "SELECT * FROM loan"))),
    ),
    (
        "CTX202",
        "postgres",
        with_(
            lambda d: d["templates"].append(
                plain("q?", "WITH x AS (DELETE FROM loan RETURNING *) SELECT * FROM x")
            )
        ),
        with_(lambda d: d["templates"].append(plain("q?", "WITH x AS (SELECT * FROM loan) SELECT * FROM x"))),
    ),
    (
        "CTX202",
        "postgres",
        with_(lambda d: d["templates"].append(plain("q?", "EXPLAIN SELECT 1"))),
        with_(lambda d: d["templates"].append(plain("q?", "SELECT 1 UNION SELECT 2"))),
    ),
    (
        "CTX203",
        "postgres",
        with_(lambda d: d["templates"].append(plain("q?", "SELECT 1; SELECT 2"))),
        with_(lambda d: d["templates"].append(plain("q?", "SELECT 1;"))),
    ),
    (
        "CTX204",
        "postgres",
        with_(lambda d: d["templates"].append(plain("q?", "SELECT * INTO t2 FROM loan"))),
        with_(lambda d: d["templates"].append(plain("q?", "SELECT * FROM loan"))),
    ),
    (
        "CTX205",
        "postgres",
        with_(lambda d: d["templates"].append(plain("q?", "SELECT * FROM loan FOR SHARE"))),
        with_(lambda d: d["templates"].append(plain("q?", "SELECT * FROM loan ORDER BY loan_id"))),
    ),
    (
        "CTX205",
        "mysql",
        with_(lambda d: d["templates"].append(plain("q?", "SELECT * FROM loan LOCK IN SHARE MODE"))),
        with_(lambda d: d["templates"].append(plain("q?", "SELECT * FROM loan"))),
    ),
    (
        "CTX207",
        "postgres",
        with_(lambda d: d["templates"].append(plain("q?", "SELECT lo_import('/etc/hostname') FROM loan"))),
        with_(lambda d: d["templates"].append(plain("q?", "SELECT lower(status) FROM loan"))),
    ),
    (
        "CTX207",
        "postgres",
        with_(
            lambda d: d["templates"].append(
                plain("q?", "SELECT * FROM dblink('host=x', 'select 1') AS t(a int)")
            )
        ),
        with_(lambda d: d["templates"].append(plain("q?", "SELECT * FROM generate_series(1, 3) AS t(a)"))),
    ),
    (
        "CTX207",
        "postgres",
        with_(lambda d: d["templates"].append(plain("q?", "SELECT audit.log_and_count(loan_id) FROM loan"))),
        with_(lambda d: d["templates"].append(plain("q?", "SELECT count(loan_id) FROM loan"))),
    ),
    (
        "CTX207",
        "postgres",
        with_(
            _set(
                ("value_searches", 0, "query"), VS.replace("0 AS distance", "pg_advisory_lock(1) AS distance")
            )
        ),
        with_(_set(("value_searches", 0, "query"), VS.replace("0 AS distance", "abs(0) AS distance"))),
    ),
    (
        "CTX207",
        "postgres",
        with_(
            lambda d: d["facets"].append(
                facet("pg_read_file('/etc/passwd') <> ''", "pg_read_file('/etc/passwd') <> ''", "x", "x", "x")
            )
        ),
        with_(
            lambda d: d["facets"].append(
                facet("lower(loan.status) <> ''", "lower(loan.status) <> ''", "x", "x", "x")
            )
        ),
    ),
    (
        "CTX207",
        "mysql",
        with_(lambda d: d["templates"].append(plain("q?", "SELECT LOAD_FILE('/etc/hostname') FROM loan"))),
        with_(lambda d: d["templates"].append(plain("q?", "SELECT LOWER(status) FROM loan"))),
    ),
    (
        "CTX208",
        "mysql",
        with_(lambda d: d["templates"].append(plain("q?", "SELECT 1 /*! INTO OUTFILE '/tmp/x' */"))),
        with_(lambda d: d["templates"].append(plain("q?", "SELECT 1 /* INTO OUTFILE '/tmp/x' */"))),
    ),
    (
        "CTX208",
        "postgres",
        with_(lambda d: d["templates"].append(plain("q?", "SELECT 1 /* /* */ # */"))),
        with_(lambda d: d["templates"].append(plain("q?", "SELECT 1 /* */ -- # */"))),
    ),
    (
        "CTX208",
        "mysql",
        with_(lambda d: d["templates"].append(plain("q?", "SELECT 1 # tail"))),
        with_(lambda d: d["templates"].append(plain("q?", "SELECT 1 -- tail"))),
    ),
    (
        "CTX209",
        "postgres",
        with_(lambda d: d["templates"].append(plain("q?", "SELECT " + "(" * 40 + "1" + ")" * 40))),
        with_(lambda d: d["templates"].append(plain("q?", "SELECT " + "(" * 20 + "1" + ")" * 20))),
    ),
    (
        "CTX206",
        "postgres",
        with_(lambda d: d["facets"].append(facet('district."A11" + 1', 'district."A11" + 1', "x", "x", "x"))),
        with_(
            lambda d: d["facets"].append(
                facet(
                    'district."A11" > 1 OR district."A3" IS NULL',
                    'district."A11" > 1 OR district."A3" IS NULL',
                    "x",
                    "x",
                    "x",
                )
            )
        ),
    ),
    (
        "CTX206",
        "postgres",
        with_(lambda d: d["facets"].append(facet("SELECT 1", "SELECT 1", "x", "x", "x"))),
        with_(
            lambda d: d["facets"].append(
                facet("loan.status IN ('A', 'B')", "loan.status IN ('A', 'B')", "x", "x", "x")
            )
        ),
    ),
    (
        "CTX301",
        "postgres",
        with_(_set(("templates", 0, "parameterized", "parameterized_sql"), SQL.format(v="?"))),
        base(),
    ),
    (
        "CTX301",
        "mysql",
        base(),
        with_(
            lambda d: (
                d["templates"][0]["parameterized"].update(
                    parameterized_sql=SQL.format(v="?").replace('"A3"', "`A3`"),
                    parameterized_intent="How many accounts are in ?",
                ),
                d["templates"][0].update(
                    sql=SQL.format(v="'Prague'").replace('"A3"', "`A3`"),
                    manifest="How many accounts are in a given region",
                ),
                d.pop("facets"),
                d.pop("value_searches"),
            )
        ),
    ),
    (
        "CTX301",
        "postgres",
        with_(_set(("value_searches", 0, "query"), VS.replace("= $value", "= $1"))),
        base(),
    ),
    (
        "CTX301",
        "postgres",
        with_(_set(("templates", 0, "parameterized", "parameterized_sql"), SQL.format(v="$value"))),
        base(),
    ),
    (
        "CTX302",
        "postgres",
        with_(
            lambda d: d["templates"][0]["parameterized"].update(
                parameterized_sql=SQL.format(v="$2"), parameterized_intent="How many accounts are in $2?"
            )
        ),
        base(),
    ),
    (
        "CTX303",
        "postgres",
        with_(
            _set(
                ("templates", 0, "parameterized", "parameterized_intent"), "How many accounts are in Prague?"
            )
        ),
        base(),
    ),
    ("CTX304", "postgres", with_(_set(("templates", 0, "sql"), SQL.format(v="$1"))), base()),
    (
        "CTX401",
        "postgres",
        with_(_set(("templates", 0, "parameterized", "parameterized_sql"), SQL.format(v="$1") + " LIMIT 5")),
        base(),
    ),
    (
        "CTX402",
        "postgres",
        with_(
            _set(
                ("templates", 0, "parameterized", "parameterized_intent"),
                "How many accounts are located in $1?",
            )
        ),
        base(),
    ),
    (
        "CTX403",
        "postgres",
        with_(_set(("templates", 0, "nl_query"), "How many accounts are in Brno?")),
        with_(_set(("templates", 0, "nl_query"), "How many accounts are in prague?")),
    ),
    (
        "CTX404",
        "postgres",
        with_(_set(("templates", 0, "manifest"), "How many accounts are in Prague?")),
        base(),
    ),
    (
        "CTX405",
        "postgres",
        with_(_set(("templates", 0, "manifest"), "How many accounts are there in a given region?")),
        with_(_set(("templates", 0, "manifest"), "How many accounts are in a given region name?")),
    ),
    (
        "CTX501",
        "postgres",
        with_(lambda d: d["facets"].__setitem__(0, facet('"A11" > 9000', '"A11" > $1'))),
        base(),
    ),
    (
        "CTX502",
        "postgres",
        with_(lambda d: d["facets"].__setitem__(0, facet('T."A11" > 9000', 'T."A11" > $1'))),
        with_(
            lambda d: d["facets"].__setitem__(
                0, facet('public.district."A11" > 9000', 'public.district."A11" > $1')
            )
        ),
    ),
    (
        "CTX601",
        "postgres",
        with_(_set(("value_searches", 0, "query"), VS.replace("$value", "'Prague'"))),
        base(),
    ),
    (
        "CTX602",
        "postgres",
        with_(_set(("value_searches", 0, "query"), VS.replace(", '{}'::text AS context", ""))),
        base(),
    ),
    (
        "CTX602",
        "postgres",
        with_(_set(("value_searches", 0, "query"), 'SELECT * FROM district WHERE "A3" = $value')),
        with_(_set(("value_searches", 0, "query"), f"SELECT * FROM ({VS}) AS sub")),
    ),
    (
        "CTX603",
        "postgres",
        with_(_set(("value_searches", 0, "query"), VS.replace("'Region' AS", "'City' AS"))),
        base(),
    ),
    (
        "CTX604",
        "postgres",
        with_(_set(("value_searches", 0, "query"), VS.replace("'district.A3'", "'A3'"))),
        base(),
    ),
    (
        "CTX205",
        "postgres",
        with_(
            lambda d: d["templates"].append(plain("q?", "SELECT a FROM t UNION SELECT b FROM u FOR UPDATE"))
        ),
        with_(lambda d: d["templates"].append(plain("q?", "SELECT a FROM t UNION SELECT b FROM u"))),
    ),
    (
        "CTX204",
        "mysql",
        with_(lambda d: d["templates"].append(plain("q?", "SELECT COUNT(*) INTO @n FROM loan"))),
        with_(lambda d: d["templates"].append(plain("q?", "SELECT COUNT(*) AS n FROM loan"))),
    ),
    (
        "CTX605",
        "postgres",
        with_(_set(("value_searches", 0, "query"), VS.replace("0 AS distance", "-0.5 AS distance"))),
        with_(_set(("value_searches", 0, "query"), VS.replace("0 AS distance", "1 AS distance"))),
    ),
    (
        "CTX606",
        "postgres",
        with_(_set(("value_searches", 0, "query"), VS.replace("'{}'::text", "'exact'::text"))),
        with_(_set(("value_searches", 0, "query"), VS.replace("'{}'::text", '\'{"how": "exact"}\'::text'))),
    ),
    (
        "CTX701",
        "postgres",
        with_(
            lambda d: d["templates"].append(
                template(
                    sql=SQL.format(v="'Prague'") + " AND a.account_id > 1",
                    psql=SQL.format(v="$1") + " AND a.account_id > 1",
                )
            )
        ),
        with_(
            lambda d: d["templates"].append(
                template(nl="How many accounts are in Brno?", sql=SQL.format(v="'Brno'"))
            )
        ),
    ),
    (
        "CTX702",
        "postgres",
        with_(
            lambda d: d["templates"].append(
                template(
                    nl="Count the accounts in Prague",
                    intent="How many accounts are in Prague?",
                    sql=SQL.format(v="'Prague'").replace("COUNT", "count").replace(" = ", "   =   "),
                    psql=SQL.format(v="$1").replace("COUNT", "count").replace(" = ", "   =   "),
                )
            )
        ),
        with_(
            lambda d: d["templates"].append(
                template(nl="How many accounts are in Brno?", sql=SQL.format(v="'Brno'"))
            )
        ),
    ),
    (
        "CTX703",
        "postgres",
        with_(lambda d: d["value_searches"].append(vs())),
        with_(
            lambda d: d["value_searches"].append(
                vs(VS.replace("A3", "A2").replace("'Region'", "'District Name'"), "District Name")
            )
        ),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_rule_triggers_and_near_miss_does_not(case):
    code, dialect, bad, good = case
    assert code in codes(bad, dialect), codes(bad, dialect)
    assert code not in codes(good, dialect), codes(good, dialect)


def test_every_rule_has_a_case_and_an_invalid_sample():
    core = {r.code for r in all_rules() if r.code < "CTX800"}
    assert core <= {c[0] for c in CASES}
    assert core <= {p.name.split("-")[0] for p in INVALID}


def test_base_set_is_clean():
    assert validate_text(json.dumps(base()), "t.json") == []


@pytest.mark.parametrize("path", VALID, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_samples_validate_clean(path):
    dialect = path.parent.name
    findings = validate_set(contextset.load(str(path)), dialect=dialect)
    assert findings == [], [f"{f.code} {f.message}" for f in findings]


def test_samples_cover_every_dialect_and_both_sets():
    names = {(p.parent.name, p.stem) for p in VALID}
    for dialect in ("postgres", "mysql", "spanner"):
        assert {(dialect, "financial"), (dialect, "airports")} <= names


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
def test_invalid_sample_yields_exactly_its_rule(path):
    code = path.name.split("-")[0]
    found = {f.code for f in validate_text(path.read_text(encoding="utf-8"), str(path))}
    assert found == {code}


def test_findings_point_at_the_node():
    text = json.dumps(with_(_set(("templates", 0, "sql"), SQL.format(v="$1"))), indent=2)
    [finding] = validate_text(text, "t.json")
    assert finding.code == "CTX304" and finding.pointer == "/templates/0/sql"
    line = text.splitlines()[finding.line - 1]
    assert line[finding.column - 1 :].startswith('"SELECT')


def test_legacy_fragments_are_checked_as_facets():
    data = {
        "templates": [template()],
        "fragments": [
            {
                "fragment": '"A11" > 9000',
                "intent": "x",
                "manifest": "x",
                "parameterized": {"parameterized_intent": "x", "parameterized_fragment": '"A11" > 9000'},
            }
        ],
    }
    found = validate_text(json.dumps(data, indent=2), "t.json")
    assert {f.code for f in found} == {"CTX002", "CTX501"}
    bare = [f for f in found if f.code == "CTX501"]
    assert sorted(f.pointer for f in bare) == [
        "/fragments/0/fragment",
        "/fragments/0/parameterized/parameterized_fragment",
    ]
    assert "sql_snippet" in next(f for f in found if f.code == "CTX002").message


def test_mysql_question_marks_compare_values_as_a_multiset():
    sql = "SELECT `A2` FROM district WHERE `A11` > {a} AND `A3` = {b}"
    t = template(
        nl="Which districts in north Moravia earn above 9000?",
        sql=sql.format(a="9000", b="'north Moravia'"),
        psql=sql.format(a="?", b="?"),
        pintent="Which districts in ? earn above ?",
        manifest="Which districts in a given region earn above a given number",
    )
    t["nl_query"] = "Which districts in north Moravia earn above 9000"
    assert codes({"templates": [t]}, "mysql") == []
    t["nl_query"] = "Which districts in south Moravia earn above 9000"
    assert codes({"templates": [t]}, "mysql") == ["CTX403"]
    t["parameterized"]["parameterized_intent"] = "Which districts in ? earn above 9000"
    assert codes({"templates": [t]}, "mysql") == ["CTX303"]


def test_value_search_star_over_cte_and_union():
    q = (
        "WITH m AS (SELECT name AS value, 'airports.name' AS columns, 'Airport Name' AS concept_type, "
        "0 AS distance, '' AS context FROM airports WHERE name = $value) SELECT * FROM m "
        "UNION ALL SELECT * FROM m"
    )
    assert codes({"templates": [template()], "value_searches": [vs(q, "Airport Name")]}) == []


def test_optional_layers_error_clearly_when_missing(monkeypatch):
    from ctxtool import validate
    from ctxtool.errors import InputError

    monkeypatch.setattr(validate, "OPTIONAL_LAYERS", [("refs", "snapshot", "ctxtool.validate.no_such_layer")])
    cs = contextset.loads(json.dumps(base()), "t.json")
    with pytest.raises(InputError, match="--snapshot needs the ctxtool.validate.no_such_layer layer"):
        validate_set(cs, snapshot={"schemas": []})
    assert validate_set(cs) == []  # without a snapshot the optional layer is not needed


def test_extra_layer_registration_point():
    from ctxtool import validate

    def layer(ctx):
        ctx.report("CTX003", "", "from an extra layer")

    validate.LAYERS.append(("extra", layer))
    try:
        found = validate_text(json.dumps(base()), "t.json")
    finally:
        validate.LAYERS.pop()
    assert [f.message for f in found] == ["from an extra layer"]


def test_rule_catalogue_and_docs_agree():
    docs = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for rule in RULES.values():
        assert f"| {rule.code} | {rule.name} |" in docs, f"docs/rules.md lacks {rule.code}"
        assert rule.summary and rule.fix and rule.severity in ("error", "warning")
    assert render_rules_markdown().startswith("# Validation rules")


def test_schema_copy_in_package_is_the_published_schema():
    published = json.loads((ROOT / "schemas" / "context_set.schema.json").read_text(encoding="utf-8"))
    packaged = json.loads((ROOT / "ctxtool" / "data" / "context_set.schema.json").read_text(encoding="utf-8"))
    assert published == packaged
    assert published["$schema"].endswith("2020-12/schema") and published["$id"]

    def walk(node, where):
        if isinstance(node, dict):
            for name, prop in node.get("properties", {}).items():
                assert prop.get("description"), f"{where}/{name} has no description"
                assert prop.get("title"), f"{where}/{name} has no title"
            for key, value in node.items():
                walk(value, f"{where}/{key}")

    walk(published, "")


def test_samples_validate_against_the_schema_with_jsonschema_alone():
    from jsonschema import Draft202012Validator

    schema = json.loads((ROOT / "schemas" / "context_set.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    for path in VALID:
        assert list(validator.iter_errors(json.loads(path.read_text(encoding="utf-8")))) == []


def test_validate_set_does_not_mutate_the_set():
    data = base()
    cs = contextset.loads(json.dumps(data), "t.json")
    before = copy.deepcopy(cs.data)
    validate_set(cs)
    assert cs.data == before


@pytest.mark.parametrize(
    ("sql_value", "intent_value"),
    [
        ("'Prague'", "Prague"),
        ("21", "'21'"),
        ("6000", "6,000.0"),
        ("500.00", "500"),
        ("10000", "$10,000"),
        ("DATE '1997-01-15'", "15 Jan 1997"),
        ("'1998-03-03'", "March 3rd, 1998"),
        ("TIMESTAMP '2024-03-01 00:00:00'", "1 March 2024"),
        ("'1996-02-29'", "1996/02/29"),
        ("'08:30:00'", "8:30"),
        ("'%Heathrow%'", "heathrow"),
        ("'O''Brien'", "O'Brien"),
    ],
)
def test_same_value_in_different_spellings(sql_value, intent_value):
    from ctxtool.validate.literals import same_value

    assert same_value(sql_value, intent_value)


@pytest.mark.parametrize(
    ("sql_value", "intent_value"),
    [("'Prague'", "Brno"), ("6000", "60000"), ("DATE '1997-01-15'", "16 Jan 1997"), ("'08:30:00'", "8:31")],
)
def test_different_values(sql_value, intent_value):
    from ctxtool.validate.literals import same_value

    assert not same_value(sql_value, intent_value)


def test_labelled_parameterizations_are_consistent():
    """The parameterize corpus's expected outputs (hand-labelled) pass the placeholder and
    consistency layers: those layers accept every spelling the parameterizer is meant to produce."""
    corpus = ROOT / "tests" / "data" / "parameterize_cases.jsonl"
    if not corpus.exists():
        pytest.skip("no parameterize corpus in this checkout")
    checked = 0
    for line in corpus.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        expected = case.get("expected") or {}
        if "problem" in case["item"] or "parameterized" not in expected:
            continue
        data = {case["kind"]: [{**case["item"], **expected}]}
        found = validate_text(json.dumps(data, indent=2), case["id"], dialect=case["dialect"])
        bad = [f"{f.code} {f.message}" for f in found if f.code[3] in "34"]
        assert bad == [], (case["id"], bad)
        checked += 1
    assert checked > 100


def test_money_in_an_intent_is_not_a_placeholder():
    sql = "SELECT loan_id FROM loan AS l JOIN account AS a ON a.account_id = l.account_id WHERE l.amount > 10000 AND a.frequency = {v}"
    t = template(
        nl="Loans over $10,000 on POPLATEK TYDNE accounts",
        sql=sql.format(v="'POPLATEK TYDNE'"),
        psql=sql.format(v="$1"),
        pintent="Loans over $10,000 on $1 accounts",
        manifest="Loans over $10,000 on a given frequency accounts",
    )
    assert codes({"templates": [t]}) == []


def test_unknown_field_suggests_the_near_name():
    data = base()
    data["templates"][0]["nl-query"] = data["templates"][0].pop("nl_query")
    found = validate_text(json.dumps(data), "t.json")
    messages = [f.message for f in found if f.code == "CTX103"]
    assert messages == ["templates/0: unknown field 'nl-query'; did you mean 'nl_query'?"]


def _nodes(value, path=()):
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _nodes(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _nodes(v, (*path, i))


def _mutants(doc):
    """The document with one change at each node: removed, replaced by another type or an empty
    string, and (objects) given an unknown field."""
    import copy

    for path, value in list(_nodes(doc)):
        for change in ("remove", "null", 7, "", [], {}, "extra"):
            out = copy.deepcopy(doc)
            parent = out
            for p in path[:-1]:
                parent = parent[p]
            if not path:
                if change == "extra":
                    out["unknown_field"] = 1
                    yield out
                continue
            last = path[-1]
            if change == "remove":
                del parent[last]
            elif change == "extra":
                if not isinstance(value, dict):
                    continue
                parent[last]["unknown_field"] = 1
            else:
                parent[last] = None if change == "null" else change
            yield out


def test_the_schema_walk_agrees_with_jsonschema():
    """validate's schema layer tells a valid file by a walk of the schema, without jsonschema: on a
    sample set cut small and every one-node change of it, the walk accepts exactly what jsonschema
    accepts (so no invalid file skips jsonschema's findings and every valid one skips jsonschema)."""
    from ctxtool.validate import schema

    data = json.loads((ROOT / "samples" / "postgres" / "financial_runtime.json").read_text())
    doc = {key: data[key][:2] for key in ("templates", "facets", "value_searches")}
    doc["$schema"] = "../../schemas/context_set.schema.json"
    validator = schema._validator()
    checked = 0
    for mutant in [doc, *_mutants(doc)]:
        assert schema.conforms(mutant) == (not any(validator.iter_errors(mutant))), mutant
        checked += 1
    assert checked > 200 and schema.conforms(doc)
