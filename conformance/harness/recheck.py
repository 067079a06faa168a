"""The expected values of cases re-checked on the reference engine (``bgconf validate``).

A case file's expected values are the spec's answers; the reference engine must reproduce each
one, and an ``apply_play`` case must apply a legal play. ``recheck_on_reference`` lists every
case where either does not hold.
"""

from __future__ import annotations

from conformance.cases import Case
from conformance.harness.runner import run_cases


def recheck_on_reference(cases: list[Case]) -> list[str]:
    """Expected values that the reference engine does not reproduce, as messages
    (``FILE:LINE: ID: ...``, one per case; empty when every case holds)."""
    from conformance.engines.adapters.reference import ReferenceEngine

    from reference_impl import play_check

    problems = []
    for r in run_cases(ReferenceEngine(), cases):
        if r.status != "pass":
            problems.append(f"{r.case.file}:{r.case.line}: {r.case.id}: the reference engine disagrees"
                            f" with the expected value: {r.outcome.message}")
        elif r.case.kind == "apply_play":
            verdict = play_check(r.case.position, r.case.dice, r.case.steps)
            if not verdict.legal:
                problems.append(f"{r.case.file}:{r.case.line}: {r.case.id}: play {r.case.play!r} is not a legal"
                                f" play for the roll {r.case.dice} ({verdict.reason}); apply_play cases"
                                f" apply legal plays")
    return problems
