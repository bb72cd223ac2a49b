"""The Cloud Spanner emulator as a local, throwaway Spanner: find its binary, start it on a free
port, create instances and databases (GoogleSQL or PostgreSQL dialect), stop it at exit.

Tests and the quickstart use it so Spanner code runs against the real emulator, not a mock.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

from ctxtool.errors import CtxtoolError

DEFAULT_BINARY = "/usr/lib/google-cloud-sdk/bin/cloud_spanner_emulator/emulator_main"
EMULATOR_PROJECT = "test-project"
EMULATOR_INSTANCE_CONFIG = "emulator-config"


def find_binary() -> str | None:
    """Path of ``emulator_main``: ``$CTXTOOL_SPANNER_EMULATOR``, the Google Cloud SDK location, or
    ``emulator_main`` on ``PATH``; ``None`` when the machine has none."""
    env = os.environ.get("CTXTOOL_SPANNER_EMULATOR")
    candidates = [env] if env else []
    candidates.append(DEFAULT_BINARY)
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("emulator_main")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    """Linux: have the kernel SIGTERM the emulator when the process that started it dies, so a
    killed test run or quickstart leaves no emulator behind."""
    with contextlib.suppress(Exception):
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _port_open(host: str, port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.2):
        return True
    return False


class SpannerEmulator:
    """A running emulator process. ``host`` is the value for ``SPANNER_EMULATOR_HOST``."""

    def __init__(self, binary: str | None = None, port: int | None = None) -> None:
        self.binary = binary or find_binary()
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, timeout: float = 20.0) -> SpannerEmulator:
        """Start the emulator and wait until it accepts connections."""
        if self.binary is None:
            raise CtxtoolError(
                "the Spanner emulator binary was not found; install the Google Cloud SDK emulator "
                "or set CTXTOOL_SPANNER_EMULATOR to the path of emulator_main"
            )
        last_error = ""
        for _attempt in range(3):
            port = self.port or _free_port()
            process = subprocess.Popen(
                [self.binary, f"--host_port=127.0.0.1:{port}"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
                preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
            )
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if process.poll() is not None:
                    last_error = (process.stderr.read() if process.stderr else b"").decode(errors="replace")
                    break
                if _port_open("127.0.0.1", port):
                    self.port = port
                    self.process = process
                    atexit.register(self.stop)
                    return self
                time.sleep(0.05)
            else:
                process.kill()
                process.wait()
                last_error = f"not ready within {timeout:.0f} s"
            if self.port:  # a fixed port failed: do not try others
                break
        tail = last_error.strip().splitlines()[-1:] or ["unknown error"]
        raise CtxtoolError(f"the Spanner emulator did not start: {tail[0]}")

    def stop(self) -> None:
        """Stop the emulator process (idempotent)."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:  # its data lives in memory only: no need to wait long for a graceful exit
            process.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr:
            process.stderr.close()

    def __enter__(self) -> SpannerEmulator:
        return self.start() if self.process is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def client(host: str | None = None, project: str = EMULATOR_PROJECT):
    """A ``google.cloud.spanner.Client`` talking to the emulator at ``host`` (default:
    ``$SPANNER_EMULATOR_HOST``)."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import spanner

    host = host or os.environ.get("SPANNER_EMULATOR_HOST")
    if not host:
        raise CtxtoolError("SPANNER_EMULATOR_HOST is not set; start the emulator first")
    return spanner.Client(
        project=project,
        credentials=AnonymousCredentials(),
        client_options={"api_endpoint": host},
    )


def ensure_instance(spanner_client, instance_id: str, timeout: float = 60.0):
    """Create the emulator instance ``instance_id`` unless it exists; return it."""
    from google.api_core import exceptions

    instance = spanner_client.instance(
        instance_id,
        configuration_name=f"projects/{spanner_client.project}/instanceConfigs/{EMULATOR_INSTANCE_CONFIG}",
        display_name=instance_id,
        node_count=1,
    )
    try:
        instance.create().result(timeout)
    except exceptions.AlreadyExists:
        pass
    return instance


def create_database(
    spanner_client,
    instance_id: str,
    database_id: str,
    *,
    dialect: str = "googlesql",
    ddl: list[str] | tuple[str, ...] = (),
    timeout: float = 120.0,
):
    """Create database ``database_id`` (``dialect`` ``googlesql`` or ``postgresql``) with optional DDL."""
    from google.cloud.spanner_admin_database_v1 import DatabaseDialect

    instance = ensure_instance(spanner_client, instance_id)
    if dialect == "postgresql":
        database = instance.database(database_id, database_dialect=DatabaseDialect.POSTGRESQL)
        database.create().result(timeout)
        if ddl:  # PostgreSQL-dialect databases take no extra statements at creation
            database.update_ddl(list(ddl)).result(timeout)
    elif dialect == "googlesql":
        database = instance.database(database_id, ddl_statements=list(ddl))
        database.create().result(timeout)
    else:
        raise CtxtoolError(f"unknown Spanner dialect {dialect!r}; use googlesql or postgresql")
    return database


def drop_database(spanner_client, instance_id: str, database_id: str) -> None:
    """Drop a database; missing databases are ignored."""
    from google.api_core import exceptions

    with contextlib.suppress(exceptions.NotFound):
        spanner_client.instance(instance_id).database(database_id).drop()


def dsn(instance_id: str, database_id: str, project: str = EMULATOR_PROJECT) -> str:
    """The ctxtool DSN of a database on the emulator."""
    return f"spanner://projects/{project}/instances/{instance_id}/databases/{database_id}"
