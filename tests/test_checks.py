"""The check catalogue, case by case: ``tests/data/checks/*.json`` holds, per check, questions against
templates and what the check finds (as sqlfluff's ``std_rule_cases``): ``fails`` (a part of the
reason, and optionally the ``factor``) or nothing (the check passes). Each case runs the matcher on
its own small set (the template, ``others`` beside it, ``facets``; ``links``: values a value search
would have found) and reads the check's finding on the template's candidate; a check of the
``compose`` phase reads the candidate's bound SQL against the question's typed parts on the case's
``schema`` (``tests/data/check_schemas.json``), as the runtime's compose stage does. Every registered
check has a failing and a passing case, and docs/runtime.md describes every one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxtool.compose import SchemaGraph
from ctxtool.english.literals import find_literals
from ctxtool.runtime.checks import CATALOGUE
from ctxtool.runtime.composition import review
from ctxtool.runtime.matching.candidate import Candidate
from ctxtool.runtime.matching.matcher import Matcher
from ctxtool.runtime.plan import plan_from
from ctxtool.runtime.question.linking import LinkedValue
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.question.values import entities_of
from tests.checks_support import compiled

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "data" / "checks"
SCHEMAS = json.loads((ROOT / "tests" / "data" / "check_schemas.json").read_text())


def _cases() -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for path in sorted(CASES.glob("*.json")):
        for check, cases in json.loads(path.read_text()).items():
            for case in cases:
                out.append((check, case["name"], case))
    return out


ALL = _cases()


def _item(spec: dict[str, Any], index: int, kind: str = "template") -> Any:
    p = spec.get("p") or [None, None]
    return compiled(spec["nl"], spec["sql"], p[0], p[1], index=index, kind=kind)


def candidate_of(case: dict[str, Any]) -> tuple[Question, Candidate | None]:
    """The question and the candidate of the case's template (None: it was vetoed or unbound)."""
    tpl = _item(case["template"], 0)
    others = [_item(t, i + 1) for i, t in enumerate(case.get("others", []))]
    facets = [_item(f, i, "facet") for i, f in enumerate(case.get("facets", []))]
    matcher = Matcher([tpl, *others], facets, semantic=None)
    text = case["question"]
    links = []
    for lv in case.get("links", []):
        start = text.index(lv["phrase"])
        links.append(
            LinkedValue(
                lv["phrase"],
                start,
                start + len(lv["phrase"]),
                lv["value"],
                lv["column"],
                lv.get("concept", "Value"),
                lv.get("distance", 0.0),
                0,
            )
        )
    literals = find_literals(text)
    q = Question(
        text,
        values=entities_of(literals, links),
        literals=literals,
        links=links,
        vocabulary=matcher.set_facts,
    )
    q, cands = matcher.rank(q, limit=len(matcher.templates))
    cand = next((c for c in cands if c.template.index == 0), None)
    if cand is not None and "schema" in case:  # the compose stage's reading of the chosen candidate
        graph = SchemaGraph.build(
            (t, [tuple(c) for c in cols], fks) for t, cols, fks in SCHEMAS[case["schema"]]
        )
        base = plan_from(cand, list(q.values), "postgres")
        cand.findings.extend(review(q, cand, base.sql, base.params, "postgres", graph))
    return q, cand


@pytest.mark.parametrize(("check", "name", "case"), ALL, ids=[f"{c}:{n}" for c, n, _ in ALL])
def test_check_case(check: str, name: str, case: dict[str, Any]) -> None:
    assert check in CATALOGUE, f"no check named {check!r} is registered"
    _, cand = candidate_of(case)
    if CATALOGUE[check].factor == 0 and CATALOGUE[check].phase != "compose" and "fails" in case:
        assert cand is None, f"{check} should veto the template"
        return
    assert cand is not None, "the template is no candidate for the question"
    found = cand.finding(check)
    if "fails" not in case:
        assert found is None, f"{check} found: {found}"
        return
    assert found is not None, f"{check} found nothing ({cand.reasons})"
    assert case["fails"] in found.reason, found.reason
    if "factor" in case:
        assert found.factor == pytest.approx(case["factor"], abs=1e-3)


def test_every_check_has_a_failing_and_a_passing_case() -> None:
    kinds: dict[str, set[bool]] = {}
    for check, _, case in ALL:
        kinds.setdefault(check, set()).add("fails" in case)
    missing = {name for name in CATALOGUE if kinds.get(name) != {True, False}}
    assert not missing, f"checks without a failing and a passing case: {sorted(missing)}"


def test_every_check_is_documented() -> None:
    doc = (ROOT / "docs" / "runtime.md").read_text()
    undocumented = [name for name in CATALOGUE if f"`{name}`" not in doc]
    assert not undocumented, f"docs/runtime.md does not describe: {undocumented}"


def test_a_check_is_registered_once() -> None:
    from ctxtool.runtime.checks.registry import check

    with pytest.raises(ValueError, match="registered twice"):
        check("operators", "words", 0.5)(lambda q, c, f: None)
