"""The Gemini CLI extension with the real Gemini CLI from the npm registry: `gemini extensions
validate .`, `gemini extensions link .` and `gemini mcp list` (the ctxtool server Connected), with HOME
in a temporary directory so no user's configuration is read or changed. No model is called.

The CLI is installed once into ``~/.cache/ctxtool-tests/gemini`` (``$CTXTOOL_GEMINI_CACHE``) and reused.
Without npm the test skips; under CI (``CTXTOOL_REQUIRE_BACKENDS=1``) that is a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ctxtool import __version__
from tests.conftest import backend_unavailable
from tests.mcp_client import REPO

GEMINI_CLI = "@google/gemini-cli"


def _cache() -> Path:
    return Path(os.environ.get("CTXTOOL_GEMINI_CACHE") or Path.home() / ".cache" / "ctxtool-tests" / "gemini")


@pytest.fixture(scope="module")
def gemini() -> str:
    """The path of the ``gemini`` executable (npm-installed into the cache on first use)."""
    binary = _cache() / "node_modules" / ".bin" / "gemini"
    if binary.exists():
        return str(binary)
    npm = shutil.which("npm")
    if npm is None:
        backend_unavailable("the Gemini CLI", "npm is not installed (apt-get install npm)")
    _cache().mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [npm, "install", "--prefix", str(_cache()), "--no-audit", "--no-fund", GEMINI_CLI],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode != 0 or not binary.exists():
        backend_unavailable(
            "the Gemini CLI", f"npm install {GEMINI_CLI} failed: {done.stderr.strip()[-300:]}"
        )
    return str(binary)


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI_", "GOOGLE_"))}
    env["HOME"] = str(home)
    # `ctxtool` as installed in this environment (the extension starts `ctxtool mcp`)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["NO_COLOR"] = "1"
    return env


def test_extension_manifest_commands_and_context():
    manifest = json.loads((REPO / "gemini-extension.json").read_text())
    assert manifest["name"] == "ctxtool" and manifest["version"] == __version__
    assert manifest["contextFileName"] == "GEMINI.md" and (REPO / "GEMINI.md").exists()
    assert manifest["mcpServers"]["ctxtool"]["args"] == ["mcp"]
    context = (REPO / "GEMINI.md").read_text()
    from ctxtool.mcp.server import registry

    for tool in registry():
        assert f"`{tool}`" in context, f"GEMINI.md does not mention the tool {tool}"
    commands = sorted((REPO / "commands").rglob("*.toml"))
    assert {c.relative_to(REPO / "commands").as_posix() for c in commands} >= {
        "ctx/init.toml",
        "ctx/draft.toml",
        "ctx/validate.toml",
        "ctx/eval.toml",
    }
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    for path in commands:
        command = tomllib.loads(path.read_text())
        assert command["description"] and "{{args}}" in command["prompt"], path


def test_gemini_cli_validates_links_and_connects(gemini, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = _env(home)

    def run(*args: str, cwd: Path = REPO) -> str:
        done = subprocess.run([gemini, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=180)
        output = done.stdout + done.stderr
        assert done.returncode == 0, f"gemini {' '.join(args)}: {output}"
        return output

    assert "successfully validated" in run("extensions", "validate", str(REPO))
    assert "linked successfully" in run("extensions", "link", str(REPO), "--consent")
    assert "ctxtool" in run("extensions", "list")
    # a project folder of the user's, trusted (MCP servers are disabled in untrusted folders)
    project = tmp_path / "project"
    project.mkdir()
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(project): "TRUST_FOLDER"}))
    listed = run("mcp", "list", cwd=project)
    line = next((x for x in listed.splitlines() if "ctxtool" in x and "mcp" in x), "")
    assert "Connected" in line, listed
