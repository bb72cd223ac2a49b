"""The tool registry the MCP server offers: each tool's name, description and JSON Schema (written for
a model: what it is for, when to call it, what comes back) and the plain function behind it.

:func:`call` is the one way in: it checks the arguments against the schema, fills server defaults
(``dsn``, ``set``) the call left out, runs the function and turns every failure into a
:class:`ToolError` with a one-line message. Nothing it returns or raises holds a password.
"""

from __future__ import annotations

import contextvars
import itertools
import json
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ctxtool.errors import CtxtoolError

_SEQ = itertools.count(1)

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
    root: str | None = None  # the workspace the file tools stay in (None: the working directory)
    model: dict[str, Any] = field(default_factory=dict)  # `ctxtool mcp`'s model flags (ctxtool.llm.settings)
    # a longer result goes to a file (fit_result): the Gemini CLI keeps only the first 8,000 and the
    # last 32,000 characters of a tool result over 40,000
    max_result_chars: int = 30_000
    max_question_chars: int | None = None  # `ctxtool mcp --max-question-chars` (None: env, else 2,000)


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    schema: dict[str, Any]
    func: Callable[..., Any]
    read_only: bool = True  # false when the tool may write a file or the database
    bulky: tuple[str, ...] = ()  # result keys dropped first when the result is too long (fit_result)
    writes: tuple[str, ...] = ()  # arguments naming files the tool writes (their folders are made)
    reads: tuple[str, ...] = ()  # arguments naming files, folders or globs the tool reads
    writes_if: tuple[
        tuple[str, str], ...
    ] = ()  # (path argument, flag argument): written when the flag is set
    writes_kind: str = "context set"  # what a file it writes over must already be ("snapshot")

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
    "server's workspace (its working directory); paths outside it are refused.",
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

# Properties an MCP host adds to every tool's schema for itself, and sends back in the arguments: the
# Gemini CLI adds ``wait_for_previous`` (run this call after the earlier ones of the turn) and tells
# the model to set it. They are the host's, not the tool's: accepted and dropped before the check,
# while any other unknown argument (a typo) is still an error.
HOST_PROPERTIES = frozenset({"wait_for_previous"})


def _check(tool: Tool, arguments: Any) -> dict[str, Any]:
    import jsonschema

    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ToolError(f"{tool.name}: the arguments must be a JSON object")
    if HOST_PROPERTIES & arguments.keys():
        arguments = {k: v for k, v in arguments.items() if k not in HOST_PROPERTIES}
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


_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9-]*)")


def in_tool_terms(tool: Tool, message: str) -> str:
    """A library message as the agent should read it: a CLI flag the tool takes as an argument
    (``--tables``, ``--dialect``) is named as that argument (``tables``)."""
    props = tool.schema.get("properties", {})

    def name(m: re.Match[str]) -> str:
        arg = m.group(1).replace("-", "_")
        return f"the argument {arg}" if arg in props else m.group(0)

    return _FLAG.sub(name, message)


RESULTS_DIR = os.path.join(".ctxtool", "results")  # under the server's working directory


def fit_result(tool: Tool, result: Any, limit: int) -> Any:
    """``result`` as it is when its JSON is at most ``limit`` characters; else the whole result goes
    to a file (``full_result`` gives its path) and the answer keeps what fits: the keys the tool
    marks as bulky are dropped first (``omitted`` names them), then long lists keep their head."""
    text = json.dumps(result, ensure_ascii=False, default=str)
    if len(text) <= limit or not isinstance(result, dict):
        return result
    os.makedirs(RESULTS_DIR, exist_ok=True)
    path = os.path.join(
        RESULTS_DIR, f"{tool.name}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{next(_SEQ)}.json"
    )
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    out = dict(result)
    out["full_result"] = path
    out["omitted"] = []
    for key in tool.bulky:  # "report.dropped": the key dropped of a nested object
        if len(json.dumps(out, ensure_ascii=False, default=str)) <= limit:
            break
        *parents, last = key.split(".")
        holder: Any = out
        for part in parents:
            if not isinstance(holder.get(part), dict):
                holder = None
                break
            holder[part] = dict(holder[part])
            holder = holder[part]
        if isinstance(holder, dict) and last in holder:
            holder.pop(last)
            out["omitted"].append(key)
    while len(json.dumps(out, ensure_ascii=False, default=str)) > limit:
        lists = [
            (len(json.dumps(v, default=str)), k) for k, v in out.items() if isinstance(v, list) and len(v) > 1
        ]
        if not lists:
            out = {"full_result": path, "omitted": sorted(result), "note": "the result is too large to show"}
            break
        _, key = max(lists)
        out[key] = out[key][: len(out[key]) // 2]
        out.setdefault("shortened", {})[key] = f"first {len(out[key])} of {len(result[key])}"
    out["note"] = f"the whole result ({len(text):,} characters) is in {path}"
    return out


CONTEXT_SET_KEYS = frozenset({"$schema", "templates", "facets", "value_searches", "fragments"})


def workspace_root(defaults: Defaults) -> str:
    """The folder every file a tool reads or writes must be in: ``ctxtool mcp --root DIR``, else the
    directory the server runs in (symbolic links resolved)."""
    return os.path.realpath(defaults.root or os.getcwd())


def _looks_like_file(name: str, value: str) -> bool:
    """``set`` names a published set unless it looks like a file (as :func:`ctxtool.store.load_set`
    reads it); ``workload`` is a source name unless it looks like a file."""
    if name == "set":
        return value.endswith(".json") or "/" in value or os.sep in value or os.path.isfile(value)
    if name == "workload":
        return value not in ("pg_stat_statements", "performance_schema")
    return True


def _inside(tool: Tool, name: str, value: str, root: str) -> str:
    """``value`` when it names something under ``root`` (relative paths are relative to it), else a
    :class:`ToolError`; relative to the working directory when that is not the root."""
    joined = value if os.path.isabs(value) else os.path.join(root, value)
    resolved = os.path.realpath(joined)  # ".." and symbolic links resolved
    if resolved != root and not resolved.startswith(root.rstrip(os.sep) + os.sep):
        raise ToolError(
            f"{tool.name}: {name} {value!r} is outside the workspace {root}: name a path under it "
            "(start the server with --root DIR to work in another folder)"
        )
    if os.path.isabs(value) or os.path.realpath(os.getcwd()) != root:
        return os.path.normpath(joined)
    return value


def _kind_of(data: Any) -> str:
    if isinstance(data, dict) and set(data) <= CONTEXT_SET_KEYS:
        return "context set"
    if isinstance(data, dict) and {"snapshot_version", "schemas"} <= set(data):
        return "snapshot"
    return "other"


def _check_overwrite(tool: Tool, name: str, path: str) -> None:
    """A file the call would write over must be what the tool writes (a context set, a snapshot):
    anything else (another JSON file, a file that is not JSON) is left alone with a one-line error."""
    if not os.path.isfile(path):
        return
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise ToolError(f"{tool.name}: cannot read {name} {path!r}: {exc.strerror}") from None
    if not raw.strip():
        return  # an empty file loses nothing
    try:
        kind = _kind_of(json.loads(raw))
    except (ValueError, RecursionError):
        kind = "not JSON"
    if kind != tool.writes_kind:
        what = (
            "a file that is not JSON"
            if kind == "not JSON"
            else f"a JSON file that is not a {tool.writes_kind}"
        )
        raise ToolError(
            f"{tool.name}: {name} {path!r} is {what}; it is left as it is: name a new file or a {tool.writes_kind}"
        )


def prepare_paths(tool: Tool, args: dict[str, Any], defaults: Defaults) -> dict[str, Any]:
    """The one check of the files a call names: every path it reads or writes must be under the
    workspace root (absolute paths and ``..`` leading out of it are refused), a file it writes over
    must be a file of its kind, and the folders of the files it writes are made ("context/x.json" in a
    fresh project, as the agent's workflow expects). Returns the arguments with the checked paths; a
    refused path is a one-line :class:`ToolError` naming the argument."""
    root = workspace_root(defaults)
    out = dict(args)
    writes = list(tool.writes) + [path for path, flag in tool.writes_if if args.get(flag)]
    for name in dict.fromkeys([*tool.reads, *writes]):
        value = args.get(name)
        if isinstance(value, list):
            out[name] = [_inside(tool, name, v, root) if isinstance(v, str) and v else v for v in value]
        elif isinstance(value, str) and value and _looks_like_file(name, value):
            out[name] = _inside(tool, name, value, root)
    for name in writes:
        path = out.get(name)
        if not isinstance(path, str) or not path:
            continue
        if path.endswith(("/", os.sep)) or os.path.isdir(path):
            raise ToolError(
                f"{tool.name}: {name} {path!r} is a folder: name a file in it, e.g. {path.rstrip('/')}/set.json"
            )
        _check_overwrite(tool, name, path)
        folder = os.path.dirname(path)
        if folder:
            try:
                os.makedirs(folder, exist_ok=True)
            except OSError as exc:
                raise ToolError(
                    f"{tool.name}: cannot make the folder of {name} {path!r}: {exc.strerror}"
                ) from None
    return out


def call_json(registry: dict[str, Tool], name: str, arguments: Any, defaults: Defaults) -> str:
    """Run tool ``name``; the result as JSON text. Raises :class:`ToolError` on any failure."""
    tool = registry.get(name)
    if tool is None:
        raise ToolError(f"unknown tool {name!r}: the tools are {', '.join(registry)}")
    args = _check(tool, arguments)
    scrub = redactor(defaults, args)
    try:
        args = prepare_paths(tool, args, defaults)
        result = tool.func(defaults=defaults, **args)
    except ToolError as exc:
        raise ToolError(scrub(in_tool_terms(tool, str(exc)))) from None
    except CtxtoolError as exc:
        raise ToolError(scrub(in_tool_terms(tool, str(exc)))) from None
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # noqa: BLE001 - a tool reports, the server keeps serving
        raise ToolError(scrub(f"{name} failed: {type(exc).__name__}: {exc}")) from None
    result = fit_result(tool, result, defaults.max_result_chars)
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
