"""``bgconf export --format json``: the options, the printing and the exit codes.

The document is ``conformance.reports.export``. Exit 0 when the cases are exported, 2 for an
--out that cannot be written, 3 when a case file has errors (the cases that loaded are exported).
"""

from __future__ import annotations

import json

from conformance.reports.export import export_suite


def add_parser(sub) -> None:
    import argparse

    from conformance.commands.common import exit_codes

    p = sub.add_parser(
        "export", help="the suite as one JSON document (every case resolved), for use without bgconf",
        description="Write the suite as one JSON document (spec/schema/export.schema.json): every case with its"
                    " position in board form, as a Position ID and as an XGID, the expected value as written and"
                    " resolved (each expected play as notation and as a resulting position), the text of its"
                    " spec clauses, and the request bgconf sends an engine for it; headed by the suite, spec,"
                    " protocol and case format versions and the suite's content hash.",
        epilog="examples:\n  bgconf export --format json --out bgconf-suite.json\n"
               "  bgconf export --format json | jq '.cases[] | select(.kind == \"legal_plays\") | .id'\n\n"
               + exit_codes({0: "the cases are exported", 2: "bad command line, an --out that cannot be written, or an --out that is a case file read", 3: "a case file has errors (each printed as file:line: case id: message); the cases that loaded are exported"}), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--format", choices=["json"], default="json", help="the document's format (json)")
    p.add_argument("--out", metavar="FILE", help="write to FILE instead of standard output")
    p.add_argument("--cases", action="append", metavar="PATH",
                   help="case files or directories instead of the bundled suite (repeatable)")
    p.set_defaults(func=cmd_export)


def cmd_export(args) -> int:
    from conformance.commands.common import (EXIT_BAD_CASES, EXIT_OK, EXIT_USAGE, case_inputs, check_case_paths,
                                             check_outputs, load_cases, write_text)

    check_case_paths(args.cases)
    check_outputs({"--out": args.out}, inputs=case_inputs(args.cases))
    suite = load_cases(args.cases)
    text = json.dumps(export_suite(suite), indent=1, ensure_ascii=False) + "\n"
    if args.out:
        if not write_text("--out", args.out, text):
            return EXIT_USAGE
        print(f"wrote {len(suite.cases)} cases to {args.out}")
    else:
        print(text, end="")
    return EXIT_BAD_CASES if suite.errors else EXIT_OK
