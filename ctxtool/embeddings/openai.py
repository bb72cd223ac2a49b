"""Embeddings from an OpenAI-compatible ``POST {base_url}/embeddings`` endpoint (standard library only).

Configuration: ``$CTXTOOL_EMBEDDINGS_BASE_URL`` (else ``$CTXTOOL_LLM_BASE_URL``), the model from
``openai:MODEL`` (else ``$CTXTOOL_EMBEDDINGS_MODEL``), the key from ``$CTXTOOL_EMBEDDINGS_API_KEY``
(else ``$CTXTOOL_LLM_API_KEY``). The key is sent as a bearer token and never appears in messages.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request

from ctxtool.embeddings.base import normalize
from ctxtool.errors import CtxtoolError, InputError

BATCH = 64


class OpenAIEmbedder:
    """Calls an OpenAI-compatible embeddings endpoint in batches; vectors are L2-normalized."""

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 30.0,
        dimensions: int | None = None,
    ) -> None:
        self.model = model or os.environ.get("CTXTOOL_EMBEDDINGS_MODEL") or "text-embedding-3-small"
        base = (
            base_url
            or os.environ.get("CTXTOOL_EMBEDDINGS_BASE_URL")
            or os.environ.get("CTXTOOL_LLM_BASE_URL")
        )
        if not base:
            raise InputError(
                "embedder openai: no endpoint configured: set CTXTOOL_EMBEDDINGS_BASE_URL "
                "(or CTXTOOL_LLM_BASE_URL), e.g. http://127.0.0.1:8000/v1"
            )
        self.base_url = base.rstrip("/")
        self.api_key = (
            api_key
            if api_key is not None
            else os.environ.get("CTXTOOL_EMBEDDINGS_API_KEY") or os.environ.get("CTXTOOL_LLM_API_KEY")
        )
        self.timeout = timeout
        self.dimensions = dimensions
        self._dim: int | None = dimensions
        self.name = f"openai:{self.model}"

    @property
    def dim(self) -> int:
        """The vector length; asks the endpoint once (embedding a probe text) when not yet known."""
        if self._dim is None:
            self.embed(["dimension probe"])
        assert self._dim is not None
        return self._dim

    def _post(self, texts: list[str]) -> list[list[float]]:
        body: dict = {"model": self.model, "input": texts}
        if self.dimensions:
            body["dimensions"] = self.dimensions
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            self.base_url + "/embeddings", data=json.dumps(body).encode("utf-8"), headers=headers
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                payload = json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            detail = ""
            try:
                err = json.loads(exc.read().decode("utf-8", "replace"))
                if isinstance(err, list) and err:
                    err = err[0]
                if isinstance(err, dict) and isinstance(err.get("error"), dict):
                    detail = str(err["error"].get("message") or "")
            except (ValueError, OSError):
                pass
            raise CtxtoolError(
                f"embeddings endpoint {self.base_url} answered HTTP {exc.code}"
                + (f": {detail}" if detail else "")
                + ": check the model name and CTXTOOL_EMBEDDINGS_API_KEY"
            ) from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise CtxtoolError(
                f"embeddings endpoint {self.base_url} unreachable ({reason}): check CTXTOOL_EMBEDDINGS_BASE_URL"
            ) from None
        except ValueError:
            raise CtxtoolError(f"embeddings endpoint {self.base_url} returned invalid JSON") from None
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list) or len(data) != len(texts):
            raise CtxtoolError(
                f"embeddings endpoint {self.base_url} returned {len(data) if isinstance(data, list) else 'no'} "
                f"vectors for {len(texts)} texts"
            )
        ordered = sorted(data, key=lambda d: d.get("index", 0) if isinstance(d, dict) else 0)
        vectors = []
        for item in ordered:
            vec = item.get("embedding") if isinstance(item, dict) else None
            if not isinstance(vec, list) or not vec:
                raise CtxtoolError(
                    f"embeddings endpoint {self.base_url} returned an item without 'embedding'"
                )
            vectors.append(normalize([float(x) for x in vec]))
        return vectors

    def embed(self, texts: list[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for start in range(0, len(texts), BATCH):
            out.extend(self._post(texts[start : start + BATCH]))
        if out:
            if self._dim is not None and self.dimensions is None and len(out[0]) != self._dim:
                raise CtxtoolError(
                    f"embeddings endpoint {self.base_url} changed vector length from {self._dim} to {len(out[0])}"
                )
            self._dim = len(out[0])
        return out
