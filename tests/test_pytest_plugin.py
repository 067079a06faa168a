"""The pytest plugin, run in a separate pytest process as a user runs it."""

import os
from pathlib import Path

from test_cli import CASE

HERE = Path(__file__).parent


def run(pytester, *args):
    os.environ["PYTHONPATH"] = str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", "")
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)


def test_bundled_suite_runs_as_items_with_case_node_ids(pytester):
    result = run(pytester, "--bg-engine", "reference", "--collect-only", "-q")
    ids = [line for line in result.outlines if "::bg-" in line]
    assert ids, result.outlines
    assert all(line.startswith("cases/") and ".yaml::bg-" in line for line in ids)
    result = run(pytester, "--bg-engine", "reference", "-q")
    result.assert_outcomes(passed=len(ids))


def test_user_case_files_are_collected_and_failures_are_explained(pytester):
    pytester.makefile(".bgcase.yaml", mine=CASE)
    result = run(pytester, "--bg-engine", "python:engines_for_tests:no_larger_die", "--bg-no-suite",
                 "mine.bgcase.yaml", "--junitxml=out.xml")
    # the mutant also judges the smaller die legal, so both cases fail, and so does the play check
    # derived from bg-GQQD that asks the smaller die alone, in both dice orders
    result.assert_outcomes(failed=4, passed=12)
    text = result.stdout.str()
    assert "FAILED mine.bgcase.yaml::bg-GQQD[check 4]" in text
    assert "mine.bgcase.yaml::bg-GQQD" in text
    assert "X on roll" in text and "dice 6-5" in text
    assert "spec move.larger-die" in text
    assert "extra plays (returned, not legal):   13/8" in text
    assert 'name="bg-GQQD"' in (pytester.path / "out.xml").read_text()


def test_keyword_and_marker_selection(pytester):
    pytester.makefile(".bgcase.yaml", mine=CASE)
    result = run(pytester, "mine.bgcase.yaml", "-k", "bg-GQQE")
    result.assert_outcomes(passed=1, deselected=1)
    result = run(pytester, "mine.bgcase.yaml", "-m", "larger_die")
    result.assert_outcomes(passed=1, deselected=1)


def test_unsupported_case_is_skipped_with_the_reason(pytester):
    pytester.makefile(".bgcase.yaml", mine=CASE)
    result = run(pytester, "--bg-engine", "python:engines_for_tests:moves_only", "--bg-no-suite",
                 "mine.bgcase.yaml", "-rs")
    result.assert_outcomes(passed=1, skipped=1)
    assert "engine does not declare capability play-check" in result.stdout.str()


def test_broken_case_file_fails_one_item_and_the_rest_runs(pytester):
    pytester.makefile(".bgcase.yaml", mine=CASE.replace("    dice: [6, 5]\n    expect: {plays", "    dise: [6, 5]\n    expect: {plays", 1))
    result = run(pytester, "mine.bgcase.yaml")
    result.assert_outcomes(passed=1, failed=1)
    assert "mine.bgcase.yaml:" in result.stdout.str() and "bg-GQQD" in result.stdout.str()


def test_an_engine_that_crashes_fails_the_session_although_every_item_passes(pytester, tmp_path):
    """spec/protocol.md, Crashes, hangs and restarts: a crash is a defect of the engine
    whatever verdict its case finally gets; the plugin says so and exits 1."""
    import shlex
    import sys

    engine = "cmd:" + shlex.join([sys.executable, str(HERE / "fault_engine.py"), "--fault", "exit", "--every", "25",
                                  "--log", str(tmp_path / "engine.log")])
    result = run(pytester, "--bg-engine", engine, "-m", "bear_off", "-q")
    assert result.ret == 1, result.stdout.str()[-3000:]
    result.stdout.fnmatch_lines(["*bgconf: the engine cmd:* crashed * and hung 0 time(s)*", "*passed*"])
    assert "failed" not in result.stdout.lines[-1]


def test_a_sound_engine_leaves_the_session_green(pytester):
    result = run(pytester, "--bg-engine", "reference", "-m", "bear_off", "-q")
    assert result.ret == 0
    assert "crashed" not in result.stdout.str()


def test_pytest_xdist_shares_the_items_and_gives_the_verdicts_of_one_process(pytester):
    """``pytest --bg-engine E -n 2``: two xdist workers, each with its own engine, pass and fail
    the same items as one process does."""
    import pytest

    pytest.importorskip("xdist")
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        os.environ.pop(name, None)  # the inner pytest is no worker, even when this one is
    pytester.makefile(".bgcase.yaml", mine=CASE)
    args = ("--bg-engine", "python:engines_for_tests:no_larger_die", "-m", "bear_off or larger_die", "-rA")
    one = run(pytester, *args)
    two = run(pytester, *args, "-n", "2")
    outcome = lambda result: sorted(line.split(" ", 1)[0] + " " + line.split(" ")[1]  # noqa: E731
                                    for line in result.outlines if line.startswith(("PASSED ", "FAILED ")))
    assert outcome(one) and outcome(one) == outcome(two)
    assert any(line.startswith("FAILED ") for line in outcome(two))
    assert "2 workers" in two.stdout.str() or "created: 2/2 workers" in two.stdout.str()
