"""Capability chosen-play (spec/protocol.md, "Engines that only choose a play"): every
legal_plays case is asked as a chosen_play request of engines that declare it, and the one
play answered is judged against the legal set."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.cases import load_suite
from conformance.harness.compare import compare
from conformance.harness.runner import asked_cases, chosen_play_case

HERE = Path(__file__).parent
SUITE = load_suite()
LEGAL = [c for c in SUITE.cases if c.kind == "legal_plays"]


def bgconf(*args, cwd=HERE):
    env = dict(os.environ, PYTHONPATH=str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "conformance.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=600)


def _case(cid):
    return chosen_play_case(next(c for c in SUITE.cases if c.id == cid))


def test_only_engines_declaring_chosen_play_are_asked_the_chosen_play_forms():
    assert asked_cases(SUITE.cases, {"capabilities": ["legal-plays"]}) == SUITE.cases
    asked = asked_cases(SUITE.cases, {"capabilities": ["chosen-play"]})
    extra = asked[len(SUITE.cases):]
    assert [c.id for c in extra] == [c.id for c in LEGAL]
    assert {c.name for c in extra} == {f"{c.id}[chosen-play]" for c in LEGAL}
    assert all(c.kind == "chosen_play" and c.requires == ("chosen-play",) for c in extra)
    assert extra[0].request()["kind"] == "chosen_play"


def test_a_correct_chooser_passes_every_chosen_play_case_through_the_protocol(tmp_path):
    report = tmp_path / "r.jsonl"
    proc = bgconf("run", "--engine", "python:engines_for_tests:chooser", "--report", str(report))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = [json.loads(x) for x in report.read_text().splitlines()]
    chosen = [r for r in rows if r.get("type") == "case" and r["kind"] == "chosen_play"]
    assert len(chosen) == len(LEGAL) and {r["status"] for r in chosen} == {"pass"}
    assert all(r["scenario"] == "chosen-play" for r in chosen)


def test_a_chooser_on_a_buggy_generator_is_caught_with_the_play_and_the_legal_set():
    proc = bgconf("run", "--engine", "python:engines_for_tests:chooser_no_larger_die", "--tag", "larger-die")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "FAIL cases/movement/larger-die.yaml::bg-X6DC[chosen-play]" in proc.stdout
    assert "chose 12/7, which is not a legal play; the 1 legal play(s): 12/6" in proc.stdout


def test_no_play_passes_exactly_when_nothing_is_legal():
    from engines_for_tests import Passer

    engine = Passer()
    for case in (chosen_play_case(c) for c in LEGAL):
        outcome = compare(case, engine.run(case.request()))
        nothing = case.expected.exact is not None and list(case.expected.exact) == [case.position.passed()]
        assert (outcome.status == "pass") == nothing, (case.id, outcome)
        if not nothing:
            assert outcome.message.startswith("chose no play, but"), outcome.message


def test_a_play_when_nothing_is_legal_fails():
    case = next(chosen_play_case(c) for c in LEGAL
                if c.expected.exact is not None and list(c.expected.exact) == [c.position.passed()])
    side = case.position.mover
    src = next(p for p in range(24, 0, -1) if side[p])
    outcome = compare(case, {"result": {"play": [[src, src - 1]]}})
    assert outcome.status in ("fail", "errored")
    if outcome.status == "fail":
        assert "no play is legal" in outcome.message


@pytest.mark.parametrize("result, words", [
    ({"plays": []}, 'expected {"play": play or null}'),
    ({"play": 7}, "result.play is 7"),
    ({"play": [[3, 1]]}, "cannot be applied"),
])
def test_malformed_answers_are_errored_naming_the_value(result, words):
    outcome = compare(_case("bg-X6DC"), {"result": result})
    assert outcome.status == "errored" and words in outcome.message, outcome.message


def test_counted_cases_are_judged_on_the_full_legal_set():
    """A case that lists only a count is judged on the reference's set (bgconf validate
    checks it has that count)."""
    from conformance.harness.compare import legal_set

    counted = [c for c in LEGAL if c.expected.exact is None]
    assert counted
    for case in counted[:5]:
        assert len(legal_set(case)) == case.expected.count


def test_expectations_name_one_form_of_a_case(tmp_path):
    path = tmp_path / "exp.yaml"
    path.write_text("format: 1\nengine: chooser\nxfail:\n"
                    "  bg-X6DC[chosen-play]: {reason: plays the smaller die}\n"
                    "  bg-2TC4[chosen-play]: {reason: plays the smaller die}\n"
                    "  bg-A7VF[chosen-play]: {reason: plays the smaller die}\n"
                    "  bg-7H7A[chosen-play]: {reason: plays the smaller die}\n")
    proc = bgconf("run", "--engine", "python:engines_for_tests:chooser_no_larger_die", "--tag", "larger-die",
                  "--expectations", str(path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "4 xfail" in proc.stdout


def test_fuzzing_a_chooser_finds_and_shrinks_an_illegal_choice():
    """bgconf fuzz --kind chosen_play: the reference's legal set judges the one play; the
    mismatch is shrunk and printed as a legal_plays case that the chooser fails in its
    chosen-play form."""
    from engines_for_tests import chooser_no_larger_die

    from conformance.commands.fuzz import campaign_report
    from conformance.harness.fuzz import run_campaign

    camp = run_campaign(chooser_no_larger_die(), "chooser", "chosen_play", 300, 0)
    assert camp.findings, "the smaller-die chooser was not caught"
    finding = camp.findings[0]
    assert finding.mismatch.category == "illegal-play"
    assert finding.mismatch.message.startswith("chose ") and "legal play(s)" in finding.mismatch.message
    text = campaign_report(camp, "chooser")
    assert "kind: legal_plays" in text and "move.larger-die" in text
    assert "on the reference it is pass, on chooser fail" in text


def test_fuzzing_a_correct_chooser_finds_nothing():
    from engines_for_tests import chooser

    from conformance.harness.fuzz import run_campaign

    camp = run_campaign(chooser(), "chooser", "chosen_play", 200, 1)
    assert not camp.findings and camp.positions == 200
