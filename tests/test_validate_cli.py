"""`ctxtool validate` and `ctxtool rules` on the command line: paths, formats, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxtool.cli import cli

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
BAD = SAMPLES / "invalid" / "CTX304-placeholder-in-concrete.json"
WARN = SAMPLES / "invalid" / "CTX405-manifest-shape.json"


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(cli, ["validate", *args], input=input)


@pytest.mark.parametrize("dialect", ["postgres", "mysql", "spanner"])
def test_sample_directories_are_clean(dialect):
    result = run("--dialect", dialect, str(SAMPLES / dialect))
    assert result.exit_code == 0, result.output
    assert "checked: no problems" in result.output


def test_alloydb_is_postgres():
    assert run("--dialect", "alloydb", str(SAMPLES / "postgres")).exit_code == 0


def test_unknown_dialect_is_usage_error():
    result = run("--dialect", "oracle", str(SAMPLES / "postgres"))
    assert result.exit_code == 2 and "unknown dialect" in result.output


def test_errors_exit_1_with_file_line_col_code_pointer():
    result = run(str(BAD))
    assert result.exit_code == 1
    assert f"{BAD}:5:14: error CTX304" in result.output
    assert "[/templates/0/sql]" in result.output


def test_warnings_pass_unless_strict():
    assert run(str(WARN)).exit_code == 0
    result = run("--strict", str(WARN))
    assert result.exit_code == 1 and "error CTX405" in result.output


def test_json_format():
    result = run(
        "--format",
        "json",
        str(BAD),
        str(SAMPLES / "postgres" / "financial.json"),
        str(SAMPLES / "postgres" / "airports.json"),
    )
    assert result.exit_code == 1
    payload = json.loads(result.stdout)
    assert payload["summary"] == {"files": 3, "errors": 1, "warnings": 0}
    [finding] = payload["findings"]
    assert finding == {
        "code": "CTX304",
        "severity": "error",
        "message": finding["message"],
        "path": str(BAD),
        "line": 5,
        "column": 14,
        "pointer": "/templates/0/sql",
    }


def test_github_format():
    result = run("--format", "github", str(BAD), str(WARN))
    lines = result.stdout.splitlines()
    assert lines[0].startswith(
        f"::error file={BAD},line=5,col=14,title=CTX304 placeholder-in-concrete::CTX304 "
    )
    assert lines[1].startswith(f"::warning file={WARN},line=6,col=19,title=CTX405 manifest-shape::")


def test_github_format_escapes_newlines_and_percent():
    from ctxtool.validate.findings import Finding
    from ctxtool.validate.report import render_github

    out = render_github([Finding("CTX001", "error", "100% bad\nnext", "a,b:c.json", 1, 2, "")])
    assert (
        out
        == "::error file=a%2Cb%3Ac.json,line=1,col=2,title=CTX001 json-syntax::CTX001 100%25 bad%0Anext [/]\n"
    )


def test_sarif_format():
    result = run("--format", "sarif", str(BAD))
    log = json.loads(result.stdout)
    assert log["version"] == "2.1.0"
    run_ = log["runs"][0]
    ids = [r["id"] for r in run_["tool"]["driver"]["rules"]]
    [res] = run_["results"]
    assert res["ruleId"] == "CTX304" and ids[res["ruleIndex"]] == "CTX304"
    region = res["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 5, "startColumn": 14}


def test_stdin():
    result = run("-", input=BAD.read_text(encoding="utf-8"))
    assert result.exit_code == 1 and "<stdin>:5:14: error CTX304" in result.output
    result = run("-", input=(SAMPLES / "postgres" / "financial.json").read_text(encoding="utf-8"))
    assert result.exit_code == 0


def test_glob_and_directory_recursion(tmp_path):
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    (nested / "set.json").write_text(BAD.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x.json").write_text("{", encoding="utf-8")
    result = run("--format", "json", str(tmp_path))
    assert json.loads(result.stdout)["files"] == [str(nested / "set.json")]
    result = run("--format", "json", str(tmp_path / "**" / "*.json"))
    assert json.loads(result.stdout)["files"] == [str(nested / "set.json")]


def test_missing_path_exits_2():
    result = run(str(SAMPLES / "no-such-file.json"))
    assert result.exit_code == 2 and "no such file" in result.output
    result = run(str(SAMPLES / "nothing-*.json"))
    assert result.exit_code == 2 and "matches no file" in result.output


def test_no_paths_is_usage_error():
    assert run().exit_code == 2


def test_unreadable_file_exits_2_but_reports_the_others(tmp_path):
    bad = tmp_path / "latin1.json"
    bad.write_bytes(b'{"templates": [], "x": "\xe9"}')
    result = run(str(bad), str(BAD))
    assert result.exit_code == 2
    assert "not UTF-8" in result.output and "CTX304" in result.output


def test_json_syntax_error_is_a_finding_with_position():
    result = run(str(SAMPLES / "invalid" / "CTX001-json-syntax.json"))
    assert result.exit_code == 1 and ":5:13: error CTX001 invalid JSON" in result.output


def test_snapshot_and_dsn_options_exist():
    result = CliRunner().invoke(cli, ["validate", "--help"])
    assert "--snapshot" in result.output and "--dsn" in result.output


def test_rules_command():
    runner = CliRunner()
    result = runner.invoke(cli, ["rules"])
    assert result.exit_code == 0 and "CTX401" in result.output and "fix:" in result.output
    result = runner.invoke(cli, ["rules", "--format", "json", "ctx201"])
    [rule] = json.loads(result.stdout)
    assert rule["code"] == "CTX201" and rule["fix"]
    assert runner.invoke(cli, ["rules", "CTX999"]).exit_code == 2


def test_docs_rules_md_is_current():
    result = CliRunner().invoke(cli, ["rules", "--format", "markdown"])
    assert (ROOT / "docs" / "rules.md").read_text(encoding="utf-8") == result.stdout


def test_validate_does_not_import_database_drivers():
    code = (
        "import sys; from ctxtool.cli import main; sys.argv=['ctxtool','validate','-q',{!r}]\n"
        "try:\n    main()\nexcept SystemExit as e:\n    code = e.code\n"
        "bad = [m for m in ('psycopg', 'mysql.connector', 'google.cloud.spanner') if m in sys.modules]\n"
        "print(code, bad)".format(str(SAMPLES / "postgres"))
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"}
    )
    assert out.stdout.strip().splitlines()[-1] == "0 []", out.stdout + out.stderr


def test_no_color_and_plain_output_when_not_a_terminal():
    out = subprocess.run(
        [sys.executable, "-m", "ctxtool", "validate", str(BAD)],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert out.returncode == 1
    assert "\x1b[" not in out.stdout and "Traceback" not in out.stderr
    assert "1 file checked: 1 error, 0 warnings" in out.stderr


def test_pre_commit_hook_and_action_run_validate():
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert "- id: ctxtool-validate" in hooks and "entry: ctxtool validate" in hooks
    assert "pass_filenames: true" in hooks
    action = (ROOT / "action.yml").read_text(encoding="utf-8")
    assert "using: composite" in action and "ctxtool validate" in action and "--format github" in action
    workflow = (ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8")
    assert "bash .ci/run" in workflow


def test_pre_commit_style_invocation_checks_only_the_named_files():
    # pre-commit appends the changed files to the entry: only those are read
    result = run(str(SAMPLES / "postgres" / "financial.json"), str(WARN))
    assert result.exit_code == 0
    assert "2 files checked: 0 errors, 1 warning" in result.output
