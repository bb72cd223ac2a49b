"""Schema layer: the file against ``schemas/context_set.schema.json`` (JSON Schema 2020-12), each
violation reported at the line and column of the offending node."""

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


def check(ctx: Context) -> None:
    seen: set[tuple[str, str, str]] = set()
    errors = sorted(_validator().iter_errors(ctx.cs.data), key=lambda e: list(map(str, e.absolute_path)))
    for error in errors:
        base = _source_pointer(ctx, list(error.absolute_path))
        for code, suffix, message in _describe(error):
            if (code, base + suffix, message) in seen:
                continue
            seen.add((code, base + suffix, message))
            ctx.report(code, base + suffix, message)
