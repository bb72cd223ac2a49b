"""Options shared by `ask`, `eval` and `serve`: which set, which database, how careful."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from ctxtool.cli._model_opts import MODEL_KEY, VECTOR_KEY, model_options, take, vector_options
from ctxtool.errors import InputError


def runtime_options(func: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option(
            "--set", "set_ref", metavar="NAME[@VERSION]", help="A published set (see `ctxtool sets list`)."
        ),
        click.option(
            "--context", "context_file", metavar="FILE", help="A context-set file instead of a published set."
        ),
        click.option(
            "--store", default=None, help="Where published sets live (PostgreSQL DSN or SQLite file)."
        ),
        click.option(
            "--dsn", envvar="CTXTOOL_DSN", metavar="DSN", help="The database to answer from ($CTXTOOL_DSN)."
        ),
        click.option(
            "--dialect", default=None, help="postgres, mysql or spanner (default: from the database)."
        ),
        click.option(
            "--threshold",
            type=float,
            default=None,
            help="Confidence needed to answer without asking back (0..1; default 0.7, 0.9 with CTXTOOL_CONFIDENCE=calibrated).",
        ),
        click.option("--row-cap", type=int, default=1000, show_default=True, help="At most this many rows."),
        click.option(
            "--timeout", type=float, default=5.0, show_default=True, help="Statement timeout in seconds."
        ),
        click.option(
            "--object-list",
            default=None,
            metavar="T1,T2",
            help="Tables SQL written by a language model may read (default: every table of the database).",
        ),
        click.option(
            "--no-llm", is_flag=True, help="Never call a language model, even when one is configured."
        ),
        click.option(
            "--max-question-chars",
            "max_question",
            type=click.IntRange(min=1),
            default=None,
            help="Longest question read, in characters (default $CTXTOOL_MAX_QUESTION_CHARS, else 2000).",
        ),
    ]
    func = model_options(vector_options(func))
    for opt in reversed(options):
        func = opt(func)
    return func


def make_runtime(
    set_ref: str | None,
    context_file: str | None,
    store: str | None,
    dsn: str | None,
    dialect: str | None,
    threshold: float | None,
    row_cap: int,
    timeout: float,
    object_list: str | None,
    no_llm: bool,
    *,
    max_question: int | None = None,
    need_dsn: bool = True,
    conversation: bool = False,
    connector: Any = None,
    contextset: Any = None,
    **settings: Any,
):
    """The Runtime the options describe. ``connector`` (e.g. a pool) replaces opening ``dsn``;
    ``contextset`` (e.g. an already loaded published version) replaces loading the named set."""
    from ctxtool.runtime import Runtime

    if bool(set_ref) == bool(context_file):
        raise InputError("name the set with exactly one of --set NAME[@VERSION] or --context FILE")
    if need_dsn and not dsn:
        raise InputError("give the database with --dsn DSN (or $CTXTOOL_DSN)")
    from ctxtool.conversations.vectors import VectorSettings
    from ctxtool.llm.settings import effective, stderr_sink

    model = take(settings, MODEL_KEY)
    vectors = take(settings, VECTOR_KEY)
    if settings:
        raise TypeError(f"make_runtime: unknown options {', '.join(settings)}")
    effective(model)  # a bad value in the environment or the flags fails here, before any work
    VectorSettings().merged(vectors, source="vector flags")
    rt = Runtime(
        contextset if contextset is not None else context_file or set_ref,
        dsn=None if connector is not None else dsn,
        connector=connector,
        dialect=dialect,
        store=store,
        threshold=threshold,  # None: the default of the confidence mode
        statement_timeout=timeout,
        row_cap=row_cap,
        object_list=[o.strip() for o in object_list.split(",") if o.strip()] if object_list else None,
        use_llm=False if no_llm else None,
        model_settings=model,
        model_log=stderr_sink,
        vector_settings=vectors,
        max_question=max_question,
    )
    if conversation:  # the profile option: questions asked without a conversation use session memory
        from ctxtool.conversations.runner import attach_session_memory

        attach_session_memory(rt)
    return rt
