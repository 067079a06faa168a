"""GNU Backgammon as the independent engine: the differential test and the suite run.

Skipped when the gnubg program is not installed, unless BGCONF_REQUIRE_GNUBG=1
(CI sets it, so there a missing gnubg fails instead of skipping).
"""

import os

import pytest
from hypothesis import HealthCheck, given, settings

from conformance.cases import load_suite
from conformance.harness.compare import _engine_plays
from conformance.model import format_play
from conformance.harness.runner import run_cases
from conformance.harness.strategies import dice, positions
from reference_impl import legal_plays


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
    me = f"gnubg-{version}"
    bad = [f"{r.case.id}: {r.status}: {r.outcome.message}" for r in results
           if r.status not in ("pass", "unsupported") and me not in r.case.provenance.get("disagrees", {})]
    assert not bad, "\n".join(bad)
    for r in results:
        names_gnubg = me in r.case.provenance["verified_by"]
        assert names_gnubg == (r.status == "pass"), (r.case.id, r.status, r.case.provenance)
        if me in r.case.provenance.get("disagrees", {}):  # a recorded disagreement that is still one
            assert r.status in ("fail", "errored"), (r.case.id, r.status, "gnubg now agrees: update the case")


def test_gnubg_reads_every_xgid_case_as_its_position_and_state(gnubg):
    """GNU Backgammon 1.07 can import an XGID but not write one: the XGID cases are
    confirmed on the decoding side (their provenance says so), the board and every field
    gnubg keeps (cube value and owner, side on roll and to act, dice, a pending double, score,
    match length, Crawford game, Jacoby), read from gnubg's own state after ``set xgid`` (which
    seats the XGID's player on roll as its player 1)."""
    from conformance.engines.adapters.gnubg.plans import _gnubg_state
    from conformance.engines.adapters.gnubg.translate import _board_to_position
    from conformance.model import IdState, Position

    version = gnubg.describe()["version"].split()[2]
    cases = [c for c in load_suite().cases if c.kind == "codec" and c.raw["codec"] == "xgid"
             and "decode" not in c.raw]
    assert cases
    replies = gnubg._exchange([{"op": "decode_xgid", "xgid": c.expected} for c in cases])
    for case, reply in zip(cases, replies):
        assert isinstance(reply, dict) and "board" in reply, (case.id, reply)
        on_roll = "x" if reply["turn"] == 1 else "o"
        assert Position.from_dict(_board_to_position(reply["board"], on_roll)) == case.position, case.id
        kept = ("cube", "on_roll", "turn", "dice", "double_offered", "match", "jacoby")
        if any("cannot handle" in m for m in reply["messages"]):  # gnubg steps back to the offer
            kept = ("cube", "on_roll", "dice", "match", "jacoby")
            assert "cannot read" in case.provenance["source"], case.id
        got = IdState.from_dict(_gnubg_state(reply, player_1=on_roll))
        assert not got.differences(case.state, kept), (case.id, got.differences(case.state, kept))
        assert f"gnubg-{version} (decoding)" in case.provenance["verified_by"], case.id


def test_gnubg_refuses_every_malformed_xgid(gnubg):
    """The XGID refusal cases: GNU Backgammon's importer leaves its position and match state
    as they were, or calls the position illegal (the provenance names gnubg's decoding)."""
    version = gnubg.describe()["version"].split()[2]
    cases = [c for c in load_suite().cases if c.kind == "codec" and c.raw["codec"] == "xgid" and "decode" in c.raw]
    assert cases
    replies = gnubg._exchange([{"op": "decode_xgid", "xgid": c.raw["decode"]} for c in cases])
    for case, reply in zip(cases, replies):
        assert isinstance(reply, dict) and "refused" in reply, (case.id, reply)
        assert f"gnubg-{version} (decoding)" in case.provenance["verified_by"], case.id


def test_gnubg_writes_the_match_id_of_every_case_it_cannot_read(gnubg):
    """A Match ID case GNU Backgammon cannot decode (a pending double: gnubg steps back to the
    offer) is confirmed on the encoding side: gnubg, put in the state by its own commands,
    writes an id with the case's fields (the provenance says so)."""
    from conformance.engines.adapters.gnubg.plans import _match_id_op
    from conformance.cases import CODEC_FIELDS
    from conformance.model import decode_match_id

    version = gnubg.describe()["version"].split()[2]
    cases = [c for c in load_suite().cases if c.kind == "codec" and c.raw["codec"] == "gnubg_match_id"
             and c.state is not None and c.state.double_offered]
    assert cases
    replies = gnubg._exchange([_match_id_op(c.state.to_dict()) for c in cases])
    for case, reply in zip(cases, replies):
        assert isinstance(reply, dict) and "match_id" in reply, (case.id, reply)
        wrote = decode_match_id(reply["match_id"])
        assert not wrote.differences(case.state, CODEC_FIELDS["gnubg_match_id"]), case.id
        assert f"gnubg-{version} (encoding)" in case.provenance["verified_by"], case.id


def _threads(pid: int) -> dict[int, tuple[int, frozenset]]:
    """Each thread of process ``pid``: (scheduling policy, CPUs it may run on)."""
    return {tid: (os.sched_getscheduler(tid), frozenset(os.sched_getaffinity(tid)))
            for tid in sorted(int(t) for t in os.listdir(f"/proc/{pid}/task"))}


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE") or not os.path.isdir("/proc/self/task"),
                    reason="Linux scheduling policies")
def test_gnubg_main_thread_yields_to_its_workers_on_one_cpu(gnubg):
    """The driver pins gnubg's threads to one CPU and gives the main thread (the one that runs
    the driver and waits for the evaluations) the SCHED_IDLE policy, so that a woken worker
    always preempts it and a hint does not wait gnubg's 10 ms poll; the workers keep theirs."""
    gnubg.describe()
    pid = gnubg._process().popen.pid
    threads = _threads(pid)
    assert len(threads) >= 2, threads  # gnubg's evaluation threads
    assert threads[pid][0] == os.SCHED_IDLE
    assert all(policy != os.SCHED_IDLE for tid, (policy, _) in threads.items() if tid != pid), threads
    cpus = {cpu for _, cpu in threads.values()}
    assert len(cpus) == 1 and len(next(iter(cpus))) == 1, threads


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE") or not os.path.isdir("/proc/self/task"),
                    reason="Linux scheduling policies")
def test_bgconf_gnubg_no_pin_leaves_gnubg_scheduled_as_started(gnubg, monkeypatch):
    """BGCONF_GNUBG_NO_PIN=1 turns both off: gnubg's threads keep the CPUs and policy they were
    started with, and gnubg answers as before."""
    from conformance.engines.adapters.gnubg.engine import GnubgEngine

    monkeypatch.setenv("BGCONF_GNUBG_NO_PIN", "1")
    with GnubgEngine() as engine:
        assert engine.describe()["version"] == gnubg.describe()["version"]
        threads = _threads(engine._process().popen.pid)
        assert all(policy == os.sched_getscheduler(0) for policy, _ in threads.values()), threads
        assert all(cpu == frozenset(os.sched_getaffinity(0)) for _, cpu in threads.values()), threads
