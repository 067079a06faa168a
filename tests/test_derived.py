"""Derived play checks (conformance.harness.derived) and plays that rest on hit marks."""

import json
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from test_cli import bgconf

from conformance.cases import load_suite
from conformance.cli import main
from conformance.engines.interface import NOTATION_UNSUPPORTED
from conformance.harness.derived import PER_REASON, SHAPES, is_derived, play_checks
from conformance.harness.runner import run_cases, unsupported_reason
from conformance.harness.selection import asked
from conformance.harness.strategies import positions, rolls
from conformance.model import apply_steps, unmarked_hit_points, written_moves
from conformance.engines.registry import get_engine
from reference_impl import REASONS, legal_plays

SUITE = load_suite()
BY_ID = SUITE.by_id()
ROOTS = [c for c in SUITE.cases if c.kind == "legal_plays"]


def _legal(position, dice):
    return set(legal_plays(position, dice))


def test_every_legal_play_of_every_legal_plays_case_is_asked_and_every_verdict_follows_from_the_set():
    for case in ROOTS:
        checks = play_checks(case)
        legal = _legal(case.position, case.dice)
        assert checks, case.id
        asked_legal = set()
        for check in checks:
            assert check.id == case.id and check.kind == "play_check" and is_derived(check.scenario)
            steps = written_moves(check.play)
            assert tuple(map(tuple, check.steps)) == steps
            ok, reason = check.expected
            try:
                reached = apply_steps(case.position, steps)
            except ValueError:
                reached = None
            # spec: move.same-play: legal iff the play reaches one of the legal positions
            assert ok == (reached in legal), (check.name, check.play)
            assert (reason is None) == ok and (ok or reason in REASONS)
            if ok:
                asked_legal.add(reached)
        assert asked_legal == legal, case.id  # every legal play is asked


def test_checks_come_in_both_dice_orders_with_unique_names_and_few_of_each_reason():
    for case in ROOTS:
        checks = play_checks(case)
        names = [c.name for c in checks]
        assert len(names) == len(set(names))
        doubles = case.dice[0] == case.dice[1]
        plain = [c for c in checks if not c.scenario.endswith("+dice-reversed")]
        assert len(checks) == len(plain) * (1 if doubles else 2)
        assert [c.scenario for c in plain] == [f"check {i}" for i in range(1, len(plain) + 1)]
        if not doubles:
            for a, b in zip(checks[::2], checks[1::2]):
                assert b.scenario == a.scenario + "+dice-reversed" and b.dice == a.dice[::-1] and b.play == a.play
        reasons = Counter(c.expected[1] for c in plain if not c.expected[0])
        assert all(n <= PER_REASON * len(SHAPES) for n in reasons.values())


def test_bearing_off_with_one_die_where_both_can_be_used_is_asked():
    # bg-GHJ4: the last checker on 4 with 4-2 must go 4/2*/off; 4/off and 4/2* are near misses
    checks = {c.play: c.expected for c in play_checks(BY_ID["bg-GHJ4"]) if not c.scenario.endswith("reversed")}
    assert checks["4/2*/off"] == (True, None)
    assert checks["4/off"] == checks["4/2*"] == checks["none"] == (False, "must-use-more-dice")


def test_the_near_misses_cover_the_rules_that_forbid_a_play():
    reasons = Counter(c.expected[1] for case in ROOTS for c in play_checks(case) if not c.expected[0])
    for reason in ("must-use-more-dice", "must-use-larger-die", "bar-first", "blocked-point", "wrong-dice",
                   "bear-off-not-allowed", "bear-off-higher-checker"):
        assert reasons[reason] > 0, reason
    assert "no-checker" not in reasons  # a move from an empty point is no near miss


@settings(max_examples=150, deadline=None)
@given(positions(), rolls())
def test_derived_verdicts_follow_from_the_legal_set_on_random_positions(position, dice):
    root = ROOTS[0]
    from dataclasses import replace

    case = replace(root, position=position, dice=dice, id="bg-TEST")
    legal = _legal(position, dice)
    for check in play_checks(case):
        ok, _reason = check.expected
        try:
            reached = apply_steps(position, written_moves(check.play))
        except ValueError:
            reached = None
        assert ok == (reached in legal), (position, dice, check.play)


def test_a_move_that_may_hit_on_the_way_unsaid_is_found():
    # bg-NDF8: 13/5 with 6-2, the only way stops on 7 where o has a blot
    ndf8, rlkw = BY_ID["bg-NDF8"], BY_ID["bg-RLKW"]
    assert unmarked_hit_points(ndf8.position, ndf8.dice, ndf8.steps) == [7]
    assert unmarked_hit_points(rlkw.position, rlkw.dice, rlkw.steps) == []  # 13/8/5: every stop written
    assert unmarked_hit_points(ndf8.position, ndf8.dice, [(13, 7), (7, 5)]) == []
    # bg-JG27: 4/off with 4-2 is the 4 alone, or 4/2/off hitting o's blot on 2 on the way
    jg27 = BY_ID["bg-JG27"]
    assert unmarked_hit_points(jg27.position, jg27.dice, jg27.steps) == [2]
    assert unmarked_hit_points(jg27.position, jg27.dice, [(4, 2), (2, 0)]) == []


def test_an_engine_without_hit_marks_is_not_asked_plays_that_rest_on_them():
    info = {"capabilities": ["legal-plays", "play-check"], "hit_marks": False}
    why = unsupported_reason(BY_ID["bg-NDF8"], info)
    assert why.startswith(NOTATION_UNSUPPORTED) and "13/5" in why and " 7 " in why
    assert unsupported_reason(BY_ID["bg-RLKW"], info) is None
    assert unsupported_reason(BY_ID["bg-NDF8"], {"capabilities": ["play-check"]}) is None  # reads the notation
    # such a case is listed, not counted: it cannot cost or earn a certificate
    from conformance.reports import render
    from conformance.reports.report import case_line, footer, header

    results = run_cases(get_engine("reference"), [BY_ID["bg-NDF8"]])
    lines = [header(info, SUITE.content_hash)] + [case_line(r) for r in results] + [footer(results, 0.0)]
    lines[1].update(status="unsupported", message=why)
    assert render.verdict(lines, "movement")["must"] == 0


def test_run_asks_the_derived_checks_and_no_play_checks_leaves_them_out(tmp_path):
    full, plain = tmp_path / "full.jsonl", tmp_path / "plain.jsonl"
    assert main(["run", "--engine", "reference", "--case", "bg-C3Z8", "--report", str(full)]) == 0
    assert main(["run", "--engine", "reference", "--case", "bg-C3Z8", "--no-play-checks", "--report", str(plain)]) == 0
    full_lines = [json.loads(x) for x in full.read_text().splitlines()]
    plain_lines = [json.loads(x) for x in plain.read_text().splitlines()]
    assert full_lines[0]["selection"]["play_checks"] is True and plain_lines[0]["selection"]["play_checks"] is False
    assert [x["scenario"] for x in plain_lines[1:-1]] == [""]
    derived = [x for x in full_lines[1:-1] if x["scenario"]]
    assert len(derived) == len(play_checks(BY_ID["bg-C3Z8"])) and all(x["status"] == "pass" for x in derived)


def test_the_bot_profile_asks_only_chosen_plays_in_every_scenario():
    info = {"capabilities": ["chosen-play"], "position_formats": ["board"]}
    cases = asked(ROOTS, info, scenarios=True, profile="bot")
    assert {c.kind for c in cases} == {"chosen_play"}
    assert {c.scenario for c in cases} == {"chosen-play", "chosen-play+swapped", "chosen-play+dice-reversed"}
    assert len([c for c in cases if c.scenario == "chosen-play"]) == len(ROOTS)


def test_an_engine_that_chooses_an_illegal_play_is_not_a_certified_bot(tmp_path):
    out = tmp_path / "certs"
    good = bgconf("certify", "--engine", "python:engines_for_tests:chooser", "--profile", "bot", "--out", str(out))
    bad = bgconf("certify", "--engine", "python:engines_for_tests:chooser_no_larger_die", "--profile", "bot",
                 "--out", str(out))
    assert (good.returncode, bad.returncode) == (0, 1), good.stdout[-800:] + bad.stderr[-800:]
    lines = [json.loads(x) for x in (out / "python_engines_for_tests_chooser_no_larger_die-bot.jsonl").read_text().splitlines()]
    failed = [x for x in lines[1:-1] if x["status"] == "fail"]
    assert failed and all(x["kind"] == "chosen_play" for x in failed)
    assert main(["certify", "--verify", str(out / "python_engines_for_tests_chooser-bot.jsonl")]) == 0
