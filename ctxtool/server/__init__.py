"""Serving a context set: an HTTP JSON API (ASGI on uvicorn, documented with OpenAPI) and an MCP
server over stdio for agent tools."""

from __future__ import annotations

from ctxtool.server.http import create_app, make_server, serve_http
from ctxtool.server.mcp import serve_mcp

__all__ = ["create_app", "make_server", "serve_http", "serve_mcp"]
