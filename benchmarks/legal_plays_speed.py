"""Legal plays per second of the reference engine (run on demand, not in tests).

Sweeps all 21 distinct rolls over a fixed set of positions and prints, per
position and in total, the plays generated and the rate. Usage:

    python benchmarks/legal_plays_speed.py [--repeat N]
"""

from __future__ import annotations

import argparse
import time

from conformance.model import Position, decode_position_id
from reference_impl import legal_plays

POSITIONS = {
    "start": Position.start(),
    # middle games and other shapes, as GNU Backgammon Position IDs (published examples
    # from the GNU Backgammon manual and BGBlitz exports, see shared reference notes)
    "middle game A": decode_position_id("Mw5jkCQyz+AhAg"),
    "middle game B": decode_position_id("cxzwAA7gbjADEw"),
    "middle game C": decode_position_id("jGfkASjg8wcBMA"),
    "bar vs blitz": decode_position_id("zGbiIQgxH/AAWA"),
    "bear-off": decode_position_id("XwAAgPceAAAAAA"),
}
ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


def sweep(position: Position) -> int:
    return sum(len(legal_plays(position, roll)) for roll in ROLLS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    total_plays = 0
    total_s = 0.0
    print(f"{'position':<16} {'plays/21 rolls':>14} {'ms/sweep':>9} {'plays/s':>10}")
    for name, pos in POSITIONS.items():
        plays = sweep(pos)
        t0 = time.perf_counter()
        for _ in range(args.repeat):
            sweep(pos)
        dt = (time.perf_counter() - t0) / args.repeat
        total_plays += plays
        total_s += dt
        print(f"{name:<16} {plays:>14} {dt * 1000:>9.2f} {plays / dt:>10.0f}")
    print(f"{'all':<16} {total_plays:>14} {total_s * 1000:>9.2f} {total_plays / total_s:>10.0f}")


if __name__ == "__main__":
    main()
