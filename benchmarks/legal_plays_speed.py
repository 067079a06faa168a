"""Legal plays per second, side by side in one run (on demand, not in tests).

For each engine, all 21 rolls over a fixed set of positions, timed on the
engine's own generator call (boards converted once, before timing; the count
is of plays as each engine returns them). Engines: the reference, gnubg-nn
(GNU Backgammon's C generator), bgsage (C++) and gym-backgammon (pure Python),
the last three when installed (pip install 'bgconf[gnubg-nn,bgsage,gym-backgammon]').
Also the whole bundled suite on the reference, and fuzz-like throughput.

    python benchmarks/legal_plays_speed.py [--repeat N]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time

from conformance.model import Position, decode_position_id, decode_xgid
from reference_impl import legal_plays

POSITIONS = {
    "opening": Position.start(),
    "middle game A": decode_position_id("Mw5jkCQyz+AhAg"),
    "middle game B": decode_position_id("cxzwAA7gbjADEw"),
    "bar vs blitz": decode_position_id("zGbiIQgxH/AAWA"),
    "prime": decode_xgid("XGID=-B-CBBB---a---A---ABcbbbd-:1:-1:1:21:3:6:0:7:10"),
    "race": Position.from_dict({"on_roll": "x", "x": {"points": {11: 2, 9: 3, 7: 3, 5: 3, 3: 2, 1: 2}},
                                "o": {"points": {10: 3, 8: 3, 6: 3, 4: 3, 2: 3}}}),
    "bear-off": decode_position_id("XwAAgPceAAAAAA"),
}
ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


def _reference():
    return lambda pos, d1, d2: legal_plays(pos, (d1, d2)), lambda pos: pos


def _gnubg_nn():
    import gnubg_nn

    from conformance.adapters.gnubg_nn import _board

    return (lambda board, d1, d2: gnubg_nn.moves(board, d1, d2)), _board


def _bgsage():
    from conformance.adapters.bgsage import _board, _engine

    possible_moves = _engine()
    return (lambda board, d1, d2: possible_moves(board, d1, d2)), _board


def _gym():
    from conformance.adapters.gym_backgammon import _engine, _game

    g = _engine()

    def prepare(pos):
        game, colour = _game(g, pos)
        return game, colour

    def generate(prepared, d1, d2):
        game, colour = prepared
        roll = (-d1, -d2) if colour == g.WHITE else (d1, d2)
        return game.get_valid_plays(colour, roll)

    return generate, prepare


ENGINES = {"reference": _reference, "gnubg-nn (C)": _gnubg_nn, "bgsage (C++)": _bgsage,
           "gym-backgammon (Python)": _gym}


def sweep_time(generate, prepared: dict, repeat: int) -> tuple[float, int]:
    """Seconds per sweep of all positions x 21 rolls (best of ``repeat``), and plays."""
    best = float("inf")
    plays = 0
    for _ in range(repeat):
        n = 0
        t0 = time.perf_counter()
        for board in prepared.values():
            for d1, d2 in ROLLS:
                n += len(generate(board, d1, d2))
        best = min(best, time.perf_counter() - t0)
        plays = n
    return best, plays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    rows = []
    for name, make in ENGINES.items():
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                generate, prepare = make()
                prepared = {k: prepare(p) for k, p in POSITIONS.items()}
        except Exception as exc:  # not installed: say so
            print(f"{name:<26} not available: {exc}", file=sys.stderr)
            continue
        with contextlib.redirect_stdout(io.StringIO()):
            seconds, plays = sweep_time(generate, prepared, args.repeat)
        rows.append((name, seconds, plays))
    ref = next(s for n, s, _ in rows if n == "reference")
    print(f"{'engine':<26} {'ms/sweep':>9} {'plays':>7} {'plays/s':>11} {'time / reference':>17}")
    for name, seconds, plays in rows:
        print(f"{name:<26} {seconds * 1000:>9.2f} {plays:>7} {plays / seconds:>11,.0f} {seconds / ref:>17.2f}")
    print(f"({len(POSITIONS)} positions x 21 rolls; best of {args.repeat})")

    from conformance.adapters.reference import ReferenceEngine
    from conformance.cases import load_suite
    from conformance.runner import run_cases

    suite = load_suite()
    t0 = time.perf_counter()
    results = run_cases(ReferenceEngine(), suite.cases)
    dt = time.perf_counter() - t0
    print(f"bundled suite on the reference: {len(results)} cases in {dt:.2f} s "
          f"(loading {len(suite.files)} files not included)")


if __name__ == "__main__":
    main()
