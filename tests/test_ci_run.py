"""CI must run exactly the test command the README gives."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_command(marker: str) -> str:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    return lines[lines.index(f"<!-- {marker} -->") + 1].strip()


def test_ci_runs_the_readme_test_command():
    command = readme_command("test-command")
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    assert command in ci_lines, f".ci/run does not run the README's test command: {command}"


def test_ci_requires_every_present_backend():
    assert "export CTXTOOL_REQUIRE_BACKENDS=1" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
