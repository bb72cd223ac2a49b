"""The runtime on the Spanner emulator (GoogleSQL): ``?`` placeholders bound as named parameters."""

from __future__ import annotations

import pytest

from ctxtool.runtime import Runtime

pytestmark = pytest.mark.spanner

SPANNER_SET = "samples/spanner/financial_runtime.json"


@pytest.fixture(scope="module")
def spanner_runtime(spanner_samples_dsn):
    with Runtime(SPANNER_SET, dsn=spanner_samples_dsn, use_llm=False) as rt:
        yield rt


def test_templates_facets_and_linking_on_spanner(spanner_runtime):
    rt = spanner_runtime
    assert rt.dialect == "spanner"
    ans = rt.ask("How many female clients live in the south Moravia region?")
    assert ans.status == "answered", ans.explanation
    assert ans.executed and ans.params == ["south Moravia"] and "gender = 'F'" in ans.sql
    (expected,) = rt.connector.query(
        "SELECT COUNT(*) FROM client AS c JOIN district AS d ON c.district_id = d.district_id "
        "WHERE d.`A3` = 'south Moravia' AND c.gender = 'F'"
    ).rows[0]
    assert ans.rows == [[expected]]
    ans = rt.ask("how many accounts were opened between 1996-02-01 and 1996-05-31")
    assert ans.executed and ans.status == "answered", ans.error
    assert rt.ask("What is the average salary in Praha?").status == "disambiguate"
    assert rt.ask("How many flights depart from London Heathrow?").status == "declined"
