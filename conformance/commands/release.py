"""``bgconf release``: the options, the printing and the exit codes.

The manifest and the release checks are ``conformance.reports.release``. Exit 0 when the manifest
is written (or already holds this content), 2 when it cannot be (also: no --out when bgconf runs
from an installed package), 3 when a case file has errors.
"""

from __future__ import annotations

import json
from pathlib import Path

from conformance import __version__

from conformance.reports.release import ReleaseError, default_out, manifest


def add_parser(sub) -> None:
    import argparse

    from conformance.commands.common import exit_codes

    p = sub.add_parser(
        "release", help="freeze the suite: write the release manifest releases/VERSION.json",
        description=f"Write the frozen manifest of the suite as it is now (suite version {__version__}): the"
                    " spec, protocol and case format versions, the content hash, each case file's SHA-256 and"
                    " case ids, and the retired ids. An existing manifest of the same version is never"
                    " overwritten with other content: change the suite version first. bgconf run"
                    " --suite-version VERSION then refuses any other content.",
        epilog="examples:\n  bgconf release                       # writes releases/VERSION.json\n"
               f"  bgconf run --engine gnubg --suite-version {__version__}\n"
               "  bgconf release --out bgconf-release.json   # from an installed package\n\n"
               + exit_codes({0: "the manifest is written, or already holds this content", 2: "bad command line, no case file, no --out when bgconf runs from an installed package (its files are never written), an --out that cannot be written or is a case file read, or a manifest of this version frozen with other content", 3: "a case file has errors (each printed as file:line: case id: message); nothing is written"}),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", metavar="FILE.json",
                   help=f"where to write (default {__version__}.json in the releases/ directory of the source"
                        " tree bgconf runs from, where run --suite-version looks, whatever the current"
                        " directory; required when bgconf runs from an installed package, which is never"
                        " written into)")
    p.add_argument("--cases", action="append", metavar="PATH",
                   help="case files or directories instead of the bundled suite (repeatable)")
    p.set_defaults(func=cmd_release)


def cmd_release(args) -> int:
    import sys

    from conformance.cases import USER_SUFFIX, case_files, load_suite
    from conformance.commands.common import (EXIT_BAD_CASES, EXIT_OK, EXIT_USAGE, case_inputs, check_case_paths,
                                             check_outputs, err, write_text)

    try:
        out = Path(args.out) if args.out else default_out()
    except ReleaseError as exc:
        err(str(exc))
        return EXIT_USAGE
    check_case_paths(args.cases)
    check_outputs({"--out": str(out)}, inputs=case_inputs(args.cases))
    paths = case_files([Path(p) for p in args.cases] if args.cases else None)
    if not paths:
        err(f"no case files in {', '.join(args.cases)} (a directory is searched for *{USER_SUFFIX} files)")
        return EXIT_USAGE
    try:
        suite = load_suite(paths)
    except ValueError as exc:
        err(str(exc))
        return EXIT_USAGE
    if suite.errors:
        for e in suite.errors:
            print(f"error: {e}", file=sys.stderr)
        err("a suite with case file errors cannot be released")
        return EXIT_BAD_CASES
    text = json.dumps(manifest(suite, paths), indent=1) + "\n"
    if out.exists():
        if out.read_text(encoding="utf-8") == text:
            print(f"{out}: release {__version__} is already this content ({suite.content_hash[:12]})")
            return EXIT_OK
        err(f"{out}: release {__version__} is frozen with other content; a changed suite needs a new suite"
            " version (conformance/__init__.py, docs/versions.md)")
        return EXIT_USAGE
    if not write_text("--out", out, text):
        return EXIT_USAGE
    print(f"wrote {out}: release {__version__}, {len(suite.cases)} cases in {len(paths)} files,"
          f" content {suite.content_hash[:12]}")
    return EXIT_OK
