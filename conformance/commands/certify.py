"""``bgconf certify``: run a whole profile of the bundled suite and write the report, JUnit,
Markdown, the HTML certificate and the badge; ``--verify CERT.jsonl`` re-checks a certificate's
report against this bgconf's suite. The options, the printing and the exit codes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance import __version__

from conformance.commands.common import EXIT_CODES, EXIT_FAILED, EXIT_OK, EXIT_USAGE, CommandExit, check_outputs, err
from conformance.commands.execute import RENDERINGS, execute, finish, keep_outputs, run_options


def add_parser(sub) -> None:
    cert = sub.add_parser("certify", help="run a profile and write report, JUnit, Markdown, HTML certificate, badge",
                          description="Run every case of a profile of the bundled suite and write ENGINE-PROFILE."
                                      "{jsonl,junit.xml,md,html,badge.json} into --out. A certificate is awarded"
                                      " only when every must case of the profile passes, with no expected failure,"
                                      " and the run is complete (exit 0). A certificate cannot be earned on a"
                                      " subset: --case, --tag, --spec and --cases are refused (exit 2); bgconf run"
                                      " renders a subset, marked partial. --verify CERT.jsonl re-checks a"
                                      " certificate's report against this bgconf's suite.",
                          epilog="examples:\n  bgconf certify --engine gnubg --profile movement\n"
                                 "  bgconf certify --verify bgconf-certificates/gnubg-movement.jsonl\n\n" + EXIT_CODES,
                          formatter_class=argparse.RawDescriptionHelpFormatter)
    run_options(cert)
    cert.add_argument("--out", default="bgconf-certificates", metavar="DIR", help="output directory")
    cert.add_argument("--verify", metavar="CERT.jsonl",
                      help="re-check a certificate's report: same suite version and content hash as this bgconf,"
                           " the whole profile, every case once, a complete run, certified (exit 0, else 1)")
    cert.set_defaults(func=cmd_certify, verbose=False, max_failures=0)


def _narrowed(args) -> list[str]:
    """The options that narrow a run below a whole profile of the bundled suite."""
    return [f"--{name}" for name in ("case", "tag", "spec", "cases", "shard") if getattr(args, name, None)]


def cmd_certify(args) -> int:
    from conformance.reports import render

    if args.verify:
        return verify_certificate(args.verify)
    if not args.engine or not args.profile:
        err("certify needs --engine and --profile (or --verify CERT.jsonl)")
        return EXIT_USAGE
    narrowing = _narrowed(args)
    if narrowing:
        err(f"a certificate covers a whole profile of the bundled suite; {', '.join(narrowing)} would certify"
             " a subset. Run the subset with bgconf run (--report, --html: marked partial, not a certificate)")
        return EXIT_USAGE
    out = Path(args.out)
    name = f"{args.engine.replace(':', '_').replace('/', '_').replace(' ', '_')[:80]}-{args.profile}"
    outputs = {f"--{kind}": str(out / f"{name}.{suffix}") for kind, suffix in RENDERINGS.items()}
    from conformance.reports.files import OutputSet

    with OutputSet() as files:  # the five files are replaced together or not at all
        try:
            check_outputs({"--out": args.out}, directories=("--out",))
            record = execute(args, outputs, files)
        except CommandExit as stop:
            return stop.code
        written = keep_outputs(args, record, outputs)
    v = render.verdict(record.lines, args.profile)
    for message in record.stale:
        print(f"error: {message}", file=sys.stderr)
    print(render.markdown(record.lines, args.profile), end="")
    print(f"certificate: {outputs['--html']}")
    if not written:
        return finish(record, EXIT_USAGE)
    return finish(record, EXIT_OK if v["certified"] and not record.stale else EXIT_FAILED)


def verify_certificate(path: str) -> int:
    """See ``_verify``; a report of the wrong shape is exit 2 with one line."""
    try:
        return _verify(path)
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        err(f"--verify {path}: not a bgconf report of the expected shape ({type(exc).__name__}: {exc})")
        return EXIT_USAGE


def _verify(path: str) -> int:
    """Re-check a certificate's report against the bundled suite (``reports.certificate``).
    Exit 0 when it holds, 1 when it does not, 2 when the file cannot be read."""
    from conformance.reports import render
    from conformance.reports.certificate import NotACertificate, verify_report

    try:
        lines = render.read_jsonl(path)
    except (OSError, ValueError) as exc:
        err(f"--verify {path}: cannot read the report: {exc}")
        return EXIT_USAGE
    try:
        checked = verify_report(lines)
    except NotACertificate as exc:
        err(f"--verify {path}: {exc}")
        return EXIT_USAGE
    problems, who, profile = checked["problems"], checked["who"], checked["profile"]
    if problems:
        print(f"NOT VERIFIED {path}: {who}, profile {profile}")
        for p in problems:
            print(f"  - {p}")
        return EXIT_FAILED
    print(f"verified {path}: {who} is certified for profile {profile} on all {checked['cases']} cases of suite"
          f" {__version__} (content hash {checked['content_hash'][:12]}); {checked['why']}")
    return EXIT_OK
