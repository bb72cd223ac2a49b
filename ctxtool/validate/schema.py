"""Schema layer: the file against ``schemas/context_set.schema.json`` (JSON Schema 2020-12), each
violation reported at the line and column of the offending node.

A valid file is told by a walk of the schema (:func:`conforms`: the few keywords the schema uses,
decided exactly), in milliseconds and without importing jsonschema, which costs a one-file
``ctxtool validate`` about a fifth of its CPU; jsonschema runs when the walk rejects, to name each
problem (as ``ctxtool.snapshot.check`` does for snapshots)."""

from __future__ import annotations

import difflib
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from ctxtool.errors import CtxtoolError
from ctxtool.jsondoc import escape_pointer_token
from ctxtool.validate.context import Context

_SCHEMA_NAME = "context_set.schema.json"
_KEYWORD_CODES = {
    "type": "CTX101",
    "required": "CTX102",
    "additionalProperties": "CTX103",
    "unevaluatedProperties": "CTX103",
    "minLength": "CTX104",
}


def schema_path() -> Path:
    """The schema file: ``ctxtool/data`` in an installed package, ``schemas/`` in a checkout."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "data" / _SCHEMA_NAME, here.parent / "schemas" / _SCHEMA_NAME):
        if candidate.is_file():
            return candidate
    raise CtxtoolError(f"{_SCHEMA_NAME} is missing from this installation; reinstall ctxtool")


@lru_cache(maxsize=1)
def load_schema() -> dict[str, Any]:
    return json.loads(schema_path().read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _validator():  # type: ignore[no-untyped-def]
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema())


def _source_pointer(ctx: Context, path: list[Any]) -> str:
    """The pointer as written in the file (legacy ``fragments`` for facets when the file uses it)."""
    tokens = [str(p) for p in path]
    doc_data = ctx.cs.doc.data
    if tokens and tokens[0] == "facets" and isinstance(doc_data, dict) and "facets" not in doc_data:
        tokens[0] = "fragments"
    return "".join("/" + escape_pointer_token(t) for t in tokens)


def _describe(error: Any) -> list[tuple[str, str, str]]:
    """(code, pointer suffix, message) for each problem one jsonschema error stands for."""
    keyword = error.validator
    code = _KEYWORD_CODES.get(keyword, "CTX101")
    where = "/".join(str(p) for p in error.absolute_path) or "the top level"
    if keyword == "required":
        m = re.match(r"^'(.*)' is a required property$", error.message)
        missing = [m.group(1)] if m else [n for n in error.validator_value if n not in error.instance]
        return [(code, "", f"{where}: missing required field {name!r}") for name in missing]
    if keyword in ("additionalProperties", "unevaluatedProperties"):
        allowed = set(error.schema.get("properties", {}))
        extra = sorted(k for k in error.instance if k not in allowed)
        out = []
        for name in extra:
            close = difflib.get_close_matches(name, sorted(allowed), n=1, cutoff=0.6)
            if close:
                hint = f"; did you mean {close[0]!r}?"
            else:
                hint = f"; allowed: {', '.join(sorted(allowed))}" if allowed else ""
            out.append((code, "/" + escape_pointer_token(name), f"{where}: unknown field {name!r}{hint}"))
        return out
    if keyword == "type":
        expected = error.validator_value
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        return [(code, "", f"{where}: expected {expected}, found {_json_type(error.instance)}")]
    if keyword == "minLength":
        return [(code, "", f"{where}: must not be empty")]
    return [(code, "", f"{where}: {error.message}")]


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


# The keywords the fast walk decides exactly; a schema using any other one is left to jsonschema.
_WALKED = frozenset(
    {"$schema", "$id", "$defs", "$ref", "$comment", "title", "description", "examples", "default"}
    | {"type", "properties", "required", "additionalProperties", "items", "minLength"}
)
_TYPES: dict[str, Any] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    ),
}


@lru_cache(maxsize=1)
def _schema_walkable() -> bool:
    schema = load_schema()
    return _walkable(schema, schema)


def _walkable(schema: Any, root: dict[str, Any]) -> bool:
    """Whether every (sub)schema uses only :data:`_WALKED` keywords, local ``$ref`` and known types."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict) or not set(schema) <= _WALKED:
        return False
    ref = schema.get("$ref")
    if ref is not None and _resolve(ref, root) is None:
        return False
    types = schema.get("type", [])
    if any(t not in _TYPES for t in (types if isinstance(types, list) else [types])):
        return False
    subschemas = [*schema.get("properties", {}).values(), *schema.get("$defs", {}).values()]
    subschemas += [schema[k] for k in ("additionalProperties", "items") if k in schema]
    return all(_walkable(s, root) for s in subschemas)


def _resolve(ref: str, root: dict[str, Any]) -> Any:
    """The subschema a local ``#/$defs/NAME`` reference names (None for any other reference)."""
    if not ref.startswith("#/$defs/"):
        return None
    return root.get("$defs", {}).get(ref[len("#/$defs/") :])


def _fits(value: Any, schema: Any, root: dict[str, Any]) -> bool:
    """Whether ``value`` is valid against ``schema`` (of :func:`_walkable` keywords only)."""
    if isinstance(schema, bool):
        return schema
    ref = schema.get("$ref")
    if ref is not None and not _fits(value, _resolve(ref, root), root):
        return False
    types = schema.get("type")
    if types is not None and not any(
        _TYPES[t](value) for t in (types if isinstance(types, list) else [types])
    ):
        return False
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        return False
    if isinstance(value, dict):
        if any(name not in value for name in schema.get("required", ())):
            return False
        properties = schema.get("properties", {})
        others = schema.get("additionalProperties", True)
        for name, item in value.items():
            if not _fits(item, properties[name] if name in properties else others, root):
                return False
    if isinstance(value, list) and "items" in schema:
        return all(_fits(item, schema["items"], root) for item in value)
    return True


def conforms(data: Any) -> bool:
    """True when ``data`` is valid against the context-set schema, decided by a walk of the schema
    (milliseconds, and no jsonschema import); False when it is not, or when the schema uses a
    keyword the walk does not decide (then :func:`check` asks jsonschema, which names the problems)."""
    schema = load_schema()
    return _schema_walkable() and _fits(data, schema, schema)


def check(ctx: Context) -> None:
    if conforms(ctx.cs.data):
        return
    seen: set[tuple[str, str, str]] = set()
    errors = sorted(_validator().iter_errors(ctx.cs.data), key=lambda e: list(map(str, e.absolute_path)))
    for error in errors:
        base = _source_pointer(ctx, list(error.absolute_path))
        for code, suffix, message in _describe(error):
            if (code, base + suffix, message) in seen:
                continue
            seen.add((code, base + suffix, message))
            ctx.report(code, base + suffix, message)
