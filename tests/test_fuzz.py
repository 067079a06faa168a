"""bgconf fuzz: differential fuzzing finds a planted bug, shrinks it, and writes a case
that loads, fails on the buggy engine and passes on the reference."""

import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings

from conformance.harness import found_cases, fuzz
from conformance.engines.adapters.reference import ReferenceEngine
from conformance.cases import load_file, load_suite
from conformance.cli import main
from conformance.harness.compare import compare
from conformance.model import BAR, OFF, check_sides
from conformance.harness.mutants import mutant
from conformance.harness.strategies import (
    SCENARIOS, cubes, decode_example, example_size, examples, finished_positions, matches, positions, rolls,
    rule_dicts,
)

HERE = Path(__file__).parent
FAST = settings(max_examples=200, deadline=None)


def _cases_in(text: str) -> list[str]:
    """The YAML blocks of a report (between the --- lines)."""
    return re.findall(r"^---\n(format: 1\n.*?)^---$", text, flags=re.S | re.M)


def _load(tmp_path: Path, text: str, name: str = "found"):
    path = tmp_path / f"{name}.bgcase.yaml"
    path.write_text(text, encoding="utf-8")
    cases, errors = load_file(path)
    assert not errors, errors
    assert len(cases) == 1
    return cases[0]


def _status(engine, case) -> str:
    return compare(case, engine.run(case.request())).status


# -- strategies ------------------------------------------------------------------------
@FAST
@given(positions())
def test_positions_are_valid_with_both_sides_in_the_game(pos):
    check_sides(pos.x, pos.o)
    assert pos.x[OFF] < 15 and pos.o[OFF] < 15


@FAST
@given(finished_positions(), cubes(), matches())
def test_finished_positions_have_exactly_one_winner(pos, cube, match):
    check_sides(pos.x, pos.o)
    assert sorted([pos.x[OFF], pos.o[OFF]])[1] == 15 and min(pos.x[OFF], pos.o[OFF]) < 15
    assert pos.side(pos.on_roll)[OFF] < 15  # the loser is on roll
    assert cube.value <= 64 and (cube.owner == "center") == (cube.value == 1)


@FAST
@given(examples("play_check"))
def test_play_check_examples_carry_their_written_moves(ex):
    assert ex.request()["steps"] == [list(s) for s in ex.steps]
    assert ex.dice and all(1 <= d <= 6 for d in ex.dice)


@FAST
@given(rule_dicts({"jacoby": [False, True]}), rolls())
def test_rule_dicts_keep_to_the_declared_values(rules, roll):
    assert set(rules) <= {"jacoby"}  # backgammon_multiplier 4 is not declared
    assert all(1 <= d <= 6 for d in roll)


def test_every_scenario_is_reachable_and_biased():
    for name in SCENARIOS:
        @settings(max_examples=60, deadline=None)
        @given(positions(scenario=name, on_roll="o"))
        def check(pos):
            assert pos.on_roll == "o"
            seen.append(pos)

        seen: list = []
        check()
        assert seen
        if name == "bar-vs-board":
            assert sum(p.mover[BAR] > 0 for p in seen) > len(seen) // 2
        if name == "bear-off":
            assert sum(not any(p.mover[7:26]) for p in seen) > len(seen) // 3


def test_zero_bytes_decode_to_the_simplest_inputs():
    ex = decode_example("legal_plays", bytes(example_size("legal_plays")))
    assert ex.dice == (1, 1) and ex.scenario == "open"
    assert sum(ex.position.x[1:]) == sum(ex.position.o[1:]) == 1


# -- a planted bug ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def larger_die_campaign():
    return fuzz.run_campaign(mutant("no-larger-die"), "mutant:no-larger-die",
                             "legal_plays", 2000, 0)


def test_planted_bug_is_found_and_shrunk(larger_die_campaign, tmp_path):
    camp = larger_die_campaign
    assert camp.findings, "the mutant that forgets the larger-die rule was not caught"
    finding = camp.findings[0]
    assert finding.shrunk and finding.mismatch.category == "extra-plays"
    pos = finding.example.position
    # minimal: one checker of the mover, one blocking point of the opponent
    assert sum(pos.mover[1:]) == 1 and sum(pos.opponent[1:]) <= 2
    assert "move.larger-die" == fuzz.spec_anchors(finding)[0]
    text = fuzz.case_yaml(finding, camp.engine, camp.engine, camp.seed, "bg-ZZZZ")
    case = _load(tmp_path, text)
    assert case.spec[0] == "move.larger-die"
    assert case.provenance == {"source": "bgconf fuzz against mutant:no-larger-die, seed 0",
                               "verified_by": ["reference"]}
    assert _status(ReferenceEngine(), case) == "pass"
    assert _status(mutant("no-larger-die"), case) == "fail"


@pytest.mark.parametrize("name,kind", [("no-larger-die", "play_check"), ("bear-off-from-outside", "play_check"),
                                       ("backgammon-as-gammon", "game_result"), ("jacoby-ignored", "game_result")])
def test_other_kinds_catch_their_mutants(name, kind, tmp_path):
    engine = mutant(name)
    camp = fuzz.run_campaign(engine, f"mutant:{name}", kind, 2000, 0)
    assert camp.findings, f"{kind} fuzzing does not catch the mutant {name}"
    finding = camp.findings[0]
    case = _load(tmp_path, fuzz.case_yaml(finding, camp.engine, camp.engine, 0, "bg-ZZZZ"))
    assert case.kind == kind
    assert engine.mutant.spec in case.spec
    assert _status(ReferenceEngine(), case) == "pass"
    assert _status(engine, case) == "fail"


def test_cli_prints_the_diff_and_a_case_that_loads(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    code = main(["fuzz", "--engine", "python:engines_for_tests:no_larger_die", "--examples", "600"])
    out = capsys.readouterr().out
    assert code == 1
    assert "extra plays (returned, not legal):" in out
    assert "positions/s" in out
    [text] = _cases_in(out)
    case = _load(tmp_path, text)
    assert case.id not in {c.id for c in load_suite().cases}
    assert re.fullmatch(r"bg-[2-9A-HJ-NP-Z]{4}", case.id)
    assert "on the reference it is pass, on python:engines_for_tests:no_larger_die fail" in out
    assert _status(mutant("no-larger-die"), case) == "fail"


# -- no false alarms, determinism, exit codes ---------------------------------------------
def test_reference_against_itself_finds_nothing(capsys):
    code = main(["fuzz", "--engine", "reference", "--examples", "1500", "--kind", "all"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.count("no mismatch") == 3
    rates = [float(r.replace(",", "")) for r in re.findall(r"\(([\d,]+) positions/s\)", out)]
    assert len(rates) == 3 and all(r > 0 for r in rates)


def test_a_seed_fixes_the_run(larger_die_campaign):
    again = fuzz.run_campaign(mutant("no-larger-die"), "mutant:no-larger-die",
                              "legal_plays", 2000, 0)
    first = larger_die_campaign
    assert (again.positions, again.mismatched) == (first.positions, first.mismatched)
    a, b = first.findings[0], again.findings[0]
    assert (a.found_at, a.data, a.shrink_calls) == (b.found_at, b.data, b.shrink_calls)
    assert a.example.request() == b.example.request()
    assert (fuzz.case_yaml(a, "e", "e", 0, "bg-ZZZZ") == fuzz.case_yaml(b, "e", "e", 0, "bg-ZZZZ"))
    assert found_cases.fresh_ids(3, "salt") == found_cases.fresh_ids(3, "salt")
    other = fuzz.search(ReferenceEngine(), fuzz.Oracle(), "legal_plays", 300, 1)[0]
    same = fuzz.search(ReferenceEngine(), fuzz.Oracle(), "legal_plays", 300, 1)[0]
    assert other.positions == same.positions == 300


def test_exit_codes_for_engines_that_cannot_be_used(capsys, monkeypatch):
    assert main(["fuzz", "--engine", "cmd:/nonexistent/bg-engine"]) == 4
    assert main(["fuzz", "--engine", "no-such-engine"]) == 4
    # an engine that answers none of the kinds asked for
    monkeypatch.setenv("PYTHONPATH", str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    assert main(["fuzz", "--engine", "python:engines_for_tests:moves_only", "--kind", "game_result"]) == 2
    assert "does not declare game-result" in capsys.readouterr().err


def test_an_engine_error_is_a_mismatch_with_a_case(tmp_path):
    class Broken(ReferenceEngine):
        def legal_plays(self, request):
            if request["dice"][0] == request["dice"][1]:
                raise RuntimeError("doubles not implemented")
            return super().legal_plays(request)

    camp = fuzz.run_campaign(Broken(), "broken", "legal_plays", 400, 0)
    [finding] = camp.findings
    assert finding.mismatch.category == "errored"
    assert finding.example.dice == (1, 1)
    case = _load(tmp_path, fuzz.case_yaml(finding, "broken", "broken", 0, "bg-ZZZZ"))
    assert compare(case, finding.reply).status == "errored"


# -- pytest --bg-fuzz ------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def _not_a_worker(monkeypatch):
    # when this file itself runs under xdist, the inner pytest must not believe it is a worker
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PYTHONPATH", str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _pytest(pytester, *args):
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)


def test_pytest_fuzz_items_report_the_case(pytester):
    result = _pytest(pytester, "--bg-fuzz", "400", "--bg-no-suite", "--bg-engine",
                     "python:engines_for_tests:no_larger_die", "-k", "legal_plays or game_result")
    result.assert_outcomes(failed=1, passed=1, deselected=2)
    text = result.stdout.str()
    assert "bgconf-fuzz::legal_plays[seed=0]" in text
    assert "regression case (paste into a *.bgcase.yaml file)" in text
    assert "spec move.larger-die" in text


def test_pytest_fuzz_with_xdist_gives_each_worker_its_own_seed(pytester):
    pytest.importorskip("xdist")
    result = _pytest(pytester, "--bg-fuzz", "200", "--bg-fuzz-seed", "7", "-n", "2", "-rA")
    result.assert_outcomes(passed=6, skipped=2)  # chosen_play: the reference does not declare chosen-play
    text = result.stdout.str()
    for kind in ("legal_plays", "play_check", "game_result"):
        assert f"bgconf-fuzz::{kind}[seed=7]" in text and f"bgconf-fuzz::{kind}[seed=8]" in text


def test_the_batch_seeds_are_a_function_of_the_run_seed_alone_in_any_process():
    """A fuzz run is a function of its seed: the batch seeds drawn here, in a process that has
    loaded the whole test suite's modules, are those a fresh process draws after importing the
    fuzz module alone (a ``--jobs`` worker's case), for every batch, and shards draw the same."""
    import json
    import subprocess
    import sys

    from conformance.harness.fuzz import _batches

    def seeds(asks=lambda number: True):
        got = []
        _batches("legal_plays", 5000, 5, 100, asks, lambda number, batch_seed, n: got.append((number, batch_seed, n)))
        return got

    here = seeds()
    code = ("import json; from conformance.harness.fuzz import _batches; got = [];"
            " _batches('legal_plays', 5000, 5, 100, lambda b: True, lambda *a: got.append(a)); print(json.dumps(got))")
    for before in ("", "import conformance.cli; "):  # a worker's modules, then the command's
        fresh = subprocess.run([sys.executable, "-c", before + code], capture_output=True, text=True, check=True).stdout
        assert [tuple(x) for x in json.loads(fresh)] == here, f"seeds differ after {before or 'no other import'}"
    assert len(here) == 50 and len({s for _, s, _ in here}) == 50
    assert seeds(lambda number: number % 3 == 1) == [x for x in here if x[0] % 3 == 1]
