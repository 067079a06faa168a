"""``bgconf expectations REPORT.jsonl``: print an expectations file listing every failed case of a
report (``conformance.harness.expectations.from_report``); exit 0, or 2 when it cannot be read.
"""

from __future__ import annotations

from conformance.commands.common import EXIT_OK, EXIT_USAGE, err


def add_parser(sub) -> None:
    exp = sub.add_parser("expectations", help="write an expectations file from a JSON Lines report",
                         description="Print an expectations file listing every failed case of REPORT "
                                     "(bgconf run --expectations FILE then turns them into xfail).")
    exp.add_argument("report", metavar="REPORT.jsonl")
    exp.set_defaults(func=cmd_expectations)


def cmd_expectations(args) -> int:
    from conformance.harness.expectations import from_report
    from conformance.reports.report import ReportError, load_report

    try:  # checked line by line against the report's schema: "FILE:LINE: what is wrong"
        lines = load_report(args.report)
    except ReportError as exc:
        err(str(exc))
        return EXIT_USAGE
    print(from_report(lines), end="")
    return EXIT_OK
