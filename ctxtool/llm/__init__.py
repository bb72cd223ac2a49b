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

from ctxtool.llm.client import (
    ENV_API_KEY,
    ENV_BASE_URL,
    ENV_MODEL,
    ChatClient,
    ChatResponse,
    ChatStream,
    LLMError,
    ToolCall,
    tool_result_message,
)

__all__ = [
    "ENV_API_KEY",
    "ENV_BASE_URL",
    "ENV_MODEL",
    "ChatClient",
    "ChatResponse",
    "ChatStream",
    "LLMError",
    "ToolCall",
    "tool_result_message",
]
