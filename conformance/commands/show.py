"""``bgconf show ID`` and ``bgconf show --position TEXT``: one case (its anchors' clauses, board
diagram, dice, events and expectation) or one position written as an id; ``--svg FILE`` draws
the position as an SVG board (``reports.board``). Exit 0, or 2 for an unknown id, a position
that cannot be read, nothing to draw, or an --svg that cannot be written.
"""

from __future__ import annotations

import argparse

from conformance.cases import resources
from conformance.commands.common import (EXIT_OK, EXIT_USAGE, case_inputs, check_case_paths, check_outputs, err,
                                         exit_codes, load_cases, write_text)
from conformance.harness.diagram import board_diagram
from conformance.model import ModelError, encode_position_id, read_position_text
from conformance.reports.board import describe, render_board


def add_parser(sub) -> None:
    show = sub.add_parser(
        "show", help="show one case or position: board diagram, dice, expectation; --svg draws the board",
        description="Show one case (its clauses, board diagram, dice, events and expectation) or, with"
                    " --position, one position written as an id. --svg FILE draws the position as an SVG"
                    " board (with the case's dice and cube, or the id's dice, cube and score), seen by the"
                    " side on roll, with data attributes a browser test can read back.",
        epilog="examples:\n  bgconf show bg-C3Z8\n  bgconf show bg-C3Z8 --svg board.svg\n"
               "  bgconf show --position 4HPwATDgc/ABMA:cAkAAAAAAAAA --svg -\n"
               "  bgconf show --position 'XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10'\n\n"
               + exit_codes({0: "shown (and drawn)",
                             2: "bad command line: an unknown case id, both or neither of ID and --position, a"
                                " position that cannot be read, a case without a position to draw, an --svg"
                                " that cannot be written or is a case file"}),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    show.add_argument("id", nargs="?", help="a case id (bgconf list shows them)")
    show.add_argument("--position", metavar="TEXT",
                      help="a position instead of a case: start, a Position ID (x on roll), a Position ID:Match"
                           " ID, an XGID=... or a FIBS board:... line")
    show.add_argument("--svg", metavar="FILE", help="draw the position as an SVG board in FILE ('-': standard output)")
    show.add_argument("--cases", action="append", metavar="PATH",
                      help="case files or directories instead of the bundled suite (repeatable)")
    show.set_defaults(func=cmd_show)


def cmd_show(args) -> int:
    if (args.id is None) == (args.position is None):
        err("give a case id or --position TEXT (one of them)")
        return EXIT_USAGE
    check_case_paths(args.cases)
    if args.svg not in (None, "-"):
        check_outputs({"--svg": args.svg}, inputs=case_inputs(args.cases) if args.id else ())
    if args.position is not None:
        return _show_position(args)
    suite = load_cases(args.cases)
    case = suite.by_id().get(args.id)
    if case is None:
        err(f"unknown case id {args.id} (bgconf list shows the ids)")
        return EXIT_USAGE
    if args.svg is not None:
        if case.position is None:
            err(f"--svg: {case.id} ({case.kind}) has no position to draw")
            return EXIT_USAGE
        svg = render_board(case.position, dice=case.dice, cube=case.cube, score=case.match)
        if args.svg == "-":
            print(svg, end="")
            return EXIT_OK
    _print_case(case)
    return _write_svg(args.svg, svg) if args.svg is not None else EXIT_OK


def _show_position(args) -> int:
    try:
        position, state = read_position_text(args.position)
    except ModelError as exc:
        err(f"--position {args.position}: {exc}")
        return EXIT_USAGE
    drawn = {} if state is None else {"dice": state.dice, "cube": state.cube, "score": state.match}
    svg = render_board(position, **drawn)
    if args.svg == "-":
        print(svg, end="")
        return EXIT_OK
    print(board_diagram(position, drawn.get("dice")))
    print(f"  Position ID: {encode_position_id(position)}")
    print(f"  {describe(position, **drawn)}")
    return _write_svg(args.svg, svg) if args.svg is not None else EXIT_OK


def _write_svg(path: str, svg: str) -> int:
    if not write_text("--svg", path, svg):
        return EXIT_USAGE
    print(f"  board drawn in {path}")
    return EXIT_OK


def _print_case(case) -> None:
    clauses = resources.spec_clauses()
    print(f"{case.id}  {case.title}")
    print(f"  {case.file}:{case.line}   kind {case.kind}   level {case.level}   tags {', '.join(case.tags)}")
    for a in case.spec:
        print(f"  spec {a}: {clauses.get(a, '')}")
    if case.position is not None:
        print(board_diagram(case.position, case.dice))
        print(f"  Position ID: {encode_position_id(case.position)}")
    for key in ("play", "cube", "match", "on_roll", "moment", "action", "throws", "result", "rules"):
        if key in case.raw:
            print(f"  {key}: {case.raw[key]}")
    for number, game in enumerate(case.games, 1):
        start = "from the start" if game.position is None else f"from {game.position}"
        print(f"  game {number} ({start}{f', cube {game.cube.value} {game.cube.owner}' if game.cube else ''}):")
        for event in game.events:
            refused = case.expected.refused[event["n"] - 1]
            print(f"    {event['n']:>3}. {event['text']}{f'   (refused: {refused})' if refused else ''}")
    if case.kind == "legal_plays":
        exp = case.expected
        if exp.exact is not None:
            print(f"  expected legal plays ({len(exp.exact)}):")
            for text in exp.exact.values():
                print(f"    {text}")
        else:
            print(f"  expected: {exp.count} plays, including {list(exp.includes.values())},"
                  f" excluding {list(exp.excludes.values())}")
    else:
        print(f"  expected: {case.expect}")
    print(f"  provenance: {case.provenance}")
