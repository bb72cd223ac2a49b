"""The tools that close the loop: generate a golden dataset from a set, record feedback, promote an
answer to a template, read an eval report as fixes. Thin over the library (:mod:`ctxtool.golden`,
:mod:`ctxtool.conversations.feedback`, :mod:`ctxtool.loop`)."""

from __future__ import annotations

from typing import Any

from ctxtool.mcp.tools import DSN, SET_PATH, Defaults, Tool, ToolError, counter, dsn_of, schema


def generate_dataset(
    *,
    defaults: Defaults,
    output: str,
    context: str | None = None,
    set: str | None = None,  # noqa: A002 - the argument's name in the schema
    dsn: str | None = None,
    database: str | None = None,
    seed: int = 0,
    split: float = 0.0,
    workload: str | None = None,
) -> dict[str, Any]:
    from ctxtool.connectors import connect
    from ctxtool.golden import generate_dataset as generate
    from ctxtool.mcp.runtime_tools import set_ref
    from ctxtool.store import load_set

    loaded = load_set(set_ref(context, set, defaults), defaults.store)
    step = counter("generating golden questions", len(loaded.data.get("templates") or []))

    def progress(items: list[Any]) -> Any:
        for item in items:
            step(item)
            yield item

    with connect(dsn_of(dsn, defaults)) as conn:
        ds = generate(
            loaded.data, conn, database=database, seed=seed, split=split, workload=workload, progress=progress
        )
    return {**ds.report, "written": ds.write(output)}


def feedback(
    *,
    defaults: Defaults,
    feedback: str,
    prompt_id: int | None = None,
    question: str | None = None,
    sql: str | None = None,
    params: list[Any] | None = None,
    corrected_sql: str | None = None,
    comment: str | None = None,
    store: str | None = None,
) -> dict[str, Any]:
    from ctxtool.conversations.feedback import record_feedback
    from ctxtool.conversations.store import open_store

    with open_store(store) as st:
        fb = record_feedback(
            st,
            feedback,
            prompt_id=prompt_id,
            question=question,
            sql=sql,
            params=params or [],
            corrected_sql=corrected_sql,
            comment=comment,
            set_ref=defaults.context or defaults.set,
        )
    return fb.to_dict()


def promote(
    *,
    defaults: Defaults,
    path: str,
    feedback_id: int | None = None,
    question: str | None = None,
    sql: str | None = None,
    params: list[Any] | None = None,
    dsn: str | None = None,
    publish: str | None = None,
    store: str | None = None,
    feedback_store: str | None = None,
    dry_run: bool = False,
) -> dict[str, Any]:
    from ctxtool.loop.promote import promote as promote_answer
    from ctxtool.loop.promote import promote_feedback
    from ctxtool.mcp.connections import CONNECTIONS

    if (feedback_id is not None and (question or sql)) or (feedback_id is None and not (question and sql)):
        raise ToolError("name the answer with feedback_id, or give both question and sql")
    options = {"publish_as": publish, "store": store or defaults.store, "dry_run": dry_run}
    with CONNECTIONS.session(dsn_of(dsn, defaults)) as conn:
        if feedback_id is not None:
            from ctxtool.conversations.feedback import get_feedback
            from ctxtool.conversations.store import open_store

            with open_store(feedback_store) as st:
                fb = get_feedback(st, feedback_id)
            result = promote_feedback(path, fb, conn, **options)
        else:
            result = promote_answer(path, question or "", sql or "", conn, params=params or [], **options)
    return result.to_dict()


def improve(
    *,
    defaults: Defaults,
    path: str,
    report: str | None = None,
    golden: str | None = None,
    dsn: str | None = None,
    apply: bool = False,
    heldout: str | None = None,
    max_wordings: int = 2,
) -> dict[str, Any]:
    from ctxtool.loop.hillclimb import hill_climb
    from ctxtool.loop.hillclimb import improve as gap_report
    from ctxtool.mcp.connections import CONNECTIONS

    with CONNECTIONS.session(dsn_of(dsn, defaults)) as conn:
        if heldout:
            if not golden:
                raise ToolError("heldout needs golden (the file improve tunes on)")
            return hill_climb(path, golden, conn, heldout=heldout, max_wordings=max_wordings)
        gaps = gap_report(path, conn, report=report, golden=golden, apply=apply, max_wordings=max_wordings)
    return gaps.to_dict()


TOOLS = [
    Tool(
        "generate_dataset",
        "Generate a golden file ({id, database, nlq, golden_sql, tags} items) from a set and its database: "
        "for each template its question in other words (synonyms, reordered, another question form, terse), "
        "misspelled, with a distraction, with other values drawn from the data (golden SQL checked "
        "non-empty), and a negative that must be declined; requests out of scope; with workload, the "
        "log's queries as questions. split holds out the items of that fraction of the templates in "
        "OUTPUT.heldout.json (never read by improve). Returns counts per tag and template, the "
        "templates whose SQL fails or returns nothing, and the files written. Then call eval with it.",
        schema(
            {
                "output": {"type": "string", "description": "Path of the golden file to write."},
                "context": SET_PATH,
                "set": {
                    "type": "string",
                    "description": "A published set NAME[@VERSION] instead of context.",
                },
                "dsn": DSN,
                "database": {"type": "string", "description": "The items' database name."},
                "seed": {"type": "integer", "default": 0},
                "split": {"type": "number", "minimum": 0, "maximum": 0.9, "default": 0},
                "workload": {"type": "string", "description": "A query-log file to describe as questions."},
            },
            ("output",),
        ),
        generate_dataset,
        read_only=False,
        writes=("output",),
    ),
    Tool(
        "feedback",
        "Record the user's feedback on an answer: positive (it was right: its SQL becomes a reference "
        "question for eval and can be promoted to a template), or negative with corrected_sql (the SQL "
        "that answers it) and/or a comment. Name the answer by prompt_id (a conversation's prompt) or "
        "give its question and sql. Stored beside the conversations; returns the stored feedback.",
        schema(
            {
                "feedback": {"type": "string", "enum": ["positive", "negative"]},
                "prompt_id": {
                    "type": "integer",
                    "description": "The answer's prompt id in its conversation.",
                },
                "question": {"type": "string", "description": "Else the question that was asked."},
                "sql": {"type": "string", "description": "And the SQL it was answered with."},
                "params": {"type": "array", "description": "And the answer's params (written into the SQL)."},
                "corrected_sql": {"type": "string", "description": "The SQL that answers the question."},
                "comment": {"type": "string"},
                "store": {
                    "type": "string",
                    "description": "Conversation store (default: the configured one).",
                },
            },
            ("feedback",),
        ),
        feedback,
        read_only=False,
    ),
    Tool(
        "promote",
        "Turn an answer marked right (feedback_id of a stored feedback: a positive's SQL or a negative's "
        "corrected SQL) or a question with its SQL (a model's, a corrected one; params written in) into a "
        "template of the set file at path: parameterized, run and validated against the database, the "
        "value searches of its slots tested with its values, checked that the runtime then answers the "
        "question with the same rows, and added through the mutate_set code path; publish names a set to "
        "publish the file to as its next version. Nothing is added when a check fails: ok is false, "
        "check names it and message says what to do. dry_run checks only.",
        schema(
            {
                "path": {**SET_PATH, "description": SET_PATH["description"] + " Created when missing."},
                "feedback_id": {"type": "integer", "description": "A stored feedback to promote."},
                "question": {"type": "string", "description": "Else the question the template answers."},
                "sql": {"type": "string", "description": "And the SQL that answers it."},
                "params": {"type": "array", "description": "The SQL's placeholder values, in order."},
                "dsn": DSN,
                "publish": {"type": "string", "description": "Publish the file as this set's next version."},
                "store": {
                    "type": "string",
                    "description": "Where published sets live (default: the server's).",
                },
                "feedback_store": {
                    "type": "string",
                    "description": "The conversation store holding the feedback (default: the configured one).",
                },
                "dry_run": {"type": "boolean", "default": False, "description": "Check only; write nothing."},
            },
            ("path",),
        ),
        promote,
        read_only=False,
        writes=("path",),
    ),
    Tool(
        "improve",
        "Read an evaluation as fixes: the questions not answered right (of the eval report file report, "
        "else of evaluating the set at path on golden) grouped by cause: no-template (no template of "
        "that SQL shape), missing-facet (a template's shape plus one condition), unlinked-value (a value "
        "of a column no value search covers), unknown-word (the words the set lacks), wrong-check (a "
        "wrong answer: the check that should have fired). Each cause comes with proposals ready for "
        "mutate_set / promote (a drafted template, facet or value search); apply adds those that pass "
        "their checks (status added/rejected with the reason). heldout (with golden) runs a hill-climb "
        "and returns the held-out accuracy before and after; the held-out file is never tuned on.",
        schema(
            {
                "path": SET_PATH,
                "report": {"type": "string", "description": "An eval report file (JSON of eval)."},
                "golden": {"type": "string", "description": "The golden file (tuned on)."},
                "dsn": DSN,
                "apply": {"type": "boolean", "default": False, "description": "Add the passing proposals."},
                "heldout": {"type": "string", "description": "A held-out golden file, measured only."},
                "max_wordings": {"type": "integer", "minimum": 0, "default": 2},
            },
            ("path",),
        ),
        improve,
        read_only=False,
        writes=("path",),
    ),
]
