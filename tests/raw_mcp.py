"""A long-lived ``ctxtool mcp`` on stdio driven by raw JSON-RPC lines (bytes the SDK client would
never send: 3,000 ``[``, lone surrogates, invalid UTF-8), with a deadline on every answer."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


class RawMcp:
    def __init__(self, *args: str, cwd: Path | str = REPO, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ctxtool", "mcp", *args],
            cwd=str(cwd),
            env=dict(os.environ) if env is None else env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.stderr: list[bytes] = []
        self._readers = [
            threading.Thread(target=self._read, args=(self.proc.stdout, self.lines.put), daemon=True),
            threading.Thread(target=self._read, args=(self.proc.stderr, self.stderr.append), daemon=True),
        ]
        for reader in self._readers:
            reader.start()
        self.next_id = 100
        self.send_json(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
        )
        assert self.answer(60)["id"] == 1
        self.send_json({"jsonrpc": "2.0", "method": "notifications/initialized"})

    @staticmethod
    def _read(stream: Any, put: Any) -> None:
        for line in iter(stream.readline, b""):
            put(line)

    def send(self, line: bytes) -> None:
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def send_json(self, message: dict[str, Any]) -> None:
        self.send(json.dumps(message).encode())

    def answer(self, timeout: float = 30) -> dict[str, Any]:
        """The next line the server writes (a test failure, not a hang, when none comes in time)."""
        try:
            return json.loads(self.lines.get(timeout=timeout))
        except queue.Empty:
            raise AssertionError(f"no answer within {timeout} s; stderr: {self.log()[-2000:]}") from None

    def call(self, name: str, arguments: dict[str, Any], timeout: float = 60) -> dict[str, Any]:
        self.next_id += 1
        self.send_json(
            {
                "jsonrpc": "2.0",
                "id": self.next_id,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
        )
        reply = self.answer(timeout)
        assert reply.get("id") == self.next_id, reply
        return reply

    def log(self) -> str:
        return b"".join(self.stderr).decode("utf-8", "replace")

    def close(self) -> str:
        """End input, wait for the exit; the server's stderr."""
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        for reader in self._readers:
            reader.join(timeout=10)
        return self.log()

    def __enter__(self) -> RawMcp:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
