"""Raw HTTP requests for the server tests: any body bytes and any headers (``Host`` and
``Content-Type`` included, which urllib would set itself), the JSON answer parsed."""

from __future__ import annotations

import http.client
import json
import urllib.parse
from typing import Any


def send(
    url: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    *,
    method: str | None = None,
    timeout: float = 30,
) -> tuple[int, Any]:
    """``method`` (POST with a body, else GET) of ``path`` at ``url``; ``headers`` replace the defaults
    (``Host`` of the URL, ``Content-Type: application/json``). Returns (status, parsed JSON or text)."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        method = method or ("POST" if body is not None else "GET")
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        final = {"Host": parts.netloc}
        if body is not None:
            final["Content-Type"] = "application/json"
        final.update(headers or {})
        for key, value in final.items():
            if value is not None:
                conn.putheader(key, value)
        if body is not None:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        resp = conn.getresponse()
        data = resp.read()
        try:
            return resp.status, json.loads(data)
        except ValueError:
            return resp.status, data.decode("utf-8", "replace")
    finally:
        conn.close()


def post_json(url: str, path: str, data: Any, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    return send(url, path, json.dumps(data).encode(), headers)
