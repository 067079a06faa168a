"""Exit codes survive pipes: ``bgconf run --engine E | head -1`` exits as ``bgconf run --engine E``.

Each command runs in a child process whose standard output is a real pipe that the test
closes early: either after reading one line (the output being larger than what a pipe and
its buffers hold, so the command is still writing when the reader goes away), or before the
command writes anything. The command must return its documented exit code, print nothing
more, and leave no traceback and no "Exception ignored ... BrokenPipeError" on stderr.
"""

import os
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

HERE = Path(__file__).parent
ROOT = HERE.parent
MUTANT = "python:engines_for_tests:no_larger_die"  # forgets spec: move.larger-die: fails cases
MOVES_ONLY = "python:engines_for_tests:moves_only"  # passes what it answers, the rest unsupported
BAD_CASE = """\
format: 1
cases:
  - id: bg-GQQD
    title: A case whose expected plays are wrong
    kind: legal_plays
    spec: [move.larger-die]
    position: {on_roll: x, x: {points: {13: 1, 6: 14}}, o: {points: {24: 2, 23: 2, 6: 11}}}
    dice: [6, 5]
    expect: {plays: ["13/2"]}
    provenance: {source: test, verified_by: [reference]}
"""


def _env():
    path = os.pathsep.join(p for p in (str(HERE), os.environ.get("PYTHONPATH", "")) if p)
    return dict(os.environ, PYTHONPATH=path)


def read_one_line(*args, cwd=ROOT):
    """Run bgconf with stdout=PIPE, read one line, close the pipe; (exit code, line, stderr)."""
    proc = subprocess.Popen([sys.executable, "-m", "conformance.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=cwd, env=_env())
    line = proc.stdout.readline()
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    proc.stderr.close()
    return proc.wait(), line.decode(), stderr


def closed_before_the_first_line(*args, cwd=ROOT):
    """Run bgconf with stdout a pipe whose reader has already gone; (exit code, stderr)."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        proc = subprocess.run([sys.executable, "-m", "conformance.cli", *args], stdout=writer,
                              stderr=subprocess.PIPE, cwd=cwd, env=_env(), text=True)
    finally:
        os.close(writer)
    return proc.returncode, proc.stderr


def clean(stderr: str) -> bool:
    return "Traceback" not in stderr and "BrokenPipeError" not in stderr and "Exception ignored" not in stderr


def test_a_failing_run_piped_to_head_still_exits_1():
    code, stderr = closed_before_the_first_line("run", "--engine", MUTANT, "--spec", "move")
    assert code == 1, stderr
    assert clean(stderr), stderr


@pytest.mark.skipif(find_spec("pygammon") is None, reason="pygammon is not installed (pip install 'bgconf[pygammon]')")
def test_pygammon_piped_to_head_still_exits_1():
    code, line, stderr = read_one_line("run", "--engine", "pygammon", "-v", "--scenarios")
    assert line.startswith("FAIL ") or line.startswith("engine:"), line
    assert code == 1, stderr
    assert clean(stderr), stderr


def test_a_passing_run_read_one_line_then_closed_exits_0():
    # -v --scenarios lists every unsupported case: far more than a pipe holds
    code, line, stderr = read_one_line("run", "--engine", MOVES_ONLY, "-v", "--scenarios")
    assert line
    assert code == 0, stderr
    assert clean(stderr), stderr


def test_list_read_one_line_then_closed_exits_0():
    code, line, stderr = read_one_line("list")
    assert line.startswith("bg-")
    assert code == 0, stderr
    assert clean(stderr), stderr


def test_a_report_written_beside_a_closed_stdout_is_whole(tmp_path):
    report = tmp_path / "r.jsonl"
    code, stderr = closed_before_the_first_line("run", "--engine", MUTANT, "--spec", "move",
                                                "--report", str(report))
    assert code == 1 and clean(stderr), stderr
    last = report.read_text().splitlines()[-1]
    assert '"type": "footer"' in last and '"interrupted": true' not in last


def test_validate_of_a_bad_case_file_keeps_exit_3(tmp_path):
    bad = tmp_path / "bad.bgcase.yaml"
    bad.write_text(BAD_CASE)
    code, stderr = closed_before_the_first_line("validate", str(bad))
    assert code == 3, stderr
    assert clean(stderr), stderr


@pytest.mark.parametrize("args, expected", [
    (("show", "bg-C3Z8"), 0),
    (("show", "bg-NOPE"), 2),
    (("list", "--spec", "bearoff"), 0),
    (("validate", "cases/movement/bar.yaml"), 0),
    (("engines",), 0),
    (("perft", "start", "--depth", "1"), 0),
    (("export", "--format", "json"), 0),
    (("run", "--help"), 0),
    (("--help",), 0),
])
def test_other_printing_commands_keep_their_exit_code(args, expected):
    code, stderr = closed_before_the_first_line(*args)
    assert code == expected, stderr
    assert clean(stderr), stderr


def test_diff_with_regressions_keeps_exit_1(tmp_path):
    old, new = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    for engine, path in (("reference", old), (MUTANT, new)):
        subprocess.run([sys.executable, "-m", "conformance.cli", "run", "--engine", engine, "--spec", "move",
                        "--report", str(path), "--max-failures", "0"], capture_output=True, env=_env(), cwd=ROOT)
    code, stderr = closed_before_the_first_line("diff", str(old), str(new))
    assert code == 1, stderr
    assert clean(stderr), stderr
    code, stderr = closed_before_the_first_line("diff", str(new), str(old))
    assert code == 0, stderr
    assert clean(stderr), stderr


def test_replay_of_a_record_with_an_illegal_play_keeps_exit_1():
    code, stderr = closed_before_the_first_line("replay", "tests/data/matches/")
    assert code == 1, stderr
    assert clean(stderr), stderr


@pytest.mark.skipif(find_spec("hypothesis") is None, reason="hypothesis is not installed")
def test_fuzz_that_finds_a_difference_keeps_exit_1():
    code, stderr = closed_before_the_first_line("fuzz", "--engine", MUTANT, "--examples", "200", "--seed", "1")
    assert code == 1, stderr
    assert clean(stderr), stderr
