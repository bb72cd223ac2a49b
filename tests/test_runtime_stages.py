"""The runtime's stages on their own: deciding (answer, ask back, suggest, decline), reusing the
previous template with new values, executing (rows, a failing statement, no database) and the model
stage's checks. ``Runtime.ask`` only orchestrates them (tests/test_runtime.py)."""

from __future__ import annotations

import pytest

from ctxtool.errors import InputError
from ctxtool.runtime.answer import Answer, TemplateUse
from ctxtool.runtime.decide.confidence import confident
from ctxtool.runtime.decide.decide import Decision, ask_back, rival_readings
from ctxtool.runtime.decide.previous import previous_candidate
from ctxtool.runtime.execute import rows_text, run
from ctxtool.runtime.matching.candidate import Candidate
from ctxtool.runtime.question.values import Entity
from tests.rt_support import offline_runtime

SET = {
    "templates": [
        {
            "nl_query": "How many tickets were raised in Lisbon?",
            "sql": "SELECT COUNT(*) FROM ticket WHERE city = 'Lisbon'",
        },
        {"nl_query": "How many agents are there?", "sql": "SELECT COUNT(*) FROM agent"},
        {"nl_query": "How many agents are on duty?", "sql": "SELECT COUNT(*) FROM agent WHERE on_duty"},
        {"nl_query": "How many agents are there?", "sql": "SELECT COUNT(DISTINCT name) FROM agent"},
    ]
}


@pytest.fixture(scope="module")
def rt():
    return offline_runtime(SET)


def _cand(rt, index: int, score: float, bindings=None) -> Candidate:
    return Candidate(template=rt.templates[index], phrasing=0, score=score, bindings=bindings or {})


def _answer() -> Answer:
    return Answer(question="q", action="showsql", status="declined")


def test_a_confident_candidate_without_rivals_is_planned(rt):
    best = _cand(rt, 1, 0.9)
    assert rival_readings([best, _cand(rt, 2, 0.5)], []) == []
    assert rt.plan_from(best, []).sql == "SELECT COUNT(*) FROM agent"


def test_two_templates_as_close_ask_back_and_below_the_threshold_nothing_is_chosen(rt):
    cands = [_cand(rt, 1, 0.9), _cand(rt, 2, 0.89)]
    assert len(set(rival_readings(cands, []))) == 2
    low = _cand(rt, 1, 0.55)
    assert not confident(low, [low], 0.7, calibrated=False)  # below the threshold nothing is chosen


def test_a_question_in_a_templates_own_words_is_not_tied_with_one_the_encoder_reads_apart(rt):
    # every word of a short question may be said by another template as well ("How many agents
    # gori were reviewed in 42?"): the encoder, which rates the question the very sentence of one
    # wording and another sentence altogether of the other, tells them apart
    def scored(index: int, sim: float) -> Candidate:
        c = _cand(rt, index, 1.0)
        c.lexical, c.similarity = 1.0, sim
        return c

    assert rival_readings([scored(1, 0.99), scored(2, 0.62)], []) == []
    # as close to the encoder too: still a rival reading, asked back
    assert rival_readings([scored(1, 0.99), scored(2, 0.95)], [])
    # and not when the question is not in the template's words (the encoder alone decides nothing)
    assert rival_readings([scored(1, 0.9), scored(2, 0.6)], [])


def test_two_templates_that_read_the_same_are_offered_once(rt):
    cands = [_cand(rt, 1, 0.9), _cand(rt, 3, 0.9), _cand(rt, 2, 0.89)]
    assert rival_readings(cands, []) == [
        "Did you mean: How many agents are there?",
        "Did you mean: How many agents are on duty?",
    ]
    back = _answer()
    ask_back(back, Decision("none"), [_cand(rt, 1, 0.5), _cand(rt, 3, 0.5)], [], 0.7, 0.35)
    assert back.disambiguation == ["Did you mean: How many agents are there?"]


def test_without_a_plan_suggestions_above_the_floor_else_a_decline(rt):
    ans = _answer()
    ask_back(ans, Decision("none"), [_cand(rt, 1, 0.5), _cand(rt, 2, 0.2)], [], 0.7, 0.35)
    assert ans.status == "disambiguate" and ans.disambiguation == ["Did you mean: How many agents are there?"]
    assert "scored 0.50 (threshold 0.70)" in ans.explanation
    none = _answer()
    ask_back(none, Decision("none"), [_cand(rt, 1, 0.2)], [], 0.7, 0.35)
    assert none.status == "declined" and "no template" in none.text


def test_the_previous_template_takes_the_new_values_only_when_every_value_fits(rt):
    previous = Answer(question="How many tickets were raised in Lisbon?", action="runsql", status="answered")
    previous.source, previous.confidence = "template", 0.95
    previous.template = TemplateUse(0, "", "", 0.95, "")
    porto = Entity("quoted", "Porto", 0, 5, "Porto")
    cand = previous_candidate(rt.templates, [porto], previous, 0.7)
    assert cand is not None and cand.template.index == 0 and cand.score == 0.75
    assert rt.plan_from(cand, [porto]).params == ["Porto"]
    assert previous_candidate(rt.templates, [], previous, 0.7) is None  # no values: nothing to reuse
    two = [porto, Entity("quoted", "Braga", 10, 15, "Braga")]
    assert previous_candidate(rt.templates, two, previous, 0.7) is None  # a value left over
    previous.source = "llm"
    assert previous_candidate(rt.templates, [porto], previous, 0.7) is None


@pytest.mark.postgres
def test_execute_puts_rows_in_the_answer_and_a_failure_in_its_error(financial_dsn):
    from ctxtool.connectors import connect

    with connect(financial_dsn, row_cap=5) as conn:
        ans = Answer(
            question="q", action="runsql", status="answered", sql="SELECT 1 AS one WHERE $1", params=[True]
        )
        run(conn, ans, 5)
        assert ans.executed and ans.rows == [[1]] and ans.columns == ["one"] and "execute" in ans.timings_ms
        assert rows_text("q", ans) == "1 row(s)"
        capped = Answer(question="q", action="runsql", status="answered", sql="SELECT generate_series(1, 9)")
        run(conn, capped, 5)
        assert (
            len(capped.rows) == 5
            and capped.truncated
            and rows_text("q", capped).endswith("(row cap reached)")
        )
        bad = Answer(question="q", action="runsql", status="answered", sql="SELECT no_such_column FROM loan")
        run(conn, bad, 5)
        assert bad.status == "error" and not bad.executed and bad.text.startswith("The query failed")
    with pytest.raises(InputError, match="no database"):
        run(None, _answer(), 5)
    assert rows_text("q", _answer()) == "No data found for: q"
