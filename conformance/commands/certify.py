"""``bgconf certify``: run a whole profile of the bundled suite and write the report, JUnit,
Markdown, the HTML certificate and the badge; ``--verify CERT.jsonl`` re-checks a certificate's
report against this bgconf's suite. The options, the printing and the exit codes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from conformance import __version__

from conformance.commands.common import (EXIT_CODES, EXIT_FAILED, EXIT_OK, EXIT_USAGE, CommandExit, check_outputs,
                                         err, exit_codes, open_engine)
from conformance.commands.execute import RENDERINGS, apply_variant, execute, finish, keep_outputs, run_options


VERIFY_EXIT_CODES = exit_codes({
    0: "the report holds: internally consistent, the whole profile of this suite version in every scenario,"
       " certified (with --engine: the header describes that engine; with --rerun: the engine gives every"
       " verdict again)",
    1: "it does not: each problem, and each verdict the engine now gives differently, is printed",
    2: "bad command line (--rerun without --engine), or the file is not a bgconf report of the expected shape",
    4: "the --engine is unknown, not installed, or could not be started",
}).replace("exit codes:", "exit codes of --verify:", 1)


def add_parser(sub) -> None:
    cert = sub.add_parser("certify", help="run a profile and write report, JUnit, Markdown, HTML certificate, badge",
                          description="Run every case of a profile of the bundled suite, in every scenario (colours"
                                      " swapped, dice reversed, each position form the engine declares), and write"
                                      " ENGINE-PROFILE.{jsonl,junit.xml,md,html,badge.json} into --out. A certificate"
                                      " is awarded only when every must case of the profile passes in every"
                                      " scenario, with no expected failure, and the run is complete (exit 0). A"
                                      " certificate cannot be earned on a subset: --case, --tag, --spec and --cases"
                                      " are refused (exit 2); bgconf run renders a subset, marked partial."
                                      " --verify CERT.jsonl re-checks a certificate's report against this bgconf's"
                                      " suite; --verify CERT.jsonl --rerun --engine E runs E on the certificate's"
                                      " cases and compares verdict by verdict (docs/campaigns.md, Certificates).",
                          epilog="examples:\n  bgconf certify --engine gnubg --profile movement\n"
                                 "  bgconf certify --engine gnubg --profile movement --variant hypergammon-3"
                                 "   (profile movement-hypergammon-3)\n"
                                 "  bgconf certify --verify bgconf-certificates/gnubg-movement.jsonl\n"
                                 "  bgconf certify --verify bgconf-certificates/gnubg-movement.jsonl --rerun"
                                 " --engine gnubg\n\n" + EXIT_CODES + "\n" + VERIFY_EXIT_CODES,
                          formatter_class=argparse.RawDescriptionHelpFormatter)
    run_options(cert)
    cert.add_argument("--out", default="bgconf-certificates", metavar="DIR", help="output directory")
    cert.add_argument("--verify", metavar="CERT.jsonl",
                      help="re-check a certificate's report: same suite version and content hash as this bgconf,"
                           " the whole profile in every scenario, every case once, footer counts equal to the case"
                           " lines, every unsupported reason one the header's engine gives, a complete run,"
                           " certified (exit 0, else 1). With --engine E: the header must describe E (E is"
                           " started and asked to describe itself)")
    cert.add_argument("--rerun", action="store_true",
                      help="with --verify and --engine E: run E on the certificate's cases (the selection, profile"
                           " and scenarios its header records) and compare verdict by verdict; each difference is"
                           " printed and fails the check (exit 1). What only a run proves: that E gives these"
                           " answers")
    cert.set_defaults(func=cmd_certify, verbose=False, max_failures=0)


def _narrowed(args) -> list[str]:
    """The options that narrow a run below a whole profile of the bundled suite."""
    return [f"--{name}" for name in ("case", "tag", "spec", "cases", "shard") if getattr(args, name, None)]


def cmd_certify(args) -> int:
    from conformance.reports import render

    if args.verify:
        return verify_certificate(args.verify, args)
    if args.rerun:
        err("--rerun goes with --verify CERT.jsonl and --engine E: it runs E on a certificate's cases")
        return EXIT_USAGE
    if not args.engine or not args.profile:
        err("certify needs --engine and --profile (or --verify CERT.jsonl)")
        return EXIT_USAGE
    narrowing = _narrowed(args)
    if narrowing:
        err(f"a certificate covers a whole profile of the bundled suite; {', '.join(narrowing)} would certify"
             " a subset. Run the subset with bgconf run (--report, --html: marked partial, not a certificate)")
        return EXIT_USAGE
    try:
        apply_variant(args)  # --variant V: the certificate of profile P-V
    except CommandExit as stop:
        return stop.code
    args.scenarios = True  # a certificate covers the forms that must not change the answer
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
    if written and record.results:  # an interrupted run that answered nothing wrote no certificate
        print(f"certificate: {outputs['--html']}")
    if not written:
        return finish(record, EXIT_USAGE)
    return finish(record, EXIT_OK if v["certified"] and not record.stale else EXIT_FAILED)


def verify_certificate(path: str, args=None) -> int:
    """See ``_verify``; a report of the wrong shape is exit 2 with one line."""
    try:
        return _verify(path, args)
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        err(f"--verify {path}: not a bgconf report of the expected shape ({type(exc).__name__}: {exc})")
        return EXIT_USAGE


def _verify(path: str, args=None) -> int:
    """Re-check a certificate's report against the bundled suite (``reports.certificate``);
    with ``--engine`` check that the header describes that engine, with ``--rerun`` run it on
    the report's cases and compare the verdicts. Exit 0 when it holds, 1 when it does not, 2
    when the file cannot be read or the command line is wrong, 4 when the engine cannot start,
    130/143 when interrupted during the run."""
    from conformance.reports import render
    from conformance.reports.certificate import NotACertificate, verify_report

    name = getattr(args, "engine", None)
    rerun = getattr(args, "rerun", False)
    if rerun and not name:
        err(f"--verify {path} --rerun: name the engine to run with --engine E")
        return EXIT_USAGE
    try:
        lines = render.read_jsonl(path)
    except (OSError, ValueError) as exc:
        err(f"--verify {path}: cannot read the report: {exc}")
        return EXIT_USAGE
    engine = info = None
    try:
        if name:
            engine, info = open_engine(name, args.timeout, args.max_restarts)
        try:
            checked = verify_report(lines, info)
        except NotACertificate as exc:
            err(f"--verify {path}: {exc}")
            return EXIT_USAGE
        problems, who, profile = checked["problems"], checked["who"], checked["profile"]
        if problems:
            print(f"NOT VERIFIED {path}: {who}, profile {profile}")
            for p in problems:
                print(f"  - {p}")
        else:
            print(f"verified {path}: {who} is certified for profile {profile} on all {checked['cases']} cases of"
                  f" suite {__version__} (content hash {checked['content_hash'][:12]}) in"
                  f" {checked['asked']} case lines (scenarios {', '.join(checked['scenarios'])}"
                  + (f"; {checked['derived']} derived play checks" if checked.get("derived") else "") + ");"
                  f" {checked['why']}" + ("" if rerun else "; that the engine gives these answers only"
                                                             " --rerun --engine E shows"))
        code = EXIT_FAILED if problems else EXIT_OK
        if rerun:
            code = max(code, _rerun(path, lines, engine, name, args))
        return code
    except CommandExit as stop:
        return stop.code
    finally:
        if engine is not None:
            engine.close()


def _rerun(path: str, lines: list[dict], engine, name: str, args) -> int:
    """Ask ``engine`` the cases the report's header selected and print every verdict that
    differs from the report's. Exit 0 when none differs, 1 otherwise; 130/143 interrupted."""
    from conformance.cases import load_suite
    from conformance.commands.common import EXIT_SIGNAL, interruptible, jobs_wanted, signal_name
    from conformance.harness.runner import EngineStarter, run_cases, run_cases_jobs
    from conformance.reports import render
    from conformance.reports.certificate import NotACertificate, asked_for, difference, key

    head, cases, _foot = render._parts(lines)
    try:
        asked = asked_for(head, load_suite())
    except NotACertificate as exc:
        err(f"--verify {path} --rerun: {exc}")
        return EXIT_USAGE
    said = {key(c): c for c in cases}
    differences: list[str] = []

    def answered(result) -> None:
        found = difference(said.pop((result.case.id, result.case.scenario), None), result)
        if found:
            differences.append(found)
            print(f"  DIFFERS {found}", flush=True)

    print(f"rerun: asking {name} the report's {len(asked)} cases", flush=True)
    try:
        with interruptible():
            strict = "--strict-sets" in head.get("argv", [])
            jobs = jobs_wanted(args)
            if jobs > 1:  # each worker starts its own engine
                run_cases_jobs(EngineStarter(name, args.timeout, args.max_restarts), engine.describe(), asked, jobs,
                               progress=answered, strict_sets=strict)
            else:
                run_cases(engine, asked, progress=answered, strict_sets=strict)
    except KeyboardInterrupt as exc:
        signal = signal_name(exc)
        err(f"interrupted by {signal}: the rerun stopped before every case was asked")
        return EXIT_SIGNAL[signal]
    for line in said.values():  # lines of the report the run did not ask
        differences.append(f"{render.case_name(line)}: in the report, not asked by this selection")
        print(f"  DIFFERS {differences[-1]}")
    if differences:
        print(f"NOT CONFIRMED {path}: {len(differences)} of {len(asked)} verdicts differ when {name} is run again")
        return EXIT_FAILED
    print(f"confirmed {path}: {name} gives the report's verdict on all {len(asked)} cases")
    return EXIT_OK
