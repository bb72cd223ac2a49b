"""Derive the manifest and the parameterized forms of templates and facets, offline and exactly.

For one item: the values of its SQL (:mod:`ctxtool.parameterize.extract`) are aligned with their
phrases in the intent (:mod:`ctxtool.parameterize.align`), longest phrase first and without overlaps;
each value that the intent mentions becomes a placeholder (the same value twice, the same placeholder),
the others stay literal. The forms are then read back with the placeholder finders every other part
of ctxtool uses, and the original texts are spliced back in: if that does not reproduce the concrete
intent and SQL exactly, nothing is emitted and the item is reported instead.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ctxtool.dialects import normalize
from ctxtool.errors import CtxtoolError, InputError
from ctxtool.parameterize.align import Span, candidate_spans
from ctxtool.parameterize.extract import LogicLiteral, SqlValue, extract_values
from ctxtool.parameterize.types import manifest_type, value_search_columns
from ctxtool.placeholders import find_sql_placeholders, find_text_placeholders

TEMPLATE_FIELDS = ("parameterized_intent", "parameterized_sql")
FACET_FIELDS = ("parameterized_intent", "parameterized_sql_snippet")


@dataclass
class Param:
    """One parameter: its placeholder, its type, and how the intent and the SQL write it."""

    placeholder: str  # "$1" or "?"
    type: str
    value: str  # the SQL value (a LIKE pattern without its wildcards)
    intent_texts: list[str]  # each mention in the intent, as written
    sql_texts: list[str]  # each occurrence in the SQL, as written

    def to_dict(self) -> dict[str, Any]:
        return {
            "placeholder": self.placeholder,
            "type": self.type,
            "value": self.value,
            "intent_texts": self.intent_texts,
            "sql_texts": self.sql_texts,
        }


@dataclass
class Derived:
    """The forms derived for one intent and SQL, or the problems that prevent them."""

    manifest: str | None = None
    parameterized_intent: str | None = None
    parameterized_sql: str | None = None
    params: list[Param] = field(default_factory=list)
    literals: list[str] = field(default_factory=list)  # values kept literal, and why
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


class ItemResult(dict):
    """The completed item (a plain dict, ready to write), with what was derived for it:
    ``derived`` (:class:`Derived`), ``changed`` and ``problems``."""

    derived: Derived
    changed: bool

    @property
    def problems(self) -> list[str]:
        return self.derived.problems


def _kind(kind: str) -> str:
    k = kind.lower().rstrip("s")
    if k in ("template",):
        return "templates"
    if k in ("facet", "fragment"):
        return "facets"
    raise CtxtoolError(f"unknown item kind {kind!r}: use templates or facets")


def derive(
    intent: str,
    sql: str,
    dialect: str,
    *,
    snippet: bool = False,
    snapshot: Mapping[str, Any] | None = None,
    vs_columns: Mapping[str, str] | None = None,
) -> Derived:
    """Manifest and parameterized intent/SQL for a concrete ``intent`` and ``sql``."""
    dialect = normalize(dialect)
    out = Derived()
    if not intent.strip():
        out.problems.append("the intent is empty: write what the question asks")
        return out
    early = [p for p in find_text_placeholders(intent, dialect) if p.kind != "qmark"]
    if early:
        shown = intent[early[0].start : early[0].end]
        out.problems.append(
            f"the intent contains {shown!r}, which reads as a placeholder "
            f"({'$1..$n on postgres' if early[0].kind == 'numbered' else 'the value-search placeholder'}): "
            "reword it (an amount as '10,000 dollars' or 'USD 10,000')"
        )
        return out
    try:
        extraction = extract_values(sql, dialect, snippet=snippet)
    except CtxtoolError as exc:
        out.problems.append(str(exc))
        return out
    values = extraction.values
    if snippet:
        for v in values:
            if v.table == "ctxtool_facet":
                v.table = None
    out.literals.extend(_describe_logic(lit) for lit in extraction.logic)

    # group the SQL values: the same value twice is one parameter
    keys: list[tuple[str, str]] = []
    groups: dict[tuple[str, str], list[SqlValue]] = {}
    for v in values:
        if v.key not in groups:
            keys.append(v.key)
            groups[v.key] = []
        groups[v.key].append(v)

    # candidate phrases, longest first, never overlapping
    candidates: list[tuple[Span, int]] = []
    for gi, key in enumerate(keys):
        spans: set[Span] = set()
        for v in groups[key]:
            spans.update(candidate_spans(intent, v))
        candidates.extend((s, gi) for s in spans)
    candidates.sort(key=lambda c: (-(c[0].end - c[0].start), c[0].start, c[1]))
    taken: list[tuple[Span, int]] = []
    for span, gi in candidates:
        if any(span.start < t.end and t.start < span.end for t, _ in taken):
            continue
        taken.append((span, gi))
    taken.sort(key=lambda c: c[0].start)
    mentioned = {gi for _, gi in taken}
    for gi, key in enumerate(keys):
        if gi not in mentioned:
            for v in groups[key]:
                out.literals.append(f"{v.sql_text} stays literal: the intent does not mention {v.phrase!r}")

    qmark = dialect != "postgres"
    if not qmark:
        # one $n stands for one text in the intent and one in the SQL
        for gi in sorted(mentioned):
            said = sorted({intent[s.start : s.end] for s, g in taken if g == gi})
            if len(said) > 1:
                out.problems.append(
                    f"the intent writes one value in different ways ({', '.join(map(repr, said))}): "
                    "one placeholder gives back only one of them; write it the same way each time"
                )
                return out
            written = sorted({v.sql_text for v in groups[keys[gi]]})
            if len(written) > 1:
                out.problems.append(
                    f"the SQL writes one value in different ways ({', '.join(written)}): "
                    "one placeholder gives back only one of them; write it the same way each time"
                )
                return out
    sql_occurrences = [(v, keys.index(v.key)) for v in values if keys.index(v.key) in mentioned]
    if qmark:
        intent_order = [gi for _, gi in taken]
        sql_order = [gi for _, gi in sql_occurrences]
        if intent_order != sql_order:
            out.problems.append(_order_problem(intent, taken, sql_occurrences, keys, groups))
            return out
        numbers: dict[int, int] = {}
    else:
        numbers = {}
        for _, gi in taken:
            numbers.setdefault(gi, len(numbers) + 1)

    def ph(gi: int) -> str:
        return "?" if qmark else f"${numbers[gi]}"

    types = {
        gi: manifest_type(groups[keys[gi]], _phrase(intent, taken, gi), snapshot, vs_columns or {})
        for gi in mentioned
    }

    # emit the intent and the manifest
    p_intent, intent_marks = _splice(intent, [(s.start, s.end, ph(gi)) for s, gi in taken])
    manifest, _ = _splice(intent, [(s.start, s.end, f"a given {types[gi]}") for s, gi in taken])
    # emit the SQL: a placeholder takes the whole literal (a LIKE pattern with its wildcards, a typed
    # literal with its keyword), so substituting the SQL's values gives back the SQL exactly
    sql_repl = [(v.start, v.end, ph(gi)) for v, gi in sql_occurrences]
    p_sql, sql_marks = _splice(sql, sql_repl)

    problem = _check_intent(p_intent, intent, intent_marks, [s for s, _ in taken], dialect)
    problem = problem or _check_sql(p_sql, sql, sql_marks, sql_occurrences, dialect)
    if problem:
        out.problems.append(problem)
        return out

    if qmark:
        out.params = [
            Param("?", types[gi], groups[keys[gi]][0].phrase, [intent[s.start : s.end]], [v.sql_text])
            for (s, gi), (v, _) in zip(taken, sql_occurrences, strict=True)
        ]
    else:
        out.params = [
            Param(
                ph(gi),
                types[gi],
                groups[keys[gi]][0].phrase,
                [intent[s.start : s.end] for s, g in taken if g == gi],
                [v.sql_text for v, g in sql_occurrences if g == gi],
            )
            for gi in sorted(mentioned, key=numbers.__getitem__)
        ]
    out.manifest, out.parameterized_intent, out.parameterized_sql = manifest, p_intent, p_sql
    return out


def _phrase(intent: str, taken: list[tuple[Span, int]], gi: int) -> str:
    span = next(s for s, g in taken if g == gi)
    return intent[span.start : span.end]


def _describe_logic(lit: LogicLiteral) -> str:
    return f"{lit.text} stays literal: {lit.reason}"


def _splice(text: str, repl: list[tuple[int, int, str]]) -> tuple[str, list[tuple[int, int]]]:
    """Replace spans (sorted, disjoint) and return the new text and where each replacement landed."""
    parts: list[str] = []
    marks: list[tuple[int, int]] = []
    last = 0
    pos = 0
    for start, end, new in sorted(repl):
        chunk = text[last:start]
        parts.append(chunk)
        pos += len(chunk)
        parts.append(new)
        marks.append((pos, pos + len(new)))
        pos += len(new)
        last = end
    parts.append(text[last:])
    return "".join(parts), marks


def _check_intent(
    p_intent: str, intent: str, marks: list[tuple[int, int]], spans: list[Span], dialect: str
) -> str | None:
    found = find_text_placeholders(p_intent, dialect)
    got = [(p.start, p.end) for p in found if p.kind != "named"]
    named = [p for p in found if p.kind == "named"]
    if named:
        return "the intent contains '$value', which reads as a value-search placeholder: reword it"
    if dialect != "postgres":
        dollars = [p for p in find_text_placeholders(p_intent, "postgres") if p.kind == "numbered"]
        if dollars:
            shown = p_intent[dollars[0].start : dollars[0].end]
            return (
                f"the intent contains {shown!r}, which reads as a $n placeholder (not {dialect}'s ?): "
                "reword it (an amount as '10 dollars' or 'USD 10')"
            )
    if got != marks:
        extra = [p_intent[s:e] for s, e in got if (s, e) not in marks]
        if extra:
            return (
                f"the intent already contains {extra[0]!r} where a placeholder would be read "
                f"({'a ? that starts a word' if extra[0] == '?' else 'a $ followed by digits'}): reword it"
            )
        where = next((s for (s, e) in marks if (s, e) not in got), 0)
        before = p_intent[max(0, where - 12) : where]
        return (
            f"a placeholder after {before!r} would not be read back as one "
            "(a ? placeholder must start a word): put a space before the value in the intent"
        )
    # splice the original phrases back: the concrete intent must come back exactly
    rebuilt, last, parts = "", 0, []
    for (s, e), span in zip(marks, spans, strict=True):
        parts.append(p_intent[last:s])
        parts.append(intent[span.start : span.end])
        last = e
    parts.append(p_intent[last:])
    rebuilt = "".join(parts)
    if rebuilt != intent:
        return "internal check failed: the parameterized intent does not give back the intent"
    return None


def _check_sql(
    p_sql: str,
    sql: str,
    marks: list[tuple[int, int]],
    occurrences: list[tuple[SqlValue, int]],
    dialect: str,
) -> str | None:
    found = [p for p in find_sql_placeholders(p_sql, dialect) if p.kind != "named"]
    inside = []
    for s, e in marks:
        here = [p for p in found if s <= p.start and p.end <= e]
        if len(here) != 1:
            return "internal check failed: a placeholder in the SQL is not read back"
        inside.append(here[0])
    if len(inside) != len(found):
        return "the SQL already contains a placeholder: give the concrete SQL (with values) instead"
    parts, last = [], 0
    for (s, e), (v, _) in zip(marks, occurrences, strict=True):
        parts.append(p_sql[last:s])
        parts.append(v.sql_text)
        last = e
    parts.append(p_sql[last:])
    if "".join(parts) != sql:
        return "internal check failed: the parameterized SQL does not give back the SQL"
    return None


def _order_problem(
    intent: str,
    taken: list[tuple[Span, int]],
    occurrences: list[tuple[SqlValue, int]],
    keys: list[tuple[str, str]],
    groups: dict[tuple[str, str], list[SqlValue]],
) -> str:
    in_intent = [intent[s.start : s.end] for s, _ in taken]
    in_sql = [v.sql_text for v, _ in occurrences]
    counts_intent = {gi: 0 for _, gi in taken}
    for _, gi in taken:
        counts_intent[gi] += 1
    counts_sql = {gi: 0 for _, gi in occurrences}
    for _, gi in occurrences:
        counts_sql[gi] += 1
    for gi, n in counts_sql.items():
        if counts_intent.get(gi, 0) != n:
            phrase = groups[keys[gi]][0].phrase
            return (
                f"{phrase!r} is used {n} time(s) in the SQL but mentioned {counts_intent.get(gi, 0)} "
                "time(s) in the intent: ? placeholders bind by position, so each needs its own mention; "
                "mention it once per use, or use $1..$n (postgres)"
            )
    return (
        f"the intent mentions the values in another order ({', '.join(in_intent)}) than the SQL uses "
        f"them ({', '.join(in_sql)}): ? placeholders bind by position and would bind the wrong value; "
        "reorder the question or the SQL"
    )


def _is_complete(item: Mapping[str, Any], kind: str) -> bool:
    fields = TEMPLATE_FIELDS if kind == "templates" else FACET_FIELDS
    p = item.get("parameterized")
    return (
        isinstance(item.get("intent"), str)
        and isinstance(item.get("manifest"), str)
        and isinstance(p, Mapping)
        and all(isinstance(p.get(f), str) for f in fields)
    )


def parameterize_item(
    item: Mapping[str, Any],
    kind: str,
    dialect: str,
    snapshot: Mapping[str, Any] | None = None,
    value_searches: Iterable[Mapping[str, Any]] = (),
    *,
    force: bool = True,
) -> ItemResult:
    """The item with ``intent`` (from ``nl_query``), ``manifest`` and ``parameterized`` filled.

    ``kind`` is ``templates`` or ``facets``. With ``force`` (the default for this function) every
    derived field is replaced; without it only missing fields are added. When the forms cannot be
    derived exactly, the item comes back unchanged and ``result.problems`` says why.
    """
    kind = _kind(kind)
    dialect = normalize(dialect)
    result = ItemResult(copy.deepcopy(dict(item)))
    result.changed = False
    intent = item.get("intent")
    if not isinstance(intent, str) and kind == "templates":
        intent = item.get("nl_query")
    sql_field = "sql" if kind == "templates" else "sql_snippet"
    sql = item.get(sql_field)
    if kind == "facets" and not isinstance(sql, str):
        sql = item.get("fragment")
    problems: list[str] = []
    if not isinstance(intent, str):
        problems.append(
            "no intent"
            + (
                " and no nl_query: write the question"
                if kind == "templates"
                else ": write what the condition means"
            )
        )
    if not isinstance(sql, str) or not sql.strip():
        problems.append(f"no {sql_field}: write the concrete SQL")
    if problems:
        result.derived = Derived(problems=problems)
        return result
    vs_columns = value_search_columns(value_searches, dialect)
    derived = derive(intent, sql, dialect, snippet=kind == "facets", snapshot=snapshot, vs_columns=vs_columns)
    result.derived = derived
    if not derived.ok:
        return result
    fields = TEMPLATE_FIELDS if kind == "templates" else FACET_FIELDS
    new_fields = {
        "intent": intent,
        "manifest": derived.manifest,
        "parameterized": {fields[0]: derived.parameterized_intent, fields[1]: derived.parameterized_sql},
    }
    for key, value in new_fields.items():
        if key == "parameterized":
            current = result.get(key)
            merged = dict(current) if isinstance(current, Mapping) else {}
            for f, v in value.items():
                if force or not isinstance(merged.get(f), str):
                    merged[f] = v
            value = merged
        elif not force and isinstance(result.get(key), str):
            continue
        if result.get(key) != value:
            result[key] = value
            result.changed = True
    return result


@dataclass
class ItemReport:
    pointer: str
    kind: str
    index: int
    status: str  # "complete" (left alone), "filled", "unchanged", "problem"
    params: list[dict[str, Any]] = field(default_factory=list)
    literals: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "pointer": self.pointer,
            "kind": self.kind,
            "index": self.index,
            "status": self.status,
            "params": self.params,
            "literals": self.literals,
            "problems": self.problems,
        }


def parameterize_set(
    data: Any,
    dialect: str,
    snapshot: Mapping[str, Any] | None = None,
    force: bool = False,
) -> tuple[Any, list[ItemReport]]:
    """A copy of the context set ``data`` with every template and facet that lacks them (all of them
    with ``force``) given intent, manifest and parameterized forms; and a report per item."""
    from ctxtool.contextset import normalize_legacy
    from ctxtool.jsondoc import pointer

    dialect = normalize(dialect)
    data, _ = normalize_legacy(copy.deepcopy(data))
    report: list[ItemReport] = []
    if not isinstance(data, dict):
        raise CtxtoolError("a context set is a JSON object with templates, facets and value_searches")
    value_searches = [v for v in data.get("value_searches") or [] if isinstance(v, Mapping)]
    for kind in ("templates", "facets"):
        items = data.get(kind)
        if not isinstance(items, list):
            continue
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            ptr = pointer(kind, i)
            if not force and _is_complete(item, kind):
                report.append(ItemReport(ptr, kind, i, "complete"))
                continue
            res = parameterize_item(item, kind, dialect, snapshot, value_searches, force=force)
            d = res.derived
            if d.problems:
                report.append(ItemReport(ptr, kind, i, "problem", literals=d.literals, problems=d.problems))
                continue
            items[i] = dict(res)
            report.append(
                ItemReport(
                    ptr,
                    kind,
                    i,
                    "filled" if res.changed else "unchanged",
                    params=[p.to_dict() for p in d.params],
                    literals=d.literals,
                )
            )
    return data, report


def parameterize_contextset(
    cs: Any, dialect: str, snapshot: Mapping[str, Any] | None = None, force: bool = False
) -> tuple[Any, list[ItemReport], str | None]:
    """:func:`parameterize_set` on a loaded :class:`~ctxtool.contextset.ContextSet`: the new data, the
    report, and the file's new text (None when nothing changes: a complete file, even in the legacy
    spelling, is left byte for byte as it is). What ``ctxtool parameterize`` and the MCP tool run."""
    from ctxtool.jsondoc import dumps_json

    if not isinstance(cs.data, dict):
        raise InputError(
            f"{cs.path}:1:1: a context set is a JSON object with templates, facets and value_searches"
        )
    new_data, report = parameterize_set(cs.data, dialect, snapshot, force=force)
    # compared with the normalized data: a complete file in the legacy spelling is left as it is
    return new_data, report, dumps_json(new_data) if new_data != cs.data else None
