"""Embedders: the built-in hashing embedder, the OpenAI-compatible endpoint, the optional local model."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtool.embeddings import HashingEmbedder, cosine, get_embedder
from ctxtool.errors import CtxtoolError, InputError


def test_default_is_hashing_and_normalized():
    emb = get_embedder()
    assert emb.name == "hash:384" and emb.dim == 384
    (vec,) = emb.embed(["How many customers live in Prague?"])
    assert len(vec) == 384
    assert math.isclose(math.fsum(x * x for x in vec), 1.0, rel_tol=1e-9)
    assert get_embedder("hash:64").dim == 64


def test_env_selects_embedder(monkeypatch):
    monkeypatch.setenv("CTXTOOL_EMBEDDER", "hash:128")
    assert get_embedder().dim == 128


def test_bad_names_are_input_errors():
    with pytest.raises(InputError, match="unknown embedder"):
        get_embedder("nope:x")
    with pytest.raises(InputError, match="hash:256"):
        get_embedder("hash:wide")
    with pytest.raises(InputError, match="at least 8"):
        get_embedder("hash:2")


def test_similar_texts_score_higher():
    emb = HashingEmbedder()
    q, near, far = emb.embed(
        [
            "count of customers by country",
            "break out the number of customers per country",
            "average loan amount for gold cards issued in 1998",
        ]
    )
    assert cosine(q, near) > 0.3
    assert cosine(q, far) < 0.15
    # accents and case do not matter
    a, b = emb.embed(["Brno - město", "brno - mesto"])
    assert cosine(a, b) > 0.999


def test_deterministic_across_processes():
    code = (
        "from ctxtool.embeddings import get_embedder;"
        "print(repr(get_embedder('hash:32').embed(['loans in south Moravia'])[0]))"
    )
    out1 = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    out2 = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "123"},
    ).stdout
    assert out1 == out2
    assert eval(out1) == HashingEmbedder(32).embed(["loans in south Moravia"])[0]


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=200))
def test_any_text_embeds_to_unit_or_zero(text):
    (vec,) = HashingEmbedder(64).embed([text])
    norm = math.fsum(x * x for x in vec)
    assert len(vec) == 64
    assert math.isclose(norm, 1.0, rel_tol=1e-9) or norm == 0.0


class _EmbeddingsHandler(BaseHTTPRequestHandler):
    requests: list = []

    def log_message(self, *args):  # quiet
        pass

    def do_POST(self):  # noqa: N802 - http.server API
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(
            {"path": self.path, "auth": self.headers.get("Authorization"), "body": body}
        )
        if body["model"] == "broken":
            payload = json.dumps({"error": {"code": 400, "message": "no such model"}}).encode()
            self.send_response(400)
        else:
            # a fake model: counts of a, e, o and length; items returned in reverse order with indexes
            data = [
                {"index": i, "embedding": [t.count("a") + 1, t.count("e"), t.count("o"), len(t)]}
                for i, t in enumerate(body["input"])
            ]
            payload = json.dumps({"object": "list", "data": list(reversed(data))}).encode()
            self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def embeddings_server():
    _EmbeddingsHandler.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EmbeddingsHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_openai_embedder(embeddings_server, monkeypatch):
    monkeypatch.setenv("CTXTOOL_EMBEDDINGS_BASE_URL", embeddings_server)
    monkeypatch.setenv("CTXTOOL_EMBEDDINGS_API_KEY", "sk-secret")
    emb = get_embedder("openai:tiny")
    texts = [f"text {'a' * i}" for i in range(70)]  # more than one batch
    vecs = emb.embed(texts)
    assert len(vecs) == 70 and emb.dim == 4 and emb.name == "openai:tiny"
    raw = [texts[5].count("a") + 1, texts[5].count("e"), texts[5].count("o"), len(texts[5])]
    norm = math.sqrt(sum(x * x for x in raw))
    assert vecs[5] == pytest.approx([x / norm for x in raw])  # order restored by index
    reqs = _EmbeddingsHandler.requests
    assert [len(r["body"]["input"]) for r in reqs] == [64, 6]
    assert reqs[0]["path"] == "/v1/embeddings" and reqs[0]["auth"] == "Bearer sk-secret"


def test_openai_embedder_errors(embeddings_server, monkeypatch):
    monkeypatch.delenv("CTXTOOL_EMBEDDINGS_BASE_URL", raising=False)
    monkeypatch.delenv("CTXTOOL_LLM_BASE_URL", raising=False)
    with pytest.raises(InputError, match="CTXTOOL_EMBEDDINGS_BASE_URL"):
        get_embedder("openai:x")
    monkeypatch.setenv("CTXTOOL_EMBEDDINGS_BASE_URL", embeddings_server)
    monkeypatch.setenv("CTXTOOL_EMBEDDINGS_API_KEY", "sk-secret")
    with pytest.raises(CtxtoolError, match="HTTP 400: no such model") as info:
        get_embedder("openai:broken").embed(["x"])
    assert "sk-secret" not in str(info.value)
    monkeypatch.setenv("CTXTOOL_EMBEDDINGS_BASE_URL", "http://127.0.0.1:9/v1")
    with pytest.raises(CtxtoolError, match="unreachable"):
        get_embedder("openai:x").embed(["x"])


def test_local_embedder_optional_extra():
    try:
        import all_minilm_l6_v2  # noqa: F401
        import sentence_transformers  # noqa: F401
    except ImportError:
        # an optional extra, not a backend: a plain skip, never a CI failure
        pytest.skip("optional extra local-embeddings not installed (pip install 'ctxtool[local-embeddings]')")
    emb = get_embedder("local")
    a, b, c = emb.embed(["count of customers by country", "number of clients per nation", "gold card fees"])
    assert emb.dim == len(a)
    assert cosine(a, b) > cosine(a, c)


def test_local_embedder_missing_extra_message():
    try:
        import sentence_transformers  # noqa: F401

        pytest.skip("sentence-transformers is installed; the missing-extra message cannot show")
    except ImportError:
        pass
    with pytest.raises(InputError, match="local-embeddings"):
        get_embedder("local")
