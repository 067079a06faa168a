"""``bgconf matrix REPORT.jsonl... --out DIR``: the options, the printing and the exit codes.

The matrix and its site are ``conformance.reports.matrix``. Exit 0 when the site is written, 2
for a report that cannot be read or an --out that cannot be written, 3 for case file errors.
"""

from __future__ import annotations

import sys
from pathlib import Path

from conformance.reports.matrix import SITE_FILES, case_sources, matrix_data, write_site


def add_parser(sub) -> None:
    import argparse

    from conformance.commands.common import exit_codes

    p = sub.add_parser(
        "matrix", help="a static site of every case against every engine, from reports",
        description="Draw the reports of several runs (one per engine, bgconf run --report) as a static site"
                    " in DIR: the engines and their versions, each engine's pass rate per spec section, every"
                    " case's status in every engine and in how many engines it fails, filters by section,"
                    " kind, tag and status, one page per case with its YAML and the text of its spec clauses,"
                    " and matrix.json with the data. Open DIR/index.html in a browser; no server is needed.",
        epilog="examples:\n  bgconf run --engine gnubg --report gnubg.jsonl\n"
               "  bgconf run --engine bgsage --report bgsage.jsonl\n"
               "  bgconf matrix gnubg.jsonl bgsage.jsonl --out site\n\n" + exit_codes({0: "the site is written", 2: "bad command line, a report that cannot be read or is not a bgconf run report (printed as file:line and the reason), an --out that cannot be written, or an --out whose site would overwrite a report or case file read", 3: "a case file of --cases has errors (each printed as file:line: case id: message); the site is written from the cases that loaded"}),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("reports", nargs="+", metavar="REPORT.jsonl", help="one report per column")
    p.add_argument("--out", required=True, metavar="DIR", help="the directory to write the site into")
    p.add_argument("--cases", action="append", metavar="PATH",
                   help="the case files the reports ran (default: the bundled suite), for titles, tags and YAML")
    p.set_defaults(func=cmd_matrix)


def cmd_matrix(args) -> int:
    from conformance.cases import load_suite
    from conformance.commands.common import EXIT_BAD_CASES, EXIT_OK, EXIT_USAGE, case_inputs, check_outputs, err
    from conformance.reports.report import ReportError, load_report

    inputs = [("REPORT", p) for p in args.reports] + case_inputs(args.cases)
    check_outputs({"--out": args.out}, directories=("--out",), inputs=inputs)
    site = Path(args.out)
    for label, path in inputs:  # the files the site is made of: its top pages and cases/*.html
        inside = Path(path).resolve()
        if inside.parent == (site / "cases").resolve() or inside in [(site / n).resolve() for n in SITE_FILES]:
            err(f"--out {args.out}: the site would overwrite the input {label} {path}; an output never"
                " overwrites an input")
            return EXIT_USAGE
    try:
        reports = [(path, load_report(path)) for path in args.reports]
    except ReportError as exc:
        err(str(exc))
        return EXIT_USAGE
    try:
        suite = load_suite([Path(p) for p in args.cases] if args.cases else None)
    except ValueError as exc:
        err(str(exc))
        return EXIT_USAGE
    for e in suite.errors:
        print(f"error: {e}", file=sys.stderr)
    data = matrix_data(reports, suite.cases)
    try:
        written = write_site(data, Path(args.out), case_sources(suite.cases))
    except OSError as exc:
        err(f"--out {args.out}: could not be written: {exc.strerror or exc}")
        return EXIT_USAGE
    print(f"wrote {len(written)} files to {args.out}: {len(data['cases'])} cases, "
          f"{len(data['engines'])} engines ({', '.join(e['label'] for e in data['engines'])});"
          f" open {Path(args.out) / 'index.html'}")
    return EXIT_BAD_CASES if suite.errors else EXIT_OK
