"""One client for OpenAI-compatible chat completions (hosted routers, Gemini's compatible endpoint,
Ollama, vLLM, llama.cpp's server), standard library only.

Configure it with arguments or the environment (``CTXTOOL_LLM_BASE_URL``, ``CTXTOOL_LLM_MODEL``,
``CTXTOOL_LLM_API_KEY``)::

    from ctxtool.llm import ChatClient
    client = ChatClient.from_env()
    reply = client.chat([{"role": "user", "content": "Hello"}], temperature=0)
    reply.content, reply.tool_calls  # tool calls as ToolCall(id, name, arguments: dict)
"""

from __future__ import annotations

import importlib
from typing import Any

# the client's names, loaded on first use: ``ctxtool.llm.settings`` (the settings a command declares
# its flags with) loads without the HTTP client and what it imports
_CLIENT = (
    "ENV_API_KEY",
    "ENV_BASE_URL",
    "ENV_MODEL",
    "ChatClient",
    "ChatResponse",
    "ChatStream",
    "LLMError",
    "ToolCall",
    "tool_result_message",
)
__all__ = list(_CLIENT)


def __getattr__(name: str) -> Any:
    if name not in _CLIENT:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.client"), name)
    globals()[name] = value
    return value
