"""No output destroys what was there, and no output overwrites an input.

Every file a command writes is written beside its target and moved into place when complete
(``conformance.reports.files``): a usage error, an engine that cannot start, or an interruption
before the first answer leaves an existing file byte for byte; certify's five files are
replaced together or not at all. An output that is the same file as an input (through
symbolic and hard links too) is refused with exit 2 and one line naming both, before anything
is read or written.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.reports import files as outfiles
from test_faults import CASES, IDS, check_nothing_survives, engine_command, env, read_log

ROOT = Path(__file__).resolve().parent.parent
MATCHES = ROOT / "tests" / "data" / "matches"
RECORD = sorted(MATCHES.glob("*.mat"))[0]
OLD = b'{"an": "older file", "kept": true}\n' * 200


def bgconf(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "conformance.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=env(), timeout=timeout, start_new_session=True)


def one_report(tmp_path: Path, name: str = "r.jsonl") -> Path:
    path = tmp_path / name
    run = bgconf("run", "--engine", "reference", "--cases", str(CASES), "--report", str(path), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    return path


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.name.endswith((outfiles.PARTIAL_SUFFIX, ".old")))


# -- the measured cases -----------------------------------------------------------------------
def test_an_engine_that_does_not_start_keeps_yesterdays_report(tmp_path):
    keep = tmp_path / "keep.jsonl"
    keep.write_bytes(OLD)
    run = bgconf("run", "--engine", "gnubgg", "--report", str(keep), cwd=tmp_path)
    assert run.returncode == 4, run.stderr
    assert keep.read_bytes() == OLD
    assert leftovers(tmp_path) == []


def _interrupt_when(proc: subprocess.Popen, ready, what: str) -> None:
    deadline = time.monotonic() + 60
    while not ready():
        assert proc.poll() is None, f"bgconf ended before {what}"
        assert time.monotonic() < deadline, f"never {what}"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError("bgconf did not stop on SIGINT") from None


def _popen(tmp_path: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "conformance.cli", *args], cwd=tmp_path, env=env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def test_ctrl_c_during_the_engines_start_up_keeps_the_previous_report(tmp_path):
    log, keep = tmp_path / "engine.log", tmp_path / "keep.jsonl"
    keep.write_bytes(OLD)
    proc = _popen(tmp_path, "run", "--engine", engine_command("hang", log, "--at", "0"), "--cases", str(CASES),
                  "--report", str(keep), "--junit", str(tmp_path / "keep.xml"), "--timeout", "60")
    try:
        _interrupt_when(proc, lambda: any(e["event"] == "fault:hang" for e in read_log(log)),
                        "the engine started to hang")
    finally:
        if proc.poll() is None:
            proc.kill()
    out, err = proc.communicate()
    assert proc.returncode == 130, out + err
    assert "Traceback" not in out + err
    assert keep.read_bytes() == OLD
    assert not (tmp_path / "keep.xml").exists()
    assert leftovers(tmp_path) == []
    check_nothing_survives(read_log(log))


def test_ctrl_c_after_answers_leaves_the_partial_report_with_its_footer(tmp_path):
    """While the run goes on the report grows case by case beside its target (a reader can
    follow it); at the interruption it replaces the old file, footer marked interrupted."""
    log, keep = tmp_path / "engine.log", tmp_path / "keep.jsonl"
    keep.write_bytes(OLD)
    target = IDS[len(IDS) // 2]
    answered = IDS[:IDS.index(target)]

    def partial_lines() -> int:
        found = list(tmp_path.glob(".keep.jsonl.*" + outfiles.PARTIAL_SUFFIX))
        return found[0].read_text().count('"type": "case"') if found else 0

    proc = _popen(tmp_path, "run", "--engine", engine_command("hang", log, "--case-id", target), "--cases",
                  str(CASES), "--report", str(keep), "--timeout", "60")
    try:
        _interrupt_when(proc, lambda: partial_lines() >= len(answered) and keep.read_bytes() == OLD,
                        "the partial report held the answered cases")
    finally:
        if proc.poll() is None:
            proc.kill()
    out, err = proc.communicate()
    assert proc.returncode == 130, out + err
    lines = [json.loads(x) for x in keep.read_text().splitlines()]
    assert [x["id"] for x in lines[1:-1]] == answered
    assert lines[-1]["type"] == "footer" and lines[-1]["interrupted"] == "SIGINT"
    assert leftovers(tmp_path) == []


def test_an_interrupted_certify_keeps_the_whole_previous_set(tmp_path):
    log, out = tmp_path / "engine.log", tmp_path / "certs"
    engine = engine_command("hang", log, "--at", "0")
    name = engine.replace(":", "_").replace("/", "_").replace(" ", "_")[:80] + "-movement"
    out.mkdir()
    before = {}
    for suffix in ("jsonl", "junit.xml", "md", "html", "badge.json"):
        (out / f"{name}.{suffix}").write_bytes(OLD + suffix.encode())
        before[f"{name}.{suffix}"] = OLD + suffix.encode()
    proc = _popen(tmp_path, "certify", "--engine", engine, "--profile", "movement", "--out", str(out),
                  "--timeout", "60")
    try:
        _interrupt_when(proc, lambda: any(e["event"] == "fault:hang" for e in read_log(log)),
                        "the engine started to hang")
    finally:
        if proc.poll() is None:
            proc.kill()
    out_text, err = proc.communicate()
    assert proc.returncode == 130, out_text + err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_replay_never_destroys_the_record_it_judges(tmp_path):
    record = tmp_path / "a.mat"
    shutil.copy(RECORD, record)
    data = record.read_bytes()
    for option in ("--report", "--write-cases"):
        run = bgconf("replay", option, str(record), str(record), cwd=tmp_path)
        assert run.returncode == 2, run.stdout + run.stderr
        assert f"{option} {record}" in run.stderr and f"input record {record}" in run.stderr
        assert len(run.stderr.strip().splitlines()) == 1
        assert record.read_bytes() == data


def test_run_never_overwrites_its_case_file(tmp_path):
    cases = tmp_path / "my.bgcase.yaml"
    shutil.copy(CASES, cases)
    run = bgconf("run", "--engine", "reference", "--cases", str(cases), "--report", str(cases), cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.count(str(cases)) == 2, run.stderr
    assert cases.read_bytes() == CASES.read_bytes()


def test_diff_never_replaces_an_input(tmp_path):
    d1 = one_report(tmp_path, "d1.jsonl")
    d2 = tmp_path / "d2.jsonl"
    shutil.copy(d1, d2)
    data = d1.read_bytes()
    run = bgconf("diff", str(d1), str(d2), "--markdown", str(d1), cwd=tmp_path)
    assert run.returncode == 2 and "d1.jsonl" in run.stderr and "OLD.jsonl" in run.stderr
    assert run.stdout == ""  # nothing read, nothing printed
    assert d1.read_bytes() == data


# -- every command, every output option ---------------------------------------------------------
def _commands(tmp: Path) -> list[tuple[str, list[str]]]:
    """(output path relative to tmp, argv) for every command and output option; the argv fails
    before writing: {engine} is replaced by an engine that cannot start, {usage} by a number
    out of range or an unknown option, {missing} by a report that does not exist."""
    report = str(tmp / "r.jsonl")
    return [
        *[(f"out.{o}", ["run", "--engine", "{engine}", "--cases", str(CASES), f"--{o}", f"out.{o}", "{usage}"])
          for o in ("report", "junit", "markdown", "html", "badge")],
        ("out.replay.jsonl", ["replay", "--engine", "{engine}", "--report", "out.replay.jsonl", str(RECORD), "{usage}"]),
        ("out.bgcase.yaml", ["replay", "--engine", "{engine}", "--write-cases", "out.bgcase.yaml", str(RECORD),
                             "{usage}"]),
        ("out.playout.jsonl", ["playout", "--engine", "{engine}", "--report", "out.playout.jsonl", "{usage}"]),
        ("out.diff.md", ["diff", report, "{missing}", "--markdown", "out.diff.md"]),
        ("out.diff.json", ["diff", report, "{missing}", "--json", "out.diff.json"]),
        ("out.merge.jsonl", ["merge", report, "{missing}", "--out", "out.merge.jsonl"]),
        ("site/index.html", ["matrix", report, "{missing}", "--out", "site"]),
        *[(f"certs/{{engine}}-movement.{suffix}", ["certify", "--engine", "{engine}", "--profile", "movement",
                                                    "--out", "certs", "{usage}"])
          for suffix in ("jsonl", "junit.xml", "md", "html", "badge.json")],
        ("README.md", ["table", "--write", "README.md", "{usage}"]),
        ("out.export.json", ["export", "--cases", str(CASES), "--out", "out.export.json", "{usage}"]),
        ("out.release.json", ["release", "--cases", str(CASES), "--out", "out.release.json", "{usage}"]),
    ]


ENGINE_COMMANDS = {"run", "certify", "replay", "playout"}


@pytest.mark.parametrize("index", range(len(_commands(Path("tmp")))))
@pytest.mark.parametrize("failure", ["usage", "engine"])
def test_a_failed_command_leaves_the_existing_output_as_it_was(tmp_path, index, failure):
    one_report(tmp_path)
    target, argv = _commands(tmp_path)[index]
    if failure == "engine" and argv[0] not in ENGINE_COMMANDS:
        pytest.skip("the command runs no engine")
    engine = "no-such-engine" if failure == "engine" else "reference"
    path = tmp_path / target.replace("{engine}", engine)
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(OLD)
    argv = [a.replace("{engine}", engine).replace("{missing}", str(tmp_path / "missing.jsonl")) for a in argv]
    usage = ["--timeout", "0"] if argv[0] in ("run", "certify", "replay") else ["--no-such-option"]
    argv = [x for a in argv for x in ((usage if failure == "usage" else []) if a == "{usage}" else [a])]
    run = bgconf(*argv, cwd=tmp_path)
    assert run.returncode == (4 if failure == "engine" else 2), run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    assert path.read_bytes() == OLD
    assert leftovers(tmp_path) == []


def _inputs(tmp: Path) -> list[tuple[str, list[str], str]]:
    """(description, argv, the input path the output is given) for every command that reads files."""
    cases = tmp / "c.bgcase.yaml"
    report = tmp / "r.jsonl"
    record = tmp / "a.mat"
    expectations = tmp / "e.yaml"
    d2 = tmp / "d2.jsonl"
    return [
        *[(f"run --{o} = --cases", ["run", "--engine", "reference", "--cases", str(cases), f"--{o}", "{out}"],
           str(cases)) for o in ("report", "junit", "markdown", "html", "badge")],
        ("run --report in a --cases directory", ["run", "--engine", "reference", "--cases", str(tmp / "suite"),
                                                  "--report", "{out}"], str(tmp / "suite" / "d.bgcase.yaml")),
        ("run --junit = --expectations", ["run", "--engine", "reference", "--cases", str(cases), "--expectations",
                                          str(expectations), "--junit", "{out}"], str(expectations)),
        ("replay --report = record", ["replay", "--report", "{out}", str(record)], str(record)),
        ("replay --write-cases = record in a folder", ["replay", "--write-cases", "{out}", str(tmp / "recs")],
         str(tmp / "recs" / "b.mat")),
        ("diff --json = NEW", ["diff", str(report), str(d2), "--json", "{out}"], str(d2)),
        ("merge --out = REPORT", ["merge", str(report), "--out", "{out}"], str(report)),
        ("export --out = --cases", ["export", "--cases", str(cases), "--out", "{out}"], str(cases)),
        ("release --out = --cases", ["release", "--cases", str(cases), "--out", "{out}"], str(cases)),
        ("matrix --out holds a REPORT", ["matrix", str(tmp / "site" / "index.html"), "--out", str(tmp / "site")],
         str(tmp / "site" / "index.html")),
        ("matrix --out holds a REPORT in its badges", ["matrix", str(tmp / "site" / "badges" / "r.jsonl"), "--out",
                                                       str(tmp / "site")], str(tmp / "site" / "badges" / "r.jsonl")),
    ]


@pytest.mark.parametrize("index", range(len(_inputs(Path("tmp")))))
@pytest.mark.parametrize("how", ["same path", "symbolic link", "hard link"])
def test_an_output_that_is_an_input_is_refused_naming_both(tmp_path, index, how):
    one_report(tmp_path)
    shutil.copy(tmp_path / "r.jsonl", tmp_path / "d2.jsonl")
    shutil.copy(CASES, tmp_path / "c.bgcase.yaml")
    (tmp_path / "suite").mkdir()
    shutil.copy(CASES, tmp_path / "suite" / "d.bgcase.yaml")
    shutil.copy(RECORD, tmp_path / "a.mat")
    (tmp_path / "recs").mkdir()
    shutil.copy(RECORD, tmp_path / "recs" / "b.mat")
    (tmp_path / "e.yaml").write_text("format: 1\nengine: reference\nxfail: {}\n")
    (tmp_path / "site").mkdir()
    shutil.copy(tmp_path / "r.jsonl", tmp_path / "site" / "index.html")
    (tmp_path / "site" / "badges").mkdir()
    shutil.copy(tmp_path / "r.jsonl", tmp_path / "site" / "badges" / "r.jsonl")
    what, argv, source = _inputs(tmp_path)[index]
    if "{out}" not in argv:
        if how != "same path":
            pytest.skip("a directory output")
        out = None
    elif how == "same path":
        out = source
    elif how == "symbolic link":
        out = str(tmp_path / "link.out")
        os.symlink(source, out)
    else:
        out = str(tmp_path / "hard.out")
        os.link(source, out)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    run = bgconf(*[out if a == "{out}" else a for a in argv], cwd=tmp_path)
    assert run.returncode == 2, f"{what}: {run.stdout}{run.stderr}"
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and source in lines[0] and (out is None or out in lines[0]), run.stderr
    assert "input" in lines[0]
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


# -- table --write: an in-place edit, atomic, the rest kept byte for byte -------------------------
def test_table_write_keeps_the_rest_of_the_file_byte_for_byte(tmp_path):
    readme = tmp_path / "README.md"
    head = b"# title\r\nwindows line endings\r\n\xc3\xa9t\xc3\xa9\r\n"
    tail = b"\r\nafter the table\r\n\tno newline at the end"
    readme.write_bytes(head + b"<!-- certification:start -->\nold table\n<!-- certification:end -->" + tail)
    run = bgconf("table", "--engine", "reference", "--write", str(readme), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    data = readme.read_bytes()
    assert data.startswith(head + b"<!-- certification:start -->\n")
    assert data.endswith(b"<!-- certification:end -->" + tail)
    assert b"old table" not in data and b"reference" in data
    assert leftovers(tmp_path) == []


# -- the mechanism: a set moved together or not at all ---------------------------------------------
@settings(max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(existing=st.lists(st.booleans(), min_size=1, max_size=6), data=st.data())
def test_an_output_set_is_moved_together_or_not_at_all(tmp_path_factory, existing, data):
    folder = tmp_path_factory.mktemp("set")
    targets = [folder / f"out{i}.txt" for i in range(len(existing))]
    for i, (t, there) in enumerate(zip(targets, existing)):
        if there:
            t.write_bytes(b"old %d\n" % i)
    before = {t: t.read_bytes() for t in targets if t.exists()}
    fail_at = data.draw(st.one_of(st.none(), st.integers(0, len(targets) - 1)), label="failing move")
    real_replace, moves = os.replace, []

    def replace(src, dst):
        if Path(src).name.endswith(outfiles.PARTIAL_SUFFIX):
            if len(moves) == fail_at:
                raise OSError(28, "No space left on device")
            moves.append(dst)
        return real_replace(src, dst)

    outfiles.os.replace = replace
    try:
        with outfiles.OutputSet() as files:
            for i, t in enumerate(targets):
                files.text("--out", t, f"new {i}\n")
            if fail_at is None:
                files.commit()
            else:
                with pytest.raises(outfiles.OutputError, match="No space left"):
                    files.commit()
    finally:
        outfiles.os.replace = real_replace
    if fail_at is None:
        assert [t.read_text() for t in targets] == [f"new {i}\n" for i in range(len(targets))]
    else:
        assert {t: t.read_bytes() for t in targets if t.exists()} == before
    assert sorted(p.name for p in folder.iterdir()) == sorted(t.name for t in targets if t.exists())


def test_an_output_set_left_without_commit_touches_nothing(tmp_path):
    target = tmp_path / "keep.jsonl"
    target.write_bytes(OLD)
    with pytest.raises(KeyboardInterrupt):
        with outfiles.OutputSet() as files:
            files.stream("--report", target).write("half a line")
            raise KeyboardInterrupt
    assert target.read_bytes() == OLD and os.listdir(tmp_path) == ["keep.jsonl"]


def test_an_output_through_a_symbolic_link_replaces_the_file_and_keeps_the_link(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old")
    os.chmod(real, 0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    outfiles.write_file("--out", link, "new")
    assert link.is_symlink() and real.read_text() == "new"
    assert (real.stat().st_mode & 0o777) == 0o640
