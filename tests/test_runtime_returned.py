"""What a template returns against what the question asks to be returned (runtime/checks/returned.py)."""

from ctxtool.english.reading import asks_count, count_only_to_order
from ctxtool.runtime.templates.compile import facts_of


def output_of(sql: str):
    return facts_of(sql).output


def test_output_of_names_the_aggregates_the_select_list_returns() -> None:
    ranked = output_of("SELECT t.kind FROM t GROUP BY t.kind ORDER BY COUNT(*) DESC LIMIT 1")
    assert ranked.width == 1 and not ranked.aggregates  # counts only to rank
    summed = output_of("SELECT t.kind, SUM(t.amount) AS total FROM t WHERE t.amount > $1 GROUP BY t.kind")
    assert summed.width == 2 and summed.aggregates == {"sum"} and summed.aggregated == {"amount"}
    assert output_of("not sql at all (").width == 0


def test_asks_count() -> None:
    assert asks_count("How many orders are there in the most common status?")
    assert asks_count("Count the number of orders with the most common status.")
    assert asks_count("What is the number of orders?")
    assert not asks_count("Which status has the largest number of orders?")


def test_count_only_to_order() -> None:
    assert count_only_to_order("Show the statuses, ordered by the number of orders with each.")
    assert count_only_to_order("List the kinds in descending order of the count.")
    assert not count_only_to_order("Show each status and the number of orders, ordered by the number.")
    assert not count_only_to_order("How many orders are there for each status?")
