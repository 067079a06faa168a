"""``bgconf fuzz``: differential fuzzing that shrinks a mismatch and prints the regression case.

The command: its options, what it prints and its exit codes. The campaign itself (the oracle,
the search, the shrink) is ``conformance.harness.fuzz``; the case it prints is written by
``conformance.harness.found_cases``. For every finding bgconf prints the diff (missing and extra
plays in notation), the board, the spec clauses and a complete YAML case, with a fresh id, the
spec anchors of the rule involved and its provenance, ready to paste into a ``*.bgcase.yaml``
file (docs/case-authors.md), after checking that the case loads and what it says on the
reference and on the engine.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from conformance.commands.common import (
    EXIT_FAILED, EXIT_OK, EXIT_SIGNAL, EXIT_USAGE, CommandExit, add_engine_options, add_jobs_option,
    add_variant_option, err, interruptible, jobs_wanted, open_engine, positive_int, refuse_undeclared_variant, shard,
    signal_name,
)
from conformance.harness.found_cases import check_case, fresh_ids
from conformance.harness.questions import CAPABILITY, FUZZ_KINDS as KINDS, PLAY_KINDS
from conformance.harness.shard import WHOLE

if TYPE_CHECKING:  # conformance.harness.fuzz (and hypothesis with it) is imported when a campaign runs
    from conformance.harness.fuzz import Campaign, Finding


# -- what the command prints ------------------------------------------------------------
def finding_text(finding: Finding, number: int, camp: Campaign, engine_label: str, case_id: str) -> str:
    """The diff, the board and the YAML case of one finding."""
    from conformance.cases import resources
    from conformance.harness.diagram import board_diagram
    from conformance.harness.fuzz import case_yaml, spec_anchors

    ex, m = finding.example, finding.mismatch
    how = (f"shrunk in {finding.shrink_calls} calls ({finding.shrink_seconds:.1f} s)" if finding.shrunk
           else "not shrunk (the mismatch did not reproduce)")
    lines = [f"MISMATCH {number} {ex.kind} ({m.category}): first at example {finding.found_at + 1},"
             f" {finding.similar} similar; {how}"]
    lines.append(board_diagram(ex.position, ex.dice))
    if ex.kind == "game_result":
        lines.append(f"  cube: {ex.cube.to_dict()}  match: {ex.match.to_dict()}  rules: {ex.rules or 'defaults'}")
    if ex.play is not None:
        lines.append(f"  play: {ex.play}")
    lines.append(f"  {engine_label}: {m.message}")
    if m.missing:
        lines.append("  missing plays (legal, not returned): " + ", ".join(m.missing))
    if m.extra:
        lines.append("  extra plays (returned, not legal):   " + ", ".join(m.extra))
    if ex.kind not in PLAY_KINDS and m.got is not None:
        lines.append(f"  engine answered: {m.got}")
    text = case_yaml(finding, camp.engine, engine_label, camp.seed, case_id)
    clauses = resources.spec_clauses()
    for anchor in spec_anchors(finding):
        lines.append(f"  spec {anchor}: {clauses.get(anchor, '')}".rstrip())
    errors, on_reference, on_engine = check_case(text, finding.reply, ex.kind)
    lines.append("  regression case (paste into a *.bgcase.yaml file):")
    lines.append("---")
    lines.append(text.rstrip("\n"))
    lines.append("---")
    if errors:
        lines.append("  WARNING: the case does not load: " + "; ".join(errors))
    else:
        lines.append(f"  checked: the case loads (conformance.cases.load_file); on the reference it is {on_reference},"
                     f" on {camp.engine} {on_engine}")
    return "\n".join(lines)


def campaign_report(camp: Campaign, engine_label: str, salt: str = "") -> str:
    """Every finding of a campaign, then the summary line."""
    # an id follows from the finding (its bytes): the same finding gets the same id, another one another id
    ids: list[str] = []
    for f in camp.findings:
        ids += fresh_ids(1, f"{salt}{camp.engine}:{camp.kind}:{f.data.hex()}", taken=set(ids))
    parts = [finding_text(f, i + 1, camp, engine_label, cid)
             for i, (f, cid) in enumerate(zip(camp.findings, ids))]
    parts.append(summary(camp))
    return "\n\n".join(parts)


def summary(camp: Campaign) -> str:
    s = (f"fuzz {camp.kind} against {camp.engine}, seed {camp.seed}: {camp.positions} positions in"
         f" {camp.search_seconds:.2f} s ({camp.rate:,.0f} positions/s); ")
    s += f"{camp.mismatched} mismatched" if camp.mismatched else "no mismatch"
    if camp.unsupported:
        s += f", {camp.unsupported} unsupported"
    if camp.findings:
        s += f" ({len(camp.findings)} shown, minimal after shrinking)"
    return s


# -- the command ------------------------------------------------------------------------
def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "fuzz", help="differential fuzzing against the reference; prints a minimal regression case",
        description="Generate valid inputs with Hypothesis, ask the engine and the reference, and on a mismatch"
                    " shrink it to a minimal input and print the diff and a complete YAML case (fresh id, spec"
                    " anchors, provenance) ready to paste into a *.bgcase.yaml file. Deterministic for a seed.",
        epilog="exit codes:\n  0  no mismatch\n  1  at least one mismatch (each printed with its case), or the"
               " engine was given up\n"
               "  2  bad command line, or the engine supports none of the kinds asked for\n"
               "  4  the engine is unknown, not installed or could not be started\n"
               "  130, 143  interrupted by SIGINT, SIGTERM\n\nexamples:\n"
               "  bgconf fuzz --engine gnubg --examples 2000 --seed 1\n"
               "  bgconf fuzz --engine reference --examples 5000 --kind all\n"
               "  bgconf fuzz --engine bsd-backgammon --examples 2000 --jobs 2   (two engine processes)\n"
               "  bgconf fuzz --engine gnubg --variant hypergammon-3 --kind all",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--engine", required=True, help="reference, gnubg, cmd:COMMAND, python:module:factory, ...")
    p.add_argument("--examples", type=positive_int, default=1000, metavar="N", help="inputs per kind (default 1000)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="the run is a function of the seed (default 0)")
    p.add_argument("--kind", action="append", choices=list(KINDS) + ["all"],
                   help="what to fuzz (repeatable; default legal_plays; all = every kind the engine declares)")
    p.add_argument("--batch", type=positive_int, default=100, metavar="B",
                   help="inputs per engine batch (default 100)")
    p.add_argument("--max-mismatches", type=positive_int, default=1, metavar="M",
                   help="search on until M different kinds of mismatch are found, and shrink each (default 1:"
                        " stop at the first)")
    p.add_argument("--no-shrink", action="store_true", help="report mismatches as found, without shrinking")
    p.add_argument("--shard", type=shard, default=WHOLE, metavar="K/N",
                   help="search only shard K of N of the campaign's batches (every N-th batch from the K-th; the"
                        " N shards of one --seed and --examples ask exactly the inputs of the whole campaign)")
    add_jobs_option(p, "the search batches", "bgconf fuzz --engine tsgammon --examples 5000 --jobs 0 (the shrink"
                                              " of a mismatch then runs on one engine)")
    add_variant_option(p, "fuzz positions of that many checkers a side, asked")
    add_engine_options(p)
    p.set_defaults(func=cmd_fuzz)


def cmd_fuzz(args) -> int:
    try:
        engine, info = open_engine(args.engine, args.timeout, args.max_restarts)
    except CommandExit as stop:
        return stop.code
    caps = set(info.get("capabilities", []))
    asked = args.kind or ["legal_plays"]
    kinds = list(KINDS) if "all" in asked else list(dict.fromkeys(asked))
    chosen = [k for k in kinds if CAPABILITY[k] in caps]
    if refuse_undeclared_variant(engine, info, args.engine, args.variant):
        return EXIT_USAGE
    for k in kinds:
        if k not in chosen:
            err(f"skipped {k}: engine {args.engine!r} does not declare {CAPABILITY[k]}")
    label = f"{args.engine} ({info.get('name', args.engine)} {info.get('version', '')})".replace(" )", ")")
    if not chosen:
        engine.close()
        return EXIT_USAGE
    found = False
    from conformance.harness.fuzz import run_campaign
    from conformance.harness.runner import EngineStarter

    jobs, starter = jobs_wanted(args), EngineStarter(args.engine, args.timeout, args.max_restarts)
    try:
        with interruptible():
            for kind in chosen:
                print(f"bgconf fuzz: {label}, {kind}" + (f", {args.variant}" if args.variant != "standard" else "")
                      + f", seed {args.seed}, {args.examples} examples in batches of"
                      f" {args.batch}" + (f", shard {args.shard}" if args.shard.n > 1 else ""), flush=True)
                workers_given_up: list[str] = []
                camp = run_campaign(engine, args.engine, kind, args.examples, args.seed, batch=args.batch,
                                    max_mismatches=args.max_mismatches, info=info, do_shrink=not args.no_shrink,
                                    shard=args.shard, jobs=jobs, starter=starter, given_up=workers_given_up,
                                    variant=args.variant)
                given_up = getattr(engine, "given_up", None) or next(iter(workers_given_up), None)
                if given_up:  # what it found after that is the give-up, not a rule bug
                    err(f"{given_up}; the fuzz run is incomplete")
                    return EXIT_FAILED
                print(campaign_report(camp, label), flush=True)
                found = found or bool(camp.findings)
    except KeyboardInterrupt as exc:
        name = signal_name(exc)
        err(f"interrupted by {name}; the mismatches printed above stand")
        return EXIT_SIGNAL[name]
    finally:
        engine.close()
    return EXIT_FAILED if found else EXIT_OK
