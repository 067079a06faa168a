"""``bgconf run``: run cases against an engine and print failures, one per root cause
(``reports.rootcause``), a table per spec section and a summary; the options, the printing and
the exit codes (the run itself: ``commands.execute``).
"""

from __future__ import annotations

import argparse
import sys

from conformance.commands.common import (EXIT_BAD_CASES, EXIT_CODES, EXIT_FAILED, EXIT_OK, EXIT_USAGE, CommandExit,
                                         count)
from conformance.commands.execute import RENDERINGS, execute, finish, keep_outputs, run_options
from conformance.reports import rootcause
from conformance.reports.report import failure_text, incidents_text, section_table, summary_line


def add_parser(sub) -> None:
    run = sub.add_parser("run", help="run cases against an engine",
                         description="Run the suite (or selected cases) against an engine and print"
                                     " its failures, a table per spec section and a summary. Failures"
                                     " are grouped by root cause: the forms of a case (bg-XXXX[swapped],"
                                     " bg-XXXX[chosen-play], ...) that fail where the case as written fails"
                                     " are listed under it, and the count reads \"N rule bugs in M cases\""
                                     " (docs/failures.md).",
                         epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    run_options(run)
    run.add_argument("--report", metavar="FILE.jsonl", help="write the JSON Lines report of record")
    run.add_argument("--junit", metavar="FILE.xml", help="write JUnit XML")
    run.add_argument("--markdown", metavar="FILE.md", help="write a Markdown summary (e.g. a CI step summary)")
    run.add_argument("--html", metavar="FILE.html", help="write the HTML certificate page")
    run.add_argument("--badge", metavar="FILE.json", help="write a shields.io badge JSON")
    run.add_argument("--max-failures", type=count, default=20, metavar="N",
                     help="show at most N failures in full, one per root cause (default 20)")
    run.add_argument("-v", "--verbose", action="store_true", help="also list unsupported and xfail cases")
    run.set_defaults(func=cmd_run)


def cmd_run(args) -> int:
    from conformance.reports.files import OutputSet

    outputs = {f"--{k}": getattr(args, k, None) for k in RENDERINGS}
    with OutputSet() as files:
        try:
            record = execute(args, outputs, files)
        except CommandExit as stop:
            return stop.code
        written = keep_outputs(args, record, outputs)
    results, info = record.results, record.info
    bad = [r for r in results if r.status in rootcause.SHOWN]
    causes = rootcause.group(bad, rootcause.result_key, rootcause.SHOWN)
    for cause in causes[: args.max_failures]:
        print(failure_text(cause.lead, args.engine))
        if cause.under:
            print(f"  also fails as: {rootcause.also_text(cause, rootcause.result_key)} (the same root case)")
        print()
    if len(causes) > args.max_failures:
        print(f"... {len(causes) - args.max_failures} more root causes not shown (--max-failures)")
    if args.verbose:
        for r in results:
            if r.status in ("unsupported", "xfail"):
                print(f"{r.status.upper()} {r.case.nodeid}: {r.outcome.message}"
                      + (f" (bug report: {r.link})" if r.link else ""))
    doubled = [r for r in results if r.outcome.duplicates and r.status == "pass"]
    if doubled:
        print(f"warning: {len(doubled)} passing case(s) listed a play more than once"
              f" ({', '.join(r.case.name for r in doubled[:10])}{', ...' if len(doubled) > 10 else ''});"
              " --strict-sets makes them fail")
    for message in record.stale:
        print(f"error: {message}", file=sys.stderr)
    foot = record.footer
    print(f"engine: {info.get('name')} {info.get('version', '')}".rstrip())
    print(section_table(results))
    why = ""
    if foot["interrupted"]:
        why = f" (interrupted by {foot['interrupted']})"
    elif foot["given_up"]:
        why = f" (incomplete: {foot['given_up']})"
    elif foot["incomplete"]:
        why = " (incomplete)"
    listed = incidents_text(foot)
    if listed:
        print(listed)
    if bad:
        print(f"failures by root cause: {rootcause.count_text(causes)}"
              + (f", and {len(causes) - rootcause.count(causes)[0]} errored, timed out or xpassed"
                 if len(causes) > rootcause.count(causes)[0] else ""))
    print(summary_line(results, foot["wall_s"]) + why)
    if bad or foot["incomplete"] or record.stale or foot["crashes"] or foot["hangs"]:
        return finish(record, EXIT_FAILED)
    if not written:
        return finish(record, EXIT_USAGE)
    return finish(record, EXIT_BAD_CASES if record.suite.errors else EXIT_OK)
