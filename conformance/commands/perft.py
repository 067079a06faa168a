"""``bgconf perft POSITION --depth D [--divide] [--engine E]`` and ``bgconf bisect --engine E
[POSITION] --depth D``: the options, the printing and the exit codes (``EPILOG``).

The counting and the walk are ``conformance.harness.perft`` (the reference's own perft is
``reference_impl.perft``).
"""

from __future__ import annotations

import sys
import time

from conformance.harness.compare import BadAnswer
from conformance.harness.perft import WEIGHTS, bisect, engine_perft, parse_position
from conformance.model import ModelError, encode_position_id


def _start(args):
    """The started engine, or the exit code (``common.open_engine``: 2 or 4)."""
    from conformance.commands.common import CommandExit, open_engine, refuse_undeclared_variant

    try:
        engine, info = open_engine(args.engine, args.timeout, args.max_restarts)
    except CommandExit as stop:
        return stop.code
    return 2 if refuse_undeclared_variant(engine, info, args.engine, args.variant) else engine


def cmd_perft(args) -> int:
    try:
        position = parse_position(args.position, args.variant)
    except ModelError as exc:
        print(f"bgconf: {exc}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    if args.engine == "reference":
        from reference_impl.perft import divide, perft

        if args.divide:
            for roll, n in divide(position, args.depth, args.roll_set).items():
                print(f"{roll[0]}-{roll[1]} {n}")
        counts = [perft(position, d, args.roll_set) for d in range(1, args.depth + 1)]
    else:
        engine = _start(args)
        if isinstance(engine, int):
            return engine
        try:
            counts = engine_perft(engine, position, args.depth, args.roll_set, variant=args.variant)
        except BadAnswer as exc:
            print(f"bgconf: {exc}", file=sys.stderr)
            return 1
        finally:
            engine.close()
    dt = time.perf_counter() - t0
    for d, n in enumerate(counts, 1):
        print(f"perft {d} {n}")
    print(f"{sum(counts)} nodes in {dt:.2f} s ({sum(counts) / max(dt, 1e-9):,.0f} nodes/s)", file=sys.stderr)
    return 0


def cmd_bisect(args) -> int:
    from conformance.harness.diagram import board_diagram

    try:
        position = parse_position(args.position, args.variant)
    except ModelError as exc:
        print(f"bgconf: {exc}", file=sys.stderr)
        return 2
    engine = _start(args)
    if isinstance(engine, int):
        return engine
    try:
        found = bisect(engine, position, args.depth, args.variant)
    except BadAnswer as exc:
        print(f"bgconf: {exc}", file=sys.stderr)
        return 1
    finally:
        engine.close()
    if found is None:
        print(f"no difference from the reference down to depth {args.depth}")
        return 0
    d, p, r, missing, extra = found
    print(f"first difference at depth {d}: {encode_position_id(p)} ({p.on_roll} on roll), dice {r[0]}-{r[1]}")
    print(board_diagram(p, r))
    print("  missing plays (legal, not returned): " + (", ".join(missing) or "-"))
    print("  extra plays (returned, not legal):   " + (", ".join(extra) or "-"))
    return 1


EPILOG = """exit codes:
  0    counted (bisect: no difference from the reference)
  1    the engine's plays differ or its answer is not legal plays
  2    bad command line (a position that cannot be read, a depth below 1)
  4    the engine is unknown, not installed or could not be started
  130, 143  interrupted by SIGINT, SIGTERM
"""


def add_parser(sub) -> None:
    import argparse

    from conformance.commands.common import add_engine_options, add_variant_option, positive_int

    p = sub.add_parser("perft", help="count the bgperft-1 tree from a position (spec/perft.md)",
                       description="Count distinct plays over all rolls to a depth (bgperft-1: 21 rolls, "
                                   "plays as distinct resulting positions, a pass counts one, a finished game "
                                   "is a leaf). POSITION is start, a Position ID (x on roll) or an XGID; with "
                                   "--variant, start is that variant's and a Position ID has its checker count.",
                       epilog="examples:\n  bgconf perft start --depth 2\n  bgconf perft start --depth 2 --divide\n"
                              "  bgconf perft start --variant hypergammon-3 --depth 3 --engine gnubg\n"
                              "  bgconf perft 4HPwATDgc/ABMA --depth 2 --engine gnubg-nn\n\n" + EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("position")
    p.add_argument("--depth", type=positive_int, default=1, help="plies to count (at least 1; default 1)")
    p.add_argument("--divide", action="store_true", help="also print each roll's share (reference only)")
    p.add_argument("--roll-set", choices=sorted(WEIGHTS), default="all21")
    p.add_argument("--engine", default="reference", help="count with this engine's legal plays")
    add_variant_option(p, "count")
    add_engine_options(p)
    p.set_defaults(func=cmd_perft)

    b = sub.add_parser("bisect", help="find the first position and roll where an engine's plays differ",
                       description="Walk the perft tree from POSITION level by level and stop at the first "
                                   "position and roll where the engine's legal plays differ from the reference's;"
                                   " exit 1 with the board, the missing and the extra plays, 0 when none differ.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    b.add_argument("position", nargs="?", default="start")
    b.add_argument("--engine", required=True)
    b.add_argument("--depth", type=positive_int, default=2, help="plies to search (at least 1; default 2)")
    add_variant_option(b, "search")
    add_engine_options(b)
    b.set_defaults(func=cmd_bisect)
