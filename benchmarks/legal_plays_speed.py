"""Legal plays per second, side by side in one run (on demand, not in tests).

For each engine, all 21 rolls over a fixed set of positions (opening, two
middle games, a checker on the bar against a blitz, a prime, a race, a
bear-off), timed on the engine's own generator call: boards are converted once,
before timing, and plays are counted as each engine returns them. The reference
is timed twice: ``reference_impl.movegen.plays`` (resulting positions packed in
ints, as gnubg-nn gives position keys and gym-backgammon gives move tuples) and
``legal_plays`` (a Position object per play, what the suite compares). The
others: gnubg-nn (GNU Backgammon's C generator), bgsage (C++) and gym-backgammon
(pure Python), when installed (pip install 'bgconf[gnubg-nn,bgsage,gym-backgammon]').
Rounds interleave the engines and each engine's best round is kept.

Then the whole bundled suite on the reference (wall time of ``bgconf run``), and
fuzzing throughput against the reference alone.

    python benchmarks/legal_plays_speed.py [--repeat N] [--fuzz N]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import subprocess
import sys
import time

from conformance.model import Position, decode_position_id, decode_xgid
from reference_impl import legal_plays
from reference_impl.movegen import plays

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
    return lambda pos, d1, d2: plays(pos, (d1, d2)), lambda pos: pos


def _reference_positions():
    return lambda pos, d1, d2: legal_plays(pos, (d1, d2)), lambda pos: pos


def _gnubg_nn():
    import gnubg_nn

    from conformance.engines.adapters.gnubg_nn import _board

    return (lambda board, d1, d2: gnubg_nn.moves(board, d1, d2)), _board


def _bgsage():
    from conformance.engines.adapters.bgsage import _board, _engine

    possible_moves = _engine()
    return (lambda board, d1, d2: possible_moves(board, d1, d2)), _board


def _gym():
    from conformance.engines.adapters.gym_backgammon import _engine, _game

    g = _engine()

    def prepare(pos):
        game, colour = _game(g, pos)
        return game, colour

    def generate(prepared, d1, d2):
        game, colour = prepared
        roll = (-d1, -d2) if colour == g.WHITE else (d1, d2)
        return game.get_valid_plays(colour, roll)

    return generate, prepare


ENGINES = {"reference": _reference, "reference, as Position objects": _reference_positions, "gnubg-nn (C)": _gnubg_nn, "bgsage (C++)": _bgsage,
           "gym-backgammon (Python)": _gym}


def sweep(generate, prepared: dict) -> tuple[float, int]:
    """Seconds for one sweep of all positions x 21 rolls, and the plays counted."""
    n = 0
    t0 = time.perf_counter()
    for board in prepared.values():
        for d1, d2 in ROLLS:
            n += len(generate(board, d1, d2))
    return time.perf_counter() - t0, n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=20, help="rounds; each engine's best is kept (default 20)")
    parser.add_argument("--fuzz", type=int, default=4000, help="positions per fuzzing run (default 4000)")
    args = parser.parse_args()
    engines = {}
    for name, make in ENGINES.items():
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                generate, prepare = make()
                engines[name] = (generate, {k: prepare(p) for k, p in POSITIONS.items()})
        except Exception as exc:  # not installed: say so
            print(f"{name:<32} not available: {exc}", file=sys.stderr)
    # rounds interleave the engines, so that a slow spell of a shared machine
    # falls on all of them; each engine's best round is kept
    best = {name: float("inf") for name in engines}
    plays = {}
    for _ in range(args.repeat):
        for name, (generate, prepared) in engines.items():
            gc.collect()
            with contextlib.redirect_stdout(io.StringIO()):
                seconds, plays[name] = sweep(generate, prepared)
            best[name] = min(best[name], seconds)
    rows = [(name, best[name], plays[name]) for name in engines]
    ref = next(s for n, s, _ in rows if n == "reference")
    print(f"{'engine':<32} {'ms/sweep':>9} {'plays':>7} {'plays/s':>11} {'time / reference':>17}")
    for name, seconds, plays in rows:
        print(f"{name:<32} {seconds * 1000:>9.2f} {plays:>7} {plays / seconds:>11,.0f} {seconds / ref:>17.2f}")
    print(f"({len(POSITIONS)} positions x 21 rolls; best of {args.repeat})")

    from conformance.harness import fuzz
    from conformance.engines.adapters.reference import ReferenceEngine

    # the whole bundled suite, as a user runs it: a fresh process, loading included
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "conformance.cli", "run", "--engine", "reference"],
                          capture_output=True, text=True)
    dt = time.perf_counter() - t0
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip()
    print(f"bgconf run --engine reference: {dt:.2f} s wall, start-up and loading included ({summary})")

    # fuzzing the reference against itself: generation, both answers and the comparison
    for kind in ("legal_plays", "play_check"):
        camp = fuzz.run_campaign(ReferenceEngine(), "reference", kind, args.fuzz, seed=1)
        print(f"fuzz {kind} against the reference: {camp.positions} positions in "
              f"{camp.search_seconds:.2f} s ({camp.rate:,.0f} positions/s)")

if __name__ == "__main__":
    main()
