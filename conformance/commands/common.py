"""What every ``bgconf`` command shares: exit codes, checked numeric options, output
paths checked before any work starts, starting an engine with one message for every
way it can fail, stopping cleanly on SIGINT or SIGTERM, and loading the suite the
command line names (``--cases``, ``--spec``, ``--suite-version``) with one message per problem.

Exit codes (``EXIT_CODES`` is the text ``--help`` shows):

- 0 nothing failed; 1 a case failed, errored or timed out, the engine crashed or hung, or
  the run is incomplete;
- 2 bad command line (also a case path that does not exist, an output path that cannot
  be written or that is one of the command's inputs, a selection with no case); 3 a case
  file has errors; 4 the engine is unknown, not installed or could not start; 130
  interrupted by SIGINT (Ctrl-C); 143 stopped by SIGTERM.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator


EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_BAD_CASES, EXIT_NO_ENGINE = 0, 1, 2, 3, 4
EXIT_SIGNAL = {"SIGINT": 130, "SIGTERM": 143}
EXIT_CODES = """exit codes:
  0    every selected case passed or was unsupported (validate: every file is valid)
  1    at least one case failed, errored or timed out, the engine crashed or hung
       (even when a fresh process then answered every case), the run is incomplete
       (the engine was given up), or an expectations file is out of date (xpass,
       stale id); this wins over 3
  2    bad command line: an unknown option, a number out of range, an unknown case
       id or spec anchor, a case path that does not exist, a selection or
       directory with no case, an output path that cannot be written or is the
       same file as an input (a case file, the expectations): checked before
       anything is read or written
  3    a case file has errors (each is printed as file:line: case id: message);
       the cases that did load were still run; or the case files are not those
       of --suite-version (nothing is run)
  4    the engine is unknown, not installed, or could not be started
  130  interrupted (SIGINT, Ctrl-C): what was answered is kept, the report ends
       with a footer marked interrupted; before the first answer no output is
       replaced (every output is written beside its target, moved in at the end)
  143  stopped by SIGTERM, likewise
"""


def exit_codes(codes: dict[int, str]) -> str:
    """The ``exit codes:`` block of a command's ``--help`` for the commands that do not
    run cases (diff, merge, matrix, export, release): ``codes`` maps each code the
    command can return to what it means there; 130 and 143 (interrupted) are added.
    Shape: the same columns as ``EXIT_CODES``, wrapped at 80 characters."""
    import textwrap

    codes = {**codes, 130: "interrupted (SIGINT, Ctrl-C); no output is replaced (each is written beside its"
                                 " target and moved into place only when complete)",
             143: "stopped by SIGTERM, likewise"}
    lines = ["exit codes:"]
    for code, text in codes.items():
        wrapped = textwrap.wrap(text, 73)
        lines.append(f"  {code:<4} {wrapped[0]}")
        lines.extend(f"       {more}" for more in wrapped[1:])
    return "\n".join(lines) + "\n"


def err(message: str) -> None:
    """One line on stderr, prefixed ``bgconf:``."""
    print(f"bgconf: {message}", file=sys.stderr, flush=True)


class CommandExit(Exception):
    """Stop the command with ``code`` (the message, if any, is already printed)."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


# -- numeric options, checked by argparse ---------------------------------------------------
def positive_float(text: str) -> float:
    """A finite number > 0 (argparse type): rejects 0, -1, nan, inf."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a finite number greater than 0")
    return value


def timeout_seconds(text: str) -> float:
    """A timeout: a finite number > 0 and at most one day (argparse type)."""
    value = positive_float(text)
    if value > 86400:
        raise argparse.ArgumentTypeError(f"{text!r} is more than a day (86400 s)")
    return value


def _int(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least {least}")
    return value


def positive_int(text: str) -> int:
    """A whole number >= 1 (argparse type)."""
    return _int(text, 1)


def count(text: str) -> int:
    """A whole number >= 0 (argparse type)."""
    return _int(text, 0)


def shard(text: str):
    """``K/N`` (argparse type) -> ``shard.Shard``: this job's part of a campaign."""
    from conformance.harness.shard import Shard

    try:
        return Shard.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_engine_options(parser: argparse.ArgumentParser) -> None:
    """``--timeout`` and ``--max-restarts``, for every command that runs an engine behind
    the protocol (spec/protocol.md, Faults)."""
    parser.add_argument("--timeout", type=timeout_seconds, metavar="S",
                        help="seconds per request for engines behind the protocol (default 10, or BGCONF_TIMEOUT)")
    parser.add_argument("--max-restarts", type=positive_int, metavar="N",
                        help="give the engine up after N consecutive failures (crash, hang, protocol fault,"
                             " failed restart); the remaining cases are errored and the run is incomplete"
                             " (default 3, or BGCONF_MAX_RESTARTS)")


def add_jobs_option(parser: argparse.ArgumentParser, what: str, example: str) -> None:
    """``--jobs N`` (``conformance.harness.jobs``): ``what`` the workers share out (\"the cases\"),
    ``example`` a command line that uses it."""
    parser.add_argument("--jobs", type=count, default=1, metavar="N",
                        help=f"answer with N worker processes, each with its own engine: {what} dealt as --shard deals"
                             " them (item i to worker i %% N), the results merged back in the serial order, so the"
                             " output is that of --jobs 1 but for timings; 0 = one per core (default 1). A worker"
                             " that dies costs only the item it was answering; Ctrl-C stops every worker and keeps"
                             f" what was answered. E.g. {example}")


def jobs_wanted(args) -> int:
    """The number of workers ``args.jobs`` asks for (0: one per core; absent: 1)."""
    from conformance.harness.jobs import job_count

    return job_count(getattr(args, "jobs", 1))


# -- output paths ---------------------------------------------------------------------------
def add_variant_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--variant V``: the game ``what`` is played in (spec: variant.option), one of
    ``model.VARIANTS``; default ``standard``."""
    from conformance.model import VARIANTS

    parser.add_argument("--variant", choices=VARIANTS, default="standard",
                        help=f"{what} in this game (spec/rules.md, variant.option; default standard)")


def refuse_undeclared_variant(engine, info: dict, name: str, variant: str) -> bool:
    """Whether ``engine`` (started as ``name``, described by ``info``) must be refused
    ``variant``: True, with the engine closed and one line printed, when its ``rule_options``
    do not list it (an option an engine does not mention is offered at its default only, as
    ``harness.runner.unsupported_reason`` reads it; spec/protocol.md, rule options)."""
    from conformance.model import RULE_DEFAULTS

    if variant in (info.get("rule_options") or {}).get("variant", [RULE_DEFAULTS["variant"]]):
        return False
    engine.close()
    err(f"engine {name!r} does not declare the variant {variant} (its rule_options)")
    return True


def output_problem(path: str | Path, directory: bool = False) -> str | None:
    """Why ``path`` cannot be written, or None. Missing folders are allowed when the
    nearest existing one is a writable folder (they are created when written)."""
    try:
        return _output_problem(Path(path), str(path), directory)
    except OSError as exc:  # a name too long, a symlink loop...
        return exc.strerror or str(exc)


def _output_problem(target: Path, path: str, directory: bool) -> str | None:
    if path.strip() == "":
        return "an empty path"
    if target.is_symlink() and not target.exists():
        return f"{path} is a link to nothing"
    if target.exists():
        if directory and not target.is_dir():
            return f"{path} exists and is not a directory"
        if not directory and target.is_dir():
            return f"{path} is a directory"
        if not directory and not os.access(target, os.W_OK):
            return f"{path} is not writable"
    folder = target if directory and target.is_dir() else target.parent
    while not folder.exists():
        if folder.is_symlink():
            return f"{folder} is a link to nothing"
        if folder.parent == folder:
            break
        folder = folder.parent
    if not folder.is_dir():
        return f"{folder} is not a directory"
    try:  # try for real: os.access says yes to root even on a read-only file system
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        return f"cannot write in {folder}: {exc.strerror or exc}"
    return None


def check_outputs(outputs: dict[str, str | None], directories: tuple[str, ...] = (),
                  inputs: Iterable[tuple[str, str | Path]] = ()) -> None:
    """Check every output path (option name -> path) before any work starts; print one
    line and raise CommandExit(2) for the first that cannot be written, that two options
    share, or that is the same file as one of ``inputs`` ((label, path) pairs: the files the
    command reads, compared as real files through symbolic and hard links)."""
    from conformance.reports.files import clashes

    clash = clashes({o: p for o, p in outputs.items() if o not in directories}, inputs)
    if clash:
        option, path, label, source = clash
        err(f"{option} {path}: the same file as the input {label} {source}; an output never overwrites an input")
        raise CommandExit(EXIT_USAGE)
    seen: dict[str, str] = {}
    for option, path in outputs.items():
        if path is None:
            continue
        try:
            key = os.path.realpath(path)
        except (OSError, ValueError):
            key = str(path)
        if key in seen:
            err(f"{option} {path}: the same file as {seen[key]}; give each output its own path")
            raise CommandExit(EXIT_USAGE)
        seen[key] = option
        problem = output_problem(path, directory=option in directories)
        if problem:
            err(f"{option} {path}: cannot write there: {problem}")
            raise CommandExit(EXIT_USAGE)


def case_inputs(paths) -> list[tuple[str, Path]]:
    """The case files ``--cases`` names (a directory: the case files in it; none: the bundled
    suite's), as ``check_outputs`` inputs; only names are listed, no file is read."""
    from conformance.cases import case_files

    label = "--cases" if paths else "case file"
    try:
        return [(label, p) for p in case_files([Path(p) for p in paths] if paths else None)]
    except (OSError, ValueError):
        return [(label, Path(p)) for p in paths or ()]


def write_text(option: str, path: str | Path, text: str) -> bool:
    """Write one output file beside ``path`` and move it into place when complete
    (``reports.files``: what was there is kept until then, and kept when writing fails);
    on failure print one line and return False."""
    from conformance.reports.files import OutputError, write_file

    try:
        write_file(option, path, text)
        return True
    except OutputError as exc:
        err(str(exc))
        return False


def commit_outputs(files) -> bool:
    """Move the files of an ``reports.files.OutputSet`` into place together; on failure print
    one line (every target keeps what it had) and return False."""
    from conformance.reports.files import OutputError

    try:
        files.commit()
        return True
    except OutputError as exc:
        err(f"{exc}; no output was replaced")
        return False


# -- engines -------------------------------------------------------------------------------
def open_engine(name: str, timeout: float | None = None, max_restarts: int | None = None):
    """``registry.start_engine`` with the one-line message and exit code of each failure:
    a malformed engine name exits 2; an unknown engine, one not installed, or one that
    cannot start exits 4. Returns (engine, info)."""
    from conformance.engines.interface import BadEngineName, EngineNotFound, EngineStartError
    from conformance.engines.registry import start_engine

    try:
        return start_engine(name, timeout=timeout, max_restarts=max_restarts)
    except BadEngineName as exc:
        err(str(exc))
        raise CommandExit(EXIT_USAGE) from None
    except (EngineNotFound, EngineStartError) as exc:
        err(str(exc))
        raise CommandExit(EXIT_NO_ENGINE) from None


# -- standard output closed early ----------------------------------------------------------
class ClosedOutputGuard:
    """A text stream that outlives its reader: ``bgconf run ... | head -1``.

    Wraps ``sys.stdout``; the first write or flush that meets a closed pipe (BrokenPipeError)
    points the file descriptor at ``os.devnull`` (as the Python documentation's note on SIGPIPE
    advises), so the command prints nothing more, finishes its work and returns its own exit
    code, and the interpreter's last flush at exit has nothing to complain about. Every other
    attribute is the wrapped stream's. ``closed_early`` says whether the reader went away."""

    def __init__(self, stream):
        self._stream = stream
        self.closed_early = False

    def _reader_gone(self) -> None:
        if not self.closed_early:
            self.closed_early = True
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, self._stream.fileno())
            finally:
                os.close(devnull)

    def write(self, text: str) -> int:
        """Write ``text``; after the reader has gone, swallow it. Returns len(text)."""
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._reader_gone()
            return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._reader_gone()
            try:  # what was buffered now goes to os.devnull
                self._stream.flush()
            except BrokenPipeError:
                pass

    def __getattr__(self, name):
        return getattr(self._stream, name)


@contextmanager
def guarded_stdout() -> Iterator[ClosedOutputGuard | None]:
    """Run a command with ``sys.stdout`` wrapped in ``ClosedOutputGuard`` (restored, and
    flushed, at the end); yields the guard (None when stdout has no file descriptor, e.g.
    captured in a test, where it is left alone)."""
    stream = sys.stdout
    try:
        stream.fileno()
    except (AttributeError, OSError, ValueError):
        yield None
        return
    guard = ClosedOutputGuard(stream)
    sys.stdout = guard
    try:
        yield guard
    finally:
        guard.flush()
        sys.stdout = stream


# -- interruption ----------------------------------------------------------------------------
class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived; ``name`` says which, ``code`` is the exit code."""

    def __init__(self, name: str):
        super().__init__(name)
        self.name = name
        self.code = EXIT_SIGNAL[name]


def signal_name(exc: BaseException) -> str:
    """``SIGINT`` or ``SIGTERM`` for an interruption (a bare KeyboardInterrupt is SIGINT)."""
    return exc.name if isinstance(exc, Interrupted) else "SIGINT"


_depth = 0
#: the stop signal (its name) whose Interrupted Python dropped in the outermost block, if any
_dropped: str | None = None


@contextmanager
def interruptible() -> Iterator[None]:
    """SIGINT and SIGTERM raise Interrupted in the main thread; once one has arrived the
    next ones are ignored until the outermost block ends, so the clean-up (killing the
    engine, writing the footer) is not cut short. Nested blocks share the outermost
    one's handlers, which are restored when it ends.

    Python drops an exception raised where it cannot propagate (a weakref callback of the
    import machinery, a ``__del__``: ``sys.unraisablehook``, which prints "Exception ignored
    in"): a signal landing there would be lost, and the later ones ignored. Such a dropped
    Interrupted is noted instead of printed; ``check_interrupted`` (called between items)
    raises it again, and so does the end of the outermost block if nothing did before."""
    global _depth, _dropped

    def handler(signum, _frame):
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, signal.SIG_IGN)
        raise Interrupted(signal.Signals(signum).name)

    def unraisable(hook_args) -> None:
        global _dropped
        if isinstance(hook_args.exc_value, KeyboardInterrupt):
            _dropped = signal_name(hook_args.exc_value)
        else:
            previous_hook(hook_args)

    if _depth:
        yield
        return
    try:
        previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    previous_hook, sys.unraisablehook = sys.unraisablehook, unraisable
    _depth += 1
    _dropped = None
    try:
        yield
        check_interrupted()  # one dropped on its way ends the block as an interruption
    finally:
        _depth -= 1
        _dropped = None
        sys.unraisablehook = previous_hook
        for s, h in previous.items():
            signal.signal(s, h)


def check_interrupted() -> None:
    """Raise Interrupted (once) when a stop signal's exception was dropped by Python on its way
    in the current ``interruptible`` block (see there); else nothing. Cheap: for loops over
    items."""
    global _dropped
    if _dropped is not None:
        name, _dropped = _dropped, None
        raise Interrupted(name)


# -- the suite the command line names ---------------------------------------------
def check_case_paths(paths, option: str = "--cases") -> None:
    """Every path of ``paths`` (str; None or empty: the bundled suite) exists; else one line
    naming the first missing one (``bgconf: --cases x.yaml: no such file or directory``) and
    CommandExit(2): a missing path is a usage error, a case file with errors exits 3.
    ``option``: how the command line gave them (``""`` for positional paths)."""
    for p in paths or ():
        path = Path(p)
        if not path.exists() and not path.is_symlink():
            err(f"{option + ' ' if option else ''}{p}: no such file or directory")
            raise CommandExit(EXIT_USAGE)
        if path.is_symlink() and not path.exists():
            err(f"{option + ' ' if option else ''}{p}: a link to nothing")
            raise CommandExit(EXIT_USAGE)


def load_cases(paths, progress=None, max_bytes=None, option: str = "--cases"):
    """The ``Suite`` of ``paths`` (case files or directories, str; None or empty: the bundled
    suite), its case file errors printed one a line; ``progress(done, total, cases)`` and
    ``max_bytes`` (bytes per file) go to ``cases.load_suite``. Raises CommandExit(2) for a
    path that does not exist (``check_case_paths``; ``option`` names it) or a bad
    BGCONF_MAX_CASE_FILE_BYTES."""
    from conformance.cases import load_suite  # imported when used: the commands that read no case start without it

    check_case_paths(paths, option)
    try:
        suite = load_suite([Path(p) for p in paths] if paths else None, progress=progress, max_bytes=max_bytes)
    except ValueError as exc:
        err(str(exc))
        raise CommandExit(EXIT_USAGE) from None
    for e in suite.errors:
        print(f"error: {e}", file=sys.stderr)
    return suite


def check_anchors(spec: list[str] | None) -> None:
    """Every --spec value names a clause of spec/rules.md (``move.larger-die``) or a section
    (``move``); else one line and CommandExit(2)."""
    if not spec:
        return
    from conformance.cases import resources

    clauses = resources.spec_clauses()
    sections = sorted({a.split(".", 1)[0] for a in clauses})
    for s in spec:
        if s not in clauses and s not in sections:
            err(f"--spec {s}: no such spec anchor or section; sections: {', '.join(sections)}"
                 " (anchors: bgconf list shows them per case)")
            raise CommandExit(EXIT_USAGE)


def suite_for(args):
    """The suite of ``args.cases`` (None: the bundled suite) with at least one case, checked
    against ``args.suite_version`` when given (docs/versions.md). Raises CommandExit: 2 when a
    path of --cases does not exist or no case file was found, the suite has no case or --suite-version names no release; 3 when no
    case loaded or the files are not those of --suite-version."""
    check_case_paths(args.cases)
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
    suite = load_cases(args.cases)
    if not suite.files:
        from conformance.cases import USER_SUFFIX


        err(f"no case files in {', '.join(args.cases)} (a directory is searched for *{USER_SUFFIX} files)")
        raise CommandExit(EXIT_USAGE)
    if not suite.cases:
        err("no case could be loaded (the errors are above)" if suite.errors
             else f"no case in {', '.join(args.cases or ['the bundled suite'])}")
        raise CommandExit(EXIT_BAD_CASES if suite.errors else EXIT_USAGE)
    return suite
