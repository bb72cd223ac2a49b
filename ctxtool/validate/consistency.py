"""Consistency layer: the parameterized forms are the concrete forms with values replaced.

Each parameterized form is turned into a pattern (its text, with a capture group per placeholder)
and matched against its concrete form: a match proves that substituting the captured values gives
back exactly the concrete text. The values captured from the SQL and from the intent must then agree
(``'Prague'`` in SQL is ``Prague`` in the intent), and none of them may be left in the manifest.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ctxtool.contextset import Item
from ctxtool.placeholders import Placeholder
from ctxtool.validate.context import SQL_FIELDS, Context, text
from ctxtool.validate.literals import same_value, unmatched

# a SQL value: a quoted literal (doubled or backslash-escaped quotes) or one bare token
_SQL_VALUE = (
    r"(?:(?:DATE|TIME|TIMESTAMP|TIMESTAMPTZ|DATETIME|INTERVAL|NUMERIC|JSON|JSONB|[NEXB])\s*)?"
    r"(?:'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\")|[^\s,()'\"]+"
)
_TEXT_VALUE = r".+?"
_MAX_GROUPS = 40  # beyond this, backtracking could get slow; such items are not checked


_SQL_VALUE_RE = re.compile(_SQL_VALUE, re.DOTALL | re.IGNORECASE)
_GIVEN = re.compile(r"an? given \S")
_MAX_STEPS = 20_000  # backtracking budget per form; beyond it the form is not judged


class _Budget(Exception):
    """Too many ways to split the text: give up judging this form."""


def capture(
    parameterized: str, concrete: str, found: Sequence[Placeholder], value: str
) -> list[tuple[str, str]] | None:
    """``[(placeholder key, value)]`` when substituting values into ``parameterized`` can give
    ``concrete``; None when it cannot; ``[]`` also when the form is too ambiguous to judge.
    ``value`` is the pattern a value must match (``_SQL_VALUE`` or ``_TEXT_VALUE``). A placeholder
    used twice (``$1 ... $1``) must stand for the same value both times."""
    if not found:
        return [] if parameterized == concrete else None
    if len(found) > _MAX_GROUPS:
        return []
    segments = [parameterized[: found[0].start]]
    segments += [parameterized[a.end : b.start] for a, b in zip(found, found[1:], strict=False)]
    tail = parameterized[found[-1].end :]
    keys = [ph.name if ph.kind != "qmark" else f"?{i}" for i, ph in enumerate(found)]
    if len(segments[0]) + len(tail) > len(concrete):
        return None
    if not concrete.startswith(segments[0]) or not concrete.endswith(tail):
        return None
    check_value = _SQL_VALUE_RE.fullmatch if value == _SQL_VALUE else None
    end_limit = len(concrete) - len(tail)
    steps = [0]
    values: dict[str, str] = {}

    def solve(i: int, pos: int) -> bool:
        """Placeholder ``i`` starts at ``pos``; segment ``i + 1`` (or the tail) follows its value."""
        steps[0] += 1
        if steps[0] > _MAX_STEPS:
            raise _Budget
        nxt = segments[i + 1] if i + 1 < len(found) else None
        key = keys[i]
        if key in values:  # a repeated placeholder: its value is already known
            v = values[key]
            if not concrete.startswith(v, pos):
                return False
            after = pos + len(v)
            if nxt is None:
                return after == end_limit
            return concrete.startswith(nxt, after) and solve(i + 1, after + len(nxt))
        if nxt is None:
            candidates = [end_limit] if end_limit > pos else []
        else:
            candidates = []
            at = concrete.find(nxt, pos + 1)
            while 0 <= at <= end_limit - len(nxt):
                candidates.append(at)
                at = concrete.find(nxt, at + 1)
        for at in candidates:
            v = concrete[pos:at]
            if check_value is not None and check_value(v) is None:
                continue
            values[key] = v
            if nxt is None or solve(i + 1, at + len(nxt)):
                return True
            del values[key]
        return False

    try:
        ok = solve(0, len(segments[0]))
    except _Budget:
        return []
    if not ok:
        return None
    return [(key, values[key]) for key in dict.fromkeys(keys)]


def divergence(parameterized: str, concrete: str, found: Sequence[Placeholder]) -> str:
    """Where the fixed text of ``parameterized`` stops matching ``concrete``, for the message."""
    pos = 0
    last = 0
    for ph in [*found, None]:
        seg = parameterized[last : ph.start] if ph is not None else parameterized[last:]
        if pos == 0 and last == 0:
            at = 0 if concrete.startswith(seg) else -1
        else:
            at = concrete.find(seg, pos)
        if ph is None and not concrete.endswith(seg):
            return f"the parameterized form ends {seg[-25:]!r}, the concrete form {concrete[-25:]!r}"
        if at < 0:
            start = pos if last else 0
            i = 0
            while i < len(seg) and start + i < len(concrete) and concrete[start + i] == seg[i]:
                i += 1
            want = seg[i : i + 25] or "the end"
            have = concrete[start + i : start + i + 25] or "the end"
            return f"expected {want!r} where the concrete form has {have!r}"
        pos = at + len(seg)
        if ph is not None:
            last = ph.end
    return "a value does not fit its placeholder"


def _show(value: str) -> str:
    return repr(value if len(value) <= 60 else value[:57] + "...")


def check_item(ctx: Context, item: Item) -> None:
    concrete_field, param_field = SQL_FIELDS[item.kind]
    assert param_field is not None
    sql = text(item.data, concrete_field)
    psql = text(item.data, "parameterized", param_field)
    intent = item.intent
    pintent = text(item.data, "parameterized", "parameterized_intent")
    manifest = text(item.data, "manifest")
    sql_values: list[tuple[str, str]] | None = None
    int_values: list[tuple[str, str]] | None = None

    if sql is not None and psql is not None:
        found = ctx.sql_placeholders(psql)
        sql_values = capture(psql, sql, found, _SQL_VALUE)
        if sql_values is None:
            ctx.report(
                "CTX401",
                item.field_pointer("parameterized", param_field),
                f"{param_field} with its placeholders filled in can never equal {concrete_field} "
                f"({divergence(psql, sql, found)}); only the values may differ",
            )
    if intent is not None and pintent is not None:
        found = ctx.text_placeholders(pintent)
        int_values = capture(pintent, intent, found, _TEXT_VALUE)
        if int_values is None:
            ctx.report(
                "CTX402",
                item.field_pointer("parameterized", "parameterized_intent"),
                "parameterized_intent with its placeholders filled in can never equal the intent "
                f"({divergence(pintent, intent, found)}); only the value phrases may differ",
            )

    if sql_values and int_values:
        _compare(ctx, item, sql_values, int_values)

    if manifest is not None and int_values:
        for _, value in int_values:
            shown = value.strip().strip("'\"")
            if not shown or shown.casefold() in ("a", "given", "a given"):
                continue
            pattern = r"(?<!\w)" + re.escape(shown) + r"(?!\w)"
            if value.strip()[:1] in ("'", '"'):
                # a quoted value left behind stays quoted; the bare word may be the column's own
                # name ("participants with participant type code 'Participant'")
                pattern = re.escape(value.strip()[0]) + re.escape(shown) + re.escape(value.strip()[0])
            if re.search(pattern, manifest, re.IGNORECASE):
                ctx.report(
                    "CTX404",
                    item.field_pointer("manifest"),
                    f"the manifest still contains {_show(shown)}; write 'a given <type>' in its place",
                )
                break
        else:
            _check_manifest_shape(ctx, item, manifest, pintent)
    elif manifest is not None and pintent is not None and int_values is not None:
        _check_manifest_shape(ctx, item, manifest, pintent)


def _compare(
    ctx: Context, item: Item, sql_values: list[tuple[str, str]], int_values: list[tuple[str, str]]
) -> None:
    ptr = item.field_pointer("parameterized", "parameterized_intent")
    if ctx.dialect == "postgres":
        in_sql = dict(sql_values)
        for key, value in int_values:
            if key in in_sql and not same_value(in_sql[key], value):
                ctx.report(
                    "CTX403",
                    ptr,
                    f"${key} is {_show(in_sql[key])} in the SQL but {_show(value)} in the intent",
                )
                return
    else:
        lonely_sql, lonely_intent = unmatched([v for _, v in sql_values], [v for _, v in int_values])
        if lonely_sql or lonely_intent:
            ctx.report(
                "CTX403",
                ptr,
                f"the ? placeholders stand for {', '.join(map(_show, lonely_sql)) or 'nothing more'} in the SQL "
                f"but {', '.join(map(_show, lonely_intent)) or 'nothing more'} in the intent",
            )


def _check_manifest_shape(ctx: Context, item: Item, manifest: str, pintent: str | None) -> None:
    if pintent is None:
        return
    found = ctx.text_placeholders(pintent)
    values = capture(pintent, manifest, found, _TEXT_VALUE)
    if values is None or not all(_GIVEN.match(v) for _, v in values):
        ctx.report(
            "CTX405",
            item.field_pointer("manifest"),
            "the manifest should be the parameterized intent with each placeholder written 'a given <type>'",
        )


def check(ctx: Context) -> None:
    for item in ctx.items():
        if item.kind == "value_searches" or item.pointer in ctx.placeholder_trouble:
            continue
        check_item(ctx, item)
