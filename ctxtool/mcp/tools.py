"""The tool registry the MCP server offers: each tool's name, description and JSON Schema (written for
a model: what it is for, when to call it, what comes back) and the plain function behind it.

:func:`call` is the one way in: it checks the arguments against the schema, fills server defaults
(``dsn``, ``set``) the call left out, runs the function and turns every failure into a
:class:`ToolError` with a one-line message. Nothing it returns or raises holds a password.
"""

from __future__ import annotations

import contextvars
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ctxtool.errors import CtxtoolError

# How the call running in this thread reports progress: (done, total or None, message) -> None.
_PROGRESS: contextvars.ContextVar[Callable[[float, float | None, str], None] | None] = contextvars.ContextVar(
    "ctxtool_mcp_progress", default=None
)
PROGRESS_EVERY = 0.25  # seconds between two progress notifications of one call


def reporting(report: Callable[[float, float | None, str], None] | None) -> None:
    """Let the tool call about to run in this thread report its progress through ``report``."""
    if report is None:
        _PROGRESS.set(None)
        return
    last = [0.0]

    def throttled(done: float, total: float | None, message: str) -> None:
        now = time.monotonic()
        if now - last[0] >= PROGRESS_EVERY or (total is not None and done >= total):
            last[0] = now
            report(done, total, message)

    _PROGRESS.set(throttled)


def progress(done: float, total: float | None = None, message: str = "") -> None:
    """Report the running call's progress to the client that asked for it (else nothing)."""
    report = _PROGRESS.get()
    if report is not None:
        report(done, total, message)


def counter(what: str, total: int | None = None) -> Callable[[Any], None]:
    """A library ``progress`` callback (called once per step) reporting to the MCP client."""
    done = [0]

    def step(item: Any) -> None:
        done[0] += 1
        progress(done[0], total, f"{what}: {item}" if isinstance(item, str) else what)

    return step


def each(what: str) -> Callable[[list[Any]], Iterator[Any]]:
    """A library ``progress`` wrapper of a list (``run_eval``'s) reporting to the MCP client."""

    def wrap(items: list[Any]) -> Iterator[Any]:
        for i, item in enumerate(items):
            progress(i, len(items), what)
            yield item
        progress(len(items), len(items), what)

    return wrap


class ToolError(CtxtoolError):
    """A tool call that failed: bad arguments, unreadable input, a database error."""


@dataclass
class Defaults:
    """What ``ctxtool mcp --dsn ... --context/--set ...`` configured: used when a call omits them."""

    dsn: str | None = None
    context: str | None = None
    set: str | None = None
    store: str | None = None
    secrets: list[str] = field(default_factory=list)  # passwords to scrub from every output
    service: Any = None  # a Service the runtime tools answer from (``ctxtool serve --mcp``)
    model: dict[str, Any] = field(default_factory=dict)  # `ctxtool mcp`'s model flags (ctxtool.llm.settings)


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    schema: dict[str, Any]
    func: Callable[..., Any]
    read_only: bool = True  # false when the tool may write a file or the database

    def spec(self) -> dict[str, Any]:
        """The ``tools/list`` entry."""
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.schema,
            "annotations": {"readOnlyHint": self.read_only},
        }


def schema(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """An object schema that rejects unknown arguments (a typo gets an error, not silence)."""
    out: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        out["required"] = list(required)
    return out


# Argument schemas several tools share.
DSN = {
    "type": "string",
    "description": "Connection string: postgresql://user@host:5432/db, mysql://user@host:3306/db or "
    "spanner://projects/P/instances/I/databases/D. Optional when the server was started with --dsn.",
}
SET_PATH = {
    "type": "string",
    "description": "Path of a context-set JSON file (templates, facets, value_searches), relative to the "
    "server's working directory or absolute.",
}
SNAPSHOT = {
    "type": "string",
    "description": "Path of a schema snapshot written by the introspect tool.",
}
DIALECT = {
    "type": "string",
    "enum": ["postgres", "alloydb", "mysql", "spanner"],
    "description": "SQL dialect of the set (default: the database's or the snapshot's, else postgres).",
}


_VALIDATORS: dict[str, Any] = {}


def _check(tool: Tool, arguments: Any) -> dict[str, Any]:
    import jsonschema

    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ToolError(f"{tool.name}: the arguments must be a JSON object")
    validator = _VALIDATORS.get(tool.name)
    if validator is None or validator.schema is not tool.schema:
        validator = _VALIDATORS[tool.name] = jsonschema.Draft202012Validator(tool.schema)
    errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        where = "/".join(str(p) for p in e.path) or "arguments"
        raise ToolError(f"{tool.name}: {where}: {e.message}; see the tool's input schema for what it takes")
    return arguments


def redactor(defaults: Defaults, arguments: dict[str, Any]) -> Callable[[str], str]:
    """Scrubs every DSN password form, the configured secrets and the passwords of the DSNs given.
    The password patterns all need ``://`` or ``password``: text without them (and without a known
    secret) is left as it is without running the patterns over it."""
    import urllib.parse

    from ctxtool.connectors.dsn import parse, redact_text

    secrets = [s for s in defaults.secrets if s]
    value = arguments.get("dsn")
    if isinstance(value, str):
        try:
            secrets.append(parse(value).password or "")
        except CtxtoolError:
            pass
    needles = {n for s in secrets if s for n in (s, urllib.parse.quote(s, safe=""))}

    def scrub(text: str) -> str:
        if "://" in text or "password" in text.lower() or any(n in text for n in needles):
            return redact_text(text, *secrets)
        return text

    return scrub


def call_json(registry: dict[str, Tool], name: str, arguments: Any, defaults: Defaults) -> str:
    """Run tool ``name``; the result as JSON text. Raises :class:`ToolError` on any failure."""
    tool = registry.get(name)
    if tool is None:
        raise ToolError(f"unknown tool {name!r}: the tools are {', '.join(registry)}")
    args = _check(tool, arguments)
    scrub = redactor(defaults, args)
    try:
        result = tool.func(defaults=defaults, **args)
    except ToolError as exc:
        raise ToolError(scrub(str(exc))) from None
    except CtxtoolError as exc:
        raise ToolError(scrub(str(exc))) from None
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # noqa: BLE001 - a tool reports, the server keeps serving
        raise ToolError(scrub(f"{name} failed: {type(exc).__name__}: {exc}")) from None
    return scrub(json.dumps(result, ensure_ascii=False, default=str))


def call(registry: dict[str, Tool], name: str, arguments: Any, defaults: Defaults) -> Any:
    """Run tool ``name``; the result as JSON-ready data (see :func:`call_json`)."""
    return json.loads(call_json(registry, name, arguments, defaults))


def dsn_of(dsn: str | None, defaults: Defaults, *, required: bool = True) -> str | None:
    """The call's DSN, else the server's; a clear error when neither is there and one is needed."""
    value = dsn or defaults.dsn
    if required and not value:
        raise ToolError(
            "no database given: pass dsn (postgresql://..., mysql://..., spanner://...) or start the "
            "server with `ctxtool mcp --dsn DSN`"
        )
    return value
