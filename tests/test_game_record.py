"""The game_record kind: event notation, loading, the reference's replay, judging answers.

The replay properties use games the reference plays itself from random dice: every event of
such a record is accepted, and an event that may not happen, inserted anywhere, is refused
and leaves every later answer exactly as it was (spec: record.refusal).
"""

import random
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.engines.adapters.reference import ReferenceEngine
from conformance.cases import load_file, load_suite
from conformance.harness.compare import compare
from conformance.model import Match, NotationError, Position, effective_rules, format_play, parse_event, swap_event
from conformance.harness.runner import run_cases
from conformance.harness.scenarios import variants
from reference_impl import legal_plays
from reference_impl.record import replay


def test_event_notation_reads_every_form():
    assert parse_event("x 31: 8/5 6/5") == {"type": "roll_play", "side": "x", "dice": [3, 1], "play": "8/5 6/5",
                                            "steps": [[8, 5], [6, 5]], "text": "x 31: 8/5 6/5"}
    assert parse_event("opening  x3 o1") == {"type": "opening", "dice": [3, 1], "text": "opening x3 o1"}
    assert parse_event("o rolls 6-4")["dice"] == [6, 4]
    assert parse_event("o plays 13/7*/5")["steps"] == [[13, 7], [7, 5]]
    assert parse_event("x 66: none")["steps"] == []
    assert [parse_event(f"o {verb}")["type"] for verb in ("doubles", "redoubles", "takes", "drops", "beavers",
                                                          "raccoons")] == [
        "double", "double", "take", "drop", "beaver", "raccoon"]


@pytest.mark.parametrize("text", ["x 71: 8/1", "z doubles", "x 31 8/5 6/5", "x 31: 8/5/", "opening 3 1", ""])
def test_event_notation_names_what_it_cannot_read(text):
    with pytest.raises(NotationError) as err:
        parse_event(text)
    assert repr(text) in str(err.value) or "cannot read" in str(err.value)


def test_swap_event_exchanges_the_acting_side_and_the_opening_dice():
    assert swap_event(parse_event("opening x6 o1"))["dice"] == [1, 6]
    assert swap_event({"n": 4, **parse_event("x 31: 8/5 6/5")}) == {"n": 4, **parse_event("o 31: 8/5 6/5")}


CASE = """\
format: 1
cases:
  - id: bg-2222
    title: a record with a bad event
    kind: game_record
    spec: [record.events]
    games:
      - events:
          - opening x3 o1
          - x 31: 8/5 6/5
      - events:
          - opening x6 o1
          - x smiles
    expect: {moment: before_roll}
    provenance: {source: test, verified_by: [reference]}
"""


def test_a_bad_event_is_named_by_file_line_case_and_event_number(tmp_path):
    path = tmp_path / "bad.bgcase.yaml"
    path.write_text(CASE)
    cases, errors = load_file(path, "bad.bgcase.yaml")
    assert cases == []
    [error] = errors
    assert (error.file, error.line, error.case_id) == ("bad.bgcase.yaml", 13, "bg-2222")
    assert "event 4 (game 2)" in error.message and "'x smiles'" in error.message


def test_validate_exits_3_with_that_message_and_no_traceback(tmp_path):
    path = tmp_path / "bad.bgcase.yaml"
    path.write_text(CASE)
    done = subprocess.run([sys.executable, "-m", "conformance.cli", "validate", str(path)], capture_output=True,
                          text=True)
    assert done.returncode == 3, done.stderr
    assert "bad.bgcase.yaml:13: bg-2222: event 4 (game 2)" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_game_that_does_not_end_before_the_next_is_not_reproduced_by_the_reference(tmp_path):
    path = tmp_path / "open.bgcase.yaml"
    path.write_text(CASE.replace("          - x smiles\n", ""))
    done = subprocess.run([sys.executable, "-m", "conformance.cli", "validate", str(path)], capture_output=True,
                          text=True)
    assert done.returncode == 3
    assert "game 2 begins before game 1 has ended" in done.stderr


def _record_case(tmp_path, events_yaml, expect, rules=""):
    path = tmp_path / "r.bgcase.yaml"
    path.write_text(textwrap.dedent(f"""\
        format: 1
        cases:
          - id: bg-3333
            title: a record
            kind: game_record
            spec: [record.refusal]
            {rules}
            games:
              - events: {events_yaml}
            expect: {expect}
            provenance: {{source: test, verified_by: [reference]}}
        """))
    cases, errors = load_file(path)
    assert not errors, errors
    return cases[0]


def test_judging_names_the_event_an_engine_got_wrong(tmp_path):
    case = _record_case(tmp_path, '["opening x3 o1", "x 31: 8/5 6/5", {event: "x doubles", refused: not-your-turn}]',
                        "{moment: before_roll, on_roll: o}")
    good = ReferenceEngine().run(case.request())
    assert compare(case, good).status == "pass"
    answers = good["result"]["events"]
    accepted_all = {"result": {"events": answers[:2] + [{"accepted": True, "state": answers[2]["state"]}]}}
    outcome = compare(case, accepted_all)
    assert outcome.status == "fail"
    assert "event 3 'x doubles': accepted, expected refused (not-your-turn)" in outcome.message
    wrong_reason = {"result": {"events": answers[:2] + [dict(answers[2], reason="wrong-moment")]}}
    assert "for reason 'wrong-moment', expected 'not-your-turn'" in compare(case, wrong_reason).message
    moved_on = {"result": {"events": answers[:2] + [dict(answers[2], state=dict(answers[2]["state"], on_roll="x"))]}}
    assert "on_roll is 'x', expected 'o'" in compare(case, moved_on).message
    assert compare(case, {"result": {"events": answers[:2]}}).status == "errored"
    assert compare(case, {"result": {"events": answers[:2] + ["yes"]}}).status == "errored"


def test_the_swapped_scenario_of_every_record_passes_on_the_reference():
    suite = load_suite()
    records = [c for c in suite.cases if c.kind == "game_record"]
    assert len(records) >= 40
    info = ReferenceEngine().describe()
    swapped = [v for c in records for v in variants(c, info) if v.scenario == "swapped"]
    assert len(swapped) == len(records)
    results = run_cases(ReferenceEngine(), swapped)
    assert [r.case.name for r in results if r.status != "pass"] == []


def test_records_are_unsupported_by_an_engine_without_the_capability():
    class Movement(ReferenceEngine):
        def describe(self):
            info = super().describe()
            return dict(info, capabilities=[c for c in info["capabilities"] if c != "game-record"])

    records = [c for c in load_suite().cases if c.kind == "game_record"]
    assert {r.status for r in run_cases(Movement(), records)} == {"unsupported"}


# ---------------------------------------------------------------- replay properties

def _random_game(seed: int, money: bool = True) -> list[dict]:
    """A game the reference plays from random dice (random legal plays, random cube
    actions that the rules allow), as events; it stops after 40 turns or at the end."""
    rnd = random.Random(seed)
    rules = effective_rules(None)
    events = []
    while True:
        a, b = rnd.randint(1, 6), rnd.randint(1, 6)
        events.append(parse_event(f"opening x{a} o{b}"))
        if a != b:
            break
    answers = replay(Match(0 if money else 7), [{"events": events}], rules)
    state = answers[-1]["state"]
    for _turn in range(40):
        if state["moment"] == "game_over":
            break
        side = state["on_roll"]
        if state["moment"] == "before_roll" and rnd.random() < 0.1:
            trial = events + [parse_event(f"{side} doubles")]
            if replay(Match(0 if money else 7), [{"events": trial}], rules)[-1]["accepted"]:
                answer = rnd.choice(["takes", "takes", "drops"])
                events = trial + [parse_event(f"{'o' if side == 'x' else 'x'} {answer}")]
                state = replay(Match(0 if money else 7), [{"events": events}], rules)[-1]["state"]
                continue
        position = Position.from_dict(state["position"])
        dice = state.get("dice") or [rnd.randint(1, 6), rnd.randint(1, 6)]
        plays = [steps for steps in legal_plays(position, dice).values()]
        steps = rnd.choice(plays)
        text = format_play(position, steps) if steps else "none"
        events.append(parse_event(f"{side} {dice[0]}{dice[1]}: {text}"))
        state = replay(Match(0 if money else 7), [{"events": events}], rules)[-1]["state"]
    return events


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10 ** 6), st.booleans())
def test_a_game_the_rules_allow_is_accepted_event_by_event(seed, money):
    events = _random_game(seed, money)
    answers = replay(Match(0 if money else 7), [{"events": events}], effective_rules(None))
    assert all(a["accepted"] for a in answers), [(e["text"], a.get("reason")) for e, a in zip(events, answers)]


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10 ** 6), st.data())
def test_a_refused_event_leaves_the_state_and_every_later_answer_unchanged(seed, data):
    events = _random_game(seed)
    rules = effective_rules(None)
    before = replay(Match(0), [{"events": events}], rules)
    at = data.draw(st.integers(1, len(events)), label="insert after event")
    state = before[at - 1]["state"]
    side = state.get("on_roll", "x")
    bad = data.draw(st.sampled_from([
        f"{'o' if side == 'x' else 'x'} 21: 24/23 24/22",  # out of turn
        f"{side} takes",                                     # nothing to take, unless an offer is pending
        "opening x2 o1",                                    # the opening is over
        f"{side} plays 25/1",                               # no such move
    ]), label="bad event")
    event = parse_event(bad)
    after = replay(Match(0), [{"events": events[:at] + [event] + events[at:]}], rules)
    if after[at]["accepted"]:
        return  # a take while a double is pending is no bad event
    assert after[at]["state"] == state
    assert after[:at] + after[at + 1:] == before
