"""``bgconf validate [PATH...]``: check case files (YAML, the JSON Schema, semantic checks) and
re-check every expected value on the reference engine; the options, the progress line, the
printing and the exit codes (0 valid, 3 errors).
"""

from __future__ import annotations

import argparse
import sys
import time

from conformance.commands.common import EXIT_BAD_CASES, EXIT_CODES, EXIT_OK, err, load_cases
from conformance.harness.recheck import recheck_on_reference


def add_parser(sub) -> None:
    def _file_size(text: str) -> int:
        from conformance.cases import parse_size

        try:
            return parse_size(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    val = sub.add_parser("validate", help="check case files (schema, semantics, expected values)",
                         description="Check case files: YAML, the JSON Schema, semantic checks (valid "
                                     "positions, notation, anchors, tags, unique ids), then re-check every "
                                     "expected value on the reference engine.",
                         epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    val.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: the bundled suite)")
    val.add_argument("--no-reference", action="store_true", help="skip the re-check on the reference engine")
    val.add_argument("--max-file-size", type=_file_size, metavar="SIZE",
                     help="refuse case files larger than SIZE (bytes, or e.g. 20MB; default 5MB, or"
                          " BGCONF_MAX_CASE_FILE_BYTES when set)")
    val.set_defaults(func=cmd_validate)


def cmd_validate(args) -> int:
    progress = None
    if sys.stderr.isatty():  # one line rewritten in place; nothing of it in logs or pipes
        shown = {"at": 0.0, "width": 0}

        def progress(done: int, total: int, cases: int) -> None:
            now = time.monotonic()
            if done < total and now - shown["at"] < 0.1:
                return
            shown["at"] = now
            line = f"validating: {done}/{total} files, {_n(cases, 'case')} so far"
            sys.stderr.write("\r" + line.ljust(shown["width"]))
            shown["width"] = len(line)
            if done == total:
                sys.stderr.write("\r" + " " * shown["width"] + "\r")
            sys.stderr.flush()
    suite = load_cases(args.paths, progress=progress, max_bytes=args.max_file_size, option="")
    problems = [] if args.no_reference else recheck_on_reference(suite.cases)
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    print(f"{_n(len(suite.files), 'file')}, {_n(len(suite.cases), 'valid case')}, "
          f"{_n(len(suite.errors), 'error')}, {_n(len(problems), 'expected value')} not reproduced by the reference")
    if not suite.files:
        err("no case files found (a directory is searched for *.bgcase.yaml files)")
        return EXIT_BAD_CASES
    return EXIT_BAD_CASES if suite.errors or problems else EXIT_OK


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"
