"""Benchmark: `ctxtool validate` against sqlglot alone parsing the same SQL strings.

Generates context sets of 1,000 and 10,000 distinct, valid templates (PostgreSQL; each with a
concrete and a parameterized SQL string), then times in one run:

- parse: ``sqlglot.parse`` of every SQL string in the set (the floor: validation must parse them);
- validate: ``ctxtool.validate.validate_paths`` on the file (read, JSON, schema, every layer).

Times are CPU seconds of this process (``time.process_time``), best of ``--repeat`` runs, so that
other work on the machine does not blur the ratio; every validate run starts with ctxtool's caches
empty, like a fresh ``ctxtool validate`` process. ``gc s`` is the collection of the garbage validate
leaves behind (a full ``gc.collect()`` right after it returns; not part of ``validate s``); ``MB`` is
the growth of the peak resident size during the validate runs of that size (0 when it fits in memory
an earlier size already used).

Goals: validate <= 1.5x parse, and 10x the templates <= 10x the time. The machine is shared, so the
scaling line also divides validate's scaling by parse's scaling in the same run: noise that slows
both (CPU frequency, caches, other processes) cancels out there.
Run: ``.venv/bin/python bench/validate.py`` (add ``--sizes 1000`` for a quick run, ``--layers`` for
CPU time per layer, ``--cli`` for the CPU time of whole ``ctxtool validate`` processes).
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import sqlglot

from ctxtool import placeholders, validate
from ctxtool.validate import literals, sqlcache, validate_paths

REGIONS = [
    "Prague",
    "central Bohemia",
    "south Bohemia",
    "west Bohemia",
    "north Bohemia",
    "east Bohemia",
    "south Moravia",
    "north Moravia",
]
FREQS = ["POPLATEK MESICNE", "POPLATEK TYDNE", "POPLATEK PO OBRATU"]


def make_set(n: int) -> dict:
    templates = []
    for i in range(n):
        region = REGIONS[i % len(REGIONS)]
        freq = FREQS[i % len(FREQS)]
        amount = 100000 + i  # fixed width: the SQL strings are as long at every size
        shape = i % 3
        if shape == 0:
            sql = (
                "SELECT COUNT(T1.account_id) FROM account AS T1 INNER JOIN loan AS T2 ON T1.account_id = "
                "T2.account_id INNER JOIN district AS T3 ON T1.district_id = T3.district_id "
                'WHERE T3."A3" = {r} AND T2.amount > {a}'
            )
            intent = "How many accounts in {r} have loans above {a}?"
            manifest = "How many accounts in a given region have loans above a given number?"
        elif shape == 1:
            sql = (
                'SELECT T."A2", AVG(L.amount) AS avg_amount FROM district AS T JOIN account AS A ON '
                "A.district_id = T.district_id JOIN loan AS L ON L.account_id = A.account_id "
                'WHERE T."A3" = {r} AND L.amount >= {a} GROUP BY T."A2" ORDER BY avg_amount DESC, T."A2" LIMIT 10'
            )
            intent = "Average loan per district in {r} for loans of at least {a}"
            manifest = "Average loan per district in a given region for loans of at least a given number"
        else:
            sql = (
                "WITH big AS (SELECT account_id, SUM(amount) AS total FROM loan WHERE amount > {a} GROUP BY "
                "account_id) SELECT COUNT(*) FROM big JOIN account AS A ON A.account_id = big.account_id "
                'JOIN district AS D ON D.district_id = A.district_id WHERE D."A3" = {r} '
                "AND A.frequency = 'XFREQ'"
            ).replace("XFREQ", freq)
            intent = "How many accounts in {r} have loans totalling over {a}?"
            manifest = "How many accounts in a given region have loans totalling over a given number?"
        # a constant that is not a parameter keeps every parameterized SQL string distinct too
        column = ("T1.account_id", "A.account_id", "loan_id")[shape]
        sql = sql.replace(" WHERE ", f" WHERE {column} > {100000 + i} AND ", 1)
        templates.append(
            {
                "nl_query": intent.format(r=region, a=amount),
                "sql": sql.format(r=f"'{region}'", a=amount),
                "manifest": manifest,
                "parameterized": {
                    "parameterized_intent": intent.format(r="$1", a="$2"),
                    "parameterized_sql": sql.format(r="$1", a="$2"),
                },
            }
        )
    return {"templates": templates}


def sql_strings(data: dict) -> list[str]:
    out = []
    for t in data["templates"]:
        out += [t["sql"], t["parameterized"]["parameterized_sql"]]
    return out


# CPU time of this process: other programs running on the machine do not inflate it
clock = time.process_time


def time_parse(strings: list[str]) -> float:
    gc.collect()
    start = clock()
    for s in strings:
        sqlglot.parse(s, read="postgres")
    return clock() - start


def cold_caches() -> None:
    """Empty ctxtool's process-wide caches, as in a fresh ``ctxtool validate`` process. Otherwise the
    repeats of the small set find all their strings cached by the first run while the large set
    overflows the caches: the small set would look faster per template than a user ever sees."""
    sqlcache.clear()
    placeholders._scan_sql.cache_clear()
    literals.forms.cache_clear()


def time_validate(path: str) -> tuple[float, int, float]:
    """(CPU seconds, number of findings, CPU seconds to collect the garbage it left)."""
    cold_caches()
    gc.collect()
    start = clock()
    result = validate_paths([path], dialect="postgres")
    elapsed = clock() - start
    start = clock()
    gc.collect()
    return elapsed, len(result.findings), clock() - start


def time_cli(path: str) -> float:
    """CPU seconds (user + system) of a whole ``ctxtool validate`` process on the file: start-up,
    validation, and the interpreter's clean-up at exit, which frees whatever validation left."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [sys.executable, "-m", "ctxtool", "validate", path],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def layer_times(path: str) -> dict[str, float]:
    """CPU seconds per layer for one run (parsing is charged to the first layer that asks)."""
    times: dict[str, float] = {}
    original = list(validate.LAYERS)

    def timed(name, layer):
        def run(ctx):
            start = clock()
            layer(ctx)
            times[name] = times.get(name, 0.0) + clock() - start

        return run

    validate.LAYERS[:] = [(name, timed(name, layer)) for name, layer in original]
    try:
        cold_caches()
        gc.collect()
        start = clock()
        validate_paths([path], dialect="postgres")
        times["total"] = clock() - start
    finally:
        validate.LAYERS[:] = original
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs")
    parser.add_argument("--layers", action="store_true", help="also show CPU time per layer")
    parser.add_argument("--cli", action="store_true", help="also time whole `ctxtool validate` processes")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    # warm up imports and sqlglot's dialect tables
    time_parse(sql_strings(make_set(30)))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            data = make_set(n)
            path = Path(tmp) / f"set_{n}.json"
            path.write_text(json.dumps(data, indent=2), encoding="utf-8")
            strings = sql_strings(data)
            parse_t = min(time_parse(strings) for _ in range(args.repeat))
            peak_before = peak_mb()
            runs = [time_validate(str(path)) for _ in range(args.repeat)]
            validate_t = min(r[0] for r in runs)
            gc_t = min(r[2] for r in runs)
            findings = runs[0][1]
            rows.append((n, len(strings), parse_t, validate_t, findings, gc_t, peak_mb() - peak_before))
            if args.layers:
                print(n, {k: round(v, 3) for k, v in layer_times(str(path)).items()})
            if args.cli:
                cli_t = min(time_cli(str(path)) for _ in range(args.repeat))
                print(
                    f"{n} templates: ctxtool validate process {cli_t:.3f} CPU s ({cli_t / parse_t:.2f}x parse)"
                )
    print(
        f"{'templates':>10} {'sql strings':>12} {'parse s':>9} {'validate s':>11} {'ratio':>6} "
        f"{'findings':>9} {'gc s':>6} {'MB':>6}"
    )
    for n, count, parse_t, validate_t, findings, gc_t, mb in rows:
        print(
            f"{n:>10} {count:>12} {parse_t:>9.3f} {validate_t:>11.3f} {validate_t / parse_t:>6.2f} "
            f"{findings:>9} {gc_t:>6.3f} {mb:>6.0f}"
        )
    if len(rows) >= 2:
        (n0, _, p0, v0, *_), (n1, _, p1, v1, *_) = rows[0], rows[-1]
        print(
            f"scaling: {n1 / n0:.0f}x templates -> {v1 / v0:.2f}x validate time, {p1 / p0:.2f}x parse time; "
            f"validate scaling / parse scaling = {(v1 / v0) / (p1 / p0):.3f}"
        )


if __name__ == "__main__":
    main()
