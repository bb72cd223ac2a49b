"""``draft --llm``: a language model proposes more question/SQL pairs and better wording.

The model sees a compact description of the schema (plain-English names, comments, a few values) and
the drafts so far, and answers in JSON. Nothing it says is trusted: each proposal becomes a draft that
goes through the same checks as the offline ones (parameterize, validate, execute), and a rewording is
taken only if the item still parameterizes exactly with the new words.
"""

from __future__ import annotations

from ctxtool.draft.drafts import Draft, facet, template
from ctxtool.draft.model import Model
from ctxtool.llm import ChatClient, LLMError
from ctxtool.parameterize import parameterize_item

MAX_PROPOSALS = 20
MAX_LISTED = 200  # drafts shown to the model (the prompt stays small on wide schemas)

SYSTEM = (
    "You help write a context set for natural-language-to-SQL: example questions with the exact SQL "
    "that answers them. SQL must be read-only, valid for the {dialect} dialect, use only the tables and "
    "columns given (quote identifiers exactly as shown), and contain concrete values (no placeholders). "
    "Every value in the SQL must appear literally in the question (strings in single quotes). "
    "Answer with one JSON object only."
)

ASK_TEMPLATES = (
    "Schema:\n{schema}\n\nExisting drafts (id: question):\n{drafts}\n\n"
    "1. Propose up to {n} NEW questions people would ask of this database, each with its SQL, "
    "different from the drafts. Prefer joins and filters real users need.\n"
    "2. Reword drafts whose question reads awkwardly; keep every value exactly as written.\n"
    'Reply as {{"proposals": [{{"question": "...", "sql": "..."}}], '
    '"rewordings": [{{"id": 0, "question": "..."}}]}}'
)

ASK_FACETS = (
    "Schema:\n{schema}\n\nExisting facets (id: meaning -> condition):\n{drafts}\n\n"
    "1. Propose up to {n} NEW facets: reusable SQL boolean conditions on ONE table, every column "
    "written table.column (no aliases), each with its meaning in words (values written literally).\n"
    "2. Reword facet meanings that read awkwardly; keep every value exactly as written.\n"
    'Reply as {{"proposals": [{{"intent": "...", "sql_snippet": "...", "table": "..."}}], '
    '"rewordings": [{{"id": 0, "intent": "..."}}]}}'
)


def describe_schema(model: Model, values: int = 3) -> str:
    lines = []
    for t in model.tables:
        cols = []
        for c in t.columns:
            bits = [f"{model.ident(c.name)} {c.type}"]
            if c.label and c.label != c.name:
                bits.append(f"-- {c.label}")
            sample = [v for v in c.common_values[:values]] if (c.is_categorical or c.is_name) else []
            if sample:
                bits.append("e.g. " + ", ".join(repr(v) for v in sample))
            cols.append(" ".join(bits))
        keys = f" PRIMARY KEY ({', '.join(t.primary_key)})" if t.primary_key else ""
        lines.append(f"TABLE {model.table_sql(t)} ({t.names.plural}){keys}:\n  " + "\n  ".join(cols))
    for j in model.joins:
        on = model.join_on(j)
        lines.append(f"JOIN {j.child.name} -> {j.parent.name} ON {on}")
    return "\n".join(lines)


def improve(client: ChatClient, model: Model, kind: str, drafts: list[Draft]) -> tuple[list[Draft], str]:
    """New drafts proposed by the model (unchecked), after applying its rewordings to ``drafts``.
    Returns the new drafts and a one-line note for the report."""
    listing = "\n".join(
        f"{i}: {d.text}" if kind == "templates" else f"{i}: {d.text} -> {d.sql}"
        for i, d in enumerate(drafts[:MAX_LISTED])
    )
    ask = ASK_TEMPLATES if kind == "templates" else ASK_FACETS
    messages = [
        {"role": "system", "content": SYSTEM.format(dialect=model.dialect)},
        {
            "role": "user",
            "content": ask.format(schema=describe_schema(model), drafts=listing, n=MAX_PROPOSALS),
        },
    ]
    try:
        reply = client.chat(
            messages, temperature=0.2, max_tokens=4000, response_format={"type": "json_object"}
        )
        data = reply.json()
    except LLMError as exc:
        return [], f"language model not used: {exc}"
    if not isinstance(data, dict):
        return [], "language model not used: its reply is not a JSON object"
    reworded = 0
    for r in data.get("rewordings") or []:
        if not isinstance(r, dict) or not isinstance(r.get("id"), int) or not 0 <= r["id"] < len(drafts):
            continue
        d = drafts[r["id"]]
        field = "nl_query" if kind == "templates" else "intent"
        text = r.get("question") if kind == "templates" else r.get("intent")
        if not isinstance(text, str) or not text.strip() or d.status == "dropped":
            continue
        candidate = dict(d.item)
        candidate[field] = text.strip()
        if kind == "templates":
            candidate.pop("intent", None)
        res = parameterize_item(candidate, kind, model.dialect)
        before = parameterize_item(d.item, kind, model.dialect)
        # keep the new words only if they carry the same parameters as the old ones
        if not res.problems and len(res.derived.params) == len(before.derived.params):
            d.item = candidate
            d.redescribe = None
            reworded += 1
    new: list[Draft] = []
    for p in (data.get("proposals") or [])[:MAX_PROPOSALS]:
        if not isinstance(p, dict):
            continue
        if kind == "templates":
            q, sql = p.get("question"), p.get("sql")
            if isinstance(q, str) and isinstance(sql, str) and q.strip() and sql.strip():
                new.append(template(q.strip(), sql.strip().rstrip(";"), "llm", []))
        else:
            intent, snippet, table = p.get("intent"), p.get("sql_snippet"), p.get("table")
            if isinstance(intent, str) and isinstance(snippet, str) and isinstance(table, str):
                if model.table(table) is not None:
                    new.append(facet(intent.strip(), snippet.strip(), "llm", model.table(table).name))
    return new, f"language model {client.model}: {len(new)} proposals, {reworded} rewordings taken"
