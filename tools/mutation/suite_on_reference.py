"""The bundled suite on the reference engine, then ``bgconf replay`` of the bundled records: exit
0 iff every case passes and every record gets its expected verdict.

The test command of the mutation run (``tools/mutation/run.py``): cosmic-ray mutates one
module of ``reference_impl/`` in a scratch copy of the repository and runs this script
there; any other exit status kills the mutant. The reference is the oracle, so its answers are
checked more strictly than ``bgconf run`` checks a third-party engine's: a play_check answer
that leaves out the reason of an illegal play fails, and so does a legal_plays answer that lists
a play twice (``strict_sets``); a perft case fails too when the reference's answer for its
position at depth 0 is not 1, or when the shares ``bgconf perft --divide`` prints do not add up
to the case's count. The cases other than perft are asked first and the perft cases only when
those all pass, so that a mutant the cheap cases kill does not pay for perft. When every case passes, the real matches of
``tests/data/matches/`` are replayed as ``bgconf replay`` replays them and compared with their
expected verdicts (``NAME.verdict.yaml``, ``record_judge.verdict_differences``), and so are the
record files with known verdicts of ``cases/replays/`` (``harness.replay_verdicts``); a
difference is printed as a failing case named ``replay:NAME``. Last, the refusals no request
reaches (the adapter refuses those inputs first) are checked by direct calls of reference_impl
(``refusal_differences``: dice outside 1..6, a position not of the variant). The script imports the ``conformance`` and
``reference_impl`` beside it (the copy it lives in), never an installed bgconf.

    python tools/mutation/suite_on_reference.py [--memory-mib 2048] [--cpu-seconds N]

It caps its own address space (``RLIMIT_AS``, 2 GiB by default), so a mutant that allocates
without end fails with MemoryError instead of taking the machine; ``--cpu-seconds`` caps its
CPU time as well (run.py sets it a little above the per-mutant timeout, a backstop should the
process outlive the run that started it).

Exit status: 0 every case passes and every verdict is reproduced; 1 some case does not, or
some verdict differs; 3 the engine does not load (the
mutant is incompetent, a line starting with ``MARK`` says so) or the suite does not load.
"""

from __future__ import annotations

import argparse
import resource
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "tests" / "data" / "matches"  # real matches, each beside its NAME.verdict.yaml
ANSWERS = ROOT / "tests" / "data" / "answers" / "reference.yaml"  # requests no case makes, answers pinned
MARK = "bgconf-mutation:"
EXIT_PASS, EXIT_FAIL, EXIT_NOT_RUN = 0, 1, 3


def _cap(kind: int, value: int) -> None:
    _soft, hard = resource.getrlimit(kind)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(kind, (value, hard))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memory-mib", type=int, default=2048, help="address space cap (default 2048)")
    parser.add_argument("--cpu-seconds", type=int, default=0, help="CPU time cap (default none)")
    args = parser.parse_args(argv)
    _cap(resource.RLIMIT_AS, args.memory_mib << 20)
    if args.cpu_seconds > 0:
        _cap(resource.RLIMIT_CPU, args.cpu_seconds)

    sys.path.insert(0, str(ROOT))
    try:  # the mutated module is executed here: whatever it raises, the engine did not load
        import reference_impl.check
        import reference_impl.game
        import reference_impl.movegen
        import reference_impl.perft
        import reference_impl.record
        from conformance.engines.adapters.reference import ReferenceEngine
    except Exception as exc:  # noqa: BLE001
        print(f"{MARK} incompetent: the engine does not load: {type(exc).__name__}: {exc}")
        return EXIT_NOT_RUN
    if not Path(reference_impl.movegen.__file__).resolve().is_relative_to(ROOT):
        print(f"{MARK} setup: reference_impl was imported from {reference_impl.movegen.__file__}, not from {ROOT}")
        return EXIT_NOT_RUN

    from conformance.cases import load_suite
    from conformance.harness.runner import run_cases

    suite = load_suite()
    if suite.errors or not suite.cases:
        print(f"{MARK} setup: the bundled suite does not load ({len(suite.errors)} errors, {len(suite.cases)} cases)")
        return EXIT_NOT_RUN
    # the cheap cases first, perft (most of the time) last: a mutant stops at the first group
    # with a case that does not pass, so a killed mutant costs a fraction of the whole suite
    engine = ReferenceEngine()
    groups = ([c for c in suite.cases if c.kind != "perft"], [c for c in suite.cases if c.kind == "perft"])
    results = []
    for group in groups:
        results += [_exact(r) for r in run_cases(engine, group, strict_sets=True)]
        bad = [r for r in results if r.status != "pass"]
        if bad:
            break
    if not bad:
        print(f"all {len(results)} cases pass")
        return _replays()
    print(f"{len(bad)} of {len(results)} cases asked do not pass:")
    for r in bad[:10]:
        message = " ".join(str(r.outcome.message).split())
        print(f"  {r.case.id} ({r.status}): {message[:200]}")
    if len(bad) > 10:
        print(f"  ... and {len(bad) - 10} more")
    return EXIT_FAIL


def _exact(result):
    """``result``, failed when the reference's answer leaves out what ``bgconf run`` lets any
    engine leave out: the reason of an illegal play (``compare`` compares it only when the
    engine gives one). The reference is the oracle, so its answer is checked exactly; a play
    listed twice fails too (``strict_sets``)."""
    from conformance.harness.compare import Outcome

    case = result.case
    if result.status == "pass" and case.kind == "perft":
        return _perft_commands(result)
    if result.status != "pass" or case.kind != "play_check":
        return result
    legal, reason = case.expected
    got = result.outcome.got if isinstance(result.outcome.got, dict) else {}
    if not legal and got.get("reason") != reason:
        result.outcome = Outcome("fail", f"play {case.play!r} is illegal as expected, but the reference gives"
                                         f" reason {got.get('reason')!r}, expected {reason!r}", got=got)
    return result


def _perft_commands(result):
    """``result``, failed when the reference's other perft answers for the case's position
    disagree with it: ``bgconf serve reference`` asked for depth 0 (``perft(p, 0) = 1``,
    spec/perft.md) and ``bgconf perft --divide`` (each roll's share, which add up to the count
    at each depth of the case up to 2, and at depth 3 as written, not with colours swapped)."""
    from conformance.engines.adapters.reference import ReferenceEngine
    from conformance.harness.compare import Outcome
    from reference_impl.perft import divide

    case = result.case
    request = case.request()
    roll_set = request["roll_set"]
    reply = ReferenceEngine().run({**request, "depths": [0]})
    problems = [] if reply.get("result") == {"counts": {"0": 1}} else [f"depth 0 answered {reply}, expected 1"]
    for depth, count in sorted(case.expected.items()):
        if depth > 3 or (depth == 3 and "colour-swap" in case.tags):  # deeper, --divide costs
            continue                                                   # more than the suite
        shares = divide(case.position, depth, roll_set)
        if sum(shares.values()) != count:
            problems.append(f"bgconf perft --divide at depth {depth}: the rolls' shares add up to"
                            f" {sum(shares.values())}, expected {count}")
    if problems:
        result.outcome = Outcome("fail", "; ".join(problems), got=result.outcome.got)
    return result


def _replays() -> int:
    """The bundled records replayed and compared with their expected verdicts."""
    from conformance.harness.record_judge import verdict_differences
    from conformance.harness import replay_verdicts

    try:
        differences = verdict_differences(RECORDS) + replay_verdicts.verdict_differences()  # and cases/replays/
    except Exception as exc:  # noqa: BLE001  a mutant that makes replay raise is found by it
        differences = [f"{RECORDS.name}: replay raised {type(exc).__name__}: {exc}"]
    if not differences:
        print(f"every record of {RECORDS.relative_to(ROOT)} gets its expected verdict")
        return _answers()
    print(f"{len(differences)} differences from the expected verdicts of {RECORDS.relative_to(ROOT)}:")
    for line in differences[:10]:
        name = line.split(":", 1)[0]
        print(f"  replay:{name} (fail): {' '.join(line.split())[:200]}")
    return EXIT_FAIL


def _answers() -> int:
    """The requests of ``tests/data/answers/reference.yaml``, each answered exactly as pinned
    (``harness.answers``): refusals of requests that describe no game, and what an answer carries
    that no case compares."""
    from conformance.engines.adapters.reference import ReferenceEngine
    from conformance.harness.answers import answer_differences

    differences = answer_differences(ANSWERS, ReferenceEngine())
    if not differences:
        print(f"every request of {ANSWERS.relative_to(ROOT)} gets its pinned answer")
        return _refusals()
    print(f"{len(differences)} requests of {ANSWERS.relative_to(ROOT)} answered otherwise than pinned:")
    for line in differences[:10]:
        name = line.split(":", 2)[1]
        print(f"  answer:{name} (fail): {' '.join(line.split())[:200]}")
    return EXIT_FAIL


def refusal_differences() -> list[str]:
    """The refusals of reference_impl's public functions that no request reaches (the engine's
    adapter refuses such inputs before it calls them), each checked by a direct call: the error
    class and the start of its message. Returns one line per call that does not refuse so."""
    from conformance.model import RULE_DEFAULTS, Cube, Match, Position
    from reference_impl import legal_plays
    from reference_impl.game import GameRuleError, game_result

    start = [0] * 26
    for point, count in ((24, 2), (13, 5), (8, 3), (6, 5)):
        start[point] = count
    start_position = Position.trusted("x", tuple(start), tuple(start))
    over_x, over_o = [0] * 26, [0] * 26
    over_x[0], over_o[6] = 15, 15
    over = Position.trusted("o", tuple(over_x), tuple(over_o))  # x has borne off all 15
    calls = [(f"legal_plays(start, {dice})", lambda d=dice: legal_plays(start_position, d), ValueError,
              "dice must be two numbers 1..6")  # a die shows 1 to 6
             for dice in ((0, 3), (3, 0), (7, 3), (3, 7), (8, 3), (3, 8), (-1, 3), (3, -1))]
    calls.append(("game_result(15 checkers a side, variant hypergammon-3)",  # spec: variant.checkers
                  lambda: game_result(over, Cube(), Match(), {**RULE_DEFAULTS, "variant": "hypergammon-3"}),
                  GameRuleError, "the position has 15 checkers a side"))
    differences = []
    for name, call, error, message in calls:
        try:
            got = call()
        except Exception as exc:  # noqa: BLE001  a mutant may raise anything
            if type(exc) is not error or not str(exc).startswith(message):
                differences.append(f"{name}: raised {type(exc).__name__}: {exc}; expected {error.__name__}: {message}")
        else:
            differences.append(f"{name}: returned {got!r}; expected {error.__name__}: {message}")
    return differences


def _refusals() -> int:
    """``refusal_differences``: exit 0 when there is none."""
    differences = refusal_differences()
    if not differences:
        print("every direct call of reference_impl that must refuse refuses")
        return EXIT_PASS
    print(f"{len(differences)} direct calls of reference_impl do not refuse as they must:")
    for line in differences:
        print(f"  call:{line.split('(', 1)[0]} (fail): {line[:200]}")
    return EXIT_FAIL


if __name__ == "__main__":
    sys.exit(main())
