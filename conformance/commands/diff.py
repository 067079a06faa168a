"""``bgconf diff OLD.jsonl NEW.jsonl``: the options, the printing and the exit codes.

The diff itself is ``conformance.reports.diff``. Exit 1 when anything regressed, or when the diff
is partial (cases disappeared, or either report is incomplete); 0 otherwise; 2 when a report
cannot be read or an output cannot be written.
"""

from __future__ import annotations

from conformance.reports.diff import FORMATS, diff_reports


def add_parser(sub) -> None:
    import argparse

    from conformance.commands.common import exit_codes

    p = sub.add_parser(
        "diff", help="what changed between two reports: regressed, fixed, changed, appeared, disappeared",
        description="Compare two JSON Lines reports (bgconf run --report) case by case: cases that regressed"
                    " (did not fail, now fail, error, time out or xpass), were fixed (failed, now pass),"
                    " changed status otherwise, appeared or disappeared; grouped by the spec section of each"
                    " case's first anchor, with the engine and suite versions of both sides. Exit 1 when"
                    " anything regressed, and when the diff is partial: cases of OLD are missing from NEW"
                    " (disappeared), or either report is incomplete (interrupted, the engine given up, no"
                    " footer), since what was not run was not compared. The last line says which.",
        epilog="examples:\n  bgconf diff gnubg-nn.jsonl bgsage.jsonl\n"
               "  bgconf diff old.jsonl new.jsonl --format markdown >> \"$GITHUB_STEP_SUMMARY\"\n"
               "  bgconf diff old.jsonl new.jsonl --json diff.json --markdown diff.md\n\n" + exit_codes({0: "nothing regressed, no case disappeared, and both reports are complete", 1: "at least one case regressed (did not fail in OLD, fails, errors, times out or xpasses in NEW), or the diff is partial: a case of OLD disappeared from NEW, or either report is incomplete (interrupted, the engine given up, no footer)", 2: "bad command line, a report that cannot be read or is not a bgconf run report (printed as file:line and the reason), an output that cannot be written, or an output that is OLD or NEW"}),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("old", metavar="OLD.jsonl", help="the report to compare from")
    p.add_argument("new", metavar="NEW.jsonl", help="the report to compare to")
    p.add_argument("--format", choices=sorted(FORMATS), default="text", help="what to print (default text)")
    p.add_argument("--markdown", metavar="FILE.md", help="also write the Markdown rendering to FILE.md")
    p.add_argument("--json", metavar="FILE.json", help="also write the JSON rendering to FILE.json")
    p.set_defaults(func=cmd_diff)


def cmd_diff(args) -> int:
    from conformance.commands.common import (
        EXIT_FAILED,
        EXIT_OK,
        EXIT_USAGE,
        check_outputs,
        commit_outputs,
        err,
    )
    from conformance.reports.files import OutputError, OutputSet
    from conformance.reports.report import ReportError, load_report

    check_outputs({"--markdown": args.markdown, "--json": args.json},
                  inputs=[("OLD.jsonl", args.old), ("NEW.jsonl", args.new)])
    try:
        old, new = load_report(args.old), load_report(args.new)
    except ReportError as exc:
        err(str(exc))
        return EXIT_USAGE
    d = diff_reports(old, new, args.old, args.new)
    print(FORMATS[args.format](d), end="")
    written = True
    with OutputSet() as files:  # both written beside their targets, moved together
        try:
            for option, path, fmt in (("--markdown", args.markdown, "markdown"), ("--json", args.json, "json")):
                if path:
                    files.text(option, path, FORMATS[fmt](d))
        except OutputError as exc:
            err(f"{exc}; no output was replaced")
            written = False
        else:
            written = commit_outputs(files)
    if d["counts"]["regressed"] or d["gaps"]:
        return EXIT_FAILED
    return EXIT_OK if written else EXIT_USAGE
