"""The bundled suite itself: it loads cleanly, covers the spec, and records its evidence."""

import json
from collections import Counter

import pytest

from conformance.cases import resources
from conformance.engines.adapters.reference import ReferenceEngine
from conformance.cases import load_suite
from conformance.harness.runner import run_cases
from conformance.harness.scenarios import _swapped


@pytest.fixture(scope="module")
def suite():
    return load_suite()


def test_the_bundled_suite_loads_without_errors(suite):
    assert not suite.errors, "\n".join(map(str, suite.errors))
    assert len(suite.cases) >= 120


def test_the_reference_passes_every_case(suite):
    results = run_cases(ReferenceEngine(), suite.cases)
    bad = [f"{r.case.id}: {r.outcome.message}" for r in results if r.status != "pass"]
    assert not bad, "\n".join(bad)


def test_every_spec_anchor_has_at_least_two_cases(suite):
    counts = Counter(a for c in suite.cases for a in c.spec)
    thin = {a: counts[a] for a in resources.spec_clauses() if counts[a] < 2}
    assert not thin, f"anchors with fewer than two cases: {thin}"


def test_every_expected_value_is_confirmed_by_the_reference_and_movement_by_gnubg(suite):
    """Every case names the reference; every movement and codec case also GNU Backgammon,
    as confirming it or, in ``provenance.disagrees``, with what it answers instead and why
    the case stands (tests/test_gnubg.py checks both against GNU Backgammon)."""
    for case in suite.cases:
        who = case.provenance["verified_by"]
        assert "reference" in who, case.id
        if case.kind in ("legal_plays", "play_check", "apply_play", "codec"):
            named = list(who) + list(case.provenance.get("disagrees", {}))
            assert any(w.startswith("gnubg-") for w in named), case.id


def _key(case):
    """What a case asks and expects, independent of its id and wording."""
    request = {k: v for k, v in case.request().items() if k != "case"}
    expected = case.expected
    if case.kind == "legal_plays":
        expected = (None if expected.exact is None else frozenset(expected.exact), expected.count,
                    frozenset(expected.includes), frozenset(expected.excludes))
    elif isinstance(expected, dict):
        expected = json.dumps(expected, sort_keys=True)
    elif case.kind == "apply_play":
        expected = str(expected)
    elif case.kind == "game_record":
        expected = json.dumps([expected.refused, expected.states, expected.final], sort_keys=True, default=str)
    return json.dumps(request, sort_keys=True), expected


def test_every_asymmetric_case_exists_in_both_colours(suite):
    """A case that changes when the colours are exchanged has a twin that is that exchange."""
    keys = {_key(c) for c in suite.cases}
    missing = []
    for case in suite.cases:
        swapped = _swapped(case)
        # perft counts do not depend on colour; the swapped scenario still asks it
        if swapped is None or case.kind == "perft" or _key(swapped) == _key(case):
            continue
        if _key(swapped) not in keys:
            missing.append(case.id)
    assert not missing, f"cases without their colour twin: {missing}"
