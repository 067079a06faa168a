"""``bgconf table [--write FILE]``: the README's certification table (``conformance.reports.table``)
printed, or written between its markers in FILE; exit 0, or 2 when FILE cannot be used.
"""

from __future__ import annotations

from pathlib import Path

from conformance.commands.common import EXIT_OK, EXIT_USAGE, CommandExit, check_outputs, err, write_text
from conformance.engines.registry import BUILTIN
from conformance.reports.table import certification_table


def add_parser(sub) -> None:
    tab = sub.add_parser("table", help="the certification table of the README, regenerated",
                         description="Run the whole suite on each engine (default: every engine of bgconf engines "
                                     "that is installed) and print the certification table; with "
                                     "--write README.md, replace the table between its markers.")
    tab.add_argument("--engine", action="append", metavar="E", help="an engine to include (repeatable)")
    tab.add_argument("--write", metavar="FILE", help="replace the table between the markers in FILE")
    tab.set_defaults(func=cmd_table)


def cmd_table(args) -> int:
    from conformance.engines.registry import install_state

    def present(name: str) -> bool:  # a third-party or npm engine only when installed
        state = install_state(name)
        return state is None or state[0] is not None

    engines = args.engine or [n for n in BUILTIN if present(n)]
    start, end = "<!-- certification:start -->", "<!-- certification:end -->"
    if args.write:  # checked before any engine runs
        path = Path(args.write)
        try:
            with open(path, encoding="utf-8", newline="") as f:  # newline="": the rest is kept byte for byte
                text = f.read()
        except (OSError, UnicodeDecodeError) as exc:
            err(f"--write {path}: cannot read it: {getattr(exc, 'strerror', None) or exc}")
            return EXIT_USAGE
        if start not in text or end not in text:
            err(f"--write {path}: it has no {start} ... {end} markers")
            return EXIT_USAGE
        try:
            check_outputs({"--write": args.write})
        except CommandExit as stop:
            return stop.code
    table = certification_table(engines)  # an interruption ends in main(): nothing is written
    if args.write:  # an in-place edit: the new text is written beside the file and moved onto it
        before, rest = text.split(start, 1)
        if not write_text("--write", path, before + start + "\n" + table + end + rest.split(end, 1)[1]):
            return EXIT_USAGE
    print(table, end="")
    return EXIT_OK
