"""The answer to MCP's ``initialize`` request, written before the MCP SDK is imported.

A host such as the Gemini CLI starts ``ctxtool mcp`` and waits for the answer to ``initialize``
before it goes on; importing the SDK (its pydantic models of every protocol version) costs about half
a second of CPU. So the stdio server reads the first line itself and, when it is an ``initialize``
request of the handshake era, answers it from the constants here; the SDK then reads the same line
first, so its session state (client capabilities, negotiated version) is what a session initialized
by the SDK holds, and its own answer to that line is dropped (:mod:`ctxtool.mcp.stdio`).

The answer is the SDK's, byte for byte: the same version negotiation (the client's version when the
SDK speaks it through the handshake, else the newest it does), capabilities (what the server's
handlers offer: tools, whose list does not change), server name, version and instructions, the same
key order and separators. ``tests/test_mcp_handshake.py`` compares the two for several requests, and
the server compares each early answer with the SDK's answer to the same line, saying on stderr if they
ever differ. A first line that is anything else (a request of the 2026-07-28 era, a ping, something
that is not JSON, params the SDK might refuse) is left to the SDK.
"""

from __future__ import annotations

import json
import os
from typing import Any

from ctxtool import __version__
from ctxtool.errors import InputError
from ctxtool.limits import loads_request

NAME = "ctxtool"
INSTRUCTIONS = (
    "ctxtool authors, checks and serves NL-to-SQL context sets (templates, facets, value searches). "
    "Workflow: introspect the database into a snapshot, draft_templates / draft_facets / draft_values, "
    "review the drafts with the user, change the set with mutate_set, parameterize, validate (fix every "
    "error finding), test_values, eval on golden questions, improve and evaluate again; ask / "
    "query_data try the set as a user would. Paths are relative to the server's working directory, "
    "and files are read and written only under it."
)

# The SDK's (mcp_types.version): the revisions reachable through initialize, oldest to newest.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
# What the SDK's low-level Server advertises for a server with tool handlers only.
CAPABILITIES: dict[str, Any] = {"tools": {"listChanged": False}}
# The key of params._meta that marks a request of the per-request-envelope era (2026-07-28).
_MODERN_META_KEY = "io.modelcontextprotocol/protocolVersion"
_TEXT_FIELDS = ("title", "description", "websiteUrl")


def read_line(fd: int, limit: int) -> bytes | None:
    """One line of ``fd`` (with its newline; empty at end of input), read a byte at a time so that
    nothing after it is consumed: the server's reader goes on from the next byte. None for a line of
    ``limit`` bytes or more (read past, not kept)."""
    chunks = bytearray()
    while True:
        byte = os.read(fd, 1)
        if not byte:
            return bytes(chunks) if len(chunks) < limit else None
        if len(chunks) < limit:
            chunks += byte
        if byte == b"\n":
            return bytes(chunks) if len(chunks) < limit else None


def _answerable(message: Any) -> bool:
    """An ``initialize`` request whose params the SDK accepts: the envelope and the types of every
    field its models check (anything unusual is left to the SDK, which says what is wrong)."""
    if (
        not isinstance(message, dict)
        or message.get("jsonrpc") != "2.0"
        or message.get("method") != "initialize"
    ):
        return False
    rid = message.get("id")
    if isinstance(rid, bool) or not isinstance(rid, int | str):
        return False
    params = message.get("params")
    if not isinstance(params, dict) or not isinstance(params.get("protocolVersion"), str):
        return False
    meta = params.get("_meta")
    if meta is not None and (not isinstance(meta, dict) or _MODERN_META_KEY in meta):
        return False
    capabilities, client = params.get("capabilities"), params.get("clientInfo")
    if not isinstance(capabilities, dict) or not all(isinstance(v, dict) for v in capabilities.values()):
        return False
    for nested in ("experimental", "extensions"):
        if not all(isinstance(v, dict) for v in capabilities.get(nested, {}).values()):
            return False
    if not isinstance(client, dict) or not all(isinstance(client.get(k), str) for k in ("name", "version")):
        return False
    if any(client.get(k) is not None and not isinstance(client[k], str) for k in _TEXT_FIELDS):
        return False
    return "icons" not in client  # a list of objects with their own rules: the SDK checks those


def negotiate(requested: str) -> str:
    """The protocol version of the session: the client's when the SDK speaks it, else the newest."""
    return requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]


def reply(line: bytes | str | None, *, instructions: str = INSTRUCTIONS) -> tuple[str, str] | None:
    """(the request's id as JSON, the response line) for an ``initialize`` line this module answers,
    else None (the server's reader then answers or refuses the line as any other)."""
    if line is None:
        return None
    try:
        message = loads_request(line, what="the message")
    except InputError:
        return None
    if not _answerable(message):
        return None
    result = {
        "capabilities": CAPABILITIES,
        "instructions": instructions,
        "protocolVersion": negotiate(message["params"]["protocolVersion"]),
        "serverInfo": {"name": NAME, "version": __version__},
    }
    rid = json.dumps(message["id"], ensure_ascii=False)
    body = json.dumps(result, ensure_ascii=False, separators=(",", ":"))
    return rid, f'{{"jsonrpc":"2.0","id":{rid},"result":{body}}}\n'
