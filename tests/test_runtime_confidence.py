"""When the runtime answers: the evidence must reach the threshold and lead the other readings.

Candidates are built as the matcher builds them (our own templates, compiled); the figures behind
the constants come from the Spider train kit (docs/runtime.md).
"""

from __future__ import annotations

from ctxtool.runtime.decide.confidence import CLEAR_LEAD, LEAD_CREDIT, MIN_LEAD, confident, lead
from ctxtool.runtime.matching.candidate import Candidate, Finding
from ctxtool.runtime.templates.compile import compile_item

SQL = ["SELECT count(*) FROM store", "SELECT count(DISTINCT city) FROM store", "SELECT name FROM store"]
TEMPLATES = [
    compile_item("template", i, {"nl_query": f"q{i}", "sql": s}, "postgres") for i, s in enumerate(SQL)
]


def cand(
    i: int,
    score: float,
    checks: float = 1.0,
    facets: list | None = None,
    lexical: float = 0.8,
    sim: float = 0.8,
) -> Candidate:
    return Candidate(
        TEMPLATES[i],
        0,
        score,
        {},
        facets=facets or [],
        findings=[] if checks >= 1.0 else [Finding("a check found something", checks, "some_check")],
        evidence=score,
        lexical=lexical,
        similarity=sim,
    )


def test_the_lead_is_over_the_best_other_reading_alone():
    best = cand(0, 0.8)
    assert lead(best, [best, cand(1, 0.7), cand(2, 0.4)]) == pytest_approx(0.1)
    # a template with facets may compose the very condition the best one states: not a rival
    assert lead(best, [best, cand(1, 0.79, facets=["f"]), cand(2, 0.4)]) == pytest_approx(0.4)
    assert lead(best, [best]) == pytest_approx(0.8)


def test_near_duplicates_are_not_answered_however_high_the_evidence():
    best = cand(0, 0.95)
    assert not confident(best, [best, cand(1, 0.95 - MIN_LEAD + 0.01)], 0.7, calibrated=False)
    assert confident(best, [best, cand(1, 0.95 - MIN_LEAD - 0.01)], 0.7, calibrated=False)


def test_a_question_in_the_templates_own_words_is_answered_beside_its_reverse():
    best = cand(0, 1.0, lexical=1.0, sim=0.99)
    assert confident(best, [best, cand(1, 0.95)], 0.7, calibrated=False)
    assert not confident(
        cand(0, 1.0, lexical=1.0, sim=0.9), [cand(0, 1.0), cand(1, 0.95)], 0.7, calibrated=False
    )


def test_a_clean_candidate_far_ahead_needs_less_evidence():
    low = 0.7 - LEAD_CREDIT + 0.01
    clean = cand(0, low)
    assert confident(clean, [clean, cand(1, low - CLEAR_LEAD - 0.01)], 0.7, calibrated=False)
    # not when a check spoke against it, nor when it is only MIN_LEAD ahead
    doubtful = cand(0, low, checks=0.75)
    assert not confident(doubtful, [doubtful, cand(1, 0.05)], 0.7, calibrated=False)
    assert not confident(clean, [clean, cand(1, low - MIN_LEAD - 0.01)], 0.7, calibrated=False)


def test_a_near_duplicate_that_says_more_than_the_question_is_no_rival():
    from ctxtool.runtime.decide.confidence import DOMINATED_LEAD

    # "ids and hours played for each game": the game template against the student one, whose
    # wording says "student" and explains no word of the question the game one leaves
    best = cand(0, 0.82)
    best.unexplained, best.missing = ["__each"], []
    rival = cand(1, 0.82 - DOMINATED_LEAD - 0.01)
    rival.unexplained, rival.missing = ["__each", "game"], ["student"]
    assert confident(best, [best, rival], 0.7, calibrated=False)
    # not when the rival explains a question word the best one leaves, nor closer than DOMINATED_LEAD
    rival.unexplained = []
    assert not confident(best, [best, rival], 0.7, calibrated=False)
    rival.unexplained, rival.score = ["__each", "game"], 0.82 - DOMINATED_LEAD + 0.01
    assert not confident(best, [best, rival], 0.7, calibrated=False)


def test_a_calibrated_probability_is_compared_as_it_is():
    best = cand(0, 0.91)
    assert confident(best, [best, cand(1, 0.9)], 0.9, calibrated=True)
    assert not confident(cand(0, 0.89), [cand(0, 0.89)], 0.9, calibrated=True)


def pytest_approx(x: float):
    import pytest

    return pytest.approx(x, abs=1e-9)
