"""Report formats for findings: ``text`` (people; colour on a terminal), ``json`` (machines),
``github`` (workflow-command annotations on the pull request's lines) and ``sarif`` (code scanning)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ctxtool import __version__
from ctxtool.validate.findings import ERROR, Finding
from ctxtool.validate.rules import RULES, all_rules

FORMATS = ("text", "json", "github", "sarif")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def summary(findings: Sequence[Finding], files: int) -> str:
    errors = sum(1 for f in findings if f.severity == ERROR)
    warnings = len(findings) - errors
    noun = "file" if files == 1 else "files"
    if not findings:
        return f"{files} {noun} checked: no problems"
    return (
        f"{files} {noun} checked: {errors} error{'s' if errors != 1 else ''}, "
        f"{warnings} warning{'s' if warnings != 1 else ''}"
    )


def render_text_plain(findings: Sequence[Finding]) -> str:
    return "".join(
        f"{f.location()}: {f.severity} {f.code} {f.message} [{f.pointer or '/'}]\n" for f in findings
    )


def print_text(findings: Sequence[Finding], console: Any = None) -> None:
    """Findings on a rich console (default: stdout's): colour on a terminal, plain text elsewhere
    and with NO_COLOR (written without rich where stdout is no terminal)."""
    if console is None:
        from ctxtool import console as consoles

        if consoles.plain("stdout"):
            for f in findings:
                consoles.write(
                    "stdout", f"{f.location()}: {f.severity} {f.code} {f.message} [{f.pointer or '/'}]"
                )
            return
        console = consoles.stdout
    from rich.text import Text

    for f in findings:
        line = Text()
        line.append(f.location(), style="bold")
        line.append(": ")
        line.append(f.severity, style="red" if f.severity == ERROR else "yellow")
        line.append(" ")
        line.append(f.code, style="cyan")
        line.append(f" {f.message} ")
        line.append(f"[{f.pointer or '/'}]", style="dim")
        console.print(line, soft_wrap=True)


def render_json(findings: Sequence[Finding], files: Sequence[str], unreadable: Sequence[str] = ()) -> str:
    errors = sum(1 for f in findings if f.severity == ERROR)
    payload = {
        "version": 1,
        "files": list(files),
        "summary": {"files": len(files), "errors": errors, "warnings": len(findings) - errors},
        "findings": [f.to_dict() for f in findings],
        "unreadable": list(unreadable),
    }
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"


def _escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def render_github(findings: Sequence[Finding]) -> str:
    """GitHub Actions workflow commands: each finding becomes an annotation on its file and line."""
    lines = []
    for f in findings:
        level = "error" if f.severity == ERROR else "warning"
        props = (
            f"file={_escape_property(f.path)},line={f.line},col={f.column},"
            f"title={_escape_property(f.code + ' ' + RULES[f.code].name if f.code in RULES else f.code)}"
        )
        lines.append(f"::{level} {props}::{_escape_data(f'{f.code} {f.message} [{f.pointer or chr(47)}]')}\n")
    return "".join(lines)


def render_sarif(findings: Sequence[Finding]) -> str:
    """A SARIF 2.1.0 log, for GitHub code scanning and other tools."""
    rules = all_rules()
    index = {r.code: i for i, r in enumerate(rules)}
    results = []
    for f in findings:
        result: dict[str, Any] = {
            "ruleId": f.code,
            "level": "error" if f.severity == ERROR else "warning",
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": f.path.replace("\\", "/")},
                        "region": {"startLine": f.line, "startColumn": f.column},
                    },
                    "logicalLocations": [{"fullyQualifiedName": f.pointer or "/", "kind": "element"}],
                }
            ],
        }
        if f.code in index:
            result["ruleIndex"] = index[f.code]
        results.append(result)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "ctxtool",
                        "version": __version__,
                        "rules": [
                            {
                                "id": r.code,
                                "name": r.name,
                                "shortDescription": {"text": r.summary},
                                "help": {"text": r.fix},
                                "defaultConfiguration": {
                                    "level": "error" if r.severity == ERROR else "warning"
                                },
                            }
                            for r in rules
                        ],
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def render_rules_markdown() -> str:
    """The rule list as Markdown (docs/rules.md is this text)."""
    out = [
        "# Validation rules",
        "",
        "`ctxtool validate` reports each problem with one of these stable codes (`ctxtool rules` prints",
        "the same list). Errors make the exit code 1; warnings do too under `--strict`.",
        "",
        "Ranges: CTX0xx file, CTX1xx JSON Schema, CTX2xx SQL, CTX3xx placeholders, CTX4xx consistency of",
        "the parameterized forms and the manifest, CTX5xx facets, CTX6xx value searches, CTX7xx duplicates,",
        "CTX8xx schema references (`--snapshot`), CTX9xx live planning (`--dsn`).",
        "",
        "| code | name | severity | what it checks | fix |",
        "|---|---|---|---|---|",
    ]
    for r in all_rules():
        out.append(
            f"| {r.code} | {r.name} | {r.severity} | {r.summary.replace('|', '/')} | {r.fix.replace('|', '/')} |"
        )
    return "\n".join(out) + "\n"
