"""Perft (spec/perft.md): exact counts by construction, two counting paths that must
agree, the suite's perft cases confirmed by GNU Backgammon's generator (gnubg-nn),
and bisect finding a planted bug."""

import os
from importlib import metadata

import pytest

from conformance.engines.adapters.reference import ReferenceEngine
from conformance.cases import load_suite
from conformance.engines.registry import get_engine
from conformance.model import Position, decode_position_id
from conformance.harness.mutants import mutant
from conformance.harness.perft import bisect, engine_perft
from reference_impl.perft import divide, perft

LAST = Position.from_dict({"on_roll": "x", "x": {"points": {1: 1}}, "o": {"points": {1: 1}}})
CLOSED = Position.from_dict({"on_roll": "x", "x": {"points": {6: 2}, "bar": 1},
                             "o": {"points": {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}}})


def test_counts_exact_by_construction():
    # every roll bears the last checker off: a finished game is a leaf
    assert [perft(LAST, d) for d in (1, 2, 3)] == [21, 21, 21]
    assert perft(LAST, 2, "weighted36") == 36
    # every roll is a pass against a closed board
    assert perft(CLOSED, 1) == 21
    assert perft(Position.start(), 0) == 1


def test_the_reference_engine_answers_depth_0_and_refuses_a_depth_below_it():
    request = {"kind": "perft", "position": LAST.to_wire(), "roll_set": "all21"}
    assert ReferenceEngine().run({**request, "depths": [0, 1]}) == {"result": {"counts": {"0": 1, "1": 21}}}
    for depth in (-1, True, 1.5):
        reply = ReferenceEngine().run({**request, "depths": [depth]})
        assert "a depth is a whole number, 0 or more" in reply["errored"], reply


def test_divide_adds_up():
    d = divide(Position.start(), 2)
    assert len(d) == 21 and sum(d.values()) == perft(Position.start(), 2)


@pytest.mark.parametrize("position", [Position.start(), CLOSED, decode_position_id("XwAAgPceAAAAAA"),
                                      decode_position_id("zGbiIQgxH/AAWA")])
def test_engine_perft_agrees_with_the_recursive_count(position):
    """Two counting paths: level by level through the engine interface, and the
    reference's recursion with memo."""
    depth = 1 if position == decode_position_id("zGbiIQgxH/AAWA") else 2
    assert engine_perft(ReferenceEngine(), position, depth) == [perft(position, d) for d in range(1, depth + 1)]


def test_bisect_finds_the_first_difference_of_a_mutant():
    found = bisect(mutant("no-hit"), Position.start(), 2)
    assert found is not None
    depth, position, roll, missing, extra = found
    # the reference hits on the way (e.g. 24/20*/17 with 4-3); the mutant's play does not
    assert depth == 2 and roll[0] != roll[1] and (missing or extra)


def test_bisect_finds_nothing_on_the_reference():
    assert bisect(ReferenceEngine(), CLOSED, 2) is None


def _gnubg_nn():
    try:
        return metadata.version("gnubg-nn")
    except metadata.PackageNotFoundError:
        if os.environ.get("BGCONF_REQUIRE_GNUBG_NN") == "1":
            pytest.fail("gnubg-nn is required here")
        pytest.skip("gnubg-nn not installed (pip install 'bgconf[gnubg-nn]')")


def test_every_perft_case_is_confirmed_by_gnubg_nn():
    version = _gnubg_nn()
    engine = get_engine("gnubg-nn")
    try:
        for case in (c for c in load_suite().cases if c.kind == "perft"):
            depth = max(case.expected)
            counts = engine_perft(engine, case.position, depth, case.raw.get("roll_set", "all21"),
                                  variant=case.effective_rules["variant"])
            assert {d: counts[d - 1] for d in case.expected} == case.expected, case.id
            assert f"gnubg-nn-{version}" in case.provenance["verified_by"], case.id
    finally:
        engine.close()
