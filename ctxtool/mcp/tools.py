"""The tool registry the MCP server offers: each tool's name, description and JSON Schema (written for
a model: what it is for, when to call it, what comes back) and the plain function behind it.

:func:`call` is the one way in: it checks the arguments against the schema, fills server defaults
(``dsn``, ``set``) the call left out, runs the function and turns every failure into a
:class:`ToolError` with a one-line message. Nothing it returns or raises holds a password.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ctxtool.errors import CtxtoolError


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


def _check(tool: Tool, arguments: Any) -> dict[str, Any]:
    import jsonschema

    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ToolError(f"{tool.name}: the arguments must be a JSON object")
    validator = jsonschema.Draft202012Validator(tool.schema)
    errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        where = "/".join(str(p) for p in e.path) or "arguments"
        raise ToolError(f"{tool.name}: {where}: {e.message}; see the tool's input schema for what it takes")
    return arguments


def redactor(defaults: Defaults, arguments: dict[str, Any]) -> Callable[[str], str]:
    """Scrubs every DSN password form, the configured secrets and the passwords of the DSNs given."""
    from ctxtool.connectors.dsn import parse, redact_text

    secrets = list(defaults.secrets)
    for key in ("dsn",):
        value = arguments.get(key)
        if isinstance(value, str):
            try:
                secrets.append(parse(value).password or "")
            except CtxtoolError:
                pass
    return lambda text: redact_text(text, *secrets)


def call(registry: dict[str, Tool], name: str, arguments: Any, defaults: Defaults) -> dict[str, Any]:
    """Run tool ``name``; the result is a JSON-ready dict. Raises :class:`ToolError` on any failure."""
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
    text = json.dumps(result, ensure_ascii=False, default=str)
    clean = scrub(text)
    return result if clean == text else json.loads(clean)


def dsn_of(dsn: str | None, defaults: Defaults, *, required: bool = True) -> str | None:
    """The call's DSN, else the server's; a clear error when neither is there and one is needed."""
    value = dsn or defaults.dsn
    if required and not value:
        raise ToolError(
            "no database given: pass dsn (postgresql://..., mysql://..., spanner://...) or start the "
            "server with `ctxtool mcp --dsn DSN`"
        )
    return value
