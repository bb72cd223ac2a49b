"""Promote an answer to a template: Snowflake's "save as verified query", Vanna's "add on correct".

An answer marked right (a template's SQL with its values, a composition, a model's SQL) or a
corrected SQL becomes a template of the set in one call, through checks that each stop it:

========== =================================================================================
check      what it asks
========== =================================================================================
read-only  the SQL passes the read-only gate (:func:`ctxtool.readonly.run_read_only`)
runs       the database runs it (read-only session, statement timeout, row cap)
duplicate  the set has no template with this question, nor with its parameterized question and SQL
           (one of the same SQL shape and other words is another wording)
parameterize  the question and the SQL give a template whose values are parameters
           (:mod:`ctxtool.parameterize`)
value-search  each value of a slot a value search covers is found by that search at distance 0
           (the search itself run as ``test-values`` runs it)
validate   the new file has no error finding on the template, against the database
           (:func:`ctxtool.setedit.edit_set`, the code path of MCP ``mutate_set``)
answers    asked again through the runtime, the new set answers the question with the rows of
           the SQL
========== =================================================================================

Nothing is written when a check fails: :class:`Promotion` names the check and says what to do in
one line. When all pass the template is added through :func:`~ctxtool.setedit.edit_set`, and, when
asked, the file is published as the next version of a named set.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxtool.errors import CtxtoolError, DatabaseError
from ctxtool.gate import GateRefused
from ctxtool.readonly import run_read_only
from ctxtool.setedit import EditResult, edit_set

__all__ = ["CHECKS", "Promotion", "promote", "promote_feedback", "promote_many"]

CHECKS = ("read-only", "runs", "duplicate", "parameterize", "value-search", "validate", "answers")


@dataclass
class Promotion:
    """What :func:`promote` did: ``ok`` and the template added, or the failed ``check`` and a one-line
    ``message`` saying what to do."""

    question: str
    sql: str
    ok: bool = False
    check: str | None = None  # the check that failed
    message: str = ""
    template: dict[str, Any] | None = None
    written: bool = False
    index: int | None = None  # the template's index in the file
    value_checks: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    published: str | None = None  # NAME@VERSION
    edit: EditResult | None = None

    def fail(self, check: str, message: str) -> Promotion:
        self.ok, self.check, self.message = False, check, f"{check}: {message}"
        return self

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "question": self.question,
            "sql": self.sql,
            "check": self.check,
            "message": self.message,
            "written": self.written,
            "index": self.index,
            "template": self.template,
            "value_checks": self.value_checks,
            "notes": self.notes,
            "published": self.published,
        }


_NUMBERISH = re.compile(r"^[-+]?[\d.,:/ -]+$")


def _norm(text: str) -> str:
    return " ".join(str(text).split()).lower().rstrip("?. ")


def _duplicate(data: dict[str, Any], question: str, sql: str, dialect: str) -> tuple[str | None, str | None]:
    """(why it is a duplicate, else None; a note when a template has the same SQL shape: the new one
    is another wording of it)."""
    from ctxtool.draft.workload import fingerprint

    shape = fingerprint(sql, dialect)
    note = None
    for i, t in enumerate(data.get("templates") or []):
        if not isinstance(t, dict):
            continue
        if _norm(t.get("nl_query", "")) == _norm(question):
            return (
                f"template {i} asks this question already; change it with mutate_set (update) instead",
                None,
            )
        if (
            shape
            and note is None
            and isinstance(t.get("sql"), str)
            and fingerprint(t["sql"], dialect) == shape
        ):
            note = f"another wording of template {i} ({t.get('nl_query')!r}), which has this SQL shape"
    return None, note


def _same_parameterized(data: dict[str, Any], template: dict[str, Any]) -> int | None:
    """The index of a template with the same parameterized question and SQL, if any."""

    def key(t: Any) -> tuple[str, str] | None:
        par = t.get("parameterized") if isinstance(t, dict) else None
        if not isinstance(par, dict):
            return None
        return _norm(par.get("parameterized_intent", "")), " ".join(
            str(par.get("parameterized_sql", "")).split()
        )

    mine = key(template)
    if mine is None:
        return None
    return next((i for i, t in enumerate(data.get("templates") or []) if key(t) == mine), None)


def _value_checks(
    data: dict[str, Any], params: Sequence[Any], connector: Any, tested: dict[str, Any]
) -> tuple[list[dict[str, Any]], str | None]:
    """Run each value search that covers a slot of the template with the slot's value; the search
    must return the value at distance 0, and pass ``test-values``' runs and shape checks."""
    from ctxtool import contextset
    from ctxtool.jsondoc import dumps_json
    from ctxtool.values.testing import ValueTester

    searches = {
        str(v.get("concept_type")): (i, v)
        for i, v in enumerate(data.get("value_searches") or [])
        if isinstance(v, dict) and isinstance(v.get("query"), str)
    }
    out: list[dict[str, Any]] = []
    tester = ValueTester(connector, samples=10)
    cs = None
    for p in params:
        found = searches.get(p.type)
        if found is None:
            continue
        i, vs = found
        if p.type not in tested:
            cs = cs or contextset.loads(dumps_json(data), "<promote>")
            item = next(it for it in cs.items("value_searches") if it.index == i)
            tested[p.type] = tester.test_search(cs, item)
        res = tested[p.type]
        broken = [c for c in res.failed if c.name in ("runs", "shape")]
        try:
            rows = list(tester.run(vs["query"], str(p.value))[0].rows)
        except CtxtoolError as exc:
            return (
                out,
                f"the value search {p.type!r} failed for {p.value!r}: {exc}; fix it (ctxtool test-values)",
            )
        exact = any(
            r and str(r[0]) == str(p.value) and len(r) > 3 and r[3] is not None and float(r[3]) <= 1e-6
            for r in rows
        )
        out.append(
            {"slot": p.placeholder, "value": p.value, "value_search": p.type, "found": exact,
             "search_checks": {c.name: c.ok for c in res.checks}}
        )  # fmt: skip
        if broken:
            return out, (
                f"the value search {p.type!r} fails its {broken[0].name} check ({broken[0].message}); "
                "fix it first (ctxtool test-values shows why)"
            )
        if not exact:
            return out, (
                f"the value search {p.type!r} does not find {p.value!r} at distance 0, so the runtime "
                "could not link it: fix the search's query (ctxtool test-values --probe VALUE)"
            )
    return out, None


def _answers(rt: Any, question: str, gold: Any) -> str | None:
    """None when the runtime ``rt`` answers ``question`` with the rows of ``gold``."""
    from ctxtool.runtime.evaluate import results_match

    try:
        ans = rt.ask(question, action="runsql")
    except CtxtoolError as exc:
        return f"asked again, the question failed: {exc}"
    if ans.status != "answered" or not ans.executed:
        return (
            f"asked again, the set does not answer it ({ans.status}): another template is closer; "
            "reword the question as people ask it, or remove the rival template"
        )
    if not results_match(gold.rows, ans.rows, ordered=False):
        return (
            "asked again, it is answered with other rows (by "
            f"{getattr(ans.template, 'intent', None) or ans.source!r}): the templates overlap; reword "
            "the question or fix the other template"
        )
    return None


def _precheck(
    data: dict[str, Any], question: str, sql: str, connector: Any, dialect: str, tested: dict[str, Any]
) -> tuple[Promotion, Any]:
    """The checks of one answer before the file is touched: read-only, runs, duplicate,
    parameterize, value-search. (the promotion, the SQL's rows)."""
    from ctxtool.parameterize import parameterize_item

    out = Promotion(question, sql)
    try:
        gold = run_read_only(connector, sql, dialect=dialect)
    except GateRefused as exc:
        return out.fail("read-only", f"{exc}; only one SELECT can become a template"), None
    except DatabaseError as exc:
        return out.fail("runs", f"the database rejected the SQL ({exc}); correct it and promote again"), None
    except CtxtoolError as exc:
        return out.fail("read-only", f"{exc}; only one SELECT can become a template"), None
    if not gold.rows:
        out.notes.append("the SQL returns no rows on the database now")
    dup, wording = _duplicate(data, question, sql, dialect)
    if dup:
        return out.fail("duplicate", dup), None
    if wording:
        out.notes.append(wording)
    item = parameterize_item(
        {"nl_query": question, "sql": sql}, "templates", dialect, None, data.get("value_searches") or []
    )
    if item.problems:
        return out.fail(
            "parameterize", f"{item.problems[0]}; write the question with each value the SQL filters on"
        ), None
    out.template = dict(item)
    same = _same_parameterized(data, out.template)
    if same is not None:
        return out.fail(
            "duplicate",
            f"template {same} is this question with other values (the same parameterized question and "
            "SQL): the runtime binds the values, nothing to add",
        ), None
    out.notes += [f"kept literal: {lit}" for lit in item.derived.literals]
    checks, problem = _value_checks(data, item.derived.params, connector, tested)
    out.value_checks = checks
    if problem:
        return out.fail("value-search", problem), None
    searched = {c["slot"] for c in checks}
    for p in item.derived.params:
        if p.placeholder not in searched and not _NUMBERISH.match(str(p.value)):
            out.notes.append(
                f"no value search covers {p.placeholder} ({p.value!r}): only that value as written links"
            )
    return out, gold


def _under(pointer: str, item: str) -> bool:
    return pointer == item or pointer.startswith(item + "/")


def _read_set(path: str) -> dict[str, Any]:
    from ctxtool.contextset import normalize_legacy
    from ctxtool.jsondoc import load_json

    if not os.path.exists(path):
        return {}
    raw = load_json(path).data
    return normalize_legacy(raw)[0] if isinstance(raw, dict) else {}


def promote_many(
    path: str,
    answers: Sequence[tuple[str, str]],
    connector: Any,
    *,
    dialect: str | None = None,
    dry_run: bool = False,
    check_answer: bool = True,
) -> list[Promotion]:
    """:func:`promote` for several (question, SQL) pairs at once: each is checked on its own, the
    file is validated once with all that passed (those with an error finding dropped), one runtime
    asks every question again, and the survivors are added in one write."""
    from ctxtool.runtime import Runtime

    dialect = dialect or connector.dialect
    data = _read_set(path)
    tested: dict[str, Any] = {}
    results: list[Promotion] = []
    golds: dict[int, Any] = {}
    for question, sql in answers:
        out, gold = _precheck(data, " ".join(question.split()), sql, connector, dialect, tested)
        if out.check is None and any(
            r.check is None and _norm(r.question) == _norm(out.question) for r in results
        ):
            out.fail("duplicate", "the same question is promoted twice in this batch; once is enough")
        if out.check is None:
            golds[len(results)] = gold
        results.append(out)
    while golds:
        order = list(golds)
        ops = [{"op": "add", "kind": "templates", "item": results[k].template} for k in order]
        trial = edit_set(path, ops, dialect=dialect, connector=connector, dry_run=True)
        at = {k: trial.changed[n][1] for n, k in enumerate(order)}
        found = {k: [f for f in trial.blocking if _under(f.pointer, f"/templates/{at[k]}")] for k in order}
        bad = {k for k, fs in found.items() if fs}
        for k in bad:
            f = found[k][0]
            results[k].fail(
                "validate", f"{f.code} {f.message}; correct the SQL or the question and promote again"
            )
            del golds[k]
        if bad:
            continue
        if check_answer:
            rt = Runtime(trial.data, connector=connector, dialect=dialect, use_llm=False)
            try:
                wrong = {k: why for k in order if (why := _answers(rt, results[k].question, golds[k]))}
            finally:
                rt.close()
            for k, why in wrong.items():
                results[k].fail("answers", why)
                del golds[k]
            if wrong:
                continue
        for k in order:
            r = results[k]
            r.ok, r.index, r.template, r.edit = True, at[k], trial.data["templates"][at[k]], trial
            r.message = "all checks passed (dry run: nothing written)"
        if dry_run:
            break
        done = edit_set(path, ops, dialect=dialect, connector=connector)
        for k in order:
            r = results[k]
            r.edit, r.written = done, done.written
            if done.written:
                r.message = f"added template {at[k]} to {path}"
            else:
                r.fail("validate", "; ".join(done.notes) or "the file was not written")
        break
    return results


def promote(
    path: str,
    question: str,
    sql: str,
    connector: Any,
    *,
    params: Sequence[Any] = (),
    dialect: str | None = None,
    publish_as: str | None = None,
    store: Any = None,
    dry_run: bool = False,
    check_answer: bool = True,
) -> Promotion:
    """Add ``question`` with ``sql`` (its ``params`` written in as literals) as a template of the set
    file ``path`` when every check of :data:`CHECKS` passes; publish the file as the next version of
    ``publish_as`` in ``store`` when given. ``connector`` is an open connector to the set's database."""
    from ctxtool.conversations.feedback import concrete_sql

    dialect = dialect or connector.dialect
    sql = concrete_sql(sql, list(params), dialect) if params else sql
    (out,) = promote_many(path, [(question, sql)], connector, dialect=dialect, dry_run=dry_run,
                          check_answer=check_answer)  # fmt: skip
    if out.ok and out.written and publish_as:
        from ctxtool.store import publish

        version = publish(path, publish_as, store, dialect=dialect)
        out.published = version.ref
        out.message += f"; published {version.ref}"
    return out


def promote_feedback(
    path: str,
    feedback: Any,
    connector: Any,
    **options: Any,
) -> Promotion:
    """:func:`promote` a stored :class:`~ctxtool.conversations.feedback.Feedback`: a positive's SQL
    or a negative's corrected SQL, with its question."""
    sql = feedback.reference_sql
    if not sql:
        out = Promotion(feedback.question, "")
        return out.fail(
            "read-only",
            f"feedback {feedback.feedback_id} is negative without a corrected SQL: nothing to promote; "
            "record the SQL that answers it (ctxtool feedback add negative --corrected-sql ...)",
        )
    return promote(path, feedback.question, sql, connector, **options)
