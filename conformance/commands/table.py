"""``bgconf table [--bugs] [--write FILE]``: the README's certification table, or with ``--bugs``
its bug table, one row per root cause (``conformance.reports.table``), printed, or written between
its markers in FILE; each engine's progress on stderr as it runs; exit 0, or 2 when FILE or an
expectations file cannot be used.
"""

from __future__ import annotations

from pathlib import Path

from conformance.commands.common import EXIT_OK, EXIT_USAGE, CommandExit, check_outputs, err, write_text
from conformance.engines.registry import BUILTIN
from conformance.reports.table import (
    BUGS_END, BUGS_START, END, EXAMPLE_ENGINE, START, VARIANTS_END, VARIANTS_START, example_available, tables,
)


def add_parser(sub) -> None:
    import argparse

    from conformance.commands.common import exit_codes

    tab = sub.add_parser("table", help="the certification table of the README, regenerated",
                         description="Run the whole suite on each engine (default: every engine of bgconf engines "
                                     f"that is installed, and the JavaScript example, {EXAMPLE_ENGINE!r}, when "
                                     "examples/js/engine.js is in the current directory and node is installed) "
                                     "and print the certification table; with --write README.md, replace the "
                                     "table between its markers, leaving the rest of the file as it was. Rows "
                                     "come in a fixed order: the built-in engines that list legal plays, then "
                                     "those that only choose a play, then engines given as cmd: or python:. "
                                     "Each engine's progress is printed on stderr as it runs. With --bugs, the "
                                     "bug table instead, from the same runs: one row per root cause of each "
                                     "engine's failures (the forms of a case that fail where the case as written "
                                     "fails are one row; docs/failures.md), its text and kind (rule bug, notation) "
                                     "from the engine's expectations file in --expectations-dir, 'unreviewed' for a "
                                     "failure no entry lists; --write replaces the table between "
                                     f"{BUGS_START} and {BUGS_END}. With --variants, the variant table: one row per "
                                     "variant (nackgammon, hypergammon-1, -2, -3) each engine declares in its "
                                     "rule_options, its counts over that variant's cases and its movement, money "
                                     "and match certificates of that variant; --write replaces the table between "
                                     f"{VARIANTS_START} and {VARIANTS_END}.",
                         epilog="examples:\n  bgconf table --write README.md\n"
                                "  bgconf table --bugs --write README.md\n"
                                "  bgconf table --engine reference --engine gnubg\n"
                                "  bgconf table --engine gnubg --engine bsd-backgammon --jobs 2\n"
                                "  bgconf table --variants --engine reference --engine gnubg\n\n"
                                + exit_codes({0: "the table is printed (and written)", 2: "bad command line, a --write FILE that cannot be read, has no markers or cannot be written, or an expectations file that cannot be read (checked before any engine runs)"}),
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    tab.add_argument("--engine", action="append", metavar="E", help="an engine to include (repeatable)")
    tab.add_argument("--write", metavar="FILE", help="replace the table between the markers in FILE")
    tab.add_argument("--bugs", action="store_true",
                     help="the bug table (one row per root cause of each engine's failures) instead of the"
                          " certification table")
    tab.add_argument("--variants", action="store_true",
                     help="the variant table (a row per variant each engine declares, with that variant's"
                          " certificates) instead of the certification table")
    tab.add_argument("--expectations-dir", metavar="DIR", default="expectations",
                     help="where the engines' expectations files NAME.yaml are, for the bug table's text and"
                          " kind (default: expectations, the checkout's); an engine without one has its rows"
                          " from the failures' messages")
    from conformance.commands.common import add_jobs_option

    add_jobs_option(tab, "each engine's cases", "bgconf table --engine gnubg --engine bsd-backgammon --jobs 2")
    tab.set_defaults(func=cmd_table)


def cmd_table(args) -> int:
    from conformance.engines.registry import install_state

    def present(name: str) -> bool:  # a third-party or npm engine only when installed
        state = install_state(name)
        return state is None or state[0] is not None

    engines = args.engine or ([n for n in BUILTIN if present(n)] + ([EXAMPLE_ENGINE] if example_available() else []))
    from conformance.harness.expectations import ExpectationsError

    if args.bugs and args.variants:
        err("--bugs and --variants each choose a table: give one")
        return EXIT_USAGE
    start, end = (BUGS_START, BUGS_END) if args.bugs else (VARIANTS_START, VARIANTS_END) if args.variants else (START, END)
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
    def progress(done: int, total: int, name: str, counts: dict | None) -> None:
        if counts is None:
            err(f"table: [{done + 1}/{total}] {name}: running the suite...")
        elif not counts:
            err(f"table: [{done}/{total}] {name}: not installed")
        else:
            err(f"table: [{done}/{total}] {name}: {counts['cases']} cases, {counts['pass']} pass,"
                f" {counts['fail']} fail, {counts['errored']} errored, {counts['unsupported']} unsupported")

    try:  # the expectations files are read before any engine runs
        from conformance.commands.common import jobs_wanted

        table = tables(engines, progress, Path(args.expectations_dir), jobs_wanted(args))[
            1 if args.bugs else 2 if args.variants else 0]
    except ExpectationsError as exc:  # an interruption ends in main(): nothing is written
        err(str(exc))
        return EXIT_USAGE
    if args.write:  # an in-place edit: the new text is written beside the file and moved onto it
        before, rest = text.split(start, 1)
        if not write_text("--write", path, before + start + "\n" + table + end + rest.split(end, 1)[1]):
            return EXIT_USAGE
    print(table, end="")
    return EXIT_OK
