"""Serving a context set: an HTTP JSON API (stdlib ``http.server``, documented with OpenAPI) and an MCP
server over stdio for agent tools."""

from __future__ import annotations

from ctxtool.server.http import make_server, serve_http
from ctxtool.server.mcp import serve_mcp

__all__ = ["make_server", "serve_http", "serve_mcp"]
