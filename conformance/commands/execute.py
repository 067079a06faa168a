"""The run that ``bgconf run`` and ``bgconf certify`` share: their common options, the checks
before the engine starts, the run with its report written case by case, the other renderings
and the exit code of an interrupted run.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from conformance.cases import resources
from conformance.commands.common import (CommandExit, EXIT_USAGE, add_engine_options, add_jobs_option, case_inputs,
                                         check_anchors, check_outputs, commit_outputs, err, interruptible, jobs_wanted,
                                         open_engine, shard, signal_name, suite_for)
from conformance.harness.runner import EngineStarter, EngineTally, ask_workers, run_cases, run_cases_jobs
from conformance.harness.selection import asked, choose
from conformance.reports.report import case_line, footer, header


#: the renderings of a run: option -> file suffix of certify's outputs
RENDERINGS = {"report": "jsonl", "junit": "junit.xml", "markdown": "md", "html": "html", "badge": "badge.json"}


class RunRecord:
    """What one run of cases produced: the engine's description, the suite, the results,
    the report lines (header, cases, footer), stale expectations, and the interruption
    (None, "SIGINT" or "SIGTERM")."""

    def __init__(self, info, suite, results, lines, stale, interrupted):
        self.info, self.suite, self.results, self.lines = info, suite, results, lines
        self.stale, self.interrupted = stale, interrupted
        self.report_error: str | None = None
        self.files = None  # the reports.files.OutputSet the outputs are written into

    @property
    def footer(self) -> dict:
        return self.lines[-1]


def run_inputs(args) -> list[tuple[str, str]]:
    """The files a run reads (the case files, --expectations, a --suite-version manifest
    file), as ``check_outputs`` inputs."""
    from pathlib import Path

    found = case_inputs(args.cases)
    if args.expectations:
        found.append(("--expectations", args.expectations))
    version = getattr(args, "suite_version", None)
    if version and Path(version).is_file():
        found.append(("--suite-version", version))
    return found


def apply_variant(args) -> None:
    """``--variant V`` with ``--profile P``: ``args.profile`` becomes V's profile ``P-V``
    (``harness.profiles.variant_profile``; spec: variant.option). Raises CommandExit(2) for
    --variant without --profile or a profile with no variant form."""
    from conformance.harness.profiles import variant_profile

    variant = getattr(args, "variant", "standard")
    if variant == "standard":
        return
    if not args.profile:
        err(f"--variant {variant} goes with --profile: it picks that profile's cases of {variant}")
        raise CommandExit(EXIT_USAGE)
    try:
        args.profile = variant_profile(args.profile, variant)
    except KeyError as exc:
        err(str(exc.args[0]))
        raise CommandExit(EXIT_USAGE) from None


def execute(args, outputs: dict[str, str | None], files, directories: tuple[str, ...] = ()) -> RunRecord:
    """Check the outputs (option -> path or None; ``directories``: the options that name a
    directory; none may be one of the run's inputs), load, select, start the engine, run (the
    report written case by case into ``files``, a ``reports.files.OutputSet``: beside its
    target until ``keep_outputs`` moves it into place), apply expectations. SIGINT/SIGTERM
    stop the run with what was answered (the record says which). Raises CommandExit for
    every reason the run cannot start: 2 bad selection or output, 3 case file errors
    against --suite-version, 4 the engine cannot start."""
    from conformance.harness.expectations import ExpectationsError, load
    from conformance.reports.files import OutputError
    from conformance.reports.report import ReportWriter

    apply_variant(args)
    check_outputs(outputs, directories, inputs=run_inputs(args))
    check_anchors(args.spec)
    suite = suite_for(args)
    if args.case:
        unknown = set(args.case) - {c.id for c in suite.cases}
        if unknown:
            err(f"unknown case id(s): {', '.join(sorted(unknown))} (bgconf list shows the ids)")
            raise CommandExit(EXIT_USAGE)
    shard = getattr(args, "shard", None)
    selected, chosen = choose(suite.cases, args.case, args.tag, args.spec, args.profile, shard)
    if shard is not None and selected and not chosen:
        err(f"--shard {shard}: this shard has no case: the selection has {selected} case(s);"
            f" give N at most {selected}")
        raise CommandExit(EXIT_USAGE)
    if not chosen:
        err("no case matches the selection (--case, --tag, --spec, --profile); bgconf list shows ids,"
             f" anchors and tags; tags: {', '.join(sorted(resources.registered_tags()))}")
        raise CommandExit(EXIT_USAGE)
    expectations = None
    if args.expectations:
        try:
            expectations = load(args.expectations)
        except ExpectationsError as exc:
            err(str(exc))
            raise CommandExit(EXIT_USAGE) from None
    try:
        writer = ReportWriter(files.stream("--report", outputs["--report"]) if outputs.get("--report") else None)
    except OutputError as exc:
        err(f"--report {outputs.get('--report')}: cannot write there: {exc.reason}")
        raise CommandExit(EXIT_USAGE) from None
    jobs = min(jobs_wanted(args), len(chosen))  # no more workers than cases to share
    strict = getattr(args, "strict_sets", False)
    # with --jobs, the workers start their engines at once, the first one's description serving
    # this process to make the cases; closed below, whatever happens
    workers = ask_workers(EngineStarter(args.engine, args.timeout, args.max_restarts), jobs,
                          strict_sets=strict) if jobs > 1 else None
    try:
        return _execute(args, suite, selected, chosen, expectations, writer, files, jobs, strict, workers)
    finally:
        if workers is not None:
            workers.close()


def _execute(args, suite, selected: int, chosen: list, expectations, writer, files, jobs: int, strict: bool,
             workers) -> RunRecord:
    """``execute`` from the engine's start on: describe it, make the cases it is asked, ask them
    (here, or by ``workers`` with ``--jobs``), write the report."""
    from conformance.harness.expectations import apply_one, stale
    from conformance.reports.report import selection

    shard = getattr(args, "shard", None)
    # with --jobs, the first worker's engine describes itself (one engine start fewer, which for
    # a short run is much of its time); when it did not start, this process starts one, to
    # stop with the message and exit code of an engine that cannot start
    engine, info = None, workers.hello() if workers is not None else None
    if info is None:
        engine, info = open_engine(args.engine, args.timeout, args.max_restarts)
    from conformance.cases import CAPABILITIES

    odd = [c for c in info.get("capabilities", []) if c not in CAPABILITIES]
    if odd:
        err(f"warning: engine declares unknown capabilities {', '.join(map(repr, odd))};"
             f" known: {', '.join(sorted(CAPABILITIES))}")
    from conformance.harness.scenarios import forms

    scenarios = getattr(args, "scenarios", False)
    play_checks = getattr(args, "play_checks", True)
    chosen = asked(chosen, info, scenarios, args.profile, play_checks=play_checks)
    picked = selection(args.cases, args.case, args.tag, args.spec, args.profile, scenarios, shard, forms(info),
                       play_checks=play_checks)
    results: list = []

    def answered(result) -> None:
        if expectations is not None:
            apply_one(result, expectations)
        results.append(result)
        writer.write(case_line(result, args.engine))

    t0 = time.perf_counter()
    interrupted = None
    tally = EngineTally()
    try:
        with interruptible():
            writer.write(header(info, suite.content_hash, sys.argv[1:], picked))
            try:
                if jobs > 1:  # each worker starts its own engine
                    if engine is not None:
                        engine.close()
                    run_cases_jobs(EngineStarter(args.engine, args.timeout, args.max_restarts), info, chosen, jobs,
                                   progress=answered, strict_sets=strict, tally=tally, workers=workers)
                else:
                    run_cases(engine, chosen, progress=answered, strict_sets=strict)
            finally:
                if engine is not None:
                    engine.close()
    except KeyboardInterrupt as exc:  # keep what was answered; the footer says why it stopped
        interrupted = signal_name(exc)
        if engine is not None:
            engine.close()
    wall = time.perf_counter() - t0
    if engine is not None:
        tally.add(engine)
    warnings = tally.warnings
    writer.write(footer(results, wall, selected=len(chosen), interrupted=interrupted or False,
                        restarts=tally.restarts, given_up=tally.given_up,
                        warnings=warnings, engine_name=args.engine))
    writer.close()
    for w in warnings:
        err(f"warning: {w}")
    if writer.error:
        err(f"--report {outputs.get('--report')}: could not be written: {writer.error}")
    gone = stale(expectations, {c.id for c in suite.cases}) if expectations else []
    record = RunRecord(info, suite, results, writer.lines, gone, interrupted)
    record.report_error = writer.error
    record.files = files
    return record


def keep_outputs(args, record: RunRecord, outputs: dict[str, str | None]) -> bool:
    """Write the renderings other than the report (already written case by case) from the
    report's lines beside their targets (--junit, --markdown, --html, --badge where ``outputs``
    names a path), then move them and the report into place together. An interrupted run
    that answered nothing replaces nothing: every existing output stays as it was. False
    when an output could not be written or moved (printed; then no output is replaced)."""
    from conformance.reports import render
    from conformance.reports.files import OutputError

    files, lines = record.files, record.lines
    if record.interrupted and not record.results:
        files.discard()
        given = [f"{o} {p}" for o, p in outputs.items() if p]
        if given:
            err(f"nothing was answered: no output was written ({', '.join(given)} left as they were)")
        return True
    if record.report_error:
        files.discard()
        err(f"--report {outputs.get('--report')}: no output was replaced")
        return False

    profile = args.profile or "complete"
    makers = {
        "--junit": lambda: render.junit_xml(lines),
        "--markdown": lambda: render.markdown(lines, profile),
        "--html": lambda: render.html_certificate(lines, profile, record.suite),
        "--badge": lambda: json.dumps(render.badge(lines, profile), indent=2) + "\n",
    }
    for option, make in makers.items():
        if outputs.get(option):
            try:
                files.text(option, outputs[option], make())
            except OutputError as exc:
                err(f"{exc}; no output was replaced")
                files.discard()
                return False
    return commit_outputs(files)


def finish(record: RunRecord, code: int) -> int:
    """The exit code: 130/143 when interrupted, else ``code``."""
    from conformance.commands.common import EXIT_SIGNAL

    if record.interrupted:
        err(f"interrupted by {record.interrupted}: {len(record.results)} of {record.footer['selected']}"
             " cases answered; the report keeps them and says interrupted")
        return EXIT_SIGNAL[record.interrupted]
    return code


def run_options(p: argparse.ArgumentParser) -> None:
    """The options of a run, shared by ``bgconf run`` and ``bgconf certify`` (certify: --engine optional)."""
    from conformance.harness.profiles import ALL_PROFILES as PROFILES, VARIANT_BASES
    from conformance.commands.common import add_variant_option

    p.add_argument("--engine", required=not p.prog.endswith("certify"),
                   help="reference, gnubg, \"cmd:COMMAND\" (any program speaking spec/protocol.md), "
                        "python:module:factory, or an engine registered in the bgconf.engines entry point "
                        "group (see bgconf engines)")
    p.add_argument("--profile", choices=PROFILES, help="only the cases of this profile (certify: required)")
    add_variant_option(p, f"with --profile ({', '.join(VARIANT_BASES)}): the profile of the cases")
    p.add_argument("--case", action="append", metavar="ID", help="run only this case id (repeatable)")
    p.add_argument("--tag", action="append", metavar="T", help="run only cases with this tag (repeatable)")
    p.add_argument("--spec", action="append", metavar="ANCHOR",
                   help="run only cases naming this anchor or section, e.g. bearoff or move.larger-die")
    p.add_argument("--cases", action="append", metavar="PATH",
                   help="case files or directories instead of the bundled suite (repeatable)")
    p.add_argument("--expectations", metavar="FILE",
                   help="known failures of this engine: listed failures become xfail; a listed pass (xpass) "
                        "or a listed id that is not in the suite fails the run")
    p.add_argument("--scenarios", action="store_true",
                   help="also ask every case again with colours swapped, dice reversed, and the position as a "
                        "Position ID, XGID or FIBS board (when the engine declares those formats); shown as"
                        " bg-XXXX[swapped]" + (" (certify always asks them: a certificate covers them)"
                                               if p.prog.endswith("certify") else ""))
    if not p.prog.endswith("certify"):
        p.add_argument("--no-play-checks", dest="play_checks", action="store_false",
                       help="do not ask an engine that declares play-check the play checks derived from each"
                            " legal_plays case (each legal play and the illegal near misses the reference names"
                            " by rule, in both dice orders: bg-XXXX[check 3]; spec/protocol.md, Derived play"
                            " checks), only the cases as written (certify always asks them)")
    p.add_argument("--shard", type=shard, metavar="K/N",
                   help="run only shard K of N of the selected cases (every N-th case from the K-th, in selection"
                        " order); bgconf merge joins the N reports into one (certify refuses it: certify the merged"
                        " report with certify --verify)")
    add_jobs_option(p, "the cases",
                    "bgconf certify --engine gnubg --profile movement --jobs 2" if p.prog.endswith("certify")
                    else "bgconf run --engine bsd-backgammon --jobs 0")
    p.add_argument("--suite-version", metavar="V",
                   help="refuse to run unless the case files are exactly those of release V (releases/V.json,"
                        " written by bgconf release; or the path of a manifest FILE.json): exit 3 when they differ")
    p.add_argument("--strict-sets", action="store_true",
                   help="a legal_plays reply that lists one play (one resulting position) more than once fails"
                        " the case; without it the case is judged on the set and the duplicates are reported")
    add_engine_options(p)
