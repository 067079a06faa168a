"""The ``bgconf`` command line."""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import time
from collections import Counter
from pathlib import Path

from conformance import __version__

from conformance.cases import resources
from conformance.cases import ID_ALPHABET, USER_SUFFIX, Case, load_suite
from conformance.harness.diagram import board_diagram
from conformance.engines.interface import EngineNotFound
from conformance.engines.registry import BUILTIN, entry_point_engines, get_engine
from conformance.reports.report import case_line, failure_text, footer, header, section_table, summary_line
from conformance.harness.runner import asked_cases, run_cases, select
from conformance.commands.common import (EXIT_BAD_CASES, EXIT_CODES, EXIT_FAILED, EXIT_NO_ENGINE, EXIT_OK, EXIT_USAGE,
                      CommandExit, add_engine_options, check_outputs, count, err, exit_codes, interruptible,
                      open_engine, positive_int, shard, signal_name, write_text)

COMMAND_MODULES: list[str] = ["perft", "playout", "fuzz", "diff", "matrix", "export", "release", "replay", "merge"]
#: the renderings of a run: option -> file suffix of certify's outputs
RENDERINGS = {"report": "jsonl", "junit": "junit.xml", "markdown": "md", "html": "html", "badge": "badge.json"}

def _load(paths, progress=None, max_bytes=None):
    """The loaded suite, its errors printed; a bad BGCONF_MAX_CASE_FILE_BYTES exits 2."""
    try:
        suite = load_suite([Path(p) for p in paths] if paths else None, progress=progress, max_bytes=max_bytes)
    except ValueError as exc:
        err(str(exc))
        raise CommandExit(EXIT_USAGE) from None
    for e in suite.errors:
        print(f"error: {e}", file=sys.stderr)
    return suite


def _check_anchors(spec: list[str] | None) -> None:
    """Every --spec value names a clause of spec/rules.md or a section; else exit 2."""
    if not spec:
        return
    clauses = resources.spec_clauses()
    sections = sorted({a.split(".", 1)[0] for a in clauses})
    for s in spec:
        if s not in clauses and s not in sections:
            err(f"--spec {s}: no such spec anchor or section; sections: {', '.join(sections)}"
                 " (anchors: bgconf list shows them per case)")
            raise CommandExit(EXIT_USAGE)


def _suite_for(args):
    """The loaded suite, or exit: 2 when no case file was found or --suite-version names no
    release, 3 when none loaded or the files are not those of --suite-version."""
    if getattr(args, "suite_version", None):
        from conformance.cases import case_files
        from conformance.reports.release import ReleaseError, check_release, find_release

        try:
            find_release(args.suite_version)
        except ReleaseError as exc:
            err(f"--suite-version {args.suite_version}: {exc}")
            raise CommandExit(EXIT_USAGE) from None
        try:
            check_release(args.suite_version, case_files([Path(p) for p in args.cases] if args.cases else None))
        except ReleaseError as exc:
            err(f"--suite-version {args.suite_version}: {exc}")
            raise CommandExit(EXIT_BAD_CASES) from None
    suite = _load(args.cases)
    if not suite.files:
        err(f"no case files in {', '.join(args.cases)} (a directory is searched for *{USER_SUFFIX} files)")
        raise CommandExit(EXIT_USAGE)
    if not suite.cases:
        err("no case could be loaded (the errors are above)" if suite.errors
             else f"no case in {', '.join(args.cases or ['the bundled suite'])}")
        raise CommandExit(EXIT_BAD_CASES if suite.errors else EXIT_USAGE)
    return suite


class RunRecord:
    """What one run of cases produced: the engine's description, the suite, the results,
    the report lines (header, cases, footer), stale expectations, and the interruption
    (None, "SIGINT" or "SIGTERM")."""

    def __init__(self, info, suite, results, lines, stale, interrupted):
        self.info, self.suite, self.results, self.lines = info, suite, results, lines
        self.stale, self.interrupted = stale, interrupted
        self.report_error: str | None = None

    @property
    def footer(self) -> dict:
        return self.lines[-1]


def _execute(args, outputs: dict[str, str | None], directories: tuple[str, ...] = ()) -> RunRecord:
    """Check the outputs, load, select, start the engine, run (the report written case by
    case), apply expectations. SIGINT/SIGTERM stop the run with what was answered.
    Raises CommandExit for every reason the run cannot start."""
    from conformance.harness.expectations import ExpectationsError, apply_one, load, stale
    from conformance.harness.profiles import in_profile
    from conformance.reports.report import ReportWriter, selection

    check_outputs(outputs, directories)
    _check_anchors(args.spec)
    suite = _suite_for(args)
    chosen = select(suite.cases, args.case, args.tag, args.spec)
    if args.case:
        unknown = set(args.case) - {c.id for c in suite.cases}
        if unknown:
            err(f"unknown case id(s): {', '.join(sorted(unknown))} (bgconf list shows the ids)")
            raise CommandExit(EXIT_USAGE)
    if args.profile:
        chosen = [c for c in chosen if in_profile(c, args.profile)]
    shard = getattr(args, "shard", None)
    if shard is not None:
        selected = len(chosen)
        chosen = [c for i, c in enumerate(chosen) if shard.owns(i)]
        if selected and not chosen:
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
        writer = ReportWriter(outputs.get("--report"))
    except OSError as exc:
        err(f"--report {outputs.get('--report')}: cannot write there: {exc.strerror or exc}")
        raise CommandExit(EXIT_USAGE) from None
    try:
        engine, info = open_engine(args.engine, args.timeout, args.max_restarts)
    except CommandExit:
        writer.close()
        raise
    from conformance.cases import CAPABILITIES

    odd = [c for c in info.get("capabilities", []) if c not in CAPABILITIES]
    if odd:
        err(f"warning: engine declares unknown capabilities {', '.join(map(repr, odd))};"
             f" known: {', '.join(sorted(CAPABILITIES))}")
    if getattr(args, "scenarios", False):
        from conformance.harness.scenarios import variants

        chosen = chosen + [v for c in chosen for v in variants(c, info)]
    chosen = asked_cases(chosen, info)
    picked = selection(args.cases, args.case, args.tag, args.spec, args.profile, getattr(args, "scenarios", False),
                       shard)
    results: list = []

    def answered(result) -> None:
        if expectations is not None:
            apply_one(result, expectations)
        results.append(result)
        writer.write(case_line(result, args.engine))

    t0 = time.perf_counter()
    interrupted = None
    try:
        with interruptible():
            writer.write(header(info, suite.content_hash, sys.argv[1:], picked))
            try:
                run_cases(engine, chosen, progress=answered, strict_sets=getattr(args, "strict_sets", False))
            finally:
                engine.close()
    except KeyboardInterrupt as exc:  # keep what was answered; the footer says why it stopped
        interrupted = signal_name(exc)
        engine.close()
    wall = time.perf_counter() - t0
    warnings = list(getattr(engine, "warnings", []))
    writer.write(footer(results, wall, selected=len(chosen), interrupted=interrupted or False,
                        restarts=getattr(engine, "restarts", 0), given_up=getattr(engine, "given_up", None),
                        warnings=warnings))
    writer.close()
    for w in warnings:
        err(f"warning: {w}")
    if writer.error:
        err(f"--report {outputs.get('--report')}: could not be written: {writer.error}")
    gone = stale(expectations, {c.id for c in suite.cases}) if expectations else []
    record = RunRecord(info, suite, results, writer.lines, gone, interrupted)
    record.report_error = writer.error
    return record


def _write_outputs(args, lines, outputs: dict[str, str | None]) -> bool:
    """The renderings other than the report (already written case by case)."""
    from conformance.reports import render

    profile = args.profile or "complete"
    makers = {
        "--junit": lambda: render.junit_xml(lines),
        "--markdown": lambda: render.markdown(lines, profile),
        "--html": lambda: render.html_certificate(lines, profile),
        "--badge": lambda: json.dumps(render.badge(lines, profile), indent=2) + "\n",
    }
    ok = True
    for option, make in makers.items():
        if outputs.get(option):
            ok = write_text(option, outputs[option], make()) and ok
    return ok


def _finish(record: RunRecord, code: int) -> int:
    """The exit code: 130/143 when interrupted, else ``code``."""
    from conformance.commands.common import EXIT_SIGNAL

    if record.interrupted:
        err(f"interrupted by {record.interrupted}: {len(record.results)} of {record.footer['selected']}"
             " cases answered; the report keeps them and says interrupted")
        return EXIT_SIGNAL[record.interrupted]
    return code


def cmd_run(args) -> int:
    outputs = {f"--{k}": getattr(args, k, None) for k in RENDERINGS}
    try:
        record = _execute(args, outputs)
    except CommandExit as stop:
        return stop.code
    results, lines, info = record.results, record.lines, record.info
    written = _write_outputs(args, lines, outputs) and not record.report_error
    bad = [r for r in results if r.status in ("fail", "errored", "timeout", "xpass")]
    for r in bad[: args.max_failures]:
        print(failure_text(r, args.engine))
        print()
    if len(bad) > args.max_failures:
        print(f"... {len(bad) - args.max_failures} more not shown (--max-failures)")
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
    print(summary_line(results, foot["wall_s"]) + why)
    if bad or foot["incomplete"] or record.stale:
        return _finish(record, EXIT_FAILED)
    if not written:
        return _finish(record, EXIT_USAGE)
    return _finish(record, EXIT_BAD_CASES if record.suite.errors else EXIT_OK)


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
    try:
        check_outputs({"--out": args.out}, directories=("--out",))
        record = _execute(args, outputs)
    except CommandExit as stop:
        return stop.code
    written = _write_outputs(args, record.lines, outputs) and not record.report_error
    v = render.verdict(record.lines, args.profile)
    for message in record.stale:
        print(f"error: {message}", file=sys.stderr)
    print(render.markdown(record.lines, args.profile), end="")
    print(f"certificate: {outputs['--html']}")
    if not written:
        return _finish(record, EXIT_USAGE)
    return _finish(record, EXIT_OK if v["certified"] and not record.stale else EXIT_FAILED)


def verify_certificate(path: str) -> int:
    """See ``_verify``; a report of the wrong shape is exit 2 with one line."""
    try:
        return _verify(path)
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        err(f"--verify {path}: not a bgconf report of the expected shape ({type(exc).__name__}: {exc})")
        return EXIT_USAGE


def _verify(path: str) -> int:
    """Re-check a certificate's report against the bundled suite: same suite version and
    content hash, a full selection, every case of the profile present once and judged,
    a complete run, and the verdict. Exit 0 when it holds, 1 when it does not, 2 when
    the file cannot be read."""
    from conformance.reports import render
    from conformance.harness.profiles import in_profile

    try:
        lines = render.read_jsonl(path)
    except (OSError, ValueError) as exc:
        err(f"--verify {path}: cannot read the report: {exc}")
        return EXIT_USAGE
    head, cases, foot = render._parts(lines)
    problems = []
    if lines and isinstance(lines[0], dict) and lines[0].get("type") == "replay-header":
        err(f"--verify {path}: a bgconf replay report; --verify reads the report of a certify or run")
        return EXIT_USAGE
    if not head:
        err(f"--verify {path}: no header line: not a bgconf report")
        return EXIT_USAGE
    picked = head.get("selection") or {}
    profile = picked.get("profile") or "complete"
    suite = load_suite()
    if head.get("suite_version") != __version__:
        problems.append(f"suite version {head.get('suite_version')!r}, this bgconf has {__version__}")
    if head.get("content_hash") != suite.content_hash:
        problems.append("the suite's content hash differs from this bgconf's bundled suite: the cases were not"
                        " the released ones")
    if not picked.get("full"):
        problems.append(f"the run was narrowed ({render.narrowing(picked) or 'selection not recorded'})")
    from conformance.harness.profiles import PROFILES

    if profile not in PROFILES:
        err(f"--verify {path}: profile {profile!r} is not one of {', '.join(PROFILES)}")
        return EXIT_USAGE
    levels = {c.id: c.level for c in suite.cases}
    relevelled = sorted(c["id"] for c in cases if c["id"] in levels and c.get("level", "must") != levels[c["id"]])
    if relevelled:
        problems.append(f"case level(s) differ from the suite's: {', '.join(relevelled[:5])}")
    if foot and (foot.get("interrupted") or foot.get("given_up")) and not foot.get("incomplete"):
        problems.append("the footer says interrupted or given up but not incomplete")
    want = {c.id for c in suite.cases if in_profile(c, profile)}
    seen = Counter(c["id"] for c in cases if not c.get("scenario"))
    missing = sorted(want - set(seen))
    if missing:
        problems.append(f"{len(missing)} case(s) of profile {profile} are not in the report"
                        f" ({', '.join(missing[:5])}{', ...' if len(missing) > 5 else ''})")
    twice = sorted(cid for cid, n in seen.items() if n > 1)
    if twice:
        problems.append(f"case(s) reported more than once: {', '.join(twice[:5])}")
    extra = sorted(set(seen) - want)
    if extra:
        problems.append(f"case(s) not in profile {profile}: {', '.join(extra[:5])}")
    if not foot:
        problems.append("no footer: the run did not finish")
    elif foot.get("incomplete"):
        problems.append("the run is incomplete" + (f" ({foot.get('given_up')})" if foot.get("given_up") else ""))
    v = render.verdict(lines, profile)
    engine = head.get("engine", {})
    who = f"{engine.get('name', '?')} {engine.get('version', '')}".strip()
    if not problems and not v["certified"]:
        problems.append(f"the verdict is not certified: {v['why']}")
    if problems:
        print(f"NOT VERIFIED {path}: {who}, profile {profile}")
        for p in problems:
            print(f"  - {p}")
        return EXIT_FAILED
    print(f"verified {path}: {who} is certified for profile {profile} on all {len(want)} cases of suite"
          f" {__version__} (content hash {suite.content_hash[:12]}); {v['why']}")
    return EXIT_OK


def cmd_expectations(args) -> int:
    from conformance.harness.expectations import from_report
    from conformance.reports.render import read_jsonl

    try:
        lines = read_jsonl(args.report)
    except (OSError, ValueError) as exc:
        err(f"cannot read the report {args.report}: {exc}")
        return EXIT_USAGE
    print(from_report(lines), end="")
    return EXIT_OK


def recheck_on_reference(cases: list[Case]) -> list[str]:
    """Expected values that the reference engine does not reproduce, as messages."""
    from conformance.engines.adapters.reference import ReferenceEngine

    from reference_impl import play_check

    problems = []
    for r in run_cases(ReferenceEngine(), cases):
        if r.status != "pass":
            problems.append(f"{r.case.file}:{r.case.line}: {r.case.id}: the reference engine disagrees"
                            f" with the expected value: {r.outcome.message}")
        elif r.case.kind == "apply_play":
            verdict = play_check(r.case.position, r.case.dice, r.case.steps)
            if not verdict.legal:
                problems.append(f"{r.case.file}:{r.case.line}: {r.case.id}: play {r.case.play!r} is not a legal"
                                f" play for the roll {r.case.dice} ({verdict.reason}); apply_play cases"
                                f" apply legal plays")
    return problems


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
    suite = _load(args.paths, progress=progress, max_bytes=args.max_file_size)
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


def cmd_list(args) -> int:
    try:
        _check_anchors(args.spec)
        suite = _suite_for(args)
    except CommandExit as stop:
        return stop.code
    chosen = select(suite.cases, None, args.tag, args.spec)
    if not chosen:
        err("no case matches --tag/--spec; tags: " + ", ".join(sorted(resources.registered_tags())))
        return EXIT_USAGE
    for c in chosen:
        print(f"{c.id}  {c.kind:<12} {','.join(c.spec):<36} {c.title}")
    return EXIT_BAD_CASES if suite.errors else EXIT_OK


def cmd_show(args) -> int:
    suite = _load(args.cases)
    case = suite.by_id().get(args.id)
    if case is None:
        err(f"unknown case id {args.id} (bgconf list shows the ids)")
        return EXIT_USAGE
    clauses = resources.spec_clauses()
    print(f"{case.id}  {case.title}")
    print(f"  {case.file}:{case.line}   kind {case.kind}   level {case.level}   tags {', '.join(case.tags)}")
    for a in case.spec:
        print(f"  spec {a}: {clauses.get(a, '')}")
    if case.position is not None:
        from conformance.model import encode_position_id

        print(board_diagram(case.position, case.dice))
        print(f"  Position ID: {encode_position_id(case.position)}")
    for key in ("play", "cube", "match", "on_roll", "moment", "action", "throws", "result", "rules"):
        if key in case.raw:
            print(f"  {key}: {case.raw[key]}")
    for number, game in enumerate(case.games, 1):
        start = "from the start" if game.position is None else f"from {game.position}"
        print(f"  game {number} ({start}{f', cube {game.cube.value} {game.cube.owner}' if game.cube else ''}):")
        for event in game.events:
            refused = case.expected.refused[event["n"] - 1]
            print(f"    {event['n']:>3}. {event['text']}{f'   (refused: {refused})' if refused else ''}")
    if case.kind == "legal_plays":
        exp = case.expected
        if exp.exact is not None:
            print(f"  expected legal plays ({len(exp.exact)}):")
            for text in exp.exact.values():
                print(f"    {text}")
        else:
            print(f"  expected: {exp.count} plays, including {list(exp.includes.values())},"
                  f" excluding {list(exp.excludes.values())}")
    else:
        print(f"  expected: {case.expect}")
    print(f"  provenance: {case.provenance}")
    return EXIT_OK


def cmd_new_id(args) -> int:
    suite = load_suite()
    used = {c.id for c in suite.cases} | set(resources.retired_ids())
    free = len(ID_ALPHABET) ** 4 - len(used)
    if args.count > free:
        err(f"only {free} ids are free; ask for fewer")
        return EXIT_USAGE
    made = set()
    while len(made) < args.count:
        cid = "bg-" + "".join(secrets.choice(ID_ALPHABET) for _ in range(4))
        if cid not in used:
            made.add(cid)
    print("\n".join(sorted(made)))
    return EXIT_OK


def cmd_engines(args) -> int:
    from conformance.engines.registry import install_state

    print(f"{'engine':<15} {'version':<22} state")
    for name, (_factory, text) in BUILTIN.items():
        known = install_state(name)
        if known is not None:
            version, how = known
            state = "installed" if version else f"not installed: {how}"
        else:
            try:
                engine = get_engine(name)
                version = engine.describe().get("version")
                engine.close()
                state = "installed"
            except Exception as exc:
                version, state = None, f"not available: {exc}"
        print(f"{name:<15} {version or '-':<22} {state}\n{'':<15} {text}")
    from conformance.engines.interface import installed_version
    from conformance.harness.openspiel import OPENSPIEL_DIST

    version = installed_version(OPENSPIEL_DIST)  # played by bgconf playout only: it takes no position
    state = "installed" if version else "not installed: pip install 'bgconf[openspiel]'"
    print(f"{'openspiel':<15} {version or '-':<22} {state}\n{'':<15} OpenSpiel's backgammon, played along random"
          " games by bgconf playout --engine openspiel (it cannot be given a position)")
    for name, ep in entry_point_engines().items():
        print(f"{name:<15} {'-':<22} entry point {ep.value}")
    return EXIT_OK


def cmd_mutants(args) -> int:
    from collections import defaultdict

    from conformance.harness.mutants import score

    suite = _load(args.cases)
    table: dict = defaultdict(lambda: [0, 0])
    survivors = []
    for mutant, killers in score(suite.cases):
        section = mutant.spec.split(".", 1)[0]
        table[section][1] += 1
        table[section][0] += bool(killers)
        if args.verbose or not killers:
            print(f"{'killed  ' if killers else 'SURVIVED'} {mutant.name:<28} {mutant.spec:<26} "
                  f"{len(killers):>3} cases  {mutant.what}")
        if not killers:
            survivors.append(mutant.name)
    print(f"{'section':<10} killed / mutants")
    for section, (killed, total) in sorted(table.items()):
        print(f"{section:<10} {killed:>6} / {total}")
    total = sum(t for _, t in table.values())
    print(f"mutation score: {total - len(survivors)} / {total}")
    return EXIT_FAILED if survivors else EXIT_OK


def certification_table(engines: list[str]) -> str:
    """The README's certification table: each engine's counts over the whole suite
    and its verdict per profile (certified when every must case passes)."""
    from conformance.reports import render
    from conformance.harness.profiles import in_profile

    suite = load_suite()
    rows = ["| engine | version | cases | pass | fail | errored | unsupported | movement | money | match |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for name in engines:
        try:
            engine = get_engine(name)
            info = engine.describe()
        except Exception as exc:  # not installed here: say so rather than guess
            why = (str(exc).splitlines() or [type(exc).__name__])[0].replace("|", "\\|")
            rows.append(f"| {name} | not installed ({why}) |" + " |" * 8)
            continue
        try:
            results = run_cases(engine, asked_cases(suite.cases, info))
        finally:
            engine.close()
        lines = ([header(info, suite.content_hash)] + [case_line(r, name) for r in results]
                 + [footer(results, 0.0, given_up=getattr(engine, "given_up", None))])
        counts = {k: sum(r.status == k for r in results) for k in ("pass", "fail", "errored", "unsupported")}
        verdicts = []
        for profile in ("movement", "money", "match"):
            chosen = {c.id for c in suite.cases if in_profile(c, profile)}
            v = render.verdict([x for x in lines if x.get("type") != "case" or x["id"] in chosen], profile)
            verdicts.append("certified" if v["certified"] else f"no ({v['must_passed']}/{v['must']})")
        rows.append(f"| {name} | {info.get('version', '')} | {len(results)} | {counts['pass']} | {counts['fail']} |"
                    f" {counts['errored']} | {counts['unsupported']} | " + " | ".join(verdicts) + " |")
    return "\n".join(rows) + "\n"


def cmd_table(args) -> int:
    from conformance.engines.registry import install_state

    def present(name: str) -> bool:  # a third-party or npm engine only when installed
        state = install_state(name)
        return state is None or state[0] is not None

    engines = args.engine or [n for n in BUILTIN if present(n)]
    start, end = "<!-- certification:start -->", "<!-- certification:end -->"
    if args.write:  # checked before any engine runs
        path = Path(args.write)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            err(f"--write {path}: cannot read it: {getattr(exc, 'strerror', None) or exc}")
            return EXIT_USAGE
        if start not in text or end not in text:
            err(f"--write {path}: it has no {start} ... {end} markers")
            return EXIT_USAGE
        try:
            check_outputs({"--write": args.write})
        except CommandExit as stop:
            return stop.code
    table = certification_table(engines)  # an interruption ends in main(): nothing is written
    if args.write:
        before, rest = text.split(start, 1)
        if not write_text("--write", path, before + start + "\n" + table + end + rest.split(end, 1)[1]):
            return EXIT_USAGE
    print(table, end="")
    return EXIT_OK


def cmd_serve(args) -> int:
    from conformance.engines.protocol import serve

    try:
        engine = get_engine(args.engine, isolated=False)
    except EngineNotFound as exc:
        err(str(exc))
        return EXIT_USAGE
    except Exception as exc:  # the factory failed, or returned something that is not an engine
        err(f"engine {args.engine!r} could not start: {str(exc).strip() or type(exc).__name__}")
        return EXIT_NO_ENGINE
    protocol_out, sys.stdout = sys.stdout, sys.stderr  # the engine's own prints go to stderr
    try:
        return serve(engine, stdout=protocol_out)
    finally:
        sys.stdout = protocol_out


def _run_options(p: argparse.ArgumentParser) -> None:
    from conformance.harness.profiles import PROFILES

    p.add_argument("--engine", required=not p.prog.endswith("certify"),
                   help="reference, gnubg, \"cmd:COMMAND\" (any program speaking spec/protocol.md), "
                        "python:module:factory, or an engine registered in the bgconf.engines entry point "
                        "group (see bgconf engines)")
    p.add_argument("--profile", choices=PROFILES, help="only the cases of this profile (certify: required)")
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
                        "Position ID or XGID (when the engine declares those formats); shown as bg-XXXX[swapped]")
    p.add_argument("--shard", type=shard, metavar="K/N",
                   help="run only shard K of N of the selected cases (every N-th case from the K-th, in selection"
                        " order); bgconf merge joins the N reports into one (certify refuses it: certify the merged"
                        " report with certify --verify)")
    p.add_argument("--suite-version", metavar="V",
                   help="refuse to run unless the case files are exactly those of release V (releases/V.json,"
                        " written by bgconf release; or the path of a manifest FILE.json): exit 3 when they differ")
    p.add_argument("--strict-sets", action="store_true",
                   help="a legal_plays reply that lists one play (one resulting position) more than once fails"
                        " the case; without it the case is judged on the set and the duplicates are reported")
    add_engine_options(p)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bgconf",
        description="bgconf: the rules-conformance suite for backgammon engines. Run the bundled "
                    "cases against an engine, validate case files, or look at cases.",
        epilog="examples:\n  bgconf run --engine reference\n  bgconf run --engine gnubg --report gnubg.jsonl\n"
               "  bgconf run --engine reference --tag bear-off\n  bgconf show bg-C3Z8\n"
               "  bgconf validate my-cases.bgcase.yaml\n\n" + EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"bgconf {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="run cases against an engine",
                         description="Run the suite (or selected cases) against an engine and print"
                                     " failures, a table per spec section and a summary.",
                         epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    _run_options(run)
    run.add_argument("--report", metavar="FILE.jsonl", help="write the JSON Lines report of record")
    run.add_argument("--junit", metavar="FILE.xml", help="write JUnit XML")
    run.add_argument("--markdown", metavar="FILE.md", help="write a Markdown summary (e.g. a CI step summary)")
    run.add_argument("--html", metavar="FILE.html", help="write the HTML certificate page")
    run.add_argument("--badge", metavar="FILE.json", help="write a shields.io badge JSON")
    run.add_argument("--max-failures", type=count, default=20, metavar="N",
                     help="show at most N failures in full (default 20)")
    run.add_argument("-v", "--verbose", action="store_true", help="also list unsupported and xfail cases")
    run.set_defaults(func=cmd_run)

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
    _run_options(cert)
    cert.add_argument("--out", default="bgconf-certificates", metavar="DIR", help="output directory")
    cert.add_argument("--verify", metavar="CERT.jsonl",
                      help="re-check a certificate's report: same suite version and content hash as this bgconf,"
                           " the whole profile, every case once, a complete run, certified (exit 0, else 1)")
    cert.set_defaults(func=cmd_certify, verbose=False, max_failures=0)

    exp = sub.add_parser("expectations", help="write an expectations file from a JSON Lines report",
                         description="Print an expectations file listing every failed case of REPORT "
                                     "(bgconf run --expectations FILE then turns them into xfail).")
    exp.add_argument("report", metavar="REPORT.jsonl")
    exp.set_defaults(func=cmd_expectations)

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

    lst = sub.add_parser("list", help="list cases: id, kind, spec anchors, title")
    lst.add_argument("--tag", action="append", metavar="T")
    lst.add_argument("--spec", action="append", metavar="ANCHOR")
    lst.add_argument("--cases", action="append", metavar="PATH")
    lst.set_defaults(func=cmd_list)

    show = sub.add_parser("show", help="show one case: board diagram, dice, expectation")
    show.add_argument("id")
    show.add_argument("--cases", action="append", metavar="PATH")
    show.set_defaults(func=cmd_show)

    new = sub.add_parser("new-id", help="print fresh case ids")
    new.add_argument("-n", "--count", type=positive_int, default=1)
    new.set_defaults(func=cmd_new_id)

    mut = sub.add_parser("mutants", help="mutation score: run mutant engines, each breaking one rule",
                         description="Run every mutant of the reference engine (each breaks one rule) on the must"
                                     " cases; a mutant no case kills means a missing case. Exit 1 if one survives.")
    mut.add_argument("--cases", action="append", metavar="PATH")
    mut.add_argument("-v", "--verbose", action="store_true", help="list every mutant, not only survivors")
    mut.set_defaults(func=cmd_mutants)

    tab = sub.add_parser("table", help="the certification table of the README, regenerated",
                         description="Run the whole suite on each engine (default: every engine of bgconf engines "
                                     "that is installed) and print the certification table; with "
                                     "--write README.md, replace the table between its markers.")
    tab.add_argument("--engine", action="append", metavar="E", help="an engine to include (repeatable)")
    tab.add_argument("--write", metavar="FILE", help="replace the table between the markers in FILE")
    tab.set_defaults(func=cmd_table)

    srv = sub.add_parser("serve", help="expose a Python engine over the JSON-lines protocol on stdin/stdout",
                         description="Answer the engine protocol of spec/protocol.md on stdin/stdout with a "
                                     "Python engine, e.g. bgconf run --engine \"cmd:bgconf serve reference\".")
    srv.add_argument("engine", help="reference, gnubg, python:module:factory or an entry point name")
    srv.set_defaults(func=cmd_serve)

    # commands that live in their own modules: each has add_parser(subparsers)
    import importlib

    for module in COMMAND_MODULES:
        importlib.import_module(f"conformance.commands.{module}").add_parser(sub)

    eng = sub.add_parser(
        "engines", help="list the engines bgconf knows and whether they are installed",
        description="List every engine bgconf can run (the names --engine takes), with the version installed"
                    " here, or what is missing and the command that installs it, and what each engine is;"
                    " then the engines that installed packages register under the bgconf.engines entry point."
                    " An engine that is started to ask its version is stopped at once.",
        epilog="examples:\n  bgconf engines\n  bgconf engines | grep 'not installed'\n\n"
               + exit_codes({0: "the list is printed (an engine that is not installed is a line of the list,"
                                " not an error)", 2: "bad command line"}),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    eng.set_defaults(func=cmd_engines)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns its exit code (see EXIT_CODES). SIGINT and SIGTERM end
    any command with one line and 130/143, never a traceback; the long commands keep
    what they had answered first."""
    from conformance.commands.common import EXIT_SIGNAL

    for stream in (sys.stdout, sys.stderr):  # an engine's odd text is printed escaped, never a crash
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):
            pass
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with interruptible():
            return args.func(args)
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt as exc:
        name = signal_name(exc)
        err(f"interrupted by {name}")
        return EXIT_SIGNAL[name]
    except CommandExit as stop:
        return stop.code


if __name__ == "__main__":
    sys.exit(main())
