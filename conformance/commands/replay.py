"""``bgconf replay``: judge every play, cube action and result of recorded matches by the rules.

The command: its options, printing, exit codes, ``--report``, ``--write-cases`` and the
questions put to an ``--engine``. A record is read into the record model by
``conformance.harness.record_reader`` (``.mat`` by its one grammar, sides by column; ``.sgf``
through GNU Backgammon's conversion) and judged by ``conformance.harness.record_judge``, which plays
it through the rules with the reference alone (``reference_impl.record.step``, the one way a
record is played):

- every play: legal, or illegal with the reason, the clause, the board, the dice, the recorded
  play and the legal plays nearest to it (``reference_impl.record.recorded_play``);
- every "no play": legal only when the roll has no legal play (spec: move.pass);
- every cube action: ``reference_impl.game.cube_action`` (spec: cube.*), the Crawford game
  from the score history (``reference_impl.record.crawford_states``);
- every result: the recorded winner and points against the final position and cube
  (``game_result``; a drop: the value before the double; a resignation: a single, gammon or
  backgammon with the cube, ``game.result_points``), the Jacoby rule where the header says
  so; a result capped at what the winner needed to win the match is recognised
  (``record.counted_points``); and each game's starting score against the previous result
  (spec: match.score).

A line that cannot be read is an error with ``file:line``; a play that breaks a movement rule
as written is an illegal event (``reference_impl.record.as_written_reason``) and its game goes
on from where its moves lead; where they cannot be made, or after an unreadable line, the game's
remaining events are counted ``unjudged``; the other games and files go on. A second match in a
file is an error of the file at the line where it begins.

Report (``--report FILE.jsonl``): one JSON object per line, ``{"type": "replay-header", ...}``,
then per file its ``event`` lines (every illegal event, every record error, every note) and a
``file`` line with its counts, then a ``footer`` with the totals and ``interrupted``.

Page (``--html FILE.html``): one self-contained HTML page drawn from the same lines
(``reports.render.html_replay``): a section per record file, each illegal event with the board
before it, the recorded play as arrows and the nearest legal plays each on a small board.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from typing import Any

from conformance.harness.record_judge import (
    FileResult, Finding, counted, event_text, file_summary, record_files, replay_file, replay_files, segments_text,
)
from conformance.harness.questions import Question
from conformance.model import effective_rules, parse_play

from reference_impl.game import cube_action, game_result
from reference_impl.record import recorded_play


# -- questions to an engine ---------------------------------------------------------------------
def _question_yaml(q: Question, case_id: str) -> str | None:
    """The question as a complete case (format 1), its expectation from the reference; None when
    the reference has no answer for it."""
    from reference_impl import legal_plays

    from conformance.harness.found_cases import case_text

    rules = effective_rules(q.rules)
    where = f"{Path(q.file).name} game {q.game}" + (f" move {q.move}" if q.move is not None else "")
    source = f"bgconf replay of {q.file}, game {q.game}" + (f", move {q.move}" if q.move is not None else "") \
        + f" (line {q.line})"
    kw: dict[str, Any] = {}
    if q.kind == "legal_plays":
        plays = legal_plays(q.position, q.dice)
        kw["expected"] = plays
        title = f"{where}: {q.position.on_roll} to play {q.dice[0]}-{q.dice[1]}"
    elif q.kind == "play_check":
        kw["expected"] = recorded_play(q.position, q.dice, q.steps).verdict
        title = f"{where}: {q.play} with {q.dice[0]}-{q.dice[1]}"
    elif q.kind == "game_result":
        kw["expected"] = game_result(q.position, q.cube, q.match, rules)
        title = f"{where}: the result of the game"
    else:
        kw["expected"] = cube_action(q.on_roll, q.moment, q.cube, q.match, q.action["by"], q.action["type"], rules)
        title = f"{where}: {q.action['by']} {q.action['type']}"
    return case_text(q, case_id, title, source=source, comment=f"A position of a recorded match ({where}).", **kw)


def question_cases(questions: list[Question], salt: str) -> list[tuple[Question, str]]:
    """Each question with its case text (fresh ids, the same for the same questions)."""
    from conformance.harness.found_cases import fresh_ids

    ids = fresh_ids(len(questions), f"replay:{salt}")
    out = []
    for q, cid in zip(questions, ids):
        text = _question_yaml(q, cid)
        if text:
            out.append((q, text))
    return out


def load_question_cases(pairs: list[tuple[Question, str]]):
    """The cases of the texts, loaded by ``conformance.cases.load_file`` (so a case prints
    exactly as it loads); returns [(question, text, case)] and the load errors."""
    from conformance.harness.found_cases import load_case_text

    if not pairs:
        return [], []
    body = "format: 1\ncases:\n" + "".join(text.split("cases:\n", 1)[1] for _q, text in pairs)
    cases, errors = load_case_text(body, "replay.bgcase.yaml")
    by_id = {c.id: c for c in cases}
    out = []
    for q, text in pairs:
        cid = re.search(r"- id: (bg-\w{4})", text).group(1)
        if cid in by_id:
            out.append((q, text, by_id[cid]))
    return out, errors


# -- the command ---------------------------------------------------------------------------------
EPILOG = """exit codes:
  0    every play, cube action and result of every record is legal
  1    at least one illegal event (each printed in full), or with --engine at least
       one mismatch (each printed as a ready YAML case); this wins over 3
  2    bad command line, an output path that cannot be written, an output that
       is the same file as a record it reads, or a --shard with no record file
  3    a record (or a line of it) cannot be read, or a file holds a second match:
       printed as file:line and the reason; its other games and the other files
       were still judged
  4    the engine is unknown, not installed, or could not be started
  130  interrupted (SIGINT); the files judged so far are kept, the report ends
       with a footer marked interrupted (before the first file: nothing replaced)
  143  stopped by SIGTERM, likewise

formats: .mat (Jellyfish, as GNU Backgammon, eXtreme Gammon, BGBlitz, HedgeHog, the
game sites (Backgammon Galaxy, Backgammon Studio, DailyGammon) and the
FIBS clients export it, every dialect read by one grammar; whose
action it is comes from its column, never from a name); .sgf (GNU Backgammon's,
converted to .mat by GNU Backgammon when it is installed). A folder stands for its
records; a file is one match.

a play that breaks a movement rule as written (a backwards step, a die outside 1..6)
is an illegal event, and its game is followed from where its moves lead; where they
cannot be made, or a line cannot be read, the game's remaining events are counted
"unjudged" in the summary.

--html FILE.html writes one page of the run (a section per record file): each illegal
event with the board before it, the recorded play drawn as arrows (when its moves can
be made on that board) and the legal plays nearest to it, each on a small board. Like
--report, it is written beside FILE and moved into place when the run ends; an output
that is one of the records read is refused (exit 2).

examples:
  bgconf replay tests/data/matches/*.mat
  bgconf replay --report replay.jsonl matches/
  bgconf replay --html replay.html matches/
  bgconf replay --engine gnubg --write-cases found.bgcase.yaml tests/data/matches/
  bgconf replay --jobs 2 --report replay.jsonl matches/   (two worker processes)
"""


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "replay", help="judge every play, cube action and result of recorded matches (.mat, .sgf)",
        description="Read recorded matches and judge each play, 'no play', cube action and game result with the"
                    " reference engine: a per-file summary, every illegal event in full (clause, board, dice, the"
                    " recorded play and the legal plays nearest to it). With --engine, every position of every"
                    " record is also put to the engine and each mismatch printed as a ready YAML case.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    from conformance.commands.common import add_engine_options, shard
    from conformance.harness.shard import WHOLE

    p.add_argument("files", nargs="+", metavar="FILE", help=".mat or .sgf records, or folders of them")
    p.add_argument("--report", metavar="FILE.jsonl", help="write every event and each file's counts as JSON Lines")
    p.add_argument("--html", metavar="FILE.html",
                   help="write one HTML page of the run: a section per record file, each illegal event with the"
                        " board before it (dice, both sides' checkers), the recorded play drawn as arrows when its"
                        " moves can be made on that board, and the legal plays nearest to it each on a small board")
    p.add_argument("--engine", help="also ask this engine about every position (reference, gnubg, cmd:...,"
                                    " python:module:factory): legal plays, the recorded play, results, cube actions")
    p.add_argument("--write-cases", metavar="OUT.yaml",
                   help="write a case file with a case for every illegal play and \"no play\" and, with --engine,"
                        " every mismatch")
    p.add_argument("--quiet", action="store_true", help="print the summaries only, not each event in full")
    p.add_argument("--shard", type=shard, default=WHOLE, metavar="K/N",
                   help="replay only shard K of N of the record files (every N-th file from the K-th, in the"
                        " sorted order of the files named): the N shards replay exactly the files of the whole run;"
                        " a shard with no file is refused")
    from conformance.commands.common import add_jobs_option

    add_jobs_option(p, "the record files (in the order named)", "bgconf replay --jobs 0 --report replay.jsonl"
                    " matches/ (with --engine, each worker asks its own engine)")
    add_engine_options(p)
    p.set_defaults(func=cmd_replay)


def _header(args) -> dict:
    from datetime import datetime, timezone

    from conformance import __version__

    return {"type": "replay-header", "suite_version": __version__, "engine": args.engine,
            "started": datetime.now(timezone.utc).isoformat(timespec="seconds"), "files": list(args.files),
            **({"shard": str(args.shard)} if args.shard.n > 1 else {})}


def cmd_replay(args) -> int:
    """Check the outputs (none may be a record it reads), then replay into an output set. With
    ``--jobs`` and no ``--engine``, the workers are started first (``_early_workers``)."""
    from conformance.commands.common import CommandExit, check_outputs
    from conformance.reports.files import OutputSet

    early = _early_workers(args)
    try:
        files, problems = record_files(args.files)
        try:
            check_outputs({"--report": args.report, "--write-cases": args.write_cases, "--html": args.html},
                          inputs=[("record", f) for f in files])
        except CommandExit as stop:
            return stop.code
        with OutputSet() as outputs:  # moved into place together at the end
            return _replay(args, outputs, files, problems, early)
    finally:
        if early is not None:
            early.close()  # workers the replay did not take (nothing after Jobs.run)


def _early_workers(args):
    """With ``--jobs N`` (N > 1) and no ``--engine``: N workers started now (``Jobs.start``;
    forked where that is safe, with no Python start of their own), before the record files are
    listed and the outputs checked, so that their start overlaps that work; each takes its share
    of the files when the replay hands them out (a worker left without a file ends). None
    otherwise (with an engine, the command first starts one itself to see that it starts)."""
    from functools import partial

    from conformance.commands.common import jobs_wanted
    from conformance.harness.jobs import Jobs

    count = jobs_wanted(args)
    if count <= 1 or args.engine:
        return None
    jobs = Jobs(partial(_judge_share, None), count)
    jobs.start(fork=True)  # no output opened, no engine nor thread started yet
    return jobs


def _replay(args, outputs, files: list[Path], problems: list[Finding], early=None) -> int:
    """The replay of ``files`` (``record_files``: each once; ``problems`` the names that are
    no record) into ``outputs``, by ``early`` (``_early_workers``) when started; returns the exit
    code."""
    from conformance.commands.common import (
        EXIT_BAD_CASES, EXIT_FAILED, EXIT_OK, EXIT_SIGNAL, EXIT_USAGE, CommandExit, check_interrupted, commit_outputs,
        err, interruptible, open_engine, signal_name,
    )
    from conformance.engines.process import stop_signals_held
    from conformance.reports.files import OutputError
    from conformance.reports.report import ReportWriter

    if args.shard.n > 1:  # shard K of N of the files in sorted order, as run --shard takes the suite's
        ordered = sorted(files, key=str)
        files = [f for i, f in enumerate(ordered) if args.shard.owns(i)]
        if ordered and not files:
            err(f"--shard {args.shard}: this shard has no record file: {counted(len(ordered), 'file')} named;"
                f" give N at most {len(ordered)}")
            return EXIT_USAGE
    engine = info = None
    if args.engine:
        try:
            engine, info = open_engine(args.engine, args.timeout, args.max_restarts)
        except CommandExit as stop:
            return stop.code
    from conformance.commands.common import jobs_wanted

    jobs = min(jobs_wanted(args), len(files))
    try:
        report = ReportWriter(outputs.stream("--report", args.report) if args.report else None)
    except OutputError as exc:
        err(str(exc))
        if engine:
            engine.close()
        return EXIT_USAGE
    report.write(_header(args))
    done: list[FileResult] = []
    mismatches: list[str] = []
    wanted: list[str] = []
    t0 = time.perf_counter()
    interrupted = None

    def each(r: FileResult, answers=None) -> None:
        check_interrupted()  # a stop whose exception was dropped on its way (interruptible)
        if engine is not None and answers is None:
            answers = _answers(engine, r)  # waits on the engine: an interruption stops it here
        with stop_signals_held():  # a file's lines are written whole, an interruption after them
            for e in r.events:
                report.write(e.to_json())
                if not args.quiet or e.level == "error":
                    print(event_text(e) if e.level != "note" else f"note {e.where()}: {e.message}",
                          file=sys.stderr if e.level == "error" else sys.stdout, flush=True)
            if engine is not None:
                mismatches.extend(_ask(args.engine, r, report, wanted, answers))
            elif args.write_cases:
                wanted.extend(_illegal_cases(r))
            report.write(r.to_json())
            print(file_summary(r), flush=True)
            done.append(r)

    for e in problems:
        report.write(e.to_json())
        print(f"error: {e.where()}: {e.message}", file=sys.stderr)
    try:
        with interruptible():
            if jobs > 1:
                _replay_jobs(args, engine, files, jobs, each, early)
            else:
                replay_files(files, question=Question if engine is not None else None, each=each)
    except KeyboardInterrupt as exc:
        interrupted = signal_name(exc)
        err(f"interrupted by {interrupted}; the files judged so far are kept")
    finally:
        if engine is not None:
            engine.close()
    totals = {k: sum(getattr(r, k) for r in done) for k in ("games", "plays", "no_plays", "cube_actions",
                                                          "illegal", "errors", "unjudged")}
    totals["errors"] += len(problems)
    report.write({"type": "footer", "files": len(done), **totals, "mismatches": len(mismatches),
                  "wall_s": round(time.perf_counter() - t0, 3), "interrupted": interrupted or False})
    report.close()
    print(f"{counted(len(done), 'file')}: {counted(totals['games'], 'game')}, {counted(totals['plays'], 'play')},"
          f" {counted(totals['cube_actions'], 'cube action')}, {counted(totals['illegal'], 'illegal event')},"
          f" {counted(totals['errors'], 'record error')}" + (f", {totals['unjudged']} unjudged" if totals['unjudged'] else "")
          + (f", {counted(len(mismatches), 'mismatch', 'mismatches')} with {args.engine}" if engine is not None else ""))
    ok_written = True
    if interrupted and not done:  # nothing judged: every output stays as it was
        outputs.discard()
        if args.report or args.write_cases or args.html:
            err("nothing was judged: no output was written")
        return EXIT_SIGNAL[interrupted]
    if args.write_cases:
        body = "format: 1\ncases:\n" + "".join(t.split("cases:\n", 1)[1] for t in wanted) if wanted else \
            "format: 1\ncases: []\n"
        try:
            outputs.text("--write-cases", args.write_cases, body)
        except OutputError as exc:
            err(str(exc))
            ok_written = False
    if args.html and ok_written:
        from conformance.reports.render import html_replay

        try:
            outputs.text("--html", args.html, html_replay(report.lines))
        except OutputError as exc:
            err(str(exc))
            ok_written = False
    if report.error:
        err(f"--report {args.report}: {report.error}")
        ok_written = False
    if ok_written:
        ok_written = commit_outputs(outputs)
    else:
        outputs.discard()
        err("no output was replaced")
    if ok_written and args.write_cases:
        print(f"wrote {counted(len(wanted), 'case')} to {args.write_cases}")
    if ok_written and args.html:
        print(f"wrote the page of the run to {args.html}")
    if interrupted:
        return EXIT_SIGNAL[interrupted]
    if totals["illegal"] or mismatches:
        return EXIT_FAILED
    if totals["errors"]:
        return EXIT_BAD_CASES
    return EXIT_OK if ok_written else EXIT_USAGE


def _illegal_cases(r: FileResult) -> list[str]:
    """A play_check case for every illegal play and "no play" of a file (the reference's verdict),
    but a play written with a die outside 1..6 or a backward move, which no case can state."""
    illegal = [e for e in r.events if e.level == "illegal" and e.kind in ("play", "no-play")
               and e.reason not in ("not-a-roll", "backward-move")]
    questions = [Question("play_check", file=r.file, game=e.game, move=e.move, line=e.line, position=e.position,
                          dice=e.dice, play=None, steps=None) for e in illegal]
    out = []
    for q, e in zip(questions, illegal):
        q.steps = _steps_of(e)
        q.play = segments_text(q.steps)
    for _q, text in question_cases(questions, r.file + ":illegal"):
        out.append(text)
    return out


def _steps_of(e: Finding) -> list[tuple[int, int]]:
    chains = parse_play(e.recorded)
    return [(a, b) for points, _m in chains for a, b in zip(points, points[1:])]


def _replay_jobs(args, engine, files: list[Path], jobs: int, each, early=None) -> None:
    """The files judged (and with ``engine``, asked) by ``jobs`` worker processes, dealt as
    shards deal them, or by ``early``, the workers ``_early_workers`` started; ``each(result,
    answers)`` gets them in the order named. ``engine`` (the parent's) is closed first: each
    worker starts its own. A file whose worker died is one with an error event."""
    from functools import partial

    from conformance.harness.jobs import Jobs
    from conformance.harness.runner import EngineStarter

    starter = None
    if engine is not None:
        engine.close()
        starter = EngineStarter(args.engine, args.timeout, args.max_restarts)

    def lost(k: int, message: str):
        shown = str(files[k])
        result = FileResult(shown)
        result.events.append(Finding("error", shown, 0, message))
        return result, ([], [], []) if starter else None

    def deliver(_k: int, answer) -> None:
        each(*answer)

    if early is not None:
        early.deliver, early.lost = deliver, lost
        early.run(files)
    else:
        Jobs(partial(_judge_share, starter), jobs, deliver, lost).run(files)


def _judge_share(starter, share: list[tuple[int, Path]], emit, stats: dict) -> None:
    """A worker's part of ``_replay_jobs``: each file judged and, with ``starter`` (an
    ``EngineStarter``), its questions put to the worker's own engine (``_answers``)."""
    from conformance.harness.jobs import close_despite_stop

    engine = starter() if starter else None
    try:
        for k, path in share:
            result = replay_file(path, Question if engine is not None else None)
            emit(k, (result, _answers(engine, result) if engine is not None else None))
    finally:
        if engine is not None:
            close_despite_stop(engine.close)  # the campaign's stop waits until the engine's group is gone


def _answers(engine, r: FileResult):
    """A file's questions as cases put to the engine (``runner.run_cases``, compared by
    ``compare``): ([(question, case text, case)], the load errors, the results)."""
    from conformance.harness.runner import run_cases

    pairs = question_cases(r.questions, r.file)
    loaded, errors = load_question_cases(pairs)
    results = run_cases(engine, [c for _q, _t, c in loaded], batch_size=200)
    return loaded, errors, results


def _ask(engine_name: str, r: FileResult, report, wanted: list[str], answers) -> list[str]:
    """Print each mismatch of a file's ``answers`` (``_answers``) as a ready case; return the
    mismatching case texts."""
    from conformance.reports.report import case_line

    loaded, errors, results = answers
    for e in errors:
        print(f"warning: a question case does not load: {e}", file=sys.stderr)
    bad = []
    for (q, text, case), res in zip(loaded, results):
        if res.status in ("fail", "errored", "timeout"):
            line = case_line(res, engine_name)
            line["record"] = {"file": q.file, "game": q.game, "move": q.move, "line": q.line}
            report.write(line)
            print(f"MISMATCH {q.file}:{q.line} (game {q.game}" + (f", move {q.move}" if q.move is not None else "")
                  + f") {q.kind}: {engine_name} {res.status}: {res.outcome.message}")
            print("---\n" + text.rstrip("\n") + "\n---", flush=True)
            bad.append(text)
    wanted.extend(bad)
    wanted.extend(_illegal_cases(r))
    unsupported = sum(res.status == "unsupported" for res in results)
    if unsupported:
        print(f"{r.file}: {unsupported} of {len(results)} questions unsupported by {engine_name}")
    return bad
