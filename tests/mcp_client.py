"""A blocking MCP client for tests: the MCP Python SDK's ClientSession (over stdio or streamable HTTP)
driven from synchronous test code through an anyio blocking portal."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from anyio.from_thread import start_blocking_portal

REPO = Path(__file__).resolve().parent.parent


class Client:
    """One initialized session; :meth:`call` returns (is_error, data or message)."""

    def __init__(self, portal: Any, session: Any) -> None:
        self.portal = portal
        self.session = session

    def tools(self) -> dict[str, Any]:
        return {t.name: t for t in self.portal.call(self.session.list_tools).tools}

    def call(
        self, name: str, arguments: dict[str, Any] | None = None, progress: list | None = None
    ) -> tuple[bool, Any]:
        """``progress``: a list that collects the (progress, total, message) notifications of the call."""

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append((done, total, message))

        callback = on_progress if progress is not None else None
        result = self.portal.call(self.session.call_tool, name, arguments or {}, None, callback)
        text = result.content[0].text if result.content else ""
        if result.is_error and result.structured_content is None:
            return True, text
        assert json.loads(text) == result.structured_content  # the text block carries the same data
        return bool(result.is_error), result.structured_content

    def ok(self, name: str, arguments: dict[str, Any] | None = None, progress: list | None = None) -> Any:
        failed, data = self.call(name, arguments, progress)
        assert not failed, f"{name} failed: {data}"
        return data

    def error(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        failed, data = self.call(name, arguments)
        assert failed, f"{name} should have failed, got {str(data)[:300]}"
        return data if isinstance(data, str) else json.dumps(data)


@contextlib.contextmanager
def stdio(*args: str, cwd: Path | str = REPO, env: dict[str, str] | None = None) -> Iterator[Client]:
    """``ctxtool mcp ARGS`` as a subprocess, with an initialized client session."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "ctxtool", "mcp", *args],
        cwd=str(cwd),
        env=dict(os.environ) if env is None else env,  # the SDK's default passes only a few variables
    )
    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(stdio_client(params)) as (read, write):
            with portal.wrap_async_context_manager(ClientSession(read, write)) as session:
                portal.call(session.initialize)
                yield Client(portal, session)


@contextlib.contextmanager
def http(url: str, token: str | None) -> Iterator[Client]:
    """A client session over streamable HTTP, sending ``Authorization: Bearer TOKEN`` when given."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else None
    with start_blocking_portal() as portal:
        client = portal.wrap_async_context_manager(create_mcp_http_client(headers=headers))
        with client as http_client:
            transport = streamable_http_client(url, http_client=http_client)
            with portal.wrap_async_context_manager(transport) as (read, write):
                with portal.wrap_async_context_manager(ClientSession(read, write)) as session:
                    portal.call(session.initialize)
                    yield Client(portal, session)
