"""Near-duplicate templates the question decides between: the other one is no rival reading."""

from __future__ import annotations

from ctxtool.runtime.decide.confidence import confident, lead
from ctxtool.runtime.decide.ranking import decided_against, separate
from ctxtool.runtime.matching.candidate import Candidate
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.templates.compile import compile_item


def _cand(i: int, sql: str, score: float = 0.9) -> Candidate:
    tpl = compile_item("template", i, {"nl_query": f"q{i}", "sql": sql}, "postgres")
    return Candidate(tpl, 0, score, {}, evidence=score, lexical=0.9, similarity=0.85)


def _decided(question: str, a: str, b: str) -> str | None:
    return decided_against(Question(question), _cand(0, a), _cand(1, b))


def test_distinct_order_comparison_and_set_operations_the_question_states():
    assert _decided(
        "What are the unique names of widgets?", "SELECT DISTINCT name FROM widget", "SELECT name FROM widget"
    )
    assert not _decided(
        "What are the names of widgets?", "SELECT DISTINCT name FROM widget", "SELECT name FROM widget"
    )
    desc, asc = "SELECT name FROM widget ORDER BY price DESC", "SELECT name FROM widget ORDER BY price"
    assert _decided("List the widgets in descending order of price.", desc, asc)
    assert not _decided("List the widgets in descending order of price.", asc, desc)
    lt = "SELECT count(*) FROM widget WHERE price < (SELECT avg(price) FROM widget)"
    gt = "SELECT count(*) FROM widget WHERE price > (SELECT avg(price) FROM widget)"
    assert _decided("How many widgets are cheaper than average?", lt, gt)
    assert not _decided("How many widgets are cheaper than average?", gt, lt)
    union = "SELECT id FROM shop WHERE city = 'A' UNION SELECT id FROM shop WHERE city = 'B'"
    both = "SELECT id FROM shop WHERE city = 'A' INTERSECT SELECT id FROM shop WHERE city = 'B'"
    assert _decided("Which shops are in A or in B?", union, both)
    assert _decided("Which shops are in both A and B?", both, union)
    assert not _decided("Which shops are in both A and B?", union, both)


def test_the_column_the_question_names_as_its_answer():
    shipped = "SELECT date_shipped FROM parcel WHERE status = 'Sent'"
    delivered = "SELECT date_of_delivery FROM parcel WHERE status = 'Sent'"
    assert _decided("On which dates were the sent parcels shipped?", shipped, delivered)
    assert not _decided("On which dates were the sent parcels delivered?", shipped, delivered)
    # the column a value is compared with is the condition, not what the question wants back
    listing = "SELECT name, color_label, details FROM gadget AS g JOIN colors AS c ON g.cid = c.cid WHERE g.kind = $1"
    names = "SELECT name FROM gadget AS g JOIN colors AS c ON g.cid = c.cid WHERE c.color_label = $1"
    assert not _decided("What are the names of gadgets with 'white' as their color label?", listing, names)
    # a name or an id is what every thing has: it does not say which thing's column is asked
    assert not _decided(
        "What is the name of the widget?", "SELECT name FROM widget", "SELECT price FROM widget"
    )


def test_a_rival_the_question_decides_against_does_not_hold_back_the_best():
    best = _cand(0, "SELECT DISTINCT name FROM widget", 0.9)
    near = _cand(1, "SELECT name FROM widget", 0.88)
    question = "What are the different names of the widgets?"
    cands = [best, near]
    assert not confident(best, cands, 0.7, calibrated=False)
    separate(Question(question), cands)
    assert best.apart == {1}
    assert lead(best, cands) == 0.9
    assert confident(best, cands, 0.7, calibrated=False)


def test_a_tie_with_a_rival_the_question_decides_against_is_not_asked_back():
    from ctxtool.runtime.decide.decide import rival_readings

    question = "List the widgets in descending order of price."
    best = _cand(0, "SELECT name FROM widget ORDER BY price DESC", 1.0)
    tie = _cand(1, "SELECT name FROM widget ORDER BY price", 1.0)
    assert rival_readings([best, tie], [])
    separate(Question(question), [best, tie])
    assert rival_readings([best, tie], []) == []


def test_what_a_count_or_a_sum_adds_up_is_what_the_question_counts():
    bunks = "SELECT sum(bunks) FROM cabins WHERE bunk_type = $1"
    cabins = "SELECT count(*) FROM cabins WHERE bunk_type = $1"
    assert _decided("Find the total number of double bunks.", bunks, cabins)
    assert _decided("How many cabins have a double bunk?", cabins, bunks)
    assert not _decided("How many cabins have a double bunk?", bunks, cabins)


def test_a_sum_or_an_average_the_question_names():
    total = "SELECT shop, SUM(price) FROM sale GROUP BY shop ORDER BY SUM(price) DESC LIMIT $1"
    mean = "SELECT shop, AVG(price) FROM sale GROUP BY shop ORDER BY AVG(price) DESC LIMIT $1"
    assert _decided("List the top 3 shops by total sale price.", total, mean)
    assert _decided("List the top 3 shops by average sale price.", mean, total)
    assert not _decided("List the top 3 shops by average sale price.", total, mean)


def test_a_tie_the_question_decides_for_the_runner_up_puts_it_first():
    question = "How many cabins have a double bunk?"
    beds = _cand(0, "SELECT sum(bunks) FROM cabins WHERE bunk_type = $1", 1.0)
    rooms = _cand(1, "SELECT count(*) FROM cabins WHERE bunk_type = $1", 1.0)
    cands = [beds, rooms]
    separate(Question(question), cands)
    assert cands[0] is rooms and rooms.apart == {0}
    # not out of a lead: a runner-up further behind stays behind
    beds, rooms = _cand(0, beds.template.sql, 0.9), _cand(1, rooms.template.sql, 0.8)
    cands = [beds, rooms]
    separate(Question(question), cands)
    assert cands[0] is beds


def test_what_the_question_cannot_decide_keeps_the_rival():
    # a count of a table's rows counts distinct things as well
    assert not _decided(
        "How many unique kinds are there?",
        "SELECT count(DISTINCT kind) FROM gadget",
        "SELECT count(*) FROM kind",
    )
    # a direction said of one key of several ("in order of the last name") is no order of both
    both = "SELECT first_name, last_name FROM crew ORDER BY first_name, last_name"
    desc = "SELECT first_name, last_name FROM crew ORDER BY first_name DESC, last_name DESC"
    assert not _decided("List the crew in alphabetical order of last name.", both, desc)
    # the biggest amount: the listing of the one with the most and the maximum are both read
    listing = "SELECT loan_id, amount FROM loan ORDER BY amount DESC LIMIT 1"
    assert not _decided("What is the biggest loan amount?", listing, "SELECT max(amount) FROM loan")
    # the column the rival sorts by is named as its order, not as what comes back
    tallest = "SELECT name, height FROM peak ORDER BY height DESC LIMIT 1"
    name = "SELECT name FROM peak ORDER BY height DESC LIMIT 1"
    assert not _decided("Give the name of the peak with the greatest height.", tallest, name)


def test_telling_rivals_apart_never_earns_the_credit_of_a_clear_lead():
    from ctxtool.runtime.decide.confidence import CLEAR_LEAD, LEAD_CREDIT

    low = 0.7 - LEAD_CREDIT + 0.01
    best = _cand(0, "SELECT DISTINCT name FROM widget", low)
    near = _cand(1, "SELECT name FROM widget", low - CLEAR_LEAD + 0.1)
    question = "What are the unique names of the widgets?"
    separate(Question(question), [best, near])
    assert best.apart == {1}
    assert not confident(best, [best, near], 0.7, calibrated=False)


def test_no_promotion_of_a_runner_up_the_encoder_reads_far_from_the_question():
    question = "How many cabins have a double bunk?"
    beds = _cand(0, "SELECT sum(bunks) FROM cabins WHERE bunk_type = $1", 1.0)
    rooms = _cand(1, "SELECT count(*) FROM cabins WHERE bunk_type = $1", 1.0)
    beds.similarity, rooms.similarity = 0.98, 0.6
    cands = [beds, rooms]
    separate(Question(question), cands)
    assert cands[0] is beds
