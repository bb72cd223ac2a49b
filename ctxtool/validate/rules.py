"""The rule catalogue: every finding's stable code, default severity, one-line explanation and fix.

Codes never change meaning once released. Ranges: CTX0xx file level, CTX1xx JSON Schema, CTX2xx SQL,
CTX3xx placeholders, CTX4xx consistency of parameterized forms, CTX5xx facets, CTX6xx value searches,
CTX7xx duplicates, CTX8xx schema references (``--snapshot``), CTX9xx live planning (``--dsn``).
Layers in other modules add their rules with :func:`register`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from ctxtool.validate.findings import ERROR, WARNING


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: str
    summary: str  # one line: what the rule checks
    fix: str  # one line: what to do about a finding


RULES: dict[str, Rule] = {}


def register(*rules: Rule) -> None:
    """Add rules to the catalogue (a layer module calls this at import time)."""
    for rule in rules:
        existing = RULES.get(rule.code)
        if existing is not None and existing != rule:
            raise ValueError(f"rule code {rule.code} is already registered as {existing.name}")
        RULES[rule.code] = rule


register(
    Rule(
        "CTX001",
        "json-syntax",
        ERROR,
        "The file is not valid JSON.",
        "Fix the JSON syntax at the reported line and column.",
    ),
    Rule(
        "CTX002",
        "legacy-fragments",
        WARNING,
        'The file uses the legacy "fragments" spelling for facets.',
        'Rename "fragments" to "facets", "fragment" to "sql_snippet" and "parameterized_fragment" '
        'to "parameterized_sql_snippet".',
    ),
    Rule(
        "CTX003",
        "no-templates",
        WARNING,
        "The context set has no template; the service has been seen rejecting such uploads.",
        "Add at least one template (question and SQL) to the set.",
    ),
    Rule(
        "CTX101",
        "schema-type",
        ERROR,
        "A value has the wrong JSON type for its field.",
        "Use the type the schema names (object, array or string).",
    ),
    Rule(
        "CTX102",
        "schema-required",
        ERROR,
        "A required field is missing.",
        "Add the field; run `ctxtool parameterize` to fill in manifest and parameterized forms.",
    ),
    Rule(
        "CTX103",
        "schema-unknown-property",
        ERROR,
        "A field is not part of the context-set format.",
        "Remove the field or fix its spelling (see schemas/context_set.schema.json).",
    ),
    Rule(
        "CTX104", "schema-empty", ERROR, "A text field that must not be empty is empty.", "Fill in the field."
    ),
    Rule(
        "CTX201",
        "sql-syntax",
        ERROR,
        "SQL does not parse in the chosen dialect.",
        "Fix the SQL, or pass the right --dialect (postgres, mysql, spanner).",
    ),
    Rule(
        "CTX202",
        "sql-not-read-only-query",
        ERROR,
        "A template or value search is not a read-only query (SELECT or WITH ... SELECT).",
        "Keep only a SELECT; remove INSERT/UPDATE/DELETE/DDL and other commands.",
    ),
    Rule(
        "CTX203",
        "sql-multiple-statements",
        ERROR,
        "A template or value search holds more than one statement.",
        "Keep exactly one statement; split the others into their own templates.",
    ),
    Rule(
        "CTX204",
        "sql-select-into",
        ERROR,
        "A query uses SELECT ... INTO, which writes.",
        "Remove the INTO clause.",
    ),
    Rule(
        "CTX205",
        "sql-locking-clause",
        ERROR,
        "A query takes row locks (FOR UPDATE, FOR SHARE, LOCK IN SHARE MODE).",
        "Remove the locking clause; context-set queries only read.",
    ),
    Rule(
        "CTX206",
        "facet-not-condition",
        ERROR,
        "A facet is not exactly one boolean condition.",
        'Write the facet as one condition, e.g. district."A11" BETWEEN 6000 AND 10000.',
    ),
    Rule(
        "CTX207",
        "sql-function-not-allowed",
        ERROR,
        "A query or facet calls a function that is not on the engine's allow-list of read-only "
        "functions (lo_*, dblink*, pg_read_file, query_to_xml, advisory locks, LOAD_FILE, SLEEP, "
        "user functions...); the read-only gate refuses to run it.",
        "Use a built-in read-only function; declare a user function that only reads in "
        "CTXTOOL_GATE_FUNCTIONS (see docs/rules.md).",
    ),
    Rule(
        "CTX208",
        "sql-ambiguous-comment",
        ERROR,
        "A query or facet holds text the parser and the server could read differently: a MySQL "
        "executable comment /*! */, an optimizer hint /*+ */, nested or unterminated comments, '#' or "
        "'--x' on MySQL, dollar quoting, a backslash before a quote, a NUL byte.",
        "Remove the comment or hint; write strings in single quotes with doubled quotes.",
    ),
    Rule(
        "CTX209",
        "sql-too-large",
        ERROR,
        "A query or facet is beyond the read-only gate's bounds (100 KB, 8,000 tokens, parentheses 32 deep).",
        "Make the query shorter or flatter (CTEs instead of nested subqueries).",
    ),
    Rule(
        "CTX301",
        "placeholder-style",
        ERROR,
        "A placeholder has the wrong style for the dialect or the item kind.",
        "Use $1..$n on PostgreSQL, ? on MySQL and Spanner, and $value only in value searches.",
    ),
    Rule(
        "CTX302",
        "placeholder-numbering",
        ERROR,
        "Numbered placeholders do not run $1, $2, ... without gaps.",
        "Renumber the placeholders from $1 with no gaps.",
    ),
    Rule(
        "CTX303",
        "placeholder-mismatch",
        ERROR,
        "The parameterized intent and the parameterized SQL use different placeholders.",
        "Use the same placeholders (the same number of ? on MySQL/Spanner) in both forms.",
    ),
    Rule(
        "CTX304",
        "placeholder-in-concrete",
        ERROR,
        "A concrete form (sql, intent, sql_snippet) holds a placeholder.",
        "Write the concrete value in sql/intent; placeholders belong in the parameterized forms.",
    ),
    Rule(
        "CTX401",
        "parameterized-sql-mismatch",
        ERROR,
        "Substituting values into the parameterized SQL does not give back the concrete SQL.",
        "Make the parameterized SQL the concrete SQL with each value replaced by its placeholder.",
    ),
    Rule(
        "CTX402",
        "parameterized-intent-mismatch",
        ERROR,
        "Substituting values into the parameterized intent does not give back the intent.",
        "Make the parameterized intent the intent with each value phrase replaced by its placeholder.",
    ),
    Rule(
        "CTX403",
        "parameter-value-mismatch",
        ERROR,
        "A placeholder stands for different values in the SQL and in the intent.",
        "Replace the same value phrase in the intent and the SQL by the same placeholder.",
    ),
    Rule(
        "CTX404",
        "manifest-leftover-value",
        ERROR,
        "The manifest still contains a value that the parameterized intent replaced.",
        'Replace every occurrence of the value in the manifest by "a given <type>".',
    ),
    Rule(
        "CTX405",
        "manifest-shape",
        WARNING,
        'The manifest is not the parameterized intent with each placeholder written "a given <type>".',
        "Regenerate the manifest from the intent (`ctxtool parameterize`).",
    ),
    Rule(
        "CTX501",
        "facet-bare-column",
        ERROR,
        "A facet names a column without its table.",
        "Write every column as table.column; the facet is injected into queries with their own aliases.",
    ),
    Rule(
        "CTX502",
        "facet-alias",
        ERROR,
        "A facet qualifies a column with what looks like a table alias (T, T1).",
        'Use the table\'s real name instead of the alias, e.g. district."A11".',
    ),
    Rule(
        "CTX601",
        "value-search-no-value",
        ERROR,
        "A value search query does not use $value.",
        "Compare the searched column with $value (the phrase to look up).",
    ),
    Rule(
        "CTX602",
        "value-search-columns",
        ERROR,
        "A value search does not return exactly value, columns, concept_type, distance, context.",
        "Alias the projected expressions to exactly these five names.",
    ),
    Rule(
        "CTX603",
        "value-search-concept-type",
        ERROR,
        "The concept_type literal in the query differs from the item's concept_type.",
        "Use the same concept_type text in the query and in the item.",
    ),
    Rule(
        "CTX604",
        "value-search-columns-literal",
        WARNING,
        "The `columns` literal of a value search does not name table.column.",
        "Return where the value was found as 'table.column'.",
    ),
    Rule(
        "CTX605",
        "value-search-distance-range",
        ERROR,
        "A value search returns a constant distance outside 0..1.",
        "Return 0 for an exact match and a normalized distance (at most 1) otherwise.",
    ),
    Rule(
        "CTX606",
        "value-search-context-json",
        WARNING,
        "The context literal of a value search is not JSON.",
        "Return '{}' (or a JSON object) as context, or an empty string.",
    ),
    Rule(
        "CTX701",
        "duplicate-question",
        ERROR,
        "Two templates have the same nl_query.",
        "Remove one, or merge them; one question must map to one SQL.",
    ),
    Rule(
        "CTX702",
        "duplicate-sql",
        WARNING,
        "Two templates (or facets) have the same SQL after normalisation.",
        "Keep one and move the other question to it, or make the SQL differ.",
    ),
    Rule(
        "CTX703",
        "duplicate-value-search",
        WARNING,
        "Two value searches have the same query.",
        "Remove the duplicate value search.",
    ),
)

# Optional layers whose modules add rules (imported only for `ctxtool rules` and when they run).
OPTIONAL_RULE_MODULES = ("ctxtool.validate.schema_refs", "ctxtool.validate.live_plan")


def all_rules() -> list[Rule]:
    """Every rule, including those of optional layers that are present in this installation."""
    for module in OPTIONAL_RULE_MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
    return [RULES[code] for code in sorted(RULES)]


def rule(code: str) -> Rule:
    return RULES[code]
