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
from ctxtool.errors import CtxtoolError, DatabaseError, InputError
from ctxtool.runtime import sqlparts
from ctxtool.runtime.answer import ACTIONS, Answer
from ctxtool.runtime.bind import Entity, bind_slots, entities_of
from ctxtool.runtime.compiled import Compiled, compile_item
from ctxtool.runtime.confidence import confident
from ctxtool.runtime.linking import ValueLinker
from ctxtool.runtime.matching import Candidate, Matcher
from ctxtool.runtime.plan import Plan, ambiguity, did_you_mean, plan_from
from ctxtool.runtime.present import explain_sql, narrate_answer
from ctxtool.runtime.sqlverify import review
from ctxtool.runtime.text import content_tokens, find_literals, tokenize

DEFAULT_THRESHOLD = 0.7  # of the raw evidence
CALIBRATED_THRESHOLD = 0.9  # of the calibrated probability (ctxtool.runtime.confidence)
DEFAULT_SUGGEST = 0.35


class ModelRequired(CtxtoolError):
    """An action that needs a language model was asked for without one."""


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
        """The chat client, when one is configured (``CTXTOOL_LLM_BASE_URL``) and not turned off."""
        if self._use_llm is False:
            return None
        if self._llm is None:
            import os

            from ctxtool.llm import ENV_BASE_URL, ENV_MODEL, ChatClient

            if os.environ.get(ENV_BASE_URL) and os.environ.get(ENV_MODEL):
                self._llm = ChatClient.from_env()
            elif self._use_llm:
                self._llm = ChatClient.from_env()  # raises the "no language model configured" error
        return self._llm

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
        """The question's values, the ranked candidates and the linked values (no SQL run)."""
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

    def _followup(self, question: str, entities: list[Entity], previous: Answer) -> Candidate | None:
        """Reuse the previous answer's template with this question's values ("and in Pisek?")."""
        if previous.template is None or previous.source not in ("template", "followup"):
            return None
        tpl = next((t for t in self.templates if t.index == previous.template.index), None)
        if tpl is None or not entities:
            return None
        bindings = bind_slots(tpl.slots, entities, set())
        if bindings is None:
            return None
        used = {i for i, _ in bindings.values()}
        if len(used) < len(entities):
            return None
        score = min(self.threshold + 0.05, previous.confidence)
        return Candidate(
            template=tpl,
            phrasing=0,
            score=round(score, 4),
            bindings=bindings,
            q_cov=1.0,
            t_cov=1.0,
            reasons=[f"follow-up of {previous.question!r}: same template with the new values"],
        )

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
        question = question.strip()
        if self.conversation and context is None:
            # session memory: the conversation runner resolves follow-ups and calls back with a context
            return self.session_runner().ask(question, action)
        t0 = time.perf_counter()
        ans = Answer(question=question, action=action, status="declined", dialect=self.dialect)
        if action == "chat":
            return self._chat(question, context, ans)
        entities, cands, links = self.understand(question)
        ans.linked_values = links
        if self.connector is None and self.linker.value_searches:
            ans.warnings.append("values were not linked: there is no database (give --dsn)")
        ans.warnings.extend(self.linker.warnings)
        self.linker.warnings.clear()
        if self._matcher_warning:
            ans.warnings.append(self._matcher_warning)
        t1 = time.perf_counter()
        ans.timings_ms["understand"] = round((t1 - t0) * 1000, 3)

        plan: Plan | None = None
        best = cands[0] if cands else None
        sure = best is not None and confident(best, cands, self.threshold, self.confidence == "calibrated")
        if context and context.previous and not sure:
            follow = self._followup(question, entities, context.previous)
            if follow is not None:
                plan = self.plan_from(follow, entities, "followup")
        if plan is None and best is not None and sure:
            rivals = ambiguity(best, entities, self.dialect)
            close = [
                c for c in cands[1:] if c.score >= best.score - 0.02 and c.template.sql != best.template.sql
            ]
            if rivals:
                ans.status = "disambiguate"
                ans.disambiguation = rivals
            elif close:
                ans.status = "disambiguate"
                ans.disambiguation = [did_you_mean(c, entities, self.dialect) for c in [best, *close][:4]]
            else:
                try:
                    plan = self.plan_from(best, entities)
                except (sqlparts.InjectError, InputError) as exc:
                    ans.warnings.append(f"template #{best.template.index} could not take its facets: {exc}")
        if action == "showprompt":
            ans.prompt = self._llm_messages(question, entities, cands, links, context)
            ans.status = "answered"
            ans.text = "the prompt that would be sent to the language model"
            if plan is not None:
                self._apply_plan(ans, plan)
            return ans
        if plan is None and ans.status != "disambiguate" and self.llm is not None:
            plan = self._llm_plan(question, entities, cands, links, context, ans)
        if plan is None:
            if ans.status != "disambiguate":
                suggestions = [c for c in cands if c.score >= self.suggest_threshold][:3]
                if suggestions:
                    ans.status = "disambiguate"
                    ans.disambiguation = [did_you_mean(c, entities, self.dialect) for c in suggestions]
                    ans.text = "No confident answer; did you mean one of these?"
                else:
                    ans.status = "declined"
                    ans.text = "No confident answer: no template of this set covers the question."
            else:
                ans.text = "The question is ambiguous; did you mean one of these?"
            if best is not None:
                ans.confidence = best.score
                ans.explanation = (
                    f'closest template #{best.template.index} "{best.template.parameterized_intent}" '
                    f"scored {best.score:.2f} (threshold {self.threshold:.2f})"
                    + (f"; words not covered: {', '.join(best.unexplained)}" if best.unexplained else "")
                    + ("; " + "; ".join(best.reasons) if best.reasons else "")
                )
            ans.timings_ms["total"] = round((time.perf_counter() - t0) * 1000, 3)
            return ans
        self._apply_plan(ans, plan)
        ans.timings_ms["plan"] = round((time.perf_counter() - t1) * 1000, 3)
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
                    ans.text = (
                        f"No data found for: {question}"
                        if not ans.rows
                        else f"{len(ans.rows)} row(s)" + (" (row cap reached)" if ans.truncated else "")
                    )
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
        if self.connector is None:
            raise InputError("no database to run the SQL on: give --dsn (or use --action showsql)")
        t = time.perf_counter()
        try:
            result = self.connector.query(ans.sql, ans.params, max_rows=self.row_cap)
        except DatabaseError as exc:
            if getattr(exc, "transient", False):  # no database session just now: no answer, try again
                raise
            ans.status = "error"
            ans.error = str(exc)
            ans.text = f"The query failed: {exc}"
            return
        finally:
            ans.timings_ms["execute"] = round((time.perf_counter() - t) * 1000, 3)
        ans.columns = list(result.columns)
        ans.rows = [list(r) for r in result.rows]
        ans.truncated = bool(result.truncated)
        ans.executed = True

    # -- words --------------------------------------------------------------------------------------
    # -- the language model -------------------------------------------------------------------------
    def _llm_messages(
        self,
        question: str,
        entities: list[Entity],
        cands: list[Candidate],
        links: list[dict[str, Any]],
        context: AskContext | None,
    ) -> list[dict[str, Any]]:
        from ctxtool.runtime import llmsql

        examples = [c.template for c in cands[:3]]
        if len(examples) < 3:
            extra = self.matcher.template_index.candidates(set(self.matcher.question_tokens(question, [])), 3)
            for i in extra:
                if self.templates[i] not in examples:
                    examples.append(self.templates[i])
        try:
            schema = self.describe_schema()
        except CtxtoolError:
            schema = {"dialect": self.dialect, "tables": []}
        return llmsql.build_messages(
            question,
            self.dialect,
            schema,
            examples[:3],
            links,
            history=(context.history if context else []),
            allowed=self.allowed_objects(),
        )

    def _llm_plan(
        self,
        question: str,
        entities: list[Entity],
        cands: list[Candidate],
        links: list[dict[str, Any]],
        context: AskContext | None,
        ans: Answer,
    ) -> Plan | None:
        from ctxtool.runtime import llmsql

        messages = self._llm_messages(question, entities, cands, links, context)
        try:
            sql, errors = llmsql.generate_sql(self.llm, messages, lambda s: self._check_model_sql(s))
        except CtxtoolError as exc:
            ans.warnings.append(f"the language model failed: {exc}")
            return None
        for e in errors:
            ans.warnings.append(f"model SQL rejected: {e}")
        if sql is None:
            return None
        return Plan(
            sql,
            [],
            "llm",
            0.0,
            "no template covers the question; the language model wrote the SQL from the schema, "
            f"{min(3, len(self.templates))} similar templates and {len(links)} linked value(s); it passed the "
            "read-only and allowed-objects checks",
        )

    def _check_model_sql(self, sql: str) -> None:
        sqlparts.check_read_only_select(sql, self.dialect, self.allowed_objects())
        if self.connector is not None:
            try:
                self.connector.plan(sql)
            except DatabaseError as exc:
                raise InputError(f"the database rejects it: {exc}") from None

    def _chat(self, question: str, context: AskContext | None, ans: Answer) -> Answer:
        if self.llm is None:
            raise ModelRequired(
                "the chat action needs a language model: set CTXTOOL_LLM_BASE_URL and CTXTOOL_LLM_MODEL "
                "(e.g. http://localhost:11434/v1 for Ollama)"
            )
        from ctxtool.runtime.llmsql import history_for_model

        history = history_for_model(context.history if context else [])
        messages = [*history, {"role": "user", "content": question}]
        reply = self.llm.chat(messages, temperature=0)
        ans.status = "answered"
        ans.source = "model"
        ans.text = reply.content or ""
        return ans
