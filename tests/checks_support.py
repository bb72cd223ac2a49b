"""Building a question, a template and a candidate by hand, to run one check of the catalogue on them
(tests/test_checks.py runs the JSON cases; other tests call these directly)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ctxtool.english.literals import find_literals
from ctxtool.runtime.checks import CATALOGUE
from ctxtool.runtime.matching.candidate import Candidate, FacetUse, Finding
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.question.values import Entity, entities_of
from ctxtool.runtime.templates.compile import compile_item
from ctxtool.runtime.templates.compiled import Compiled
from ctxtool.runtime.templates.index import ItemIndex
from ctxtool.runtime.templates.vocabulary import SetFacts


def compiled(
    question: str,
    sql: str,
    p_question: str | None = None,
    p_sql: str | None = None,
    index: int = 0,
    dialect: str = "postgres",
    kind: str = "template",
) -> Compiled:
    """A template (or a facet: ``sql`` is then its condition) with its parameterized forms."""
    item: dict[str, Any] = {"nl_query": question, "intent": question}
    item["sql" if kind == "template" else "sql_snippet"] = sql
    if p_question and p_sql:
        key = "parameterized_sql" if kind == "template" else "parameterized_sql_snippet"
        item["parameterized"] = {"parameterized_intent": p_question, key: p_sql}
    return compile_item(kind, index, item, dialect)


def vocabulary(templates: Sequence[Compiled], facets: Sequence[Compiled] = ()) -> SetFacts:
    items = [*templates, *facets]
    return SetFacts(list(templates), list(facets), ItemIndex(items).vocabulary())


def read(
    question: str,
    templates: Sequence[Compiled] = (),
    values: Sequence[Entity] | None = None,
    facets: Sequence[Compiled] = (),
) -> Question:
    """The question with its literals as its values (or ``values``), read against a set of
    ``templates`` and ``facets``."""
    literals = find_literals(question)
    return Question(
        question,
        values=list(values) if values is not None else entities_of(literals, []),
        literals=literals,
        vocabulary=vocabulary(templates, facets),
    )


def candidate(
    tpl: Compiled,
    bindings: dict[str, tuple[int, float]] | None = None,
    *,
    phrasing: int = 0,
    facets: Sequence[FacetUse] = (),
    explained: Sequence[str] = (),
    **fields: Any,
) -> Candidate:
    return Candidate(
        template=tpl,
        phrasing=phrasing,
        bindings=bindings or {},
        facets=list(facets),
        explained_by={w: "wording" for w in explained},
        **fields,
    )


def run_check(name: str, q: Question, c: Candidate) -> Finding | None:
    """The check ``name`` of the catalogue on the candidate ``c`` of ``q``."""
    return CATALOGUE[name].run(q, c, c.template.facts)


def rank(matcher: Any, question: str, values: Sequence[Entity] | None = None) -> list[Candidate]:
    """The candidates ``matcher`` finds for ``question`` (its literals as its values, or ``values``),
    verified, best first (the matching stage alone: no ranking rules)."""
    literals = find_literals(question)
    q = Question(
        question,
        values=list(values) if values is not None else entities_of(literals, []),
        literals=literals,
        vocabulary=matcher.set_facts,
    )
    return matcher.rank(q)[1]


def check_on(
    name: str,
    question: str,
    tpl: Compiled,
    bindings: dict[str, tuple[int, float]] | None = None,
    values: Sequence[Entity] | None = None,
    templates: Sequence[Compiled] = (),
    **fields: Any,
) -> str | None:
    """The reason the check ``name`` finds against ``tpl`` for ``question`` (None: it passes), the
    set being ``tpl`` and ``templates``."""
    q = read(question, [tpl, *templates], values)
    found = run_check(name, q, candidate(tpl, bindings, **fields))
    return None if found is None else found.reason
