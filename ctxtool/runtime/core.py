"""The runtime: answer a question from a context set, against the user's database.

``Runtime(set, dsn=...).ask("How many accounts are in Prague?")`` links the question's values, picks
the template (and facets) that answer it, binds the values as parameters, and runs the SQL read-only
(statement timeout, row cap). Below the confidence threshold it returns "Did you mean ...?"
questions or declines; it never runs a guess silently. With a language model configured, questions
no template covers go to the model, whose SQL must be one read-only SELECT over allowed objects.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxtool.dialects import normalize, positional_style
from ctxtool.errors import CtxtoolError, InputError
from ctxtool.runtime import modelsql
from ctxtool.runtime.answer import ACTIONS, Answer
from ctxtool.runtime.bind import Entity, entities_of
from ctxtool.runtime.compiled import Compiled, compile_item
from ctxtool.runtime.confidence import confident
from ctxtool.runtime.decide import ask_back, choose
from ctxtool.runtime.execute import rows_text
from ctxtool.runtime.execute import run as execute_stage
from ctxtool.runtime.linking import ValueLinker
from ctxtool.runtime.matching import Candidate, Matcher
from ctxtool.runtime.modelsql import ModelRequired
from ctxtool.runtime.plan import Plan, plan_from
from ctxtool.runtime.present import explain_sql, narrate_answer
from ctxtool.runtime.previous import previous_candidate
from ctxtool.runtime.spelling import Speller
from ctxtool.runtime.sqlverify import review
from ctxtool.runtime.text import content_tokens, find_literals, tokenize

DEFAULT_THRESHOLD = 0.7  # of the raw evidence
CALIBRATED_THRESHOLD = 0.9  # of the calibrated probability (ctxtool.runtime.confidence)
DEFAULT_SUGGEST = 0.35


__all__ = ["AskContext", "ModelRequired", "Runtime"]


@dataclass
class AskContext:
    """What a conversation knows before this question: earlier turns (``{"role", "content"}``, oldest
    first; sent to the model) and the previous answer (a follow-up such as "and in Pisek?" reuses its
    template with the new values)."""

    history: list[dict[str, Any]] = field(default_factory=list)
    previous: Answer | None = None


def _load(contextset: Any, store: Any) -> tuple[dict[str, Any], str | None, str]:
    from ctxtool.contextset import ContextSet

    if isinstance(contextset, dict):
        from ctxtool.contextset import normalize_legacy

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
        conversation: bool = False,
        matcher: str | None = None,
        confidence: str | None = None,
    ) -> None:
        self.data, set_dialect, self.ref = _load(contextset, store)
        # the profile option ``conversation: true``: questions asked without a context are answered
        # in session memory (the last 10 prompts of this profile, never stored; see ask())
        self.conversation = conversation
        self._session_runner: Any = None
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
        from ctxtool.runtime.confidence import confidence_mode

        self.confidence = confidence_mode(confidence)
        calibrated = self.confidence == "calibrated"
        if threshold is None:
            threshold = CALIBRATED_THRESHOLD if calibrated else DEFAULT_THRESHOLD
        self.threshold = threshold
        self.suggest_threshold = suggest_threshold
        self.row_cap = row_cap
        self.object_list = {o.lower().split(".")[-1] for o in object_list} if object_list else None
        self._snapshot = snapshot
        self._local = threading.local()  # the question being answered, per thread (servers share a runtime)
        self._llm = llm
        self._use_llm = use_llm
        # how the model is called (ctxtool.llm.settings): ModelSettings, or the explicit values of a
        # profile over the environment; ``model_log`` writes debug/detailed lines (the CLI: stderr)
        self.model_settings = model_settings
        self.model_log = model_log
        # the profile's chat-vectorization settings (explicit values; a conversation's own win)
        self.vector_settings = dict(vector_settings or {})
        self.templates: list[Compiled] = [
            compile_item("template", i, t, self.dialect)
            for i, t in enumerate(self.data.get("templates") or [])
            if isinstance(t, dict)
        ]
        self.facets: list[Compiled] = [
            compile_item("facet", i, f, self.dialect)
            for i, f in enumerate(self.data.get("facets") or [])
            if isinstance(f, dict)
        ]
        from ctxtool.runtime.candidates import semantic_index

        semantic, self._matcher_warning = semantic_index(self.templates, matcher)
        self.matcher = Matcher(self.templates, self.facets, semantic=semantic, calibrated=calibrated)
        self.speller = Speller(
            text
            for item in self.templates + self.facets
            for text in (*(p.text for p in item.phrasings), *item.tables, *item.reads.columns)
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
            import os

            from ctxtool.llm import ENV_BASE_URL, ENV_MODEL, ChatClient

            if os.environ.get(ENV_BASE_URL) and os.environ.get(ENV_MODEL):
                self._llm = ChatClient.from_env()
            elif self._use_llm:
                self._llm = ChatClient.from_env()  # raises the "no language model configured" error
        if self._llm is None:
            return None
        from ctxtool.llm.settings import Model, effective

        return Model(self._llm, effective(self.model_settings), self.model_log)

    def snapshot(self) -> dict[str, Any]:
        """The schema snapshot (introspected once through the connector when none was given)."""
        if self._snapshot is None:
            if self.connector is None:
                raise InputError("no schema: pass a snapshot or a database (--dsn)")
            self._snapshot = self.connector.introspect()
        return self._snapshot

    def allowed_objects(self) -> set[str] | None:
        """Tables and views SQL written by a model may read: the ``object_list``, else the snapshot's."""
        if self.object_list is not None:
            return self.object_list
        try:
            snap = self.snapshot()
        except CtxtoolError:
            return None
        return {t["name"].lower() for s in snap.get("schemas", []) for t in s.get("tables", [])}

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

    def session_runner(self) -> Any:
        """The :class:`ctxtool.conversations.ConversationRunner` keeping this profile's session memory
        (``conversation=True``): the last 10 prompts, in memory only."""
        if self._session_runner is None:
            from ctxtool.conversations.runner import ConversationRunner

            self._session_runner = ConversationRunner(self, profile=self.ref, session_conversation=True)
        return self._session_runner

    # -- understanding ----------------------------------------------------------------------------
    @property
    def _surface(self) -> dict[str, str]:
        """Normalized token -> the word as the user wrote it (for explanations), of this thread's question."""
        return getattr(self._local, "surface", {})

    def understand(self, question: str) -> tuple[list[Entity], list[Candidate], list[dict[str, Any]]]:
        """The question's values, the ranked candidates and the linked values (no SQL run), its
        slips of the keyboard read as the set's words as :meth:`ask` reads them (the entities'
        offsets are in that reading)."""
        return self._understand(self.speller.correct(question)[0])

    def _understand(self, question: str) -> tuple[list[Entity], list[Candidate], list[dict[str, Any]]]:
        # normalized token -> the word as the user wrote it (for explanations)
        surface: dict[str, str] = {}
        for tok in tokenize(question):
            for norm in content_tokens(tok.text):
                surface.setdefault(norm, tok.text)
        self._local.surface = surface
        literals = find_literals(question)
        links = self.linker.link(question, literals)
        entities = entities_of(literals, links)
        cands = self.matcher.rank(question, entities)
        cands = review(
            question,
            entities,
            cands,
            self.matcher.question_tokens(question, entities),
            self.dialect,
            self.matcher,
        )
        return entities, cands, [lv.to_dict() for lv in links]

    def plan_from(self, cand: Candidate, entities: list[Entity], source: str = "template") -> Plan:
        """SQL and parameters for a candidate (see :func:`ctxtool.runtime.plan.plan_from`)."""
        return plan_from(cand, entities, self.dialect, self._surface, source)

    # -- asking ---------------------------------------------------------------------------------
    def ask(
        self,
        question: str,
        action: str = "runsql",
        *,
        context: AskContext | None = None,
        execute: bool | None = None,
    ) -> Answer:
        """Answer ``question`` with ``action`` (runsql, showsql, explainsql, narrate, chat, showprompt).

        ``context`` carries a conversation's history and previous answer for follow-ups. Without one,
        a runtime made with ``conversation=True`` answers in its session memory (follow-ups such as
        "break it down by frequency" refine the previous answer); a named conversation
        (:class:`ctxtool.conversations.ConversationRunner` with a ``conversation_id``) always passes a
        context, so the session memory is ignored while it is in use.
        """
        if action not in ACTIONS:
            raise InputError(f"unknown action {action!r}: use one of {', '.join(ACTIONS)}")
        if not isinstance(question, str) or not question.strip():
            raise InputError("the question is empty; ask something")
        from ctxtool.llm.settings import recording

        with recording() as calls:
            ans = self._ask(question.strip(), action, context, execute)
        if calls:  # model calls at the debug or detailed message level
            ans.model_calls = (ans.model_calls or []) + calls
        return ans

    def _ask(self, question: str, action: str, context: AskContext | None, execute: bool | None) -> Answer:
        if self.conversation and context is None:
            # session memory: the conversation runner resolves follow-ups and calls back with a context
            return self.session_runner().ask(question, action)
        t0 = time.perf_counter()
        ans = Answer(question=question, action=action, status="declined", dialect=self.dialect)
        question, slips = self.speller.correct(question)
        if slips:
            ans.warnings.append("read " + ", ".join(f"'{a}' as '{b}'" for a, b in slips.items()))
        history = context.history if context else []
        if action == "chat":
            return modelsql.chat(self.llm, question, history, ans)
        # understand: the question's values and the ranked candidates
        entities, cands, links = self._understand(question)
        ans.linked_values = links
        if self.connector is None and self.linker.value_searches:
            ans.warnings.append("values were not linked: there is no database (give --dsn)")
        ans.warnings.extend(self.linker.warnings)
        self.linker.warnings.clear()
        if self._matcher_warning:
            ans.warnings.append(self._matcher_warning)
        t1 = time.perf_counter()
        ans.timings_ms["understand"] = round((t1 - t0) * 1000, 3)

        # decide and plan: the previous answer's template with new values, else the best candidate
        plan: Plan | None = None
        best = cands[0] if cands else None
        sure = best is not None and confident(best, cands, self.threshold, self.confidence == "calibrated")
        if context and context.previous and not sure:
            follow = previous_candidate(self.templates, entities, context.previous, self.threshold)
            if follow is not None:
                plan = self.plan_from(follow, entities, "followup")
        if plan is None and sure:
            plan = choose(cands, entities, self.dialect, lambda c: self.plan_from(c, entities), ans)
        if action == "showprompt":
            ans.prompt = modelsql.messages(self, question, cands, links, history)
            ans.status = "answered"
            ans.text = "the prompt that would be sent to the language model"
            if plan is not None:
                self._apply_plan(ans, plan)
            return ans
        if plan is None and ans.status != "disambiguate" and self.llm is not None:
            plan = modelsql.plan(self, question, cands, links, history, ans)
        if plan is None:
            ask_back(ans, cands, entities, self.threshold, self.suggest_threshold, self.dialect)
            ans.timings_ms["total"] = round((time.perf_counter() - t0) * 1000, 3)
            return ans
        self._apply_plan(ans, plan)
        ans.timings_ms["plan"] = round((time.perf_counter() - t1) * 1000, 3)

        # execute and present
        run = execute if execute is not None else action in ("runsql", "narrate")
        if action == "explainsql":
            ans.text = explain_sql(self.llm, ans, plan, self.dialect)
        elif action == "showsql":
            ans.text = ans.sql or ""
        if run:
            self._execute(ans)
            if ans.status == "answered":
                if action == "narrate":
                    ans.text = narrate_answer(self.llm, ans, plan)
                elif action == "runsql":
                    ans.text = rows_text(question, ans)
        ans.timings_ms["total"] = round((time.perf_counter() - t0) * 1000, 3)
        return ans

    def _apply_plan(self, ans: Answer, plan: Plan) -> None:
        ans.status = "answered"
        ans.sql = plan.sql
        ans.params = plan.params
        ans.source = plan.source
        ans.confidence = plan.confidence
        ans.explanation = plan.explanation
        ans.template = plan.template
        ans.facets = plan.facets
        ans.bindings = plan.bindings

    def _execute(self, ans: Answer) -> None:
        execute_stage(self.connector, ans, self.row_cap)
