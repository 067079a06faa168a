"""``bgconf matrix REPORT.jsonl... --out DIR``: the options, the printing and the exit codes.

The matrix and its site are ``conformance.reports.matrix``. Exit 0 when the site is written, 2
for a report that cannot be read, reports of different suites without --mixed-suites, or an --out
that cannot be written, 3 for case file errors.
"""

from __future__ import annotations

from pathlib import Path

from conformance.reports.matrix import (SITE_FILES, SITE_FOLDERS, case_sources, matrix_data, mixed_suites_text,
                                        suite_groups, write_site)


def add_parser(sub) -> None:
    import argparse

    from conformance.commands.common import exit_codes

    p = sub.add_parser(
        "matrix", help="a static site of every case against every engine, from reports",
        description="Draw the reports of several runs (one per engine, bgconf run --report) as a static site"
                    " in DIR: the engines and their versions, each engine's pass rate per spec section, every"
                    " case's status in every engine and in how many engines it fails, filters by section,"
                    " kind, tag and status, one page per case with its board (the position and dice, the play"
                    " of a play check drawn as arrows, each engine's missing and extra plays each drawn on a"
                    " small board), its YAML and the text of its spec clauses,"
                    " one page per engine name (engines/NAME.html: the failures of its newest report one per"
                    " root cause, grouped by spec section and clause, each with its board and a link to its"
                    " case page; its badges; its history), a shields.io endpoint badge per engine name and"
                    " profile (badges/NAME-PROFILE.json: what bgconf certify says of its newest report for"
                    " that profile), and matrix.json with the data. Open DIR/index.html in a browser; no"
                    " server is needed. History: the reports of one engine name are ordered by suite"
                    " version, then engine version (then start time, then the order given), and its page"
                    " shows, newest first, what changed case by case from each to the next (regressed,"
                    " fixed, changed, appeared, disappeared, as bgconf diff says); reports of different"
                    " engine names are never compared. The columns of a matrix are comparable only when"
                    " every report ran the same suite (suite version and content hash, from each report's"
                    " header): reports of different suites are refused (exit 2, naming which report ran"
                    " which suite) unless --mixed-suites is given, and then the matrix warns on stderr and"
                    " on its index page; that is also how one engine's history spans suite versions, each"
                    " step between two suites marked so.",
        epilog="examples:\n  bgconf run --engine gnubg --report gnubg.jsonl\n"
               "  bgconf run --engine bgsage --report bgsage.jsonl\n"
               "  bgconf matrix gnubg.jsonl bgsage.jsonl --out site\n\n" + exit_codes({0: "the site is written", 2: "bad command line, a report that cannot be read or is not a bgconf run report (printed as file:line and the reason), reports run on different suites (suite version or content hash) without --mixed-suites, an --out that cannot be written, or an --out whose site would overwrite a report or case file read", 3: "a case file of --cases has errors (each printed as file:line: case id: message); the site is written from the cases that loaded"}),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("reports", nargs="+", metavar="REPORT.jsonl", help="one report per column")
    p.add_argument("--out", required=True, metavar="DIR", help="the directory to write the site into")
    p.add_argument("--cases", action="append", metavar="PATH",
                   help="the case files the reports ran (default: the bundled suite), for titles, tags and YAML")
    p.add_argument("--mixed-suites", action="store_true",
                   help="draw reports run on different suites (suite version or content hash) anyway, with"
                        " a warning on stderr and on the index page (default: refuse, exit 2)")
    p.set_defaults(func=cmd_matrix)


def cmd_matrix(args) -> int:
    from conformance.commands.common import EXIT_BAD_CASES, EXIT_OK, EXIT_USAGE, case_inputs, check_outputs, err, load_cases
    from conformance.reports.report import ReportError, load_report

    inputs = [("REPORT", p) for p in args.reports] + case_inputs(args.cases)
    check_outputs({"--out": args.out}, directories=("--out",), inputs=inputs)
    site = Path(args.out)
    folders = [(site / n).resolve() for n in SITE_FOLDERS]
    for label, path in inputs:  # the files the site is made of: its top pages and those of its folders
        inside = Path(path).resolve()
        if inside.parent in folders or inside in [(site / n).resolve() for n in SITE_FILES]:
            err(f"--out {args.out}: the site would overwrite the input {label} {path}; an output never"
                " overwrites an input")
            return EXIT_USAGE
    try:
        reports = [(path, load_report(path)) for path in args.reports]
    except ReportError as exc:
        err(str(exc))
        return EXIT_USAGE
    groups = suite_groups(reports)
    if len(groups) > 1:
        if not args.mixed_suites:
            err(f"the reports were run on different suites, so their columns are not comparable:"
                f" {mixed_suites_text(groups)}; run them on one suite, or give --mixed-suites to draw them anyway")
            return EXIT_USAGE
        err(f"warning: the reports were run on different suites: {mixed_suites_text(groups)}")
    suite = load_cases(args.cases)
    data = matrix_data(reports, suite.cases)
    try:
        written = write_site(data, Path(args.out), case_sources(suite.cases), suite)
    except OSError as exc:
        err(f"--out {args.out}: could not be written: {exc.strerror or exc}")
        return EXIT_USAGE
    print(f"wrote {len(written)} files to {args.out}: {len(data['cases'])} cases, "
          f"{len(data['engines'])} engines ({', '.join(e['label'] for e in data['engines'])});"
          f" open {Path(args.out) / 'index.html'}")
    return EXIT_BAD_CASES if suite.errors else EXIT_OK
