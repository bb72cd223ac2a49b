"""The runtime: answer a question from a context set, against the user's database.

``Runtime(set, dsn=...).ask("How many accounts are in Prague?")`` links the question's values, picks
the template (and facets) that answer it, binds the values as parameters, and runs the SQL read-only
(statement timeout, row cap). Below the confidence threshold it returns "Did you mean ...?"
questions or declines; it never runs a guess silently. With a language model configured, questions
no template covers go to the model, whose SQL must be one read-only SELECT over allowed objects.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ctxtool.contextset import ContextSet, normalize_legacy
from ctxtool.dialects import normalize, positional_style
from ctxtool.english.literals import Literal, find_literals
from ctxtool.errors import CtxtoolError, InputError
from ctxtool.limits import checked_question, max_question_chars
from ctxtool.runtime import pipeline
from ctxtool.runtime.answer import ACTIONS, Answer
from ctxtool.runtime.decide.confidence import confidence_mode
from ctxtool.runtime.execute import run as run_sql
from ctxtool.runtime.llm.model import ModelRequired
from ctxtool.runtime.matching.candidate import Candidate
from ctxtool.runtime.matching.matcher import Matcher
from ctxtool.runtime.pipeline import AskContext
from ctxtool.runtime.plan import Plan, plan_from
from ctxtool.runtime.question.linking import LinkedValue, ValueLinker
from ctxtool.runtime.question.question import Question
from ctxtool.runtime.question.spelling import Speller
from ctxtool.runtime.question.values import Entity
from ctxtool.runtime.templates.cache import compiled_set
from ctxtool.runtime.templates.semantic import semantic_index
from ctxtool.sensitive import mentions_secret, reads_secret, secret_columns

DEFAULT_THRESHOLD = 0.7  # of the raw evidence
CALIBRATED_THRESHOLD = 0.9  # of the calibrated probability (ctxtool.runtime.decide.confidence)
DEFAULT_SUGGEST = 0.35


__all__ = ["AskContext", "ModelRequired", "Runtime"]


def _load(contextset: Any, store: Any) -> tuple[dict[str, Any], str | None, str]:
    if isinstance(contextset, dict):
        data, _ = normalize_legacy(contextset)
        return data, None, "<data>"
    if isinstance(contextset, ContextSet):
        return contextset.data, None, contextset.path
    from ctxtool.store import LoadedSet, load_set

    loaded = contextset if isinstance(contextset, LoadedSet) else load_set(str(contextset), store)
    return loaded.data, loaded.dialect, loaded.ref


class Runtime:
    """Answers questions from one context set against one database."""

    def __init__(
        self,
        contextset: Any,
        *,
        dsn: str | None = None,
        connector: Any = None,
        dialect: str | None = None,
        store: Any = None,
        snapshot: dict[str, Any] | None = None,
        llm: Any = None,
        use_llm: bool | None = None,
        model_settings: Any = None,
        model_log: Any = None,
        vector_settings: dict[str, Any] | None = None,
        threshold: float | None = None,
        suggest_threshold: float = DEFAULT_SUGGEST,
        statement_timeout: float = 5.0,
        row_cap: int = 1000,
        object_list: Sequence[str] | None = None,
        max_link_distance: float = 0.35,
        matcher: str | None = None,
        confidence: str | None = None,
        max_question: int | None = None,
    ) -> None:
        self.data, set_dialect, self.ref = _load(contextset, store)
        # the longest question read (default $CTXTOOL_MAX_QUESTION_CHARS, else 2,000 characters)
        self.max_question_chars = max_question_chars(max_question)
        # the profile option ``conversation: true``: questions asked without a context are answered by
        # a session memory (anything with ``ask(question, action)``: the conversation runner
        # ``ctxtool.conversations.attach_session_memory`` composes over this runtime; see ask())
        self.session: Any = None
        self._own_connector = False
        if connector is None and dsn:
            from ctxtool.connectors import connect

            connector = connect(dsn, statement_timeout=statement_timeout, row_cap=row_cap)
            self._own_connector = True
        self.connector = connector
        self.dialect = normalize(
            dialect
            or (getattr(connector, "dialect", None) if connector is not None else None)
            or set_dialect
            or "postgres"
        )
        if set_dialect and positional_style(set_dialect) != positional_style(self.dialect):
            raise InputError(
                f"{self.ref}: the set is written for {set_dialect} placeholders but the database speaks "
                f"{self.dialect}; use the set written for this engine"
            )
        self.confidence = confidence_mode(confidence)
        calibrated = self.calibrated = self.confidence == "calibrated"
        if threshold is None:
            threshold = CALIBRATED_THRESHOLD if calibrated else DEFAULT_THRESHOLD
        self.threshold = threshold
        self.suggest_threshold = suggest_threshold
        self.row_cap = row_cap
        self.object_list = {o.lower().split(".")[-1] for o in object_list} if object_list else None
        self._snapshot = snapshot
        self._secrets: set[tuple[str, str]] | None = None  # the snapshot's secret columns
        self._graph: Any = None
        self._llm = llm
        self._use_llm = use_llm
        # how the model is called (ctxtool.llm.settings): ModelSettings, or the explicit values of a
        # profile over the environment; ``model_log`` writes debug/detailed lines (the CLI: stderr)
        self.model_settings = model_settings
        self.model_log = model_log
        # the profile's chat-vectorization settings (explicit values; a conversation's own win)
        self.vector_settings = dict(vector_settings or {})
        # compiled once per set and dialect, then read back without the SQL parser (templates.cache)
        self.templates, self.facets = compiled_set(self.data, self.dialect)
        semantic, self.matcher_warning = semantic_index(self.templates, matcher)
        self.matcher = Matcher(self.templates, self.facets, semantic=semantic, calibrated=calibrated)
        self.speller = Speller(
            text
            for item in self.templates + self.facets
            for text in (*(p.text for p in item.phrasings), *item.tables, *item.facts.columns)
        )
        self.linker = ValueLinker(
            self.data.get("value_searches") or [],
            connector,
            vocabulary=self.matcher.vocabulary(),
            max_distance=max_link_distance,
        )

    # -- resources ------------------------------------------------------------------------------
    def close(self) -> None:
        if self._own_connector and self.connector is not None:
            self.connector.close()
            self.connector = None

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def llm(self) -> Any:
        """The model (:class:`ctxtool.llm.settings.Model`: the chat client under the settings in
        force), when one is configured (``CTXTOOL_LLM_BASE_URL``) and not turned off; else None."""
        if self._use_llm is False:
            return None
        if self._llm is None:
            from ctxtool.llm import ENV_BASE_URL, ENV_MODEL, ChatClient

            if os.environ.get(ENV_BASE_URL) and os.environ.get(ENV_MODEL):
                self._llm = ChatClient.from_env()
            elif self._use_llm:
                self._llm = ChatClient.from_env()  # raises the "no language model configured" error
        if self._llm is None:
            return None
        from ctxtool.llm.settings import Model, effective

        return Model(self._llm, effective(self.model_settings), self.model_log)

    @property
    def table_words(self) -> dict[str, set[str]]:
        """The set's tables (lower case) -> the words of their names ("orders" -> order)."""
        return self.matcher.set_facts.table_words

    def snapshot(self) -> dict[str, Any]:
        """The schema snapshot (introspected once through the connector when none was given)."""
        if self._snapshot is None:
            if self.connector is None:
                raise InputError("no schema: pass a snapshot or a database (--dsn)")
            self._snapshot = self.connector.introspect()
        return self._snapshot

    def graph(self) -> Any:
        """The schema's tables, column types and foreign keys (:class:`ctxtool.compose.SchemaGraph`),
        built once from the snapshot; empty without one. Composition reads it."""
        if self._graph is None:
            from ctxtool.compose import SchemaGraph  # the SQL parser loads with composition only

            try:
                self._graph = SchemaGraph.from_snapshot(self.snapshot())
            except CtxtoolError:
                self._graph = SchemaGraph()
        return self._graph

    def allowed_objects(self) -> set[str] | None:
        """Tables and views SQL written by a model may read: the ``object_list``, else the snapshot's."""
        if self.object_list is not None:
            return self.object_list
        try:
            snap = self.snapshot()
        except CtxtoolError:
            return None
        return {t["name"].lower() for s in snap.get("schemas", []) for t in s.get("tables", [])}

    def secret_in(self, sql: str) -> str | None:
        """Why ``sql`` would serve a secret column (:mod:`ctxtool.sensitive`), or None. The schema is
        read (introspected once, when none was given) only for SQL whose words name a secret."""
        snap = self._snapshot
        if snap is not None and self._secrets is None:
            self._secrets = secret_columns(snap)  # once: the snapshot does not change
        if not mentions_secret(sql, self._secrets or set()):
            return None
        if snap is None:
            try:
                snap = self.snapshot()
            except CtxtoolError:
                snap = None  # judged by the column names alone
        return reads_secret(sql, self.dialect, snap)

    def list_templates(self) -> list[dict[str, Any]]:
        return [
            {
                "index": t.index,
                "intent": t.intent,
                "nl_query": t.data.get("nl_query"),
                "parameterized_intent": t.parameterized_intent,
                "manifest": t.manifest,
                "slots": [
                    {"key": s.key, "kind": s.kind, "type": s.type_label, "column": s.column} for s in t.slots
                ],
            }
            for t in self.templates
        ]

    def describe_schema(self) -> dict[str, Any]:
        """Tables, columns (type, comment) and keys, for agents and prompts."""
        snap = self.snapshot()
        tables = []
        for s in snap.get("schemas", []):
            for t in s.get("tables", []):
                if self.object_list is not None and t["name"].lower() not in self.object_list:
                    continue
                tables.append(
                    {
                        "schema": s.get("name"),
                        "name": t["name"],
                        "kind": t.get("kind", "table"),
                        "comment": t.get("comment"),
                        "columns": [
                            {"name": c["name"], "type": c.get("type"), "comment": c.get("comment")}
                            for c in t.get("columns", [])
                        ],
                        "primary_key": t.get("primary_key") or [],
                        "foreign_keys": [
                            {
                                "columns": fk.get("columns"),
                                "ref_table": fk.get("ref_table"),
                                "ref_columns": fk.get("ref_columns"),
                            }
                            for fk in t.get("foreign_keys") or []
                        ],
                    }
                )
        return {"dialect": self.dialect, "database": snap.get("database"), "tables": tables}

    @property
    def conversation(self) -> bool:
        """Whether questions asked without a context are answered in a session memory."""
        return self.session is not None

    def link_values(self, text: str, literals: Sequence[Literal] | None = None) -> list[LinkedValue]:
        """The stored values the phrases of ``text`` name (the set's value searches)."""
        return self.linker.link(text, find_literals(text) if literals is None else literals)

    def execute(self, ans: Answer) -> None:
        """Run ``ans.sql`` with its parameters, read-only, and put the rows in ``ans``."""
        run_sql(self.connector, ans, self.row_cap)

    # -- understanding and asking ----------------------------------------------------------------
    def understand(self, question: str) -> tuple[Question, list[Candidate]]:
        """The question read (its slips of the keyboard read as the set's words, its values linked)
        and its ranked candidates, as :meth:`ask` finds them; no SQL is run."""
        asking = pipeline.understand(self, question.strip())
        return asking.question, asking.candidates  # type: ignore[return-value]

    def plan_from(self, cand: Candidate, entities: list[Entity], source: str = "template") -> Plan:
        """SQL and parameters for a candidate (see :func:`ctxtool.runtime.plan.plan_from`)."""
        return plan_from(cand, entities, self.dialect, None, source)

    def ask(
        self,
        question: str,
        action: str = "runsql",
        *,
        context: AskContext | None = None,
        execute: bool | None = None,
    ) -> Answer:
        """Answer ``question`` with ``action`` (runsql, showsql, explainsql, narrate, chat, showprompt):
        the stages of :mod:`ctxtool.runtime.pipeline`, in order.

        ``context`` carries a conversation's history and previous answer for follow-ups. Without one,
        a runtime with a session memory (``session``) answers in it (follow-ups such as "break it
        down by frequency" refine the previous answer); a named conversation passes a context, so the
        session memory is ignored while it is in use.
        """
        if action not in ACTIONS:
            raise InputError(f"unknown action {action!r}: use one of {', '.join(ACTIONS)}")
        question = checked_question(question, self.max_question_chars)
        if self.session is not None and context is None:
            # the session memory resolves follow-ups and calls back with a context
            return self.session.ask(question, action)
        from ctxtool.llm.settings import recording

        ans = Answer(question=question, action=action, status="declined", dialect=self.dialect)
        with recording() as calls:
            pipeline.run(pipeline.Asking(self, question, action, ans, context, execute))
        if calls:  # model calls at the debug or detailed message level
            ans.model_calls = (ans.model_calls or []) + calls
        return ans
