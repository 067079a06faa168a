"""Mutation score: every mutant of the reference (one rule broken each) is killed by
at least one must case of the bundled suite."""

import pytest

from conformance.cases import load_suite
from conformance.harness.mutants import MUTANTS, MutantEngine, mutated_rules
from conformance.harness.runner import run_cases


@pytest.fixture(scope="module")
def must_cases():
    return [c for c in load_suite().cases if c.level == "must"]


def test_there_are_at_least_twelve_mutants_over_distinct_rules():
    assert len(MUTANTS) >= 12
    assert len({m.spec for m in MUTANTS}) >= 12


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_every_mutant_is_killed(mutant, must_cases):
    results = run_cases(MutantEngine(mutant), must_cases)
    killers = [r.case.id for r in results if r.status in ("fail", "errored")]
    assert killers, f"mutant {mutant.name} ({mutant.what}) survives: add a case for {mutant.spec}"


def test_a_mutant_whose_text_is_gone_is_reported():
    from dataclasses import replace

    with pytest.raises(ValueError, match="not \\(exactly once\\)"):
        mutated_rules(replace(MUTANTS[0], old="this text is not in the reference"))
