"""The tools that close the loop: generate a golden dataset from a set. Thin over the library
(:mod:`ctxtool.golden`)."""

from __future__ import annotations

from typing import Any

from ctxtool.mcp.tools import DSN, SET_PATH, Defaults, Tool, counter, dsn_of, schema


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
]
