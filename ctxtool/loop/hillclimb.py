"""Apply a gap report and climb: ``ctxtool improve --apply`` and ``--heldout``.

:func:`apply_proposals` adds the proposals of a :class:`~ctxtool.loop.improve.GapReport` that pass
their checks (value searches and facets through :func:`ctxtool.setedit.edit_set`, validated against
the database; templates through :func:`ctxtool.loop.promote.promote_many`) and marks each added or
rejected with the one-line reason. :func:`hill_climb` evaluates, reports, applies, and measures a
held-out file before the first round and after the last, never reading it otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ctxtool.errors import CtxtoolError, InputError
from ctxtool.jsondoc import load_json
from ctxtool.loop.improve import GapReport, gap_report, item_label, read_eval_report

__all__ = ["apply_proposals", "evaluate_file", "hill_climb", "improve"]


def apply_proposals(
    path: str,
    report: GapReport,
    connector: Any,
    *,
    dialect: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> GapReport:
    """Add the proposals that pass their checks to the set file ``path``: value searches and facets
    first (through :func:`ctxtool.setedit.edit_set`, validated against the database), then the
    templates, together (through :func:`ctxtool.loop.promote.promote_many`: one validation, one
    runtime). Each proposal's status says what
    happened and, when rejected, the one-line reason."""
    from ctxtool.loop.promote import promote_many
    from ctxtool.setedit import edit_set

    dialect = dialect or connector.dialect
    templates = []
    for p in report.proposals:
        if p.item is None:
            p.status, p.message = "not applicable", "a runtime check to look at; nothing to add"
        elif p.kind == "templates":
            templates.append(p)
            continue
        else:
            if progress:
                progress(f"{p.kind}: {item_label(p)}")
            try:
                op = [{"op": "add", "kind": p.kind, "item": p.item}]
                res = edit_set(path, op, dialect=dialect, connector=connector)
            except CtxtoolError as exc:
                p.status, p.message = "rejected", str(exc)
                continue
            f = res.blocking[0] if res.blocking else None
            p.status = "added" if res.written else "rejected"
            p.message = (
                "" if res.written else f"validate: {f.code} {f.message}" if f else "; ".join(res.notes)
            )
    if templates:
        if progress:
            progress(f"templates: promoting {len(templates)}")
        done = promote_many(
            path, [(p.item["nl_query"], p.item["sql"]) for p in templates], connector, dialect=dialect
        )
        for p, r in zip(templates, done, strict=True):
            p.status, p.message = ("added", "") if r.ok else ("rejected", r.message)
    return report


def _load_set(path: str) -> dict[str, Any]:
    from ctxtool.contextset import normalize_legacy

    raw = load_json(path).data
    if not isinstance(raw, dict):
        raise InputError(f"{path}:1:1: a context set is a JSON object")
    return normalize_legacy(raw)[0]


def evaluate_file(path: str, golden: str, connector: Any, *, progress: Any = None) -> Any:
    """The :class:`~ctxtool.runtime.evaluate.EvalReport` of the set file ``path`` on ``golden``."""
    from ctxtool.runtime import Runtime
    from ctxtool.runtime.evaluate import load_golden, run_eval

    rt = Runtime(_load_set(path), connector=connector, dialect=connector.dialect, use_llm=False)
    try:
        return run_eval(rt, load_golden(golden), progress=progress)
    finally:
        rt.close()


def improve(
    path: str,
    connector: Any,
    *,
    report: str | None = None,
    golden: str | None = None,
    apply: bool = False,
    dialect: str | None = None,
    max_wordings: int = 2,
    progress: Callable[[str], None] | None = None,
) -> GapReport:
    """The gap report of the set file ``path``: from the eval report file ``report`` (its golden SQL
    from the report or ``golden``), else from evaluating the set on ``golden`` first; with ``apply``,
    the proposals that pass their checks added to the file."""
    if report:
        questions = read_eval_report(report, golden)
    elif golden:
        questions = evaluate_file(path, golden, connector).to_dict()["questions"]
    else:
        raise InputError(
            "give the eval report (--report FILE) or the golden file to evaluate (--golden FILE)"
        )
    gaps = gap_report(questions, _load_set(path), connector, dialect=dialect, max_wordings=max_wordings)
    if apply:
        apply_proposals(path, gaps, connector, dialect=dialect, progress=progress)
    return gaps


def hill_climb(
    path: str,
    golden: str,
    connector: Any,
    *,
    heldout: str | None = None,
    rounds: int = 1,
    max_wordings: int = 2,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """``rounds`` of evaluate on ``golden``, gap report, apply; the held-out file is evaluated before
    the first round and after the last, and never read otherwise (no proposal comes from it).
    Returns each round's gap report and the before/after summaries of both files."""
    out: dict[str, Any] = {"rounds": []}
    if heldout:
        out["heldout_before"] = evaluate_file(path, heldout, connector).summary()["overall"]
    for n in range(rounds):
        before = evaluate_file(path, golden, connector)
        if n == 0:
            out["golden_before"] = before.summary()["overall"]
        gaps = gap_report(
            before.to_dict()["questions"], _load_set(path), connector, max_wordings=max_wordings
        )
        apply_proposals(path, gaps, connector, progress=progress)
        out["rounds"].append(gaps.to_dict())
        if not any(p.status == "added" for p in gaps.proposals):
            break
    out["golden_after"] = evaluate_file(path, golden, connector).summary()["overall"]
    if heldout:
        out["heldout_after"] = evaluate_file(path, heldout, connector).summary()["overall"]
    return out
