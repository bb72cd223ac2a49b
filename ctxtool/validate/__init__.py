"""Validation of context-set files: JSON syntax, JSON Schema, SQL, placeholders, consistency of the
parameterized forms, facets, value searches and duplicates -- plus, when asked, schema references
against a snapshot and live planning against a database.

Library API: :func:`validate_set` for a loaded :class:`~ctxtool.contextset.ContextSet`,
:func:`validate_text` for a string, :func:`validate_paths` for files, directories and globs (what
``ctxtool validate`` calls). Every finding is a :class:`Finding` with a stable rule code.

Adding a layer: write a module with ``check(ctx: Context) -> None`` that calls ``ctx.report(...)``
and register its rules with :func:`ctxtool.validate.rules.register`; list it in :data:`LAYERS`
(always run) or :data:`OPTIONAL_LAYERS` (run when ``ctx.snapshot`` / ``ctx.connector`` is given).
A layer that only looks at ``ctx.items()`` one item at a time (keeping anything that must outlive
an item in ``ctx.state``) also goes in :data:`ITEM_LAYERS`, so that large sets run through it in
small chunks whose parse trees are freed as validation goes.
"""

from __future__ import annotations

import gc
import glob
import importlib
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxtool import contextset
from ctxtool.contextset import ContextSet
from ctxtool.dialects import normalize
from ctxtool.errors import CtxtoolError, InputError
from ctxtool.jsondoc import JsonSyntaxError, read_text
from ctxtool.validate import consistency, duplicates, facets, placeholders, schema, sql, value_searches
from ctxtool.validate.context import Context
from ctxtool.validate.findings import ERROR, WARNING, Finding, sort_key
from ctxtool.validate.rules import RULES, Rule, all_rules

__all__ = [
    "Context",
    "Finding",
    "Rule",
    "RULES",
    "LAYERS",
    "ITEM_LAYERS",
    "OPTIONAL_LAYERS",
    "Result",
    "all_rules",
    "expand_paths",
    "validate_set",
    "validate_text",
    "validate_paths",
]

Layer = Callable[[Context], None]

# The layers every run goes through, in order.
LAYERS: list[tuple[str, Layer]] = [
    ("schema", schema.check),
    ("sql", sql.check),
    ("placeholders", placeholders.check),
    ("consistency", consistency.check),
    ("facets", facets.check),
    ("value_searches", value_searches.check),
    ("duplicates", duplicates.check),
]

# The layers above that look at one item at a time (through ``ctx.items()``; what must outlive an
# item goes in ``ctx.state``). A set of more than CHUNKED_FROM items goes through them CHUNK items
# at a time, and a chunk's parse trees are freed before the next chunk is parsed: they never all
# live at once, and freeing a few trees while they are still in the CPU cache costs a fraction of
# collecting thousands of them later (bench/validate.py). Other layers see the whole set at once.
ITEM_LAYERS: frozenset[str] = frozenset(
    {"sql", "placeholders", "consistency", "facets", "value_searches", "duplicates"}
)
CHUNK = 4
CHUNKED_FROM = 256

# Layers that run only when the context has what they need: (name, Context attribute, module).
# Each module defines ``check(ctx: Context) -> None``.
OPTIONAL_LAYERS: list[tuple[str, str, str]] = [
    ("schema_refs", "snapshot", "ctxtool.validate.schema_refs"),
    ("live_plan", "connector", "ctxtool.validate.live_plan"),
]

_OPTION_NAMES = {"snapshot": "--snapshot", "connector": "--dsn"}


def _optional_layer(module: str, attribute: str) -> Layer:
    try:
        return importlib.import_module(module).check
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        raise InputError(
            f"{_OPTION_NAMES.get(attribute, attribute)} needs the {module} layer, which this ctxtool "
            "build does not have yet; validate without that option"
        ) from None


def validate_set(
    cs: ContextSet,
    dialect: str = "postgres",
    snapshot: Any = None,
    connector: Any = None,
) -> list[Finding]:
    """Every finding in ``cs``, sorted by position. ``snapshot`` (a loaded schema snapshot) adds the
    schema-reference layer, ``connector`` (an open connector) the live-planning layer."""
    ctx = Context(cs=cs, dialect=normalize(dialect), snapshot=snapshot, connector=connector)
    if cs.legacy:
        ctx.report("CTX002", "/fragments", "; ".join(cs.legacy))
    if isinstance(cs.data, dict) and not cs.data.get("templates"):
        ctx.report("CTX003", "", "the set has no template; add at least one question with its SQL")
    # the optional layers read every tree again at the end: for them, keep all trees (one chunk)
    optional = any(getattr(ctx, attribute) is not None for _, attribute, _ in OPTIONAL_LAYERS)
    items = ctx.items()
    if optional or len(items) <= CHUNKED_FROM:
        for _, layer in LAYERS:
            layer(ctx)
    else:
        for name, layer in LAYERS:
            if name not in ITEM_LAYERS:
                layer(ctx)
        per_item = [layer for name, layer in LAYERS if name in ITEM_LAYERS]
        ctx.share_parses = False
        with _paused_gc():
            for start in range(0, len(items), CHUNK):
                ctx.scope(items[start : start + CHUNK])
                for layer in per_item:
                    layer(ctx)
                ctx.forget_parses()
                # the chunk's trees are cyclic (parent links) and young: free them now, cheaply
                gc.collect(0)
        ctx.scope(None)
    for _, attribute, module in OPTIONAL_LAYERS:
        if getattr(ctx, attribute) is not None:
            _optional_layer(module, attribute)(ctx)
    return sorted(ctx.findings, key=sort_key)


@contextmanager
def _paused_gc() -> Iterator[None]:
    """No automatic garbage collection inside: the caller collects when it knows what is garbage."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _syntax_finding(exc: JsonSyntaxError) -> Finding:
    return Finding("CTX001", ERROR, f"invalid JSON: {exc.msg}", exc.path, exc.line, exc.column, "")


def validate_text(
    text: str, path: str = "<string>", dialect: str = "postgres", snapshot: Any = None, connector: Any = None
) -> list[Finding]:
    """Findings for a context set given as JSON text (a syntax error is finding CTX001)."""
    try:
        cs = contextset.loads(text, path)
    except JsonSyntaxError as exc:
        return [_syntax_finding(exc)]
    return validate_set(cs, dialect=dialect, snapshot=snapshot, connector=connector)


@dataclass
class Result:
    """What :func:`validate_paths` found: the findings, the files read, and inputs it could not read."""

    findings: list[Finding] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)  # one-line messages

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == ERROR)

    @property
    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.severity == WARNING)

    @property
    def exit_code(self) -> int:
        if self.unreadable:
            return 2
        return 1 if self.errors else 0


def _is_hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def expand_paths(paths: Iterable[str]) -> tuple[list[str], list[str]]:
    """Files to validate from files, directories (``*.json`` below them, hidden ones skipped), globs
    and ``-`` (standard input); and a message for each argument that names nothing."""
    files: list[str] = []
    problems: list[str] = []
    for arg in paths:
        if arg == "-":
            files.append("-")
        elif os.path.isdir(arg):
            root = Path(arg)
            found = sorted(p for p in root.rglob("*.json") if p.is_file() and not _is_hidden(p, root))
            files.extend(str(p) for p in found)
        elif os.path.exists(arg):
            files.append(arg)
        elif glob.has_magic(arg):
            matches = sorted(m for m in glob.glob(arg, recursive=True) if os.path.isfile(m))
            if not matches:
                problems.append(f"{arg}: the pattern matches no file; check the path")
            files.extend(matches)
        else:
            problems.append(f"{arg}: no such file or directory; check the path")
    seen: set[str] = set()
    unique = [f for f in files if not (f in seen or seen.add(f))]  # type: ignore[func-returns-value]
    return unique, problems


def validate_paths(
    paths: Iterable[str],
    dialect: str = "postgres",
    strict: bool = False,
    snapshot: Any = None,
    connector: Any = None,
) -> Result:
    """Validate every context-set file the paths name. ``strict`` reports warnings as errors."""
    dialect = normalize(dialect)
    files, problems = expand_paths(paths)
    result = Result(unreadable=problems)
    # The parse trees shared between layers are long-lived and full of parent links: collecting
    # garbage while they pile up costs time that grows faster than the set (bench/validate.py).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for path in files:
            try:
                text = read_text(path)
            except CtxtoolError as exc:
                result.unreadable.append(str(exc))
                continue
            shown = "<stdin>" if path == "-" else path
            result.files.append(shown)
            result.findings.extend(
                validate_text(text, shown, dialect=dialect, snapshot=snapshot, connector=connector)
            )
    finally:
        if gc_was_enabled:
            gc.enable()
    if strict:
        result.findings = [
            Finding(f.code, ERROR, f.message, f.path, f.line, f.column, f.pointer)
            if f.severity == WARNING
            else f
            for f in result.findings
        ]
    return result
