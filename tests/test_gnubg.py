"""GNU Backgammon as the independent engine: the differential test and the suite run.

Skipped when the gnubg program is not installed, unless BGCONF_REQUIRE_GNUBG=1
(CI sets it, so there a missing gnubg fails instead of skipping).
"""

import os

import pytest
from hypothesis import HealthCheck, given, settings

from conformance.adapters import EngineUnavailable
from conformance.cases import load_suite
from conformance.compare import _engine_plays
from conformance.model import format_play
from conformance.runner import run_cases
from conformance.strategies import dice, positions
from reference_impl import legal_plays


@pytest.fixture(scope="module")
def gnubg():
    from conformance.adapters.gnubg import GnubgEngine

    try:
        engine = GnubgEngine()
        engine.describe()
    except EngineUnavailable as exc:
        if os.environ.get("BGCONF_REQUIRE_GNUBG") == "1":
            pytest.fail(f"GNU Backgammon is required here: {exc}")
        pytest.skip(f"GNU Backgammon not installed: {exc}")
    yield engine
    engine.close()


DIFFERENTIAL_SAMPLES = int(os.environ.get("BGCONF_DIFFERENTIAL_SAMPLES", "2000"))


def test_reference_and_gnubg_agree_on_random_positions(gnubg):
    """Legal-play sets of the reference and GNU Backgammon on random valid positions
    and rolls: zero mismatches allowed."""
    samples = []

    @settings(max_examples=DIFFERENTIAL_SAMPLES, database=None, derandomize=True, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(positions(), dice())
    def draw(pos, roll):
        samples.append((pos, roll))

    draw()
    # hypothesis may stop early when it runs out of distinct examples; keep it honest
    assert len(samples) >= min(DIFFERENTIAL_SAMPLES, 1500)
    requests = [{"kind": "legal_plays", "case": f"random-{i}", "rules": {},
                 "position": pos.to_wire(), "dice": list(roll)} for i, (pos, roll) in enumerate(samples)]
    replies = gnubg.run_batch(requests)
    mismatches = []
    for (pos, roll), reply in zip(samples, replies):
        assert "result" in reply, (str(pos), roll, reply)
        theirs = set(_engine_plays(pos, reply["result"]))
        ours = legal_plays(pos, roll)
        if theirs != set(ours):
            missing = [format_play(pos, s) for p, s in ours.items() if p not in theirs]
            extra = [str(p) for p in theirs if p not in ours]
            mismatches.append(f"{pos} dice {roll}: gnubg lacks {missing}, gnubg adds {extra}")
    assert not mismatches, f"{len(mismatches)} of {len(samples)} differ:\n" + "\n".join(mismatches[:10])


def test_gnubg_passes_every_case_it_answers_and_provenance_says_so(gnubg):
    """No case fails or errors on GNU Backgammon; a case names gnubg in its provenance
    exactly when GNU Backgammon answers it and passes."""
    suite = load_suite()
    assert not suite.errors
    version = gnubg.describe()["version"].split()[2]
    results = run_cases(gnubg, suite.cases)
    bad = [f"{r.case.id}: {r.status}: {r.outcome.message}" for r in results
           if r.status not in ("pass", "unsupported")]
    assert not bad, "\n".join(bad)
    for r in results:
        names_gnubg = f"gnubg-{version}" in r.case.provenance["verified_by"]
        assert names_gnubg == (r.status == "pass"), (r.case.id, r.status, r.case.provenance)


def test_gnubg_reads_every_xgid_case_as_its_position(gnubg):
    """GNU Backgammon 1.07 can import an XGID but not write one: the XGID cases are
    confirmed on the decoding side (their provenance says so)."""
    from conformance.adapters.gnubg import _board_to_position
    from conformance.model import Position

    cases = [c for c in load_suite().cases if c.kind == "codec" and c.raw["codec"] == "xgid"]
    assert cases
    replies = gnubg._exchange([{"op": "decode_xgid", "xgid": c.expected} for c in cases])
    for case, reply in zip(cases, replies):
        assert isinstance(reply, dict) and "board" in reply, (case.id, reply)
        on_roll = "x" if reply["turn"] == 1 else "o"
        assert Position.from_dict(_board_to_position(reply["board"], on_roll)) == case.position, case.id
        assert "gnubg-1.07.001 (decoding)" in case.provenance["verified_by"], case.id
