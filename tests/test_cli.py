"""The bgconf command line, run as a user runs it."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASE = """\
format: 1
cases:
  - id: bg-GQQD
    title: Either die alone but not both, so the larger
    kind: legal_plays
    spec: [move.larger-die]
    tags: [larger-die]
    position: {on_roll: x, x: {points: {13: 1, 6: 14}}, o: {points: {24: 2, 23: 2, 6: 11}}}
    dice: [6, 5]
    expect: {plays: ["13/7"]}
    provenance: {source: test, verified_by: [reference]}
  - id: bg-GQQE
    title: The smaller die alone is illegal
    kind: play_check
    spec: [move.larger-die]
    position: {on_roll: x, x: {points: {13: 1, 6: 14}}, o: {points: {24: 2, 23: 2, 6: 11}}}
    dice: [6, 5]
    play: "13/8"
    expect: {legal: false, reason: must-use-larger-die}
    provenance: {source: test, verified_by: [reference]}
"""


def bgconf(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "conformance.cli", *args], capture_output=True,
                          text=True, cwd=cwd, env=env)


@pytest.fixture
def casefile(tmp_path):
    path = tmp_path / "mine.bgcase.yaml"
    path.write_text(CASE)
    return path


def test_run_reference_on_the_bundled_suite_passes_everything(tmp_path):
    report = tmp_path / "r.jsonl"
    proc = bgconf("run", "--engine", "reference", "--report", str(report), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    assert lines[0]["type"] == "header" and lines[0]["engine"]["name"] == "reference"
    assert len(lines[0]["content_hash"]) == 64
    assert lines[-1]["type"] == "footer" and lines[-1]["incomplete"] is False
    cases = lines[1:-1]
    assert cases and all(c["status"] == "pass" for c in cases)
    assert lines[-1]["counts"]["pass"] == len(cases)
    assert "section" in proc.stdout and f"{len(cases)} cases: {len(cases)} pass" in proc.stdout


def test_a_broken_engine_fails_with_missing_and_extra_plays(casefile):
    proc = bgconf("run", "--engine", "python:engines_for_tests:no_larger_die", "--cases", str(casefile))
    assert proc.returncode == 1
    assert "FAIL" in proc.stdout and "bg-GQQD" in proc.stdout
    assert "extra plays (returned, not legal):   13/8" in proc.stdout
    assert "spec move.larger-die" in proc.stdout
    assert (f"re-run: bgconf run --engine python:engines_for_tests:no_larger_die --case bg-GQQD --cases {casefile}"
            in proc.stdout)


@pytest.mark.parametrize("engine,fragment", [("crashing", "RuntimeError: engine bug"),
                                             ("garbage", "cannot be applied")])
def test_engine_faults_make_cases_errored_and_the_run_goes_on(casefile, tmp_path, engine, fragment):
    report = tmp_path / "r.jsonl"
    proc = bgconf("run", "--engine", f"python:engines_for_tests:{engine}", "--cases", str(casefile),
                  "--report", str(report))
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    lines = [json.loads(l) for l in report.read_text().splitlines()[1:-1]]
    statuses = {x["id"]: x for x in lines if not x["scenario"]}
    assert statuses["bg-GQQD"]["status"] == "errored" and fragment in statuses["bg-GQQD"]["message"]
    assert statuses["bg-GQQE"]["status"] == "pass"


def test_undeclared_capability_is_unsupported_not_failed(casefile):
    proc = bgconf("run", "--engine", "python:engines_for_tests:moves_only", "--cases", str(casefile), "-v")
    assert proc.returncode == 0
    assert "1 pass, 1 unsupported" in proc.stdout
    assert "engine does not declare capability play-check" in proc.stdout


def test_case_and_tag_selection(casefile, tmp_path):
    proc = bgconf("run", "--engine", "reference", "--cases", str(casefile), "--case", "bg-GQQE")
    assert proc.returncode == 0 and "1 cases: 1 pass" in proc.stdout
    proc = bgconf("run", "--engine", "reference", "--cases", str(casefile), "--tag", "larger-die", "--no-play-checks")
    assert "1 cases: 1 pass" in proc.stdout
    # without --no-play-checks the legal_plays case is also asked as play checks of its plays
    report = tmp_path / "r.jsonl"
    bgconf("run", "--engine", "reference", "--cases", str(casefile), "--tag", "larger-die", "--report", str(report))
    asked = [json.loads(l) for l in report.read_text().splitlines()]
    checks = [x for x in asked if x.get("type") == "case" and x["scenario"].startswith("check ")]
    assert checks and all(x["id"] == "bg-GQQD" and x["kind"] == "play_check" and x["status"] == "pass" for x in checks)


def test_an_unknown_case_id_is_a_usage_error_and_an_unknown_engine_cannot_start(casefile):
    assert bgconf("run", "--engine", "reference", "--cases", str(casefile), "--case", "bg-ZZZZ").returncode == 2
    proc = bgconf("run", "--engine", "nosuch", "--cases", str(casefile))
    assert proc.returncode == 4 and "unknown engine 'nosuch'" in proc.stderr


def test_show_draws_the_board_and_lists_the_plays(casefile):
    proc = bgconf("show", "bg-GQQD", "--cases", str(casefile))
    assert proc.returncode == 0
    assert "X on roll" in proc.stdout and "dice 6-5" in proc.stdout
    assert "expected legal plays (1):" in proc.stdout and "13/7" in proc.stdout


def test_list_and_help():
    proc = bgconf("list")
    assert proc.returncode == 0 and proc.stdout.count("bg-") >= 1
    proc = bgconf("run", "--help")
    assert "exit codes:" in proc.stdout and "--report" in proc.stdout


def test_a_command_imports_no_other_command_and_every_command_is_in_the_whole_parser(tmp_path):
    """``bgconf replay`` builds its own command's parser only (no other command module is
    imported, nor the case loader and YAML, which a replay without an engine never uses: its
    start-up stays short, in each --jobs worker too); ``bgconf --help`` and a name that is no
    command still see every command."""
    from conformance.cli import COMMAND_MODULES

    probe = ("import sys; from conformance.cli import main; code = main(sys.argv[1:]);"
             " print(sorted(m for m in sys.modules if m.startswith(('conformance.commands.', 'conformance.cases.', 'yaml'))))")
    record = HERE / "data" / "matches" / "MYdvw1qGuyaRUH__.mat"
    proc = subprocess.run([sys.executable, "-c", probe, "replay", "--quiet", str(record)], capture_output=True,
                          text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    loaded = proc.stdout.strip().splitlines()[-1]
    assert "conformance.commands.replay" in loaded
    others = [m for m in COMMAND_MODULES if m != "replay" and f"conformance.commands.{m}'" in loaded]
    assert not others, loaded
    assert "conformance.cases.load" not in loaded and "'yaml'" not in loaded, loaded
    helped = bgconf("--help").stdout
    unknown = bgconf("rnu")
    assert unknown.returncode == 2
    for name in ("run", "certify", "bisect", "new-id", "replay", "engines"):
        assert name in helped and f"'{name}'" in unknown.stderr


def test_new_id_gives_unused_ids_from_the_alphabet():
    proc = bgconf("new-id", "-n", "5")
    ids = proc.stdout.split()
    assert len(set(ids)) == 5
    for cid in ids:
        assert cid.startswith("bg-") and not set(cid[3:]) & set("0O1I")


def _drop_a_stop_signal() -> None:
    """SIGINT delivered inside a weakref callback, where Python drops the exception its handler
    raises (as it may land in the import machinery's callbacks)."""
    import signal
    import weakref

    class Thing:
        pass

    def callback(_ref):
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):  # the handler runs here, and its exception is dropped
            pass

    thing = Thing()
    ref = weakref.ref(thing, callback)  # noqa: F841
    del thing


def test_a_stop_signal_whose_exception_python_drops_is_raised_again(capsys):
    """An interruption Python drops on its way (a weakref callback) is neither lost nor printed
    as "Exception ignored": ``check_interrupted`` raises it at the next item, and the end of
    the outermost block raises it if nothing did before."""
    from conformance.commands.common import Interrupted, check_interrupted, interruptible

    with pytest.raises(Interrupted) as first:
        with interruptible():
            _drop_a_stop_signal()
            reached = True
            check_interrupted()
            pytest.fail("check_interrupted did not raise the dropped interruption")
    assert reached and first.value.name == "SIGINT"
    with pytest.raises(Interrupted):
        with interruptible():
            _drop_a_stop_signal()
    with interruptible():
        check_interrupted()  # nothing arrived: nothing raised
    assert "Exception ignored" not in capsys.readouterr().err


def test_an_interruption_python_wraps_in_another_exception_is_still_an_interruption(monkeypatch, capsys):
    """A stop signal that lands while a class is made during an import (a dataclass field's
    ``__set_name__``) reaches the command as RuntimeError in Python 3.11: bgconf still ends
    with one line and 143, no traceback; an error with no interruption behind it is not hidden."""
    import conformance.commands.replay as replay_command
    from conformance.cli import main
    from conformance.commands.common import Interrupted

    class Field:
        def __set_name__(self, owner, name):
            raise Interrupted("SIGTERM")

    def interrupted_while_a_class_is_made(_args):
        type("Owner", (), {"field": Field()})

    monkeypatch.setattr(replay_command, "cmd_replay", interrupted_while_a_class_is_made)
    assert main(["replay", "x.mat"]) == 143
    assert capsys.readouterr().err.strip().splitlines() == ["bgconf: interrupted by SIGTERM"]

    def broken(_args):
        raise RuntimeError("a bug, not an interruption")

    monkeypatch.setattr(replay_command, "cmd_replay", broken)
    with pytest.raises(RuntimeError, match="a bug"):
        main(["replay", "x.mat"])
