"""An MCP tool call against the same library call in-process: what the protocol costs an agent.

One `ctxtool mcp` server is started over stdio and kept warm (the MCP Python SDK's client drives it);
each operation runs in this process through the library and as a tool call, interleaved, ``--rounds``
times each after a warm-up, and the medians are compared. Without a database: validate and
parameterize sample sets. With ``--dsn`` (the financial sample loaded, as below): introspect with
profiles, validate with live plans (the library call opening its session as `ctxtool validate --dsn`
does; the server keeps its sessions open between calls), and list_templates and ask (showsql,
runsql) on the runtime set.

    .venv/bin/python bench/mcp.py                       # no database: validate and parameterize only

    createdb -h 127.0.0.1 -U postgres ctx_bench_mcp
    psql -h 127.0.0.1 -U postgres ctx_bench_mcp -c 'CREATE EXTENSION pg_trgm' -c 'CREATE EXTENSION fuzzystrmatch'
    .venv/bin/python -m ctxtool.sampledata --dsn postgresql://postgres@127.0.0.1:5432/ctx_bench_mcp --scale 0.05
    .venv/bin/python bench/mcp.py --dsn postgresql://postgres@127.0.0.1:5432/ctx_bench_mcp --rounds 30

Goal: a tool call at most 1.2x the library call.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# this file is named mcp.py: its folder must not shadow the MCP SDK's package `mcp`
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

SET = str(ROOT / "samples" / "postgres" / "financial.json")
SAMPLES = str(ROOT / "samples" / "postgres")
RUNTIME_SET = str(ROOT / "samples" / "postgres" / "financial_runtime.json")
QUESTION = "How many accounts are in the district Pisek?"


async def _compare(library: Callable[[], Any], tool: Callable[[], Any], rounds: int) -> tuple[float, float]:
    """Medians (ms) of the library call and the tool call, interleaved so that the load of a shared
    machine weighs on both alike."""
    for _ in range(3):
        library()
        await tool()
    lib, mcp = [], []
    for _ in range(rounds):
        t = time.perf_counter()
        library()
        lib.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        await tool()
        mcp.append((time.perf_counter() - t) * 1000)
    return statistics.median(lib), statistics.median(mcp)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--dsn", default=None, help="A database with the financial sample (adds ask/list rows)."
    )
    parser.add_argument("--rounds", type=int, default=30, help="Timed calls per operation (default 30).")
    args = parser.parse_args()

    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    from ctxtool import contextset
    from ctxtool.parameterize import parameterize_contextset
    from ctxtool.validate import validate_paths

    ops: list[tuple[str, Callable[[], Any], str, dict[str, Any]]] = [
        (
            "validate (financial.json)",
            lambda: validate_paths([SET], dialect="postgres"),
            "validate",
            {"paths": [SET]},
        ),
        (
            "validate (samples/postgres, 3)",
            lambda: validate_paths([SAMPLES], dialect="postgres"),
            "validate",
            {"paths": [SAMPLES]},
        ),
        (
            "parameterize (financial.json)",
            lambda: parameterize_contextset(contextset.load(SET), "postgres"),
            "parameterize",
            {"path": SET, "dialect": "postgres"},
        ),
    ]
    runtime = None
    if args.dsn:
        from ctxtool import snapshot as snapshots
        from ctxtool.connectors import connect
        from ctxtool.jsondoc import write_text_atomic
        from ctxtool.runtime import Runtime

        runtime = Runtime(RUNTIME_SET, dsn=args.dsn, use_llm=False)
        where = {"context": RUNTIME_SET, "dsn": args.dsn}
        snapshot_path = str(Path(tempfile.mkdtemp()) / "db.snapshot.json")

        def introspect() -> None:
            with connect(args.dsn, statement_timeout=30.0) as conn:
                snap = snapshots.build(conn, profile=True)
            write_text_atomic(snapshot_path, snapshots.dumps(snap))

        def validate_live() -> None:  # what `ctxtool validate --dsn` does: a session per run
            with connect(args.dsn) as conn:
                validate_paths([RUNTIME_SET], dialect="postgres", connector=conn)

        ops += [
            ("introspect (profile)", introspect, "introspect", {"dsn": args.dsn, "output": snapshot_path}),
            (
                "validate --dsn (live plans)",
                validate_live,
                "validate",
                {"paths": [RUNTIME_SET], "dsn": args.dsn},
            ),
            ("list_templates", runtime.list_templates, "list_templates", where),
            (
                "ask showsql",
                lambda: runtime.ask(QUESTION, action="showsql"),
                "ask",
                {"question": QUESTION, "action": "showsql", **where},
            ),
            ("ask runsql", lambda: runtime.ask(QUESTION), "ask", {"question": QUESTION, **where}),
        ]

    params = StdioServerParameters(command=sys.executable, args=["-m", "ctxtool", "mcp"], cwd=str(ROOT))
    rows = []

    async def measure() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for label, library, name, arguments in ops:

                async def tool(name: str = name, arguments: dict[str, Any] = arguments) -> Any:
                    result = await session.call_tool(name, arguments)
                    if result.is_error:
                        raise SystemExit(f"{name}: {result.content[0].text}")
                    return result

                rows.append((label, *await _compare(library, tool, args.rounds)))

    anyio.run(measure)
    if runtime is not None:
        runtime.close()

    print(f"{'operation':<32} {'library ms':>11} {'MCP call ms':>12} {'ratio':>7} {'overhead ms':>12}")
    for label, lib_ms, mcp_ms in rows:
        print(
            f"{label:<32} {lib_ms:>11.2f} {mcp_ms:>12.2f} {mcp_ms / lib_ms:>6.2f}x {mcp_ms - lib_ms:>12.2f}"
        )
    print(f"\nmedians of {args.rounds} interleaved calls after 3 warm-up calls; goal: ratio <= 1.2")


if __name__ == "__main__":
    main()
