"""On `?` dialects (MySQL/MariaDB, Spanner) values bind by position, so the question written for a
workload query must mention its values in the SQL's order; PostgreSQL's `$n` wording is unchanged."""

from __future__ import annotations

import pytest

from ctxtool.connectors import connect
from ctxtool.draft.describe import Describer
from ctxtool.draft.model import Model
from ctxtool.parameterize import parameterize_item
from ctxtool.snapshot import build

FINANCIAL = ["district", "account", "client", "disp", "loan", "card", "trans"]


@pytest.fixture(scope="module")
def mysql_model(mariadb_samples_dsn):
    with connect(mariadb_samples_dsn) as conn:
        snap = build(conn, profile=True)
    return Model(snap, tables=FINANCIAL), snap


def _kept(model: Model, snap: dict, sql: str) -> tuple[str, dict]:
    question = Describer(model)(sql)
    res = parameterize_item({"nl_query": question, "sql": sql}, "templates", "mysql", snap)
    assert not res.problems, (question, res.problems)
    return question, dict(res)


@pytest.mark.mariadb
def test_limit_after_filters_keeps_sql_value_order(mysql_model):
    model, snap = mysql_model
    sql = (
        "SELECT `c`.`client_id`, `c`.`birth_date` FROM `client` AS `c` JOIN `district` AS `d` "
        "ON `c`.`district_id` = `d`.`district_id` WHERE `d`.`A3` = 'south Moravia' "
        "ORDER BY `c`.`birth_date` LIMIT 10"
    )
    question, item = _kept(model, snap, sql)
    assert question.index("'south Moravia'") < question.index("top 10")
    assert item["sql"] == sql
    # the parameterized SQL binds the region first and the row count second, as the question says
    psql = item["parameterized"]["parameterized_sql"]
    assert psql.count("?") == 2 and psql.index("`A3` = ?") < psql.index("LIMIT ?")
    assert item["parameterized"]["parameterized_intent"] == (
        "Client IDs and birth dates of clients for districts with region ?, top ? by earliest birth date"
    )


@pytest.mark.mariadb
def test_aggregate_top_n_and_conditions_across_tables_in_sql_order(mysql_model):
    model, snap = mysql_model
    top = (
        "SELECT `t`.`account_id`, SUM(`t`.`amount`) AS `total` FROM `trans` AS `t` "
        "WHERE `t`.`type` = 'PRIJEM' GROUP BY `t`.`account_id` ORDER BY `total` DESC LIMIT 10"
    )
    question, _ = _kept(model, snap, top)
    assert question.endswith(", top 10 by highest total amount of transactions")
    joined = (
        "SELECT COUNT(*) FROM `trans` AS `t` JOIN `account` AS `a` ON `t`.`account_id` = `a`.`account_id` "
        "WHERE `a`.`frequency` = 'POPLATEK MESICNE' AND `t`.`amount` > 15000"
    )
    question, _ = _kept(model, snap, joined)
    assert question.index("'POPLATEK MESICNE'") < question.index("15000")
    plain = "SELECT `a`.`account_id` FROM `account` AS `a` WHERE `a`.`district_id` = 1 ORDER BY `a`.`account_id` LIMIT 10"
    question, _ = _kept(model, snap, plain)
    assert question.index(" 1") < question.index("10")
    # without a filter the top-N still leads: nothing to reorder
    assert Describer(model)("SELECT `A2` FROM `district` ORDER BY `A11` DESC LIMIT 5").startswith(
        "District name of the 5 districts"
    )
