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
GEMINI_VERSION = "0.61.0"  # the version the session test was written against; the cache follows it


def _cache() -> Path:
    return Path(os.environ.get("CTXTOOL_GEMINI_CACHE") or Path.home() / ".cache" / "ctxtool-tests" / "gemini")


def _installed_version() -> str | None:
    try:
        package = _cache() / "node_modules" / "@google" / "gemini-cli" / "package.json"
        return json.loads(package.read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


@pytest.fixture(scope="module")
def gemini() -> str:
    """The path of the ``gemini`` executable, npm-installed into the cache on first use (a fresh
    machine, a clean clone) and reused while it is the pinned version."""
    binary = _cache() / "node_modules" / ".bin" / "gemini"
    if binary.exists() and _installed_version() == GEMINI_VERSION:
        return str(binary)
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        backend_unavailable("the Gemini CLI", "node and npm are not installed (apt-get install nodejs npm)")
    _cache().mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [
            npm,
            "install",
            "--prefix",
            str(_cache()),
            "--no-audit",
            "--no-fund",
            f"{GEMINI_CLI}@{GEMINI_VERSION}",
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode != 0 or not binary.exists():
        backend_unavailable(
            "the Gemini CLI",
            f"npm install {GEMINI_CLI}@{GEMINI_VERSION} failed: {done.stderr.strip()[-300:]}",
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

    for tool in registry():  # named as the Gemini CLI declares MCP tools: mcp_<server>_<tool>
        assert f"`mcp_ctxtool_{tool}`" in context, f"GEMINI.md does not mention the tool {tool}"
        assert f"`{tool}`" not in context, f"GEMINI.md names {tool} bare; the CLI calls it mcp_ctxtool_{tool}"
    assert "--yolo" in context and "--allowed-tools" in context  # how to run headless
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
        assert "`mcp_ctxtool_" in command["prompt"], path
        for tool in registry():
            assert f"`{tool}`" not in command["prompt"], (path, tool)


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


def _session_home(gemini: str, tmp_path: Path) -> tuple[dict[str, str], Path]:
    """HOME with the extension linked, the project folder trusted and the Gemini API key auth chosen
    (the base URL then comes from GOOGLE_GEMINI_BASE_URL); a fresh, empty project folder."""
    home = tmp_path / "home"
    home.mkdir()
    env = _env(home)
    done = subprocess.run(
        [gemini, "extensions", "link", str(REPO), "--consent"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    project = tmp_path / "project"
    project.mkdir()
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(project): "TRUST_FOLDER"}))
    settings = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    return env, project


@pytest.mark.postgres
def test_a_whole_authoring_session_in_the_real_gemini_cli(gemini, tmp_path, financial_dsn):
    """The real CLI, headless (`gemini -p ... --yolo`), through the extension, with a scripted model
    on the Gemini API: introspect -> draft -> mutate -> parameterize -> validate -> test_values ->
    eval -> ask in a fresh folder, the database given to the server (CTXTOOL_DSN), never in a call.
    One turn makes two calls, the second with wait_for_previous; every call sets it (true or false)."""
    import time

    from tests.fake_gemini import FakeGemini, call, response_data, text
    from tests.rt_support import GOLDEN

    env, project = _session_home(gemini, tmp_path)
    golden = json.loads((REPO / GOLDEN).read_text())[:3]
    (project / "golden.json").write_text(json.dumps(golden))
    question = "How many loans are in the district Pisek?"
    sql = (
        "SELECT COUNT(*) FROM loan JOIN account ON account.account_id = loan.account_id "
        "JOIN district ON district.district_id = account.district_id WHERE district.\"A2\" = 'Pisek'"
    )

    def review_and_mutate(fake: FakeGemini) -> list:
        drafted = response_data(next(r for r in fake.responses if r["name"] == "mcp_ctxtool_draft_templates"))
        first = drafted["review"][0]  # the model reviews the compact list, deletes one, adds one
        operations = [
            {"op": "delete", "kind": "templates", "index": first["index"]},
            {"op": "add", "kind": "templates", "item": {"nl_query": question, "sql": sql}},
        ]
        return [
            call("mutate_set", path="context/financial.json", operations=operations, wait_for_previous=False),
            call("parameterize", path="context/financial.json", write=True, wait_for_previous=True),
        ]

    turns = [
        [call("introspect", output="context/financial.snapshot.json", wait_for_previous=False)],
        [
            call(
                "draft_templates",
                tables=["district", "account", "loan"],
                output="context/financial.json",
                wait_for_previous=False,
            )
        ],
        [
            call(
                "draft_values",
                columns=["district.A2"],
                merge="context/financial.json",
                wait_for_previous=False,
            )
        ],
        review_and_mutate,
        [
            call(
                "validate",
                paths=["context/financial.json"],
                snapshot="context/financial.snapshot.json",
                wait_for_previous=True,
            )
        ],
        [call("test_values", path="context/financial.json", samples=5, wait_for_previous=False)],
        [call("eval", golden="golden.json", context="context/financial.json", wait_for_previous=False)],
        [call("ask", question=question, context="context/financial.json", wait_for_previous=False)],
        [text("The set is drafted, validated and evaluated.")],
    ]
    with FakeGemini(turns) as fake:
        run_env = {
            **env,
            "GOOGLE_GEMINI_BASE_URL": fake.base_url,
            "GEMINI_API_KEY": "fake-key",
            "CTXTOOL_DSN": financial_dsn,  # the server's database: no DSN travels in a call
        }
        start = time.monotonic()
        done = subprocess.run(
            [
                gemini,
                "-p",
                "Build a context set for my database with the ctxtool workflow",
                "--yolo",
                "--output-format",
                "json",
            ],
            cwd=project,
            env=run_env,
            capture_output=True,
            text=True,
            timeout=420,
            stdin=subprocess.DEVNULL,
        )
        seconds = time.monotonic() - start
    assert not fake.errors, fake.errors
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    print(f"gemini {GEMINI_VERSION} session: {seconds:.1f} s, {len(fake.responses)} tool calls")
    assert "mcp_ctxtool_validate" in fake.declared and "validate" not in fake.declared
    results = {r["name"].removeprefix("mcp_ctxtool_"): response_data(r) for r in fake.responses}
    order = [r["name"].removeprefix("mcp_ctxtool_") for r in fake.responses]
    assert order == [
        "introspect", "draft_templates", "draft_values", "mutate_set", "parameterize",
        "validate", "test_values", "eval", "ask",
    ], order  # fmt: skip
    for name, data in results.items():  # every call succeeded: structured results, not error text
        assert isinstance(data, dict), f"{name}: {str(data)[:500]}"
    # the files, in folders the session made
    snapshot = json.loads((project / "context" / "financial.snapshot.json").read_text())
    assert {"loan", "account"} <= {t["name"] for s in snapshot["schemas"] for t in s["tables"]}
    written = json.loads((project / "context" / "financial.json").read_text())
    assert results["draft_templates"]["report"]["kept"] == len(results["draft_templates"]["review"]) > 10
    assert len(json.dumps(results["draft_templates"])) < 40_000  # the CLI would have cut it
    assert results["mutate_set"]["written"] and results["mutate_set"]["deleted"][0]["index"] == 0
    added = next(t for t in written["templates"] if t["nl_query"] == question)
    assert "parameterized" in added and written["value_searches"]
    assert results["validate"]["ok"], results["validate"]["findings"]
    assert results["test_values"]["summary"]["searches"] == 1
    assert results["eval"]["summary"]["overall"]["questions"] == 3
    assert results["ask"]["status"] == "answered" and results["ask"]["rows"]
    assert financial_dsn not in json.dumps(fake.requests)  # the database never went to the model
