"""``bgconf list``: list cases, one line each: id, kind, spec anchors, title; the options, the
printing and the exit codes (2 for a selection with no case, 3 when a case file has errors).
"""

from __future__ import annotations

from conformance.cases import resources
from conformance.commands.common import EXIT_BAD_CASES, EXIT_OK, EXIT_USAGE, CommandExit, check_anchors, err, suite_for
from conformance.harness.runner import select


def add_parser(sub) -> None:
    lst = sub.add_parser("list", help="list cases: id, kind, spec anchors, title")
    lst.add_argument("--tag", action="append", metavar="T")
    lst.add_argument("--spec", action="append", metavar="ANCHOR")
    lst.add_argument("--cases", action="append", metavar="PATH")
    lst.set_defaults(func=cmd_list)


def cmd_list(args) -> int:
    try:
        check_anchors(args.spec)
        suite = suite_for(args)
    except CommandExit as stop:
        return stop.code
    chosen = select(suite.cases, None, args.tag, args.spec)
    if not chosen:
        err("no case matches --tag/--spec; tags: " + ", ".join(sorted(resources.registered_tags())))
        return EXIT_USAGE
    for c in chosen:
        print(f"{c.id}  {c.kind:<12} {','.join(c.spec):<36} {c.title}")
    return EXIT_BAD_CASES if suite.errors else EXIT_OK
