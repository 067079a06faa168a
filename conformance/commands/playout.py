"""``bgconf playout``: the options, the printing, the report file and the exit codes.

The games and their checks are ``conformance.harness.playout`` (OpenSpiel's state read by
``conformance.harness.openspiel``), the report's lines ``conformance.reports.playout``. Exit 0
when everything agreed, 1 at a mismatch, 2 for a bad command line, 4 when the engine is not one
playout drives or is not installed, 130/143 when interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter

from conformance.harness.openspiel import GAME_PARAMETERS, ConversionError
from conformance.harness.playout import (ENGINES, LABELS, PLAYS_VARIANTS, SITUATIONS, Mismatch, OpenSpielUnavailable, Totals,
                                         cases_block, cases_yaml, fresh_ids, load_game, make_case, play_games)
from conformance.harness.shard import WHOLE

EXIT_OK, EXIT_MISMATCH, EXIT_USAGE, EXIT_NO_ENGINE = 0, 1, 2, 4
INSTALL_HINT = "OpenSpiel is not installed: pip install 'bgconf[openspiel]'"
PGX_HINT = "pgx is not installed: pip install 'bgconf[pgx]'"


# -- output -----------------------------------------------------------------------------
def mismatch_text(m: Mismatch, seed: int) -> str:
    from conformance.cases import resources
    from conformance.harness.diagram import board_diagram

    clauses = resources.spec_clauses()
    where = f"seed {seed}, game {m.game}, ply {m.ply}"
    lines = [f"MISMATCH ({m.kind}) {where}"]
    for anchor in m.anchors:
        lines.append(f"  spec {anchor}: {clauses.get(anchor, '')}".rstrip())
    lines.append(board_diagram(m.position, m.dice))
    label = LABELS[m.engine]
    if m.kind == "legal_plays":
        lines.append(f"  reference: {len(m.expected)} plays; {label}: {m.detail['engine_plays']}")
        if m.missing:
            lines.append(f"  missing plays (legal, {label} lacks them): " + ", ".join(m.missing))
        if m.extra:
            lines.append(f"  extra plays ({label} allows them, not legal): "
                         + ", ".join(f"{p} [{r}]" for p, r in zip(m.extra, m.reasons)))
    else:
        lines.append(f"  {label}: {m.detail['engine']}")
        lines.append(f"  reference: {m.detail['reference']}")
    lines.append(f"  re-run: bgconf playout --engine {m.engine} --seed {seed} --game {m.game}")
    return "\n".join(lines)


def run(args) -> int:
    from conformance.commands.common import CommandExit, check_outputs, err, interruptible

    if args.engine not in ENGINES:
        err(f"unknown engine {args.engine!r} for playout; it plays engines through their own game API:"
            f" {', '.join(ENGINES)} (engines that take a position: bgconf run)")
        return EXIT_NO_ENGINE
    try:
        check_outputs({"--report": args.report, "--write-cases": args.write_cases})
    except CommandExit as stop:
        return stop.code
    from conformance.engines.adapters import EngineUnavailable

    if args.variant not in PLAYS_VARIANTS[args.engine]:
        err(f"{args.engine} does not play {args.variant}; it plays {', '.join(PLAYS_VARIANTS[args.engine])}")
        return EXIT_USAGE
    try:
        engine_game, play, version = load_game(args.engine, args.variant)
    except (EngineUnavailable, OpenSpielUnavailable):
        print(f"bgconf: {PGX_HINT if args.engine == 'pgx' else INSTALL_HINT}", file=sys.stderr)
        return EXIT_NO_ENGINE
    if args.engine == "pgx":
        about = "(backgammon environment, its own dice and scoring)"
    else:
        extra = "".join(f", {k}={str(v).lower()}" for k, v in GAME_PARAMETERS[args.variant].items())
        about = f"(backgammon, scoring_type=full_scoring{extra})"
    label = LABELS[args.engine]
    numbers = [args.game] if args.game else [g for g in range(1, args.games + 1) if args.shard.owns(g - 1)]
    totals = Totals()
    t0 = time.perf_counter()
    incomplete = False
    error = None
    interrupted = None
    def shown(record) -> None:
        if args.verbose:
            ref = record.reference or {}
            print(f"game {record.game}: {record.plies} plies, {record.positions} positions, {record.status}"
                  + (f", {ref.get('winner')} wins a {ref.get('result')} ({ref.get('points')})"
                     if ref else ""))

    from conformance.commands.common import jobs_wanted

    jobs = min(jobs_wanted(args), len(numbers))
    try:
        with interruptible():
            if jobs > 1:  # each worker loads the engine's game itself
                error = play_games(args.engine, args.seed, numbers, jobs, totals, shown, args.variant)
            for n in numbers if jobs <= 1 else ():
                shown(play(engine_game, args.seed, n, totals))
    except KeyboardInterrupt as exc:
        from conformance.commands.common import signal_name

        incomplete, interrupted = True, signal_name(exc)
    except ConversionError as exc:
        error = f"game {n}: {exc}"
    totals.wall_s = time.perf_counter() - t0

    ids = fresh_ids(args.seed)
    cases = [make_case(m, args.seed, next(ids), version) for m in totals.mismatches]
    for m, case in zip(totals.mismatches, cases):
        m.case = case
    for m in totals.mismatches[: args.max_mismatches]:
        print(mismatch_text(m, args.seed))
        print("  ready case (to go under cases: in a case file; check it against spec/rules.md first):")
        print(cases_block([m.case]).split("\n", 1)[1].rstrip())
        print()
    if len(totals.mismatches) > args.max_mismatches:
        print(f"... {len(totals.mismatches) - args.max_mismatches} more not shown (--max-mismatches);"
              f" --write-cases and --report hold them all")
    from conformance.commands.common import EXIT_SIGNAL, commit_outputs
    from conformance.reports.files import OutputError, OutputSet

    if interrupted and not totals.games and (args.write_cases or args.report):  # nothing played: nothing replaced
        err("nothing was played: no output was written")
    elif args.write_cases or args.report:
        with OutputSet() as files:  # both written beside their targets, moved together
            try:
                if args.write_cases:
                    files.text("--write-cases", args.write_cases, cases_yaml(cases, args.seed, version, args.engine))
                if args.report:
                    files.text("--report", args.report, report_text(args, version, totals, incomplete, error,
                                                                    interrupted))
            except OutputError as exc:
                err(f"{exc}; no output was replaced")
            else:
                commit_outputs(files)
    if error:
        print(f"bgconf: conversion error, {error}", file=sys.stderr)
    played = len(totals.games)
    trunc = f", {totals.truncated} ended by {label}'s turn limit" if totals.truncated else ""
    print(f"engine: {args.engine} {version} {about}")
    print(f"{played} game{'s' if played != 1 else ''} played{trunc}, {totals.positions} positions compared,"
          f" {len(totals.mismatches)} mismatch{'es' if len(totals.mismatches) != 1 else ''}"
          f" in {totals.wall_s:.1f} s ({label}'s plays {totals.engine_s:.1f} s,"
          f" reference {totals.reference_s:.1f} s)" + (" (incomplete)" if incomplete else ""))
    print("situations compared: " + ", ".join(f"{k} {totals.coverage.get(k, 0)}" for k in SITUATIONS))
    ends = Counter((g.reference or {}).get("result") for g in totals.games if g.reference)
    print("games ended: " + ", ".join(f"{k} {ends.get(k, 0)}" for k in ("single", "gammon", "backgammon")))
    if interrupted:
        err(f"interrupted by {interrupted}: {played} game(s) kept")
        return EXIT_SIGNAL[interrupted]
    return EXIT_MISMATCH if totals.mismatches or incomplete or error else EXIT_OK


def report_text(args, version: str, totals: Totals, incomplete: bool, error: str | None,
                interrupted: str | None = None) -> str:
    """The JSON Lines report (``conformance.reports.playout``) of a playout, as text."""
    from conformance.reports.playout import report_lines

    lines = report_lines(args.engine, version, args.seed, [args.game] if args.game else args.games, args.shard,
                         totals, incomplete, error, interrupted, sys.argv[1:], args.variant)
    return "".join(json.dumps(x) + "\n" for x in lines)


HELP = """\
OpenSpiel's backgammon cannot be given an arbitrary position, so the suite's cases
cannot be put to it. This command certifies it on the positions it reaches itself:
it plays --games random games through OpenSpiel's own API (pyspiel) and at every turn
compares the set of plays OpenSpiel allows with the reference engine's legal plays.

How a game goes:
  - dice: OpenSpiel's chance outcomes, drawn with their probabilities by a generator
    seeded with (--seed, game number), so each game replays alone (--game G);
  - at the start of each turn the board is read back with state.board() (player 0 is
    x, player 1 is o; x's point p is OpenSpiel index 24-p, o's point p is index p-1,
    index 100 the bar; borne-off counts from the observation string) and every legal
    action is applied to a clone of the state; the resulting positions, deduplicated,
    are OpenSpiel's plays. OpenSpiel splits a double into two decisions of the same
    player; each first half is followed by every second half, so whole 4-move plays
    are compared;
  - one of OpenSpiel's legal actions is then chosen at random and the game goes on;
  - at the end, the winner and (scoring_type full_scoring) the 1/2/3 value are
    compared with the reference's game_result (money play, centred cube of 1); a
    game OpenSpiel ends by its own turn limit (max_player_turns) before anyone has
    borne off 15 is counted, not compared.

pgx (--engine pgx) is played the same way through its own API: pgx.make("backgammon")
rolls its opening and every turn's dice (its PRNG seeded from --seed and the game), its
legal plays at each turn are every sequence of micro actions its masks allow, one is
chosen at random and stepped, and a finished game's reward (1, 2, 3) is compared with
the reference's single/gammon/backgammon.

The summary also counts the rule situations the compared positions met (doubles, the
bar, a closed board, hits, bearing off, with a larger die, no play, one die only, the
larger die forced, part of a double), so a run shows what it exercised.

--variant hypergammon-3 plays OpenSpiel's game with its hyper_backgammon parameter (3
checkers a side, spec/rules.md variant.hypergammon); the positions and the end of each game
are compared with the reference in that variant. OpenSpiel plays no other variant, and
pgx only the standard game. OpenSpiel scores a game only by its returns: no cube and no
match (money play, a centred cube of 1); its default scoring_type, winloss_scoring,
counts every win 1, so this command asks for full_scoring (1/2/3).

Every disagreement is printed with the board, the dice, the spec clause, the plays
OpenSpiel misses and those it allows illegally (with the reason), and a ready case
(fresh id, the reference's exact plays, provenance "OpenSpiel playout, seed S, game
G, ply P"; ply P = the P-th turn of the game, 1 = the opening play). Check each one
against spec/rules.md before adding it to cases/.
"""

EPILOG = """\
examples:
  bgconf playout --engine openspiel --games 200 --seed 1
  bgconf playout --engine openspiel --games 50 --seed 7 --report os.jsonl --write-cases os.bgcase.yaml
  bgconf playout --engine openspiel --seed 1 --game 17      (replay game 17 of seed 1)
  bgconf playout --engine openspiel --variant hypergammon-3 --games 200 --seed 1
  bgconf playout --engine pgx --games 100 --seed 1
  bgconf playout --engine openspiel --games 400 --seed 1 --jobs 0   (one worker per core)

exit codes:
  0  every position compared agreed, and every game's result
  1  at least one mismatch (or a board OpenSpiel reports that cannot be read)
  2  bad command line
  4  the engine is not one playout drives, or it is not installed
     (pip install 'bgconf[openspiel]', pip install 'bgconf[pgx]')
  130, 143  interrupted by SIGINT, SIGTERM: the games played are kept and reported
"""


def add_parser(subparsers) -> None:
    from conformance.commands.common import count, positive_int, shard

    p = subparsers.add_parser(
        "playout", help="certify an engine along random games it plays itself (OpenSpiel, pgx)",
        description=HELP, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--engine", required=True,
                   help="the engine to play: " + ", ".join(ENGINES) + " (pip install 'bgconf[openspiel]' or 'bgconf[pgx]')")
    p.add_argument("--games", type=positive_int, default=100, metavar="N", help="games to play (default 100)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0); same seed, same run")
    p.add_argument("--shard", type=shard, default=WHOLE, metavar="K/N",
                   help="play only shard K of N of the games (games K, K+N, K+2N, ...: each game replays alone"
                        " from (--seed, game), so the N shards play exactly the games of the whole run)")
    p.add_argument("--game", type=positive_int, metavar="G", help="play only game G of the seed, to replay a mismatch (--games is then ignored)")
    p.add_argument("--report", metavar="FILE.jsonl",
                   help="write a JSON Lines report: header, one line per game and per mismatch, footer")
    p.add_argument("--write-cases", metavar="FILE.bgcase.yaml",
                   help="write the ready cases as a case file (bgconf validate FILE checks it)")
    p.add_argument("--max-mismatches", type=count, default=20, metavar="N",
                   help="print at most N mismatches in full (default 20)")
    p.add_argument("-v", "--verbose", action="store_true", help="print one line per game")
    from conformance.commands.common import add_jobs_option, add_variant_option

    add_jobs_option(p, "the games", "bgconf playout --engine pgx --games 30 --jobs 2")
    add_variant_option(p, "play the games")
    p.set_defaults(func=run)
