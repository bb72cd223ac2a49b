"""Asking within a conversation: pick the history, resolve follow-ups, answer, remember the turn.

``ConversationRunner(runtime, store=...).ask(question, conversation_id=...)``:

1. The history is the named conversation's last ``conversation_length`` prompts (an explicit
   ``conversation_id``, else the session's current conversation), else -- with the profile option
   ``conversation: true`` -- the session memory of the same profile (10 prompts, never persisted).
   A named conversation in use means the session memory is ignored.
2. A follow-up ("by region", "what about Brno?", "top 5 with a rank", "sort by name", "how many of
   them?") is answered by rewriting the previous query (:mod:`.followup`); anything else goes to the
   runtime, with the history as chat messages (tool results carry ``tool_call_id`` and ``name``) and,
   with chat vectorization on, relevant older messages as "Past events".
3. The turn is stored with its action, profile, SQL, a short result summary, the answer, the
   client's identity and what a later follow-up needs (``state``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

from ctxtool import gate
from ctxtool.compose import ComposeError, SchemaGraph
from ctxtool.conversations import edits
from ctxtool.conversations.followup import LinkedFilter, rewrite
from ctxtool.conversations.fschema import FollowupError, Schema
from ctxtool.conversations.history import history_messages
from ctxtool.conversations.intent import Intent, classify, leans_on_previous
from ctxtool.conversations.model import CONVERSATION_ACTIONS, Turn
from ctxtool.conversations.session import SessionMemory
from ctxtool.conversations.standalone import stands_alone
from ctxtool.conversations.store import ConversationStore
from ctxtool.conversations.vectors import (
    VectorSettings,
    estimate_tokens,
    fit_hits,
    render_past_events,
    retrieve,
    vectorize_turn,
)
from ctxtool.english.content import content_tokens
from ctxtool.english.literals import find_literals
from ctxtool.english.tokens import tokenize
from ctxtool.errors import CtxtoolError, InputError
from ctxtool.limits import checked_question
from ctxtool.runtime.answer import Answer, FacetApplied, TemplateUse, jsonable, narrate
from ctxtool.runtime.core import Runtime
from ctxtool.runtime.execute import rows_text
from ctxtool.runtime.pipeline import AskContext
from ctxtool.runtime.templates import sqlparts
from ctxtool.runtime.templates.vocabulary import table_words

SQL_ACTIONS = ("runsql", "showsql", "explainsql", "narrate")


def summarize(
    columns: Sequence[str], rows: Sequence[Sequence[Any]], truncated: bool = False, limit: int = 240
) -> str:
    """A short result summary kept with the prompt (never the whole result)."""

    if not rows:
        return "no rows"
    head = f"{len(rows)} row(s){' (row cap reached)' if truncated else ''}; columns {', '.join(columns)}"
    first = "; ".join(", ".join(str(jsonable(v)) for v in r) for r in rows[:3])
    text = f"{head}; first: {first}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def answer_state(ans: Any) -> dict[str, Any]:
    """What a follow-up needs from an answer (no rows: only their column names and count)."""

    return {
        "sql": ans.sql,
        "params": jsonable(list(ans.params or [])),
        "dialect": ans.dialect,
        "source": ans.source,
        "status": ans.status,
        "confidence": ans.confidence,
        "template": None if ans.template is None else vars(ans.template).copy(),
        "facets": [vars(f).copy() | {"params": jsonable(f.params)} for f in ans.facets],
        "linked_values": jsonable(ans.linked_values),
        "columns": list(ans.columns or []),
        "row_count": len(ans.rows or []),
    }


def previous_answer(turn: Turn) -> Any:
    """The stored turn as the runtime's ``Answer`` (for the runtime's own follow-up handling)."""

    st = turn.state or {}
    if not st.get("sql"):
        return None
    tpl = st.get("template")
    return Answer(
        question=turn.prompt,
        action=turn.action,
        status=st.get("status") or "answered",
        source=st.get("source"),
        sql=st.get("sql"),
        params=list(st.get("params") or []),
        dialect=st.get("dialect"),
        confidence=float(st.get("confidence") or 0.0),
        template=TemplateUse(**tpl) if isinstance(tpl, dict) else None,
        facets=[FacetApplied(**f) for f in st.get("facets") or [] if isinstance(f, dict)],
        linked_values=list(st.get("linked_values") or []),
        columns=list(st.get("columns") or []),
        text=turn.answer or "",
    )


class ConversationRunner:
    """Answers questions in a conversation over one :class:`ctxtool.runtime.Runtime`."""

    def __init__(
        self,
        runtime: Runtime,
        *,
        store: ConversationStore | None = None,
        profile: str | None = None,
        session_conversation: bool = False,
        memory: SessionMemory | None = None,
        session_key: str | None = None,
        vectors: VectorSettings | None = None,
        embedder: Any = None,
        client_identifier: str | None = "ctxtool",
        client_ip: str | None = None,
    ) -> None:
        self.runtime = runtime
        self.store = store
        self.profile = profile
        self.session_conversation = session_conversation
        self.memory = memory if memory is not None else SessionMemory()
        self.session_key = session_key
        self._vectors = vectors
        self._embedder = embedder
        self.client_identifier = client_identifier
        self.client_ip = client_ip  # a server passes the remote address; local use records none
        self.sid = str(os.getpid())
        self._serial = 0
        self._schema: Schema | None = None
        self._graph: SchemaGraph | None = None

    # -- the pieces -----------------------------------------------------------------------------
    @property
    def vectors(self) -> VectorSettings:
        """The chat-vectorization settings of this runner: the ones given, else the profile's
        (``Runtime(vector_settings=...)``: the CLI's and ``serve``'s flags) over the defaults."""
        if self._vectors is not None:
            return self._vectors
        return VectorSettings().merged(self.runtime.vector_settings, source="vector flags")

    @vectors.setter
    def vectors(self, value: VectorSettings) -> None:
        self._vectors = value

    def vector_settings(self, conversation_id: str | None) -> VectorSettings:
        """The settings in force for a conversation: its own stored settings win over the runner's."""
        base = self.vectors
        if not conversation_id or self.store is None:
            return base
        own = self.store.get_settings(conversation_id).get("vectors")
        return base.merged(own, source=f"conversation {conversation_id}") if own else base

    def summarizer(self, settings: VectorSettings) -> Any:
        """The vector summarizer the settings ask for (None when they summarize nothing)."""
        from ctxtool.conversations.vsummary import summarizer

        return summarizer(self.runtime.llm, settings)

    @property
    def embedder(self) -> Any:
        if self._embedder is None:
            from ctxtool.embeddings import get_embedder

            self._embedder = get_embedder()
        return self._embedder

    def schema(self) -> Schema:
        if self._schema is None:
            try:
                self._schema = Schema.from_snapshot(self.runtime.snapshot())
            except CtxtoolError:
                self._schema = Schema()
        return self._schema

    def current_conversation(self, conversation_id: str | None = None) -> str | None:
        """The named conversation in use: the one given, else the session's current one."""
        if conversation_id:
            return conversation_id
        if self.store is not None and self.session_key:
            return self.store.get_current(self.session_key)
        return None

    def history(self, conversation_id: str | None) -> tuple[str, list[Turn]]:
        """(``"named"`` | ``"session"`` | ``"none"``, the turns to use, oldest first)."""
        if conversation_id:
            if self.store is None:
                raise InputError("a conversation id was given but no conversation store is open")
            _, turns = self.store.context(conversation_id)
            return "named", turns
        if self.session_conversation:
            return "session", self.memory.history(self.profile)
        return "none", []

    # -- asking ---------------------------------------------------------------------------------
    def ask(self, question: str, action: str = "runsql", *, conversation_id: str | None = None) -> Any:
        """Answer ``question`` in the conversation and remember the turn."""
        # read as the runtime will read it: nothing too long or not Unicode reaches the store
        question = checked_question(question, getattr(self.runtime, "max_question_chars", None))
        conversation_id = self.current_conversation(conversation_id)
        mode, turns = self.history(conversation_id)
        ans = self.answer(question, action, turns, conversation_id)
        if action in CONVERSATION_ACTIONS and mode != "none":
            self.remember(mode, conversation_id, question, action, ans)
        return ans

    def answer(
        self, question: str, action: str, turns: Sequence[Turn], conversation_id: str | None = None
    ) -> Any:
        """The answer to ``question`` given the earlier ``turns`` (nothing is stored)."""

        last = next((t for t in reversed(turns) if t.action in SQL_ACTIONS), None)
        previous = last if last is not None and (last.state or {}).get("sql") else None
        intent = classify(question) if last is not None else Intent()
        notes: list[str] = []
        if last is not None and previous is None and action in SQL_ACTIONS:
            # the previous question was declined or asked back: a follow-up of it is not guessed
            # from an older answer
            if leans_on_previous(question) or (intent.kinds and not self._standalone(question)):
                return self._unanswered_previous(question, action, last)
            intent = Intent()
        if previous is not None and action in SQL_ACTIONS:
            others = self._other_entities(intent, previous)
            if others:
                return self._new_entity(question, action, intent, others, turns, conversation_id)
        if (
            previous is not None
            and (intent.kinds or leans_on_previous(question))
            and action in SQL_ACTIONS
            and not self._standalone(question, previous, intent)
        ):
            try:
                return self._composed(question, action, intent, previous)
            except FollowupError as exc:
                if not intent.kinds:
                    notes.append(f"not applied as a follow-up: {exc}")
            if intent.kinds:
                try:
                    return self._followup(question, action, intent, previous)
                except FollowupError as exc:
                    notes.append(f"not applied as a follow-up: {exc}")
        own = self._own_question(question, intent, previous) if previous is not None else None
        context = AskContext(
            history=self.model_history(question, turns, conversation_id),
            # a question of its own does not reuse the previous template with its values either
            previous=previous_answer(previous) if previous is not None and not own else None,
        )
        ans = self.runtime.ask(question, action, context=context)
        if (
            previous is not None
            and not own
            and action in SQL_ACTIONS
            and self._ignores_previous(ans, previous)
        ):
            if leans_on_previous(question):
                return self._not_followed(question, action, previous, notes)
        if (
            ans.status != "answered"
            and previous is not None
            and not own
            and not intent.kinds
            and action in SQL_ACTIONS
        ):
            # an elliptical question without a marker ("Brno?"): try it as a filter on the previous query
            try:
                return self._followup(
                    question, action, Intent(kinds=["filter"], filter_text=question), previous
                )
            except FollowupError:
                pass
        if own and (intent.kinds or ans.status != "answered"):
            notes.append(f"not taken as a follow-up: {own}")
        ans.warnings.extend(notes)
        return ans

    @staticmethod
    def _ignores_previous(ans: Any, previous: Turn) -> bool:
        """Whether ``ans`` is a template's answer of its own, not built on ``previous`` (neither a
        rewrite of it nor its template with new values)."""
        if ans.status != "answered" or ans.source != "template":
            return False
        tpl = (previous.state or {}).get("template") or {}
        return ans.template is None or ans.template.index != tpl.get("index")

    def _unanswered_previous(self, question: str, action: str, last: Turn) -> Any:
        """The answer to a follow-up of a question that was declined or asked back: it says so."""
        status = (last.state or {}).get("status") or "declined"
        why = "asked back" if status == "disambiguate" else "not answered"
        text = (
            f"This follows the previous question {last.prompt!r}, which was {why}; "
            "I do not guess from an older answer. Ask the question in full."
        )
        return self._declined(question, action, text)

    def _declined(self, question: str, action: str, text: str) -> Any:
        return Answer(
            question=question,
            action=action,
            status="declined",
            dialect=self.runtime.dialect,
            explanation=text,
            text=text,
        )

    def _not_followed(self, question: str, action: str, previous: Turn, notes: list[str]) -> Any:
        """A question that leans on the previous answer ("list them with their city") which no edit
        of that answer could follow: declined, not answered over every row of a table."""
        why = "; ".join(notes) or "no edit of the previous query says what it asks"
        text = (
            f"This reads as a follow-up of {previous.prompt!r}, but I could not apply it to that answer "
            f"({why}). Ask the question in full."
        )
        return self._declined(question, action, text)

    def _other_entities(self, intent: Intent, previous: Turn) -> dict[str, str]:
        """Tables a filter follow-up names that the previous query does not read ("what about orders
        in Leeds?" after members), as table -> the word the question uses; words describing a value
        it names ("city" of "the city Leeds") do not count."""
        if intent.kinds != ["filter"] or intent.add_filter or not intent.filter_text:
            return {}

        st = previous.state or {}
        try:
            read = sqlparts.tables_of(st["sql"], st.get("dialect") or self.runtime.dialect)
        except (CtxtoolError, KeyError):
            return {}
        tables = set(self.runtime.table_words) | set(self.schema().names)
        read_words = {w for t in read for w in table_words(t)}
        words: dict[str, str] = {}  # content token -> the word as written
        for tok in tokenize(intent.filter_text):
            for norm in content_tokens(tok.text):
                words.setdefault(norm, tok.text)
        found = {
            t: words[w]
            for t in sorted(tables - read)
            for w in table_words(t)
            if w in words and w not in read_words
        }
        if not found:
            return {}
        for lf in self._link(intent.filter_text, st):
            described = set(table_words(lf.column.split(".")[0])) | set(content_tokens(lf.concept_type))
            found = {t: w for t, w in found.items() if not set(content_tokens(w)) & described}
        return found

    def _new_entity(
        self,
        question: str,
        action: str,
        intent: Intent,
        others: dict[str, str],
        turns: Sequence[Turn],
        conversation_id: str | None,
    ) -> Any:
        """A follow-up about another entity is a new question: the runtime answers it on its own,
        else the question the conversation started from is asked about the new entity ("How many
        members are there?" -> "How many orders are there?") and the rest of the follow-up ("in
        Leeds") filters that."""

        history = self.model_history(question, turns, conversation_id)
        ans = self.runtime.ask(question, action, context=AskContext(history=history))
        if ans.status == "answered" or len(others) != 1:
            return ans
        base = self._reworded(turns, next(iter(others.values())))
        if base is None:
            return ans
        rest = re.sub(
            r"\b" + re.escape(next(iter(others.values()))) + r"\b", " ", intent.filter_text or "", flags=re.I
        ).strip(" ?.!,")
        first = self.runtime.ask(base, "showsql" if rest else action, context=AskContext(history=history))
        if first.status != "answered":
            return ans
        if not rest:
            first.question = question
            first.explanation = (
                f"a new question about {next(iter(others))}, asked as {base!r}: " + first.explanation
            )
            return first
        start = Turn(prompt=base, action="showsql", state=answer_state(first))
        try:
            out = self._followup(question, action, Intent(kinds=["filter"], filter_text=rest), start)
        except FollowupError:
            return ans
        out.explanation = f"a new question about {next(iter(others))}: " + out.explanation
        return out

    def _reworded(self, turns: Sequence[Turn], word: str) -> str | None:
        """The question the conversation's latest template answer came from, with the word naming
        its entity replaced by ``word`` (None when that is not one clear word)."""

        turn = next(
            (
                t
                for t in reversed(turns)
                if (t.state or {}).get("source") == "template" and t.state.get("sql")
            ),
            None,
        )
        if turn is None:
            return None
        try:
            read = sqlparts.tables_of(turn.state["sql"], turn.state.get("dialect") or self.runtime.dialect)
        except CtxtoolError:
            return None
        read_words = {w for t in read for w in table_words(t)}
        hits = [
            m for m in re.finditer(r"[A-Za-z]+", turn.prompt) if set(content_tokens(m.group())) & read_words
        ]
        if len({tuple(content_tokens(m.group())) for m in hits}) != 1:
            return None
        out = turn.prompt
        for m in reversed(hits):
            out = out[: m.start()] + word + out[m.end() :]
        return out

    def _standalone(self, question: str, previous: Turn | None = None, intent: Intent | None = None) -> bool:
        """A complete question a template answers confidently ("How many members are there by
        region?") stands alone, unless its wording leans on the previous answer; so does one with its
        own entity or measure (:mod:`.standalone`)."""
        if leans_on_previous(question):
            return False
        if previous is not None and self._own_question(question, intent or classify(question), previous):
            return True
        try:
            _, candidates = self.runtime.understand(question)
        except CtxtoolError:
            return False
        return bool(candidates) and candidates[0].score >= self.runtime.threshold

    def _own_question(self, question: str, intent: Intent, previous: Turn) -> str | None:
        """Why ``question`` stands on its own after ``previous`` (see :func:`.standalone.stands_alone`)."""

        st = previous.state or {}
        if not st.get("sql") or leans_on_previous(question):
            return None
        return stands_alone(
            content_tokens(question),
            st["sql"],
            st.get("dialect") or self.runtime.dialect,
            self.runtime.table_words,
            intent.kinds,
        )

    def model_history(
        self, question: str, turns: Sequence[Turn], conversation_id: str | None
    ) -> list[dict[str, Any]]:
        """The history as chat messages, with relevant older messages inserted as past events."""
        messages = history_messages(turns)
        if not conversation_id or self.store is None:
            return messages
        settings = self.vector_settings(conversation_id)
        if not settings.enabled:
            return messages
        if self.runtime.llm is None:
            return messages  # nobody reads the past events without a model
        recent = self.store.recent_prompts(conversation_id, max(settings.retain, 3))
        try:
            hits = retrieve(
                self.store,
                conversation_id,
                recent,
                question,
                self.embedder,
                settings,
                self.summarizer(settings),
            )
        except CtxtoolError:
            return messages

        used = sum(estimate_tokens(str(m.get("content") or "")) for m in messages) + estimate_tokens(question)
        fitted = fit_hits(hits, used, settings)
        if not fitted:
            return messages
        # "position" tells the runtime where its own system prompt goes (never sent to the model)
        block = {
            "role": "system",
            "content": render_past_events(fitted, settings),
            "position": settings.position,
        }
        if settings.position in ("after_main", "before_main"):
            return [block, *messages]
        at = max(0, len(messages) + 1 - settings.depth)  # +1: the question comes after the history
        return [*messages[:at], block, *messages[at:]]

    def graph(self) -> SchemaGraph:
        """The schema's tables and foreign keys, for the edits of :mod:`.edits`."""
        if self._graph is None:
            try:
                self._graph = SchemaGraph.from_snapshot(self.runtime.snapshot())
            except CtxtoolError:
                self._graph = SchemaGraph()
        return self._graph

    def _composed(self, question: str, action: str, intent: Intent, previous: Turn) -> Any:
        """The follow-up as an edit of the previous query on its AST (:mod:`.edits`): more columns,
        a time, another measure. Raises :class:`FollowupError` saying why none applies."""
        st = previous.state
        dialect = st.get("dialect") or self.runtime.dialect
        tries = [("columns", edits.project)]
        if set(intent.kinds) <= {"filter"}:
            tries += [("time", edits.retime_or_range), ("measure", edits.add_measure)]
        why = []
        for kind, edit in tries:
            try:
                done = edit(question, st["sql"], st.get("params") or [], dialect, self.graph())
            except ComposeError as exc:
                why.append(f"{kind}: {exc}")
                continue
            return self._edited(question, action, previous, done.sql, done.params, [kind], done.explanation)
        raise FollowupError("; ".join(why))

    def _followup(self, question: str, action: str, intent: Intent, previous: Turn) -> Any:

        st = previous.state
        dialect = st.get("dialect") or self.runtime.dialect
        rw = rewrite(
            question,
            st["sql"],
            st.get("params") or [],
            dialect,
            self.schema(),
            link=lambda text: self._link(text, st),
            facets=self._facets,
            intent=intent,
        )
        return self._edited(question, action, previous, rw.sql, rw.params, rw.kinds, rw.explanation)

    def _edited(
        self,
        question: str,
        action: str,
        previous: Turn,
        sql: str,
        params: list[Any],
        kinds: Sequence[str],
        explanation: Sequence[str],
    ) -> Any:
        """The answer made of an edit of ``previous``'s query, checked read-only like any generated SQL."""
        st = previous.state
        dialect = st.get("dialect") or self.runtime.dialect
        try:
            gate.require(sql, dialect)
            sqlparts.check_allowed_objects(sql, dialect, self.runtime.allowed_objects())
        except (InputError, gate.GateRefused) as exc:
            raise FollowupError(f"the edited query fails the read-only check: {exc}") from None
        tpl = st.get("template")
        ans = Answer(
            question=question,
            action=action,
            status="answered",
            source="followup",
            sql=sql,
            params=params,
            dialect=dialect,
            confidence=float(st.get("confidence") or 0.0),
            template=TemplateUse(**tpl) if isinstance(tpl, dict) else None,
            explanation=f"follow-up of {previous.prompt!r} ({', '.join(kinds)}): " + "; ".join(explanation),
        )
        if action in ("runsql", "narrate"):
            self._execute(ans)
            if ans.status == "answered":
                if action == "narrate":
                    ans.text = narrate(question, None, ans.columns, ans.rows, ans.truncated)
                else:
                    ans.text = rows_text(question, ans)
        elif action == "showsql":
            ans.text = sql
        else:
            ans.text = f"This query answers {question!r} by changing the previous query: " + "; ".join(
                explanation
            )
        return ans

    def _execute(self, ans: Any) -> None:

        self.runtime.execute(ans)

    def _link(self, text: str, state: dict[str, Any]) -> list[LinkedFilter]:
        """Values a filter follow-up names: linked through the set's value searches, and years."""

        literals = find_literals(text)
        out: list[LinkedFilter] = []
        for lv in self.runtime.link_values(text, literals):
            out.append(LinkedFilter(lv.column, lv.value, lv.phrase, lv.concept_type))
        for lit in literals:
            if lit.kind == "number" and str(lit.text).isdigit() and 1900 <= int(lit.text) <= 2100:
                column = self._year_column(state)
                if column:
                    out.append(LinkedFilter(column, int(lit.text), lit.text, "year", part="year"))
        shift = _relative_year(text)
        if shift and not out:
            year = self._previous_year(state)
            column = self._year_column(state)
            if year is not None and column:
                out.append(LinkedFilter(column, year + shift, text, "year", part="year"))
        return out

    def _previous_year(self, state: dict[str, Any]) -> int | None:
        """The year the previous query filtered on (a parameter compared with a year of a date)."""

        dialect = state.get("dialect") or self.runtime.dialect
        params = list(state.get("params") or [])
        for key, slot in sqlparts.slot_columns(state["sql"], dialect).items():
            digits = "".join(c for c in key if c.isdigit())
            if slot.wrapped and digits and int(digits) <= len(params):
                value = params[int(digits) - 1]
                if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
                    return int(value)
        return None

    def _year_column(self, state: dict[str, Any]) -> str | None:
        """The date column a bare year in a follow-up filters on: the one the previous query compares
        a year with, else the date column of its main table."""

        dialect = state.get("dialect") or self.runtime.dialect
        for slot in sqlparts.slot_columns(state["sql"], dialect).values():
            if slot.column and slot.wrapped:
                return slot.column
        tables = sorted(sqlparts.tables_of(state["sql"], dialect))
        schema = self.schema()
        try:
            tree = sqlparts.parse(sqlparts.to_sentinels(state["sql"], dialect, "x")[0], dialect)
            from_ = tree.args.get("from_") or tree.args.get("from")
            main = from_.this.name.lower() if from_ is not None else None
        except (CtxtoolError, AttributeError):
            main = None
        for table in ([main] if main else []) + tables:
            for col in schema.columns.get(table, []):
                if "date" in col.type.lower() or "time" in col.type.lower():
                    return f"{table}.{col.name}"
        return None

    def _facets(self, text: str) -> list[tuple[str, list[Any], str]]:
        """The facet without parameters whose distinctive words the follow-up states best ("only
        women", "for orders not yet paid"): at least half of them, and no other facet as close."""

        q = set(content_tokens(text))
        scored = []
        for facet in self.runtime.facets:
            if facet.slots:
                continue
            tables = {t.lower() for t in facet.tables} | {t.lower().rstrip("s") for t in facet.tables}
            words = set(facet.token_set) - tables
            if not words:
                continue
            cover = len(words & q) / len(words)
            if cover >= 0.5:
                scored.append((cover, facet))
        scored.sort(key=lambda x: -x[0])
        if not scored or (len(scored) > 1 and scored[1][0] == scored[0][0]):
            return []
        facet = scored[0][1]
        return [(facet.sql, [], facet.intent)]

    # -- remembering ----------------------------------------------------------------------------
    def remember(self, mode: str, conversation_id: str | None, question: str, action: str, ans: Any) -> Turn:
        self._serial += 1
        turn = Turn(
            prompt=question,
            action=action,
            profile_name=self.profile,
            sql=ans.sql,
            summary=summarize(ans.columns, ans.rows, ans.truncated) if ans.executed else None,
            # for runsql/showsql the runtime's text is "N row(s)" or the SQL: the summary says more
            answer=(ans.text or None)
            if action in ("narrate", "explainsql", "chat") or not ans.executed
            else None,
            state=answer_state(ans),
            client_identifier=self.client_identifier,
            client_ip=self.client_ip,
            sid=self.sid,
            serial=self._serial,
        )
        if mode == "session":
            self.memory.add(self.profile, turn)
            return turn
        assert self.store is not None and conversation_id is not None
        stored = self.store.add_prompt(conversation_id, turn)
        settings = self.vector_settings(conversation_id)
        if settings.enabled:
            try:
                vectorize_turn(
                    self.store, conversation_id, stored, self.embedder, settings, self.summarizer(settings)
                )
            except CtxtoolError as exc:
                ans.warnings.append(f"chat vectorization skipped: {exc}")
        return stored


_NEXT_YEAR = re.compile(r"\b(?:the )?(?:year after|next year|following year|a year later)\b", re.I)
_PREV_YEAR = re.compile(
    r"\b(?:the )?(?:year before|previous year|prior year|last year|a year earlier)\b", re.I
)


def _relative_year(text: str) -> int:
    """+1 for "the year after", -1 for "the year before", else 0."""
    if _NEXT_YEAR.search(text):
        return 1
    if _PREV_YEAR.search(text):
        return -1
    return 0


def attach_session_memory(runtime: Runtime, profile: str | None = None) -> ConversationRunner:
    """Give ``runtime`` a session memory (the profile option ``conversation: true``): questions it is
    asked without a context are answered by a conversation runner over it, in the memory of the last
    10 prompts of its profile (never stored). Returns the runner."""
    runner = ConversationRunner(runtime, profile=profile or runtime.ref, session_conversation=True)
    runtime.session = runner
    return runner
