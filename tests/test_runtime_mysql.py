"""The runtime on MariaDB/MySQL: ``?`` placeholders, backquoted identifiers, SOUNDEX value searches."""

from __future__ import annotations

import pytest
import sqlglot

from ctxtool.runtime import Runtime
from ctxtool.runtime.evaluate import load_golden, run_eval
from tests.rt_support import GOLDEN

pytestmark = pytest.mark.mariadb

MYSQL_SET = "samples/mysql/financial_runtime.json"


@pytest.fixture(scope="module")
def mysql_runtime(mariadb_samples_dsn):
    with Runtime(MYSQL_SET, dsn=mariadb_samples_dsn, use_llm=False) as rt:
        yield rt


def test_linked_value_and_facet_bound_in_question_mark_order(mysql_runtime):
    rt = mysql_runtime
    assert rt.dialect == "mysql"
    ans = rt.ask("How many female clients live in the south Moravia region?")
    assert ans.status == "answered" and ans.executed
    assert ans.params == ["south Moravia"] and "gender = 'F'" in ans.sql and "?" in ans.sql
    (expected,) = rt.connector.query(
        "SELECT COUNT(*) FROM client c JOIN district d ON c.district_id = d.district_id "
        "WHERE d.`A3` = 'south Moravia' AND c.gender = 'F'"
    ).rows[0]
    assert ans.rows == [[expected]]
    ans = rt.ask("How many loans with an amount above 100000 were granted in 1996?", action="showsql")
    assert ans.sql.count("?") == 2 and ans.params == [1996, 100000]


def test_soundex_links_a_misspelling_and_partial_names_ask_back(mysql_runtime):
    ans = mysql_runtime.ask("How many clients live in Jesenyk?")
    assert ans.status == "answered" and ans.params == ["Jesenik"]
    # SOUNDEX finds it; the runtime measures it: one letter of seven wrong
    assert ans.linked_values[0]["distance"] == pytest.approx(1 / 7, abs=1e-3)
    ans = mysql_runtime.ask("What is the average salary in Praha?")
    assert ans.status == "disambiguate" and len(ans.disambiguation) == 3


def test_golden_questions_on_mariadb(mysql_runtime):
    golden = [q for q in load_golden(GOLDEN) if "uncovered" not in q.tags]
    for q in golden:
        q.golden_sql = sqlglot.transpile(q.golden_sql, read="postgres", write="mysql")[0]
    report = run_eval(mysql_runtime, golden)
    s = report.summary()["overall"]
    assert s["wrong"] == 0, report.text()
    assert s["execution_accuracy"] >= 0.9, report.text()


def test_a_set_for_another_placeholder_style_is_refused(mariadb_samples_dsn):
    from ctxtool.errors import InputError

    with pytest.raises(InputError, match="written for postgres placeholders but the database speaks mysql"):
        Runtime("samples/postgres/financial_runtime.json", dsn=mariadb_samples_dsn, use_llm=False)


@pytest.mark.postgres
def test_the_same_answers_on_mariadb_as_on_postgres(_pg15_admin, _mariadb_available):
    """Every golden question of the runtime set and each template question of the smaller sample
    sets gets the same answer (status, rows, choices) from MariaDB as from PostgreSQL on the same
    sample data (bench/same_answers.py prints the figure)."""
    import importlib.util
    import sys
    from pathlib import Path

    from tests.backends import MARIADB_HOST, SAMPLE_SCALE

    path = Path(__file__).resolve().parents[1] / "bench" / "same_answers.py"
    spec = importlib.util.spec_from_file_location("same_answers", path)
    same = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("same_answers", same)  # its dataclasses look their module up
    spec.loader.exec_module(same)  # type: ignore[union-attr]
    with same.databases(_pg15_admin, MARIADB_HOST, SAMPLE_SCALE) as (pg_dsn, my_dsn):
        rows = same.compare(pg_dsn, my_dsn)
    assert len(rows) == 87 and sum(r.postgres == "answered" for r in rows) >= 60
    assert [r for r in rows if not r.same] == [], same.summary(rows)
