"""The runtime's pipeline: the stages a question goes through, in order, as one tuple.

Every stage has one signature, ``stage(asking) -> None``: it reads what the stages before it put in
:class:`Asking` (the question, the candidates, the decision, the plan) and adds its own; a stage
that settles the answer early (the ``chat`` action, ``showprompt``, a question asked back or
declined) marks it ``done``. :data:`STAGES` is the order, as sqlglot's optimizer declares its
``RULES``; :func:`run` runs them. The ``compose`` stage reads the chosen candidate against the
question's typed parts (:mod:`ctxtool.runtime.composition`).

    read -> chat -> link -> match -> rank -> decide -> plan -> compose -> prompt -> ask_model
         -> ask_back -> answer -> execute -> present
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ctxtool.english.literals import find_literals
from ctxtool.errors import InputError
from ctxtool.runtime import composition
from ctxtool.runtime.answer import Answer
from ctxtool.runtime.decide import ranking
from ctxtool.runtime.decide.decide import Decision, ask_back, decide
from ctxtool.runtime.execute import rows_text
from ctxtool.runtime.execute import run as run_sql
from ctxtool.runtime.llm import model as modelsql
from ctxtool.runtime.matching.candidate import Candidate, Finding
from ctxtool.runtime.matching.matcher import Matcher
from ctxtool.runtime.plan import Plan, plan_from
from ctxtool.runtime.present import explain_sql, narrate_answer
from ctxtool.runtime.question.linking import ValueLinker
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.question.spelling import Speller
from ctxtool.runtime.question.values import entities_of
from ctxtool.runtime.templates.compiled import Compiled
from ctxtool.runtime.templates.params import InjectError

__all__ = ["STAGES", "UNDERSTANDING", "AskContext", "Asking", "Resources", "Stage", "run", "understand"]


@dataclass
class AskContext:
    """What a conversation knows before this question: earlier turns (``{"role", "content"}``, oldest
    first; sent to the model) and the previous answer (a follow-up such as "and in Pisek?" reuses its
    template with the new values)."""

    history: list[dict[str, Any]] = field(default_factory=list)
    previous: Answer | None = None


class Resources(Protocol):
    """What the stages use of the runtime that runs them (:class:`ctxtool.runtime.Runtime`)."""

    dialect: str
    templates: list[Compiled]
    speller: Speller
    linker: ValueLinker
    matcher: Matcher
    matcher_warning: str | None
    threshold: float
    suggest_threshold: float
    calibrated: bool
    connector: Any
    row_cap: int

    @property
    def llm(self) -> Any: ...

    def secret_in(self, sql: str) -> str | None: ...

    def graph(self) -> Any: ...

    def allowed_objects(self) -> set[str] | None: ...


@dataclass
class Asking:
    """One question being answered: what each stage reads and writes."""

    runtime: Resources
    text: str  # as asked
    action: str
    answer: Answer
    context: AskContext | None = None
    execute: bool | None = None  # run the SQL (default: for runsql and narrate)
    question: Question | None = None
    candidates: list[Candidate] = field(default_factory=list)
    decision: Decision | None = None
    plan: Plan | None = None
    done: bool = False
    started: float = field(default_factory=time.perf_counter)
    understood: float = 0.0

    @property
    def history(self) -> list[dict[str, Any]]:
        return self.context.history if self.context else []

    @property
    def links(self) -> list[dict[str, Any]]:
        return [lv.to_dict() for lv in self.question.links] if self.question else []


Stage = Callable[[Asking], None]


def read(a: Asking) -> None:
    """The question's slips of the keyboard read as the set's words."""
    text, slips = a.runtime.speller.correct(a.text)
    if slips:
        a.answer.warnings.append("read " + ", ".join(f"'{w}' as '{r}'" for w, r in slips.items()))
    a.question = Question(text, written=a.text, slips=slips, vocabulary=a.runtime.matcher.set_facts)


def chat(a: Asking) -> None:
    """The ``chat`` action: the model answers in words, with the conversation's history."""
    if a.action == "chat":
        modelsql.chat(a.runtime.llm, a.question.text, a.history, a.answer)  # type: ignore[union-attr]
        a.done = True


def link(a: Asking) -> None:
    """The literals the question writes (numbers, dates, quoted strings) and the stored values its
    phrases name (the set's value searches, against the database)."""
    rt, q = a.runtime, a.question
    assert q is not None
    literals = find_literals(q.text)
    links = rt.linker.link(q.text, literals)
    a.question = Question(
        q.text,
        written=q.written,
        slips=q.slips,
        values=entities_of(literals, links),
        literals=literals,
        links=links,
        vocabulary=q.vocabulary,
    )
    ans = a.answer
    ans.linked_values = a.links
    if rt.connector is None and rt.linker.value_searches:
        ans.warnings.append("values were not linked: there is no database (give --dsn)")
    ans.warnings.extend(rt.linker.warnings)
    rt.linker.warnings.clear()
    if rt.matcher_warning:
        ans.warnings.append(rt.matcher_warning)


def match(a: Asking) -> None:
    """The candidates: templates with values in their slots and facets on top, checked."""
    a.question, a.candidates = a.runtime.matcher.rank(a.question)  # type: ignore[arg-type]


def rank(a: Asking) -> None:
    """The candidates' standing among each other."""
    rt = a.runtime
    a.candidates = ranking.rank(a.question, a.candidates, rt.calibrated, rt.matcher.semantic is not None)  # type: ignore[arg-type]
    a.understood = time.perf_counter()
    a.answer.timings_ms["understand"] = round((a.understood - a.started) * 1000, 3)


def decide_stage(a: Asking) -> None:
    """Answer, reuse the previous answer's template, ask back, or nothing confident."""
    rt = a.runtime
    previous = a.context.previous if a.context else None
    a.decision = decide(a.question, a.candidates, rt.templates, rt.threshold, rt.calibrated, previous)  # type: ignore[arg-type]


def plan(a: Asking) -> None:
    """The SQL and parameters of the decided candidate: its slots bound, its facets injected."""
    d = a.decision
    if d is None or d.kind != "answer" or d.candidate is None:
        return
    try:
        a.plan = plan_from(
            d.candidate, list(a.question.values), a.runtime.dialect, a.question.written_words, d.source
        )  # type: ignore[union-attr]
    except (InjectError, InputError) as exc:
        a.answer.warnings.append(f"template #{d.candidate.template.index} could not take its facets: {exc}")
        a.decision = Decision("none")


def compose_stage(a: Asking) -> None:
    """The question's typed parts (times, numbers, values, groupings, orders) against the chosen
    template: its answer with the edits that use them (conditions, a time re-bound or added, a
    grouping, a limit), or no answer when a part that carries meaning would be left unused (the
    ``compose`` phase of the check catalogue); a question no template answered confidently, by its
    best candidate plus edits that use every part of it."""
    d = a.decision
    q = a.question
    if d is None or q is None or d.kind == "ask back" or d.source != "template":
        return
    if d.kind == "answer" and a.plan is not None and d.candidate is not None:
        cand, base = d.candidate, a.plan
    elif d.kind == "none" and a.candidates and composition.close_enough(a.candidates[0]):
        cand = a.candidates[0]
        try:
            base = plan_from(cand, list(q.values), a.runtime.dialect, q.written_words)
        except (InjectError, InputError):
            return
    else:
        return
    if not composition.worth_reading(q, cand):
        return
    rt = a.runtime
    graph = rt.graph()
    findings = composition.review(q, cand, base.sql, base.params, rt.dialect, graph)
    reading = cand.composition
    if reading is None:
        return
    if d.kind == "answer":
        cand.findings.extend(findings)
        if any(f.factor == 0 for f in findings):
            a.plan, a.decision = None, Decision("none", reason=findings[0].reason)
            return
        edits = reading.needed()
        if not edits:
            return
    elif findings:  # the closest template, and what it cannot use: said in the decline
        cand.findings.extend(findings)
        a.decision = Decision("none", reason=findings[0].reason)
        return
    elif not reading.composes or not reading.needed() or not reading.uses_everything(q.text):
        return  # (a declined candidate is composed for a time, a number or a value, not an order alone)
    else:
        edits = reading.edits.edits
    composed = composition.composed_plan(reading, base, rt.dialect, graph, rt.allowed_objects(), edits)
    if isinstance(composed, str):  # the edits cannot be made: the parts they were for go unused
        if d.kind == "answer" and reading.failed(composed):
            cand.findings.append(Finding(composed, 0.0, "unused_part", "compose"))
            a.plan, a.decision = None, Decision("none", reason=composed)
        return
    a.plan, a.decision = composed, Decision("answer", cand, "composed")


def prompt(a: Asking) -> None:
    """``showprompt``: the messages the model would get (and the plan, when there is one)."""
    if a.action != "showprompt":
        return
    ans = a.answer
    ans.prompt = modelsql.messages(a.runtime, a.question.text, a.candidates, a.links, a.history)  # type: ignore[union-attr]
    ans.status = "answered"
    ans.text = "the prompt that would be sent to the language model"
    if a.plan is not None:
        _apply(ans, a.plan)
    a.done = True


def ask_model(a: Asking) -> None:
    """No plan and no rival readings to ask about: the model, when one is configured, writes SQL."""
    rt = a.runtime
    if a.plan is not None or (a.decision is not None and a.decision.kind == "ask back") or rt.llm is None:
        return
    a.plan = modelsql.plan(rt, a.question.text, a.candidates, a.links, a.history, a.answer)  # type: ignore[union-attr]


def withhold_secrets(a: Asking) -> None:
    """A plan that reads a secret column (a password, a token, a hash...) is not served, whoever
    wrote it: a template, composition or the model."""
    if a.plan is None:
        return
    why = a.runtime.secret_in(a.plan.sql)
    if why:
        a.answer.warnings.append(f"not answered: {why}")
        a.plan = None
        a.decision = Decision("none")


def ask_back_stage(a: Asking) -> None:
    """No plan: ask back between rival readings, suggest the closest templates, or decline."""
    if a.plan is not None:
        return
    rt = a.runtime
    decision = a.decision or Decision("none")
    ask_back(a.answer, decision, a.candidates, list(a.question.values), rt.threshold, rt.suggest_threshold)  # type: ignore[union-attr]
    a.answer.timings_ms["total"] = round((time.perf_counter() - a.started) * 1000, 3)
    a.done = True


def answer(a: Asking) -> None:
    """The plan becomes the answer: its SQL, parameters, template, facets and explanation."""
    _apply(a.answer, a.plan)  # type: ignore[arg-type]
    a.answer.timings_ms["plan"] = round((time.perf_counter() - (a.understood or a.started)) * 1000, 3)


def execute(a: Asking) -> None:
    """The SQL run read-only (``runsql``, ``narrate``, or when asked to)."""
    run = a.execute if a.execute is not None else a.action in ("runsql", "narrate")
    if run:
        run_sql(a.runtime.connector, a.answer, a.runtime.row_cap)


def present(a: Asking) -> None:
    """The answer's text: the SQL explained, the SQL, the rows narrated or counted."""
    ans, rt = a.answer, a.runtime
    if a.action == "explainsql":
        ans.text = explain_sql(rt.llm, ans, a.plan, rt.dialect)  # type: ignore[arg-type]
    elif a.action == "showsql":
        ans.text = ans.sql or ""
    if ans.executed and ans.status == "answered":
        if a.action == "narrate":
            ans.text = narrate_answer(rt.llm, ans, a.plan)  # type: ignore[arg-type]
        elif a.action == "runsql":
            ans.text = rows_text(a.question.text, ans)  # type: ignore[union-attr]
    ans.timings_ms["total"] = round((time.perf_counter() - a.started) * 1000, 3)


def _apply(ans: Answer, p: Plan) -> None:
    ans.status = "answered"
    ans.sql = p.sql
    ans.params = p.params
    ans.source = p.source
    ans.confidence = p.confidence
    ans.explanation = p.explanation
    ans.template = p.template
    ans.facets = p.facets
    ans.bindings = p.bindings


UNDERSTANDING: tuple[Stage, ...] = (read, link, match, rank)
STAGES: tuple[Stage, ...] = (
    read,
    chat,
    link,
    match,
    rank,
    decide_stage,
    plan,
    compose_stage,
    prompt,
    ask_model,
    withhold_secrets,
    ask_back_stage,
    answer,
    execute,
    present,
)


def run(asking: Asking, stages: tuple[Stage, ...] = STAGES) -> Asking:
    """Run ``stages`` in order until one marks the question done."""
    for stage in stages:
        if asking.done:
            break
        stage(asking)
    return asking


def understand(runtime: Resources, text: str) -> Asking:
    """The question read, its values linked, its candidates found and ranked (no SQL run)."""
    asking = Asking(runtime, text, "showsql", Answer(question=text, action="showsql", status="declined"))
    return run(asking, UNDERSTANDING)
