"""The check catalogue as docs/runtime.md shows it: each check's name, phase, factor, what it
finds (its docstring's first sentence) and an example that fails and one that passes (the first
such case of ``tests/data/checks/*.json``).

    .venv/bin/python bench/checks_doc.py            # print the section
    .venv/bin/python bench/checks_doc.py --write    # replace it in docs/runtime.md
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ctxtool.runtime.checks import CATALOGUE, PHASES  # noqa: E402

DOC = ROOT / "docs" / "runtime.md"
START, END = "<!-- checks: bench/checks_doc.py -->", "<!-- /checks -->"


def cases() -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for path in sorted((ROOT / "tests" / "data" / "checks").glob("*.json")):
        for check, items in json.loads(path.read_text()).items():
            out.setdefault(check, []).extend(items)
    return out


def _example(case: dict) -> str:
    return f'"{case["question"]}" against "{case["template"]["nl"]}"'


def section() -> str:
    by_check = cases()
    lines = [
        START,
        "",
        f"{len(CATALOGUE)} checks, in the order they run. *Factor*: what a finding multiplies the evidence "
        "by (0 vetoes the candidate; some checks compute theirs, as noted). Each has failing and passing "
        "cases in `tests/data/checks/*.json` (`tests/test_checks.py`).",
        "",
    ]
    for phase in PHASES:
        lines += [f"**{phase}**", "", "| check | factor | finds | fails | passes |", "|---|---|---|---|---|"]
        for chk in (c for c in CATALOGUE.values() if c.phase == phase):
            items = by_check.get(chk.name, [])
            fail = next((c for c in items if "fails" in c), None)
            ok = next((c for c in items if "fails" not in c), None)
            lines.append(
                f"| `{chk.name}` | {chk.factor:g} | {chk.doc.replace('|', '/')} | "
                f"{_example(fail) if fail else ''} | {_example(ok) if ok else ''} |"
            )
        lines.append("")
    lines.append(END)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="replace the section in docs/runtime.md")
    args = ap.parse_args(argv)
    text = section()
    if not args.write:
        print(text)
        return 0
    doc = DOC.read_text()
    if START not in doc:
        raise SystemExit(f"{DOC}: no {START} marker")
    head, rest = doc.split(START, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(head + text + tail)
    print(f"{DOC}: {len(CATALOGUE)} checks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
