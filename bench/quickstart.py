"""How long `ctxtool quickstart` takes the first time and again, and how big its install is.

    python bench/quickstart.py                 # first and repeated run at scale 1.0, in a temp dir
    python bench/quickstart.py --scale 0.1
    python bench/quickstart.py --install       # also: a fresh venv with .[embedded] from this tree, du -sh

The runs go through the real command (`python -m ctxtool quickstart --dir TMP`), so the figures
include Python start-up, starting and stopping PostgreSQL, and printing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(cmd: list[str], **kw) -> float:
    began = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    return time.perf_counter() - began


def du(path: Path) -> str:
    out = subprocess.run(["du", "-sh", str(path)], check=True, capture_output=True, text=True)
    return out.stdout.split()[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--repeats", type=int, default=3, help="repeated runs to time (the median is shown)")
    ap.add_argument("--install", action="store_true", help="also measure a fresh venv install of .[embedded]")
    args = ap.parse_args()
    env = {**os.environ, "NO_COLOR": "1", "CTXTOOL_NO_PROGRESS": "1"}
    work = Path(tempfile.mkdtemp(prefix="ctxqsb_"))
    try:
        qs = work / "qs"
        cmd = [sys.executable, "-m", "ctxtool", "quickstart", "--dir", str(qs), "--scale", str(args.scale)]
        first = timed(cmd, cwd=ROOT, env=env)
        again = sorted(timed(cmd, cwd=ROOT, env=env) for _ in range(args.repeats))
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        print(f"quickstart scale {args.scale:g}: first run {first:.1f} s, repeated run {again[len(again) // 2]:.1f} s "
              f"(median of {args.repeats}; min {again[0]:.1f} s)")  # fmt: skip
        print(f"quickstart directory: {du(qs)}")
        subprocess.run([*cmd, "--stop"], cwd=ROOT, env=env, capture_output=True)
        if args.install:
            src = work / "src"
            shutil.copytree(
                ROOT, src, ignore=shutil.ignore_patterns(".venv", ".git", "__pycache__", "*.egg-info")
            )
            began = time.perf_counter()
            subprocess.run([sys.executable, "-m", "venv", str(src / ".venv")], check=True)
            subprocess.run(
                [str(src / ".venv" / "bin" / "pip"), "install", "-q", "-e", ".[embedded]"],
                cwd=src,
                check=True,
                stderr=subprocess.DEVNULL,
            )
            print(
                f"fresh venv with .[embedded]: {du(src / '.venv')} installed in {time.perf_counter() - began:.0f} s"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
