"""``bgconf merge REPORT... --out FILE``: the options, the printing and the exit codes.

The merge itself is ``conformance.reports.merge``. Exit 0 when the merged report is written and
complete, 1 when it is written but incomplete, 2 when the reports cannot be merged or written.
"""

from __future__ import annotations

from conformance.reports.merge import MergeError, merge_reports


def add_parser(sub) -> None:
    import argparse

    from conformance.commands.common import exit_codes

    p = sub.add_parser(
        "merge", help="join the reports of a campaign's shards or parts into one report",
        description="Join the JSON Lines reports of the N shards of one run (bgconf run --shard K/N, every K"
                    " once), or of runs of disjoint selections of one engine, into one report that bgconf diff,"
                    " bgconf matrix and bgconf certify --verify read. The reports must name the same engine and"
                    " the same suite, and no case may be in two of them. The merged footer sums the counts and"
                    " restarts, keeps the longest wall time, and is incomplete when any part is.",
        epilog="examples:\n  bgconf run --engine gnubg --profile movement --shard 1/2 --report part-1.jsonl\n"
               "  bgconf run --engine gnubg --profile movement --shard 2/2 --report part-2.jsonl\n"
               "  bgconf merge part-*.jsonl --out gnubg.jsonl\n  bgconf certify --verify gnubg.jsonl\n\n"
               + exit_codes({0: "the merged report is written and complete (its cases may fail: bgconf certify --verify or bgconf diff judge it)", 1: "the merged report is written but incomplete (a part was interrupted, gave the engine up or did not finish)", 2: "bad command line, a report that cannot be read, reports of different engines, suites or runs, a shard missing or given twice, a case in two reports, an --out that cannot be written, or an --out that is one of the reports"}), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("reports", nargs="+", metavar="REPORT.jsonl")
    p.add_argument("--out", required=True, metavar="FILE.jsonl", help="the merged report")
    p.set_defaults(func=cmd_merge)


def cmd_merge(args) -> int:
    import json
    import sys

    from conformance.commands.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, check_outputs, err, write_text
    from conformance.reports.report import ReportError, load_report

    check_outputs({"--out": args.out}, inputs=[("REPORT", p) for p in args.reports])
    try:
        reports = [(path, load_report(path)) for path in args.reports]
        lines = merge_reports(reports, ["merge", *args.reports])
    except (ReportError, MergeError) as exc:
        err(str(exc))
        return EXIT_USAGE
    if not write_text("--out", args.out, "".join(json.dumps(x) + "\n" for x in lines)):
        return EXIT_USAGE
    foot = lines[-1]
    shown = ", ".join(f"{n} {s}" for s, n in foot["counts"].items() if n) or "no case"
    print(f"wrote {args.out}: {len(reports)} reports, {foot['total']} cases: {shown}"
          + (" (incomplete)" if foot["incomplete"] else ""))
    for w in foot["warnings"]:
        print(f"warning: {w}", file=sys.stderr)
    return EXIT_FAILED if foot["incomplete"] else EXIT_OK
