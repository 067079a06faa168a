"""``bgconf show ID``: one case: its anchors' clauses, board diagram, dice, events and expectation;
exit 0, or 2 for an unknown id.
"""

from __future__ import annotations

from conformance.cases import resources
from conformance.commands.common import EXIT_OK, EXIT_USAGE, err, load_cases
from conformance.harness.diagram import board_diagram


def add_parser(sub) -> None:
    show = sub.add_parser("show", help="show one case: board diagram, dice, expectation")
    show.add_argument("id")
    show.add_argument("--cases", action="append", metavar="PATH")
    show.set_defaults(func=cmd_show)


def cmd_show(args) -> int:
    suite = load_cases(args.cases)
    case = suite.by_id().get(args.id)
    if case is None:
        err(f"unknown case id {args.id} (bgconf list shows the ids)")
        return EXIT_USAGE
    clauses = resources.spec_clauses()
    print(f"{case.id}  {case.title}")
    print(f"  {case.file}:{case.line}   kind {case.kind}   level {case.level}   tags {', '.join(case.tags)}")
    for a in case.spec:
        print(f"  spec {a}: {clauses.get(a, '')}")
    if case.position is not None:
        from conformance.model import encode_position_id

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
    return EXIT_OK
