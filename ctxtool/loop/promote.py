"""Promote an answer to a template: Snowflake's "save as verified query", Vanna's "add on correct".

An answer marked right (a template's SQL with its values, a composition, a model's SQL) or a
corrected SQL becomes a template of the set in one call, through checks that each stop it:

========== =================================================================================
check      what it asks
========== =================================================================================
read-only  the SQL passes the read-only gate (:func:`ctxtool.readonly.run_read_only`)
runs       the database runs it (read-only session, statement timeout, row cap)
duplicate  the set has no template with this question (one of the same SQL shape is another wording)
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

__all__ = ["CHECKS", "Promotion", "promote", "promote_feedback"]

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


def _value_checks(
    data: dict[str, Any], params: Sequence[Any], connector: Any, dialect: str
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
    cs = contextset.loads(dumps_json(data), "<promote>")
    tested: dict[str, Any] = {}
    for p in params:
        found = searches.get(p.type)
        if found is None:
            continue
        i, vs = found
        if p.type not in tested:
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


def _answers(data: dict[str, Any], question: str, gold: Any, connector: Any, dialect: str) -> str | None:
    """None when the runtime, on ``data``, answers ``question`` with the rows of ``gold``."""
    from ctxtool.runtime import Runtime
    from ctxtool.runtime.evaluate import results_match

    rt = Runtime(data, connector=connector, dialect=dialect, use_llm=False)
    try:
        ans = rt.ask(question, action="runsql")
    except CtxtoolError as exc:
        return f"asked again, the question failed: {exc}"
    finally:
        rt.close()
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
    from ctxtool.contextset import normalize_legacy
    from ctxtool.conversations.feedback import concrete_sql
    from ctxtool.jsondoc import load_json
    from ctxtool.parameterize import parameterize_item

    dialect = dialect or connector.dialect
    sql = concrete_sql(sql, list(params), dialect) if params else sql
    question = " ".join(question.split())
    out = Promotion(question, sql)
    try:
        gold = run_read_only(connector, sql, dialect=dialect)
    except GateRefused as exc:
        return out.fail("read-only", f"{exc}; only one SELECT can become a template")
    except DatabaseError as exc:
        return out.fail("runs", f"the database rejected the SQL ({exc}); correct it and promote again")
    except CtxtoolError as exc:
        return out.fail("read-only", f"{exc}; only one SELECT can become a template")
    if not gold.rows:
        out.notes.append("the SQL returns no rows on the database now")
    data: dict[str, Any] = {}
    if os.path.exists(path):
        raw = load_json(path).data
        data = normalize_legacy(raw)[0] if isinstance(raw, dict) else {}
    dup, wording = _duplicate(data, question, sql, dialect)
    if dup:
        return out.fail("duplicate", dup)
    if wording:
        out.notes.append(wording)
    snap = None
    item = parameterize_item(
        {"nl_query": question, "sql": sql}, "templates", dialect, snap, data.get("value_searches") or []
    )
    if item.problems:
        return out.fail(
            "parameterize", f"{item.problems[0]}; write the question with each value the SQL filters on"
        )
    out.template = dict(item)
    params_found = item.derived.params
    for lit in item.derived.literals:
        out.notes.append(f"kept literal: {lit}")
    checks, problem = _value_checks(data, params_found, connector, dialect)
    out.value_checks = checks
    if problem:
        return out.fail("value-search", problem)
    searched = {c["slot"] for c in checks}
    for p in params_found:
        if p.placeholder not in searched and not _NUMBERISH.match(str(p.value)):
            out.notes.append(
                f"no value search covers {p.placeholder} ({p.value!r}): only that value as written links"
            )
    op = [{"op": "add", "kind": "templates", "item": out.template}]
    trial = edit_set(path, op, dialect=dialect, connector=connector, dry_run=True)
    out.edit = trial
    if trial.blocking:
        f = trial.blocking[0]
        return out.fail(
            "validate", f"{f.code} {f.message}; correct the SQL or the question and promote again"
        )
    index = trial.changed[0][1]
    if check_answer:
        why = _answers(trial.data, question, gold, connector, dialect)
        if why:
            return out.fail("answers", why)
    out.ok, out.index, out.template = True, index, trial.data["templates"][index]
    if dry_run:
        out.message = "all checks passed (dry run: nothing written)"
        return out
    done = edit_set(path, op, dialect=dialect, connector=connector)
    out.edit, out.written = done, done.written
    if not done.written:
        return out.fail("validate", "; ".join(done.notes) or "the file was not written")
    out.message = f"added template {index} to {path}"
    if publish_as:
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
