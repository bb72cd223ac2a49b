"""`ctxtool parameterize`: output, --check, --diff, --in-place, -o, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from ctxtool.cli import cli

SNAPSHOT = Path(__file__).parent / "data" / "parameterize_snapshot.json"

# deliberately not in ctxtool's canonical layout (4-space indent, a non-ASCII character)
INCOMPLETE = """{
    "templates": [
        {"nl_query": "How many accounts are in London?", "sql": "SELECT count(*) FROM account WHERE city = 'London'"},
        {"nl_query": "Airports in São Paulo", "sql": "SELECT name FROM airports WHERE city = 'São Paulo'"}
    ],
    "facets": [
        {"intent": "highly rated products (above 4.5)", "sql_snippet": "products.rating > 4.5"}
    ]
}
"""


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(cli, ["parameterize", *args], input=input)


def write(tmp_path: Path, text: str = INCOMPLETE, name: str = "set.json") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_prints_the_completed_set(tmp_path):
    p = write(tmp_path)
    result = run(str(p), "--dialect", "postgres")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (
        data["templates"][0]["parameterized"]["parameterized_sql"]
        == "SELECT count(*) FROM account WHERE city = $1"
    )
    assert data["templates"][1]["manifest"] == "Airports in a given city"
    assert (
        "São Paulo" in result.stdout and result.stdout.endswith("}\n") and '\n  "templates"' in result.stdout
    )
    assert p.read_text(encoding="utf-8") == INCOMPLETE  # the input is not touched


def test_check_exits_1_when_the_file_would_change_and_0_when_complete(tmp_path):
    p = write(tmp_path)
    result = run(str(p), "--dialect", "mysql", "--check")
    assert result.exit_code == 1
    assert "would change" in result.stderr and result.stdout == ""
    assert p.read_text(encoding="utf-8") == INCOMPLETE
    assert run(str(p), "--dialect", "mysql", "--in-place").exit_code == 0
    assert run(str(p), "--dialect", "mysql", "--check").exit_code == 0


def test_in_place_is_canonical_and_a_second_run_changes_nothing(tmp_path):
    p = write(tmp_path)
    assert run(str(p), "--dialect", "spanner", "--in-place").exit_code == 0
    first = p.read_bytes()
    text = first.decode("utf-8")
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"
    assert (
        json.loads(text)["facets"][0]["parameterized"]["parameterized_sql_snippet"] == "products.rating > ?"
    )
    assert run(str(p), "--dialect", "spanner", "--in-place").exit_code == 0
    assert p.read_bytes() == first


def test_a_complete_file_in_another_layout_is_left_byte_for_byte(tmp_path):
    p = write(tmp_path)
    out = tmp_path / "out.json"
    assert run(str(p), "--dialect", "postgres", "-o", str(out)).exit_code == 0
    custom = json.dumps(json.loads(out.read_text(encoding="utf-8")), indent=4) + "\n"  # escaped, 4 spaces
    q = write(tmp_path, custom, "custom.json")
    assert run(str(q), "--dialect", "postgres", "--in-place").exit_code == 0
    assert q.read_text(encoding="utf-8") == custom
    result = run(str(q), "--dialect", "postgres")
    assert result.stdout == custom


def test_diff_shows_the_changes_and_writes_nothing(tmp_path):
    p = write(tmp_path)
    result = run(str(p), "--dialect", "postgres", "--diff")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"--- {p}\n+++ {p} (parameterized)\n")
    assert '+      "manifest": "How many accounts are in a given city?",' in result.stdout
    assert p.read_text(encoding="utf-8") == INCOMPLETE
    both = run(str(p), "--dialect", "postgres", "--diff", "--check")
    assert both.exit_code == 1 and "@@" in both.stdout


def test_output_file_and_force(tmp_path):
    p = write(tmp_path)
    out = tmp_path / "out.json"
    assert run(str(p), "--dialect", "postgres", "-o", str(out)).exit_code == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    data["templates"][0]["manifest"] = "How many accounts are in a given town?"
    out.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert run(str(out), "--dialect", "postgres", "--check").exit_code == 0  # complete: kept
    assert run(str(out), "--dialect", "postgres", "--check", "--force").exit_code == 1
    assert run(str(out), "--dialect", "postgres", "--in-place", "--force").exit_code == 0
    assert (
        json.loads(out.read_text(encoding="utf-8"))["templates"][0]["manifest"]
        == "How many accounts are in a given city?"
    )


def test_snapshot_gives_types_and_the_dialect(tmp_path):
    p = write(
        tmp_path,
        json.dumps(
            {
                "templates": [
                    {
                        "nl_query": "Districts in south Moravia",
                        "sql": 'SELECT "A2" FROM district WHERE "A3" = \'south Moravia\'',
                    }
                ]
            }
        ),
    )
    result = run(str(p), "--snapshot", str(SNAPSHOT))  # the snapshot says postgres
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["templates"][0]["manifest"] == "Districts in a given region"


def test_problems_exit_1_and_verbose_lists_literals(tmp_path):
    p = write(
        tmp_path,
        json.dumps(
            {
                "templates": [
                    {
                        "nl_query": "Flights to Paris from London",
                        "sql": "SELECT count(*) FROM flights f JOIN airports o ON o.airport_id = f.origin_airport_id JOIN airports d ON d.airport_id = f.dest_airport_id WHERE o.city = 'London' AND d.city = 'Paris'",
                    },
                    {
                        "nl_query": "Monthly accounts",
                        "sql": "SELECT count(*) FROM account WHERE frequency = 'POPLATEK MESICNE'",
                    },
                ]
            }
        ),
    )
    result = run(str(p), "--dialect", "mysql", "-v")
    assert result.exit_code == 1
    assert (
        f"{p}:1:" in result.stderr
        and "/templates/0: the intent mentions the values in another order" in result.stderr
    )
    assert "'POPLATEK MESICNE' stays literal: the intent does not mention" in result.stderr
    data = json.loads(result.stdout)
    assert "parameterized" not in data["templates"][0] and "parameterized" in data["templates"][1]


def test_usage_errors_exit_2(tmp_path):
    p = write(tmp_path)
    assert run(str(p)).exit_code == 0  # no dialect: PostgreSQL, as validate (issue 12)
    assert run(str(p), "--dialect", "oracle").exit_code == 2
    assert run(str(tmp_path / "missing.json"), "--dialect", "postgres").exit_code == 2
    assert run(str(p), "--dialect", "postgres", "--in-place", "-o", "x.json").exit_code == 2
    bad = write(tmp_path, '{\n  "templates": [\n', "bad.json")
    result = run(str(bad), "--dialect", "postgres")
    assert result.exit_code == 2 and "bad.json:3:" in result.stderr


def test_stdin_and_the_real_entry_point(tmp_path):
    result = run("-", "--dialect", "postgres", input=INCOMPLETE)
    assert result.exit_code == 0 and json.loads(result.stdout)["facets"][0]["manifest"].endswith(
        "(above a given number)"
    )
    p = write(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "ctxtool", "parameterize", str(p), "--dialect", "postgres", "--check"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr


def test_a_complete_legacy_file_is_left_alone_an_incomplete_one_is_renamed(tmp_path):
    facet = {
        "intent": "gold cards",
        "fragment": "card.type = 'gold'",
        "manifest": "a given value cards",
        "parameterized": {"parameterized_intent": "? cards", "parameterized_fragment": "card.type = ?"},
    }
    tpl = {
        "nl_query": "How many cards?",
        "sql": "SELECT COUNT(*) FROM card",
        "intent": "How many cards?",
        "manifest": "How many cards?",
        "parameterized": {
            "parameterized_intent": "How many cards?",
            "parameterized_sql": "SELECT COUNT(*) FROM card",
        },
    }
    text = json.dumps({"templates": [tpl], "fragments": [facet]}, indent=2) + "\n"
    p = write(tmp_path, text)
    assert run(str(p), "--dialect", "mysql", "--check").exit_code == 0
    del tpl["manifest"]
    q = write(tmp_path, json.dumps({"templates": [tpl], "fragments": [facet]}), "legacy.json")
    assert run(str(q), "--dialect", "mysql", "--in-place").exit_code == 0
    data = json.loads(q.read_text(encoding="utf-8"))
    assert list(data) == ["templates", "facets"]
    assert data["facets"][0]["parameterized"]["parameterized_sql_snippet"] == "card.type = ?"
