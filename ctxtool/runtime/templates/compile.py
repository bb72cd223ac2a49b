"""Compiling a set's templates and facets (:class:`.compiled.Compiled`): their slots, phrasings and
what their SQL reads (:mod:`.sqlread`), in the set's dialect.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from ctxtool.dialects import normalize
from ctxtool.english.content import content_tokens
from ctxtool.english.lexicon import DATE_KIND_LABELS, NUMBER_KIND_LABELS
from ctxtool.placeholders import find_sql_placeholders, find_text_placeholders
from ctxtool.runtime.templates import sqlparts
from ctxtool.runtime.templates.compiled import Compiled, Phrasing, Slot
from ctxtool.runtime.templates.facts import TemplateFacts
from ctxtool.runtime.templates.sqlread import read_facts, shape_of

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _value_of(text: str | None) -> Any:
    if text is None:
        return None
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
        t = t[1:-1]
    t = re.sub(r"^(?:date|timestamp)\s*'(.*)'$", r"\1", t, flags=re.I)
    if _ISO_DATE.match(t):
        try:
            return date.fromisoformat(t)
        except ValueError:
            return t
    if re.fullmatch(r"-?\d+", t):
        return int(t)
    if re.fullmatch(r"-?\d+\.\d+", t):
        return float(t)
    return t


def align(concrete: str, parameterized: str, found: list[Any]) -> dict[int, str]:
    """Index of each placeholder in ``found`` -> the text it replaced in ``concrete`` (best effort:
    the fixed pieces between placeholders are found left to right, case- and space-insensitively)."""
    if not found or not concrete:
        return {}
    pieces = []
    last = 0
    for ph in found:
        pieces.append(_squash(parameterized[last : ph.start]))
        last = ph.end
    pieces.append(_squash(parameterized[last:]))
    text = _squash(concrete.strip())
    low = text.lower()
    first = pieces[0].lstrip().lower()
    if not low.startswith(first):
        return {}
    pos = len(first)
    out: dict[int, str] = {}
    for k, piece in enumerate(pieces[1:]):
        piece_low = piece.lower()
        final = k == len(pieces) - 2
        if final:
            piece_low = piece_low.rstrip()
            if not low.endswith(piece_low):
                return {}
            idx = len(low) - len(piece_low)
        elif not piece_low:
            return {}  # two placeholders side by side: no way to split
        else:
            idx = low.find(piece_low, pos + 1)
        if idx <= pos:
            return {}
        out[k] = text[pos:idx]
        pos = idx + len(piece_low)
    return out


_SPACES = re.compile(r"\s+")


def _squash(text: str) -> str:
    return _SPACES.sub(" ", text)


def manifest_types(manifest: str, parameterized_intent: str, found: list[Any]) -> dict[int, str]:
    """Index of each intent placeholder -> the manifest type written at its place."""
    if not manifest or not found:
        return {}
    aligned = align(manifest, parameterized_intent, found)
    out = {}
    for i, text in aligned.items():
        m = re.match(r"\s*a given (.+)$", text, re.I)
        out[i] = (m.group(1) if m else text).strip()
    if len(out) == len(found):
        return out
    given = re.findall(
        r"a given ([A-Za-z_ ]+?)(?=[?.,;:!)]|\s+(?:in|on|at|for|from|of|with|and|or|by|to|"
        r"between|before|after|than|that|who|which|where|when|is|are|was|were)\b|$)",
        manifest,
    )
    return {i: t.strip() for i, t in enumerate(given[: len(found)])}


def _kind(example: Any, type_label: str, wrapped: str | None, operator: str | None) -> str:
    label = type_label.lower()
    if isinstance(example, date):
        return "date"
    if operator == "limit":
        return "number"
    if (
        isinstance(example, int)
        and 1800 <= example <= 2100
        and ("year" in label or "date" in label or wrapped)
    ):
        return "year"
    if isinstance(example, (int, float)):
        return "number"
    if "year" in label:
        return "year"
    if label in DATE_KIND_LABELS:
        return "date"
    if label in NUMBER_KIND_LABELS:
        return "number"
    return "text"


def strip_placeholders(text: str, dialect: str) -> str:
    found = find_text_placeholders(text, dialect)
    out = []
    last = 0
    for ph in found:
        out.append(text[last : ph.start])
        out.append(" ")
        last = ph.end
    out.append(text[last:])
    return "".join(out)


def remove_phrases(text: str, phrases: list[str]) -> str:
    for p in sorted((p for p in phrases if p), key=len, reverse=True):
        text = re.sub(re.escape(p), " ", text, flags=re.I)
    return text


def facts_of(sql: str, dialect: str = "postgres") -> TemplateFacts:
    """The facts of one statement or condition (as :func:`compile_item` reads them)."""
    dialect = normalize(dialect)
    tree, snippet = sqlparts.analysis_tree(sql, dialect)
    tables = sqlparts.tables_in(tree, snippet) if tree is not None else set()
    return read_facts(tree, sql, dialect, snippet, tables)


def compile_item(kind: str, index: int, item: dict[str, Any], dialect: str) -> Compiled:
    """Prepare one template (``kind="template"``) or facet (``"facet"``)."""
    dialect = normalize(dialect)
    par = item.get("parameterized") if isinstance(item.get("parameterized"), dict) else {}
    if kind == "template":
        concrete = item.get("sql") or ""
        psql = par.get("parameterized_sql") or concrete
        intent = item.get("intent") or item.get("nl_query") or ""
    else:
        concrete = item.get("sql_snippet") or ""
        psql = par.get("parameterized_sql_snippet") or concrete
        intent = item.get("intent") or ""
    pintent = par.get("parameterized_intent") or intent
    manifest = item.get("manifest") or ""

    intent_ph = find_text_placeholders(pintent, dialect)
    sql_ph = find_sql_placeholders(psql, dialect)
    intent_values = align(intent, pintent, intent_ph)
    sql_values = align(concrete, psql, sql_ph)
    types = manifest_types(manifest, pintent, intent_ph)
    tree, snippet = sqlparts.analysis_tree(psql, dialect)
    columns = sqlparts.slot_columns_of(tree) if tree is not None else {}
    tables = sqlparts.tables_in(tree, snippet) if tree is not None else set()
    facts = read_facts(tree, psql, dialect, snippet, tables)
    shape = shape_of(tree) if kind == "template" else None

    # one slot per distinct SQL placeholder
    slots: list[Slot] = []
    seen: set[str] = set()
    qmark = 0
    for i, ph in enumerate(sql_ph):
        if ph.kind == "numbered":
            key = ph.name
        elif ph.kind == "qmark":
            qmark += 1
            key = str(qmark)
        else:
            continue
        if key in seen:
            continue
        seen.add(key)
        # the matching intent placeholder: same number ($n), or same position (?)
        j = next(
            (k for k, p in enumerate(intent_ph) if (p.kind == "numbered" and p.name == key)),
            int(key) - 1 if ph.kind == "qmark" and int(key) - 1 < len(intent_ph) else None,
        )
        raw = sql_values.get(i)
        example = _value_of(raw) if raw is not None else None
        if example is None and j is not None:
            example = _value_of(intent_values.get(j))
        label = types.get(j, "") if j is not None else ""
        col = columns.get(f"s{key}")
        slots.append(
            Slot(
                key=key,
                kind=_kind(example, label, col.wrapped if col else None, col.operator if col else None),
                type_label=label,
                column=col.column if col else None,
                example=example,
                operator=col.operator if col else None,
                position=j if j is not None else 100 + len(slots),
                quoted=raw is not None and raw.strip().startswith("'"),
            )
        )
    slots.sort(key=lambda s: s.position)

    phrasings = []
    skeleton = strip_placeholders(pintent, dialect)
    phrasings.append(Phrasing(pintent, content_tokens(skeleton)))
    examples = [str(v) for v in intent_values.values()]
    for other in (item.get("nl_query"), intent):
        if isinstance(other, str) and other.strip() and other != pintent:
            toks = content_tokens(remove_phrases(other, examples))
            if toks and all(toks != p.tokens for p in phrasings):
                phrasings.append(Phrasing(other, toks))
    return Compiled(
        kind=kind,
        index=index,
        data=item,
        intent=intent,
        sql=psql,
        concrete_sql=concrete,
        parameterized_intent=pintent,
        manifest=manifest,
        slots=slots,
        phrasings=phrasings,
        tables=tables,
        facts=facts,
        shape=shape,
        dialect=dialect,
    )
