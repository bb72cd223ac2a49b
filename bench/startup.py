"""Start-up costs of the commands people run most, as ratios to the floor each one stands on.

Every line runs whole processes, as a user or an agent starts them, and reads their CPU time
(user + system, from ``wait4``) and peak resident memory; the median of ``--repeat`` runs after one
warm-up run (so the disk caches and ctxtool's own caches, such as a set's sentence vectors, are
warm: the process itself is cold).

- ``ask``: ``ctxtool ask QUESTION --context SET --dsn DSN --format json`` on a 12-template set (the
  first 12 templates of the financial sample's runtime set, with its value searches), against a
  bare Python process that imports psycopg, connects and runs the SQL the answer ran.
  Goals: at most 2x the CPU, at most 150 MB peak memory.
- ``validate``: ``ctxtool validate FILE`` against a bare Python process that imports sqlglot and
  parses the same SQL statements (every template's and facet's concrete and parameterized SQL, and
  the value searches) in the set's dialect; on the financial runtime sample and on a set of 1,000
  templates. Goal: at most 1.3x.
- ``mcp``: ``ctxtool mcp`` (stdio) until it answers ``initialize``: its CPU time then, and the wall
  time. Goal: at most 0.3 s of CPU.
- ``introspect``: ``ctxtool introspect --dsn DSN -o FILE`` of a 20-table database (20 columns, keys,
  indexes, comments: ``bench/introspect.py``'s schema) against ``pg_dump --schema-only``, wall time.
  Goal: at most 1.5x.

    .venv/bin/python bench/startup.py                 # every line
    .venv/bin/python bench/startup.py --only ask --repeat 7

Needs PostgreSQL on 127.0.0.1:5432 (user postgres, trust) and ``pg_dump`` on PATH; the scratch
databases are dropped at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PG_ADMIN = os.environ.get("CTXTOOL_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
RUNTIME_SET = ROOT / "samples" / "postgres" / "financial_runtime.json"
QUESTION = "How many accounts are in the district Pisek?"
# the same question in other words: the sentence encoder has to read it (its session loads)
PARAPHRASE = "What is the number of accounts opened in the Pisek district?"
LINES = ("ask", "validate", "mcp", "introspect")
CTXTOOL = [sys.executable, "-m", "ctxtool"]


@dataclass
class Run:
    cpu: float  # seconds, user + system
    wall: float  # seconds
    rss_mb: float  # peak resident set
    out: bytes


def run(cmd: Sequence[str], env: dict[str, str] | None = None) -> Run:
    """One process to its end: CPU and peak memory from ``wait4``, its stdout."""
    started = time.perf_counter()
    proc = subprocess.Popen(list(cmd), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    return Run(usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024, out)


def median_run(cmd: Sequence[str], repeat: int, env: dict[str, str] | None = None) -> Run:
    run(cmd, env)  # warm-up: disk caches, the set's vectors
    runs = [run(cmd, env) for _ in range(repeat)]
    return Run(
        statistics.median(r.cpu for r in runs),
        statistics.median(r.wall for r in runs),
        statistics.median(r.rss_mb for r in runs),
        runs[-1].out,
    )


def bare_python(code: str, *args: str) -> list[str]:
    return [sys.executable, "-c", code, *args]


# -- the scratch database -------------------------------------------------------------------------
def scratch_database(prefix: str) -> str:
    import psycopg

    name = f"{prefix}_{os.getpid()}_{secrets.token_hex(2)}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name


def drop_database(name: str) -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def dsn_of(name: str) -> str:
    return PG_ADMIN.rsplit("/", 1)[0] + "/" + name


# -- the lines ------------------------------------------------------------------------------------
BARE_QUERY = (
    "import json, sys, psycopg\n"
    "dsn, sql, params = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])\n"
    "with psycopg.connect(dsn) as conn:\n"
    "    rows = conn.execute(sql, params).fetchall()\n"
    "print(json.dumps([[str(v) for v in r] for r in rows]))\n"
)


def line_ask(repeat: int, tmp: Path, env: dict[str, str]) -> dict[str, Any]:
    from ctxtool import sampledata

    data = json.loads(RUNTIME_SET.read_text())
    data["templates"] = data["templates"][:12]
    data.pop("facets", None)
    path = tmp / "twelve.json"
    path.write_text(json.dumps(data))
    name = scratch_database("ctx_bench_startup")
    try:
        dsn = dsn_of(name)
        import psycopg

        with psycopg.connect(dsn, autocommit=True) as conn:
            for ext in ("pg_trgm", "fuzzystrmatch"):
                conn.execute(f"CREATE EXTENSION IF NOT EXISTS {ext}")
        sampledata.load(dsn, ("financial",), scale=0.02)
        cmd = [
            *CTXTOOL,
            "ask",
            QUESTION,
            "--context",
            str(path),
            "--dsn",
            dsn,
            "--no-llm",
            "--format",
            "json",
        ]
        ours = median_run(cmd, repeat, env)
        answer = json.loads(ours.out)
        if answer.get("status") != "answered":
            raise SystemExit(f"the ask line needs an answer: {answer.get('status')} {answer.get('text')}")
        # psycopg binds %s: the answer's $n placeholders, numbered in order, become %s
        sql = answer["sql"]
        for i in range(len(answer["params"]), 0, -1):
            sql = sql.replace(f"${i}", "%s")
        bare = median_run(bare_python(BARE_QUERY, dsn, sql, json.dumps(answer["params"])), repeat, env)
        other = median_run([PARAPHRASE if x == QUESTION else x for x in cmd], repeat, env)
    finally:
        drop_database(name)
    return {
        "line": "ask",
        "what": f"ctxtool ask on a 12-template set vs psycopg connect + query ({QUESTION!r})",
        "ctxtool_cpu_s": ours.cpu,
        "reference_cpu_s": bare.cpu,
        "ratio": ours.cpu / bare.cpu,
        "goal": 2.0,
        "peak_mb": ours.rss_mb,
        "reference_peak_mb": bare.rss_mb,
        "peak_goal_mb": 150,
        "paraphrase": PARAPHRASE,
        "paraphrase_cpu_s": other.cpu,
        "paraphrase_peak_mb": other.rss_mb,
        "paraphrase_status": json.loads(other.out).get("status"),
    }


BARE_PARSE = (
    "import json, sys, sqlglot\n"
    "dialect = sys.argv[2]\n"
    "for s in json.load(open(sys.argv[1])):\n"
    "    sqlglot.parse(s, read=dialect)\n"
)


def statements(data: dict[str, Any]) -> list[str]:
    """The SQL a validation must parse: templates, facets (as a WHERE), value searches."""
    out: list[str] = []
    for t in data.get("templates") or []:
        par = t.get("parameterized") or {}
        out += [s for s in (t.get("sql"), par.get("parameterized_sql")) if s]
    for f in data.get("facets") or []:
        par = f.get("parameterized") or {}
        out += [
            f"SELECT 1 WHERE {s}" for s in (f.get("sql_snippet"), par.get("parameterized_sql_snippet")) if s
        ]
    out += [v["query"] for v in data.get("value_searches") or [] if v.get("query")]
    return out


def line_validate(repeat: int, tmp: Path, env: dict[str, str]) -> list[dict[str, Any]]:
    sys.path.insert(0, str(ROOT / "bench"))
    from validate import make_set  # bench/validate.py: 1,000 distinct valid templates

    big = tmp / "thousand.json"
    big.write_text(json.dumps(make_set(1000)))
    out = []
    for label, path in (("financial runtime sample", RUNTIME_SET), ("1,000 templates", big)):
        data = json.loads(path.read_text())
        stmts = tmp / f"{path.stem}.statements.json"
        stmts.write_text(json.dumps(statements(data)))
        ours = median_run([*CTXTOOL, "validate", str(path), "--dialect", "postgres"], repeat, env)
        bare = median_run(bare_python(BARE_PARSE, str(stmts), "postgres"), repeat, env)
        out.append(
            {
                "line": "validate",
                "what": f"ctxtool validate FILE vs sqlglot parsing its {len(statements(data))} statements ({label})",
                "ctxtool_cpu_s": ours.cpu,
                "reference_cpu_s": bare.cpu,
                "ratio": ours.cpu / bare.cpu,
                "goal": 1.3,
            }
        )
    return out


def _proc_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks  # utime, stime


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench-startup", "version": "1"},
    },
}


def mcp_initialize(env: dict[str, str]) -> tuple[float, float]:
    """(CPU s, wall s) of ``ctxtool mcp`` from its start until its answer to ``initialize``."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [*CTXTOOL, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        proc.stdin.flush()
        line = proc.stdout.readline()
        wall = time.perf_counter() - started
        cpu = _proc_cpu(proc.pid)
        if not line or json.loads(line).get("id") != 1:
            raise SystemExit(f"ctxtool mcp did not answer initialize: {line[:200]!r}")
    finally:
        proc.kill()
        proc.wait()
    return cpu, wall


def line_mcp(repeat: int, env: dict[str, str]) -> dict[str, Any]:
    mcp_initialize(env)
    runs = [mcp_initialize(env) for _ in range(repeat)]
    return {
        "line": "mcp",
        "what": "ctxtool mcp (stdio) until it answers initialize",
        "ctxtool_cpu_s": statistics.median(c for c, _ in runs),
        "wall_s": statistics.median(w for _, w in runs),
        "goal_cpu_s": 0.3,
    }


def line_introspect(repeat: int, tmp: Path, env: dict[str, str]) -> dict[str, Any]:
    import psycopg

    sys.path.insert(0, str(ROOT / "bench"))
    from introspect import _pg_ddl  # bench/introspect.py's schema: keys, indexes, comments

    name = scratch_database("ctx_bench_startup_is")
    try:
        dsn = dsn_of(name)
        with psycopg.connect(dsn) as conn:
            for stmt in _pg_ddl(20, 20):
                conn.execute(stmt)
            conn.execute("ANALYZE")
        ours = median_run([*CTXTOOL, "introspect", "--dsn", dsn, "-o", str(tmp / "snap.json")], repeat, env)
        dump = [
            "pg_dump",
            "--schema-only",
            "-h",
            "127.0.0.1",
            "-U",
            "postgres",
            "-d",
            name,
            "-f",
            str(tmp / "d.sql"),
        ]
        theirs = median_run(dump, repeat, env)
    finally:
        drop_database(name)
    return {
        "line": "introspect",
        "what": "ctxtool introspect of 20 tables vs pg_dump --schema-only (wall)",
        "ctxtool_wall_s": ours.wall,
        "reference_wall_s": theirs.wall,
        "ratio": ours.wall / theirs.wall,
        "ctxtool_cpu_s": ours.cpu,
        "reference_cpu_s": theirs.cpu,
        "goal": 1.5,
    }


def show(results: list[dict[str, Any]]) -> None:
    for r in results:
        if r["line"] == "mcp":
            ok = r["ctxtool_cpu_s"] <= r["goal_cpu_s"]
            print(
                f"{r['line']:10} {r['ctxtool_cpu_s']:.3f} CPU s ({r['wall_s']:.2f} s wall) to initialize; "
                f"goal <= {r['goal_cpu_s']} CPU s: {'met' if ok else 'NOT met'}  -- {r['what']}"
            )
            continue
        ok = r["ratio"] <= r["goal"]
        if r["line"] == "introspect":
            figures = f"{r['ctxtool_wall_s']:.3f} s vs {r['reference_wall_s']:.3f} s wall"
        else:
            figures = f"{r['ctxtool_cpu_s']:.3f} vs {r['reference_cpu_s']:.3f} CPU s"
        extra = ""
        if "peak_mb" in r:
            ok = ok and r["peak_mb"] <= r["peak_goal_mb"]
            extra = f", peak {r['peak_mb']:.0f} MB (goal <= {r['peak_goal_mb']} MB; bare {r['reference_peak_mb']:.0f} MB)"
        print(
            f"{r['line']:10} {r['ratio']:.2f}x ({figures}{extra}); goal <= {r['goal']}x: "
            f"{'met' if ok else 'NOT met'}  -- {r['what']}"
        )
        if "paraphrase" in r:
            print(
                f"{'':10} {r['paraphrase_cpu_s'] / r['reference_cpu_s']:.2f}x ({r['paraphrase_cpu_s']:.3f} CPU s, "
                f"peak {r['paraphrase_peak_mb']:.0f} MB, {r['paraphrase_status']}) in other words, the encoder "
                f"loaded: {r['paraphrase']!r}"
            )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", choices=LINES, help="only this line (repeatable)")
    ap.add_argument("--repeat", type=int, default=5, help="median of N runs (after a warm-up)")
    ap.add_argument("--format", choices=["text", "json"], default="text")
    args = ap.parse_args(argv)
    lines = args.only or list(LINES)
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        # a data directory of its own: the set's vectors are cached there by the warm-up run
        # each process is cold; what a user's machine keeps between processes is warm after the
        # warm-up run: ctxtool's data and cache directories (the set's vectors, the compiled set) and
        # Python's bytecode (written under a prefix of the scratch folder: an environment that sets
        # PYTHONDONTWRITEBYTECODE would otherwise compile ctxtool's modules in every process, which an
        # installed ctxtool never does)
        env = dict(
            os.environ,
            CTXTOOL_NO_PROGRESS="1",
            CTXTOOL_HOME=str(tmp / "home"),
            CTXTOOL_CACHE=str(tmp / "cache"),
            PYTHONPYCACHEPREFIX=str(tmp / "pycache"),
            NO_COLOR="1",
        )
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.pop("CTXTOOL_LLM_BASE_URL", None)
        for line in lines:
            if line == "ask":
                results.append(line_ask(args.repeat, tmp, env))
            elif line == "validate":
                results += line_validate(args.repeat, tmp, env)
            elif line == "mcp":
                results.append(line_mcp(args.repeat, env))
            else:
                results.append(line_introspect(args.repeat, tmp, env))
    if args.format == "json":
        print(json.dumps(results, indent=2))
    else:
        show(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
