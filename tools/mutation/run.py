"""Mutation run of the reference engine: how much of reference_impl/ the bundled suite pins down.

    python tools/mutation/run.py [--files movegen.py check.py ...] [--operators REGEX]
                                 [--jobs N] [--timeout SECONDS] [--report PATH] [--equivalent PATH]

cosmic-ray (``pip install 'bgconf[mutation]'``) makes every mutant of the chosen modules of
``reference_impl/`` (default: all of them, as ``tools/mutation/cosmic-ray.toml`` says) and runs
``tools/mutation/suite_on_reference.py`` on each: the whole bundled suite on the reference
engine, in one process. cosmic-ray rewrites the mutated module on disk while the suite runs, so
everything happens in scratch copies of the repository (one per job) and the work tree is never
touched. On demand only: it is no test and CI never runs it.

Prints per file and per spec section (the spec anchor nearest to the mutated line) how many
mutants were killed, timed out, survived or were incompetent, and the score, (killed + timeout)
/ (killed + timeout + survived); writes the same to --report, then every survivor with its diff,
the timeouts, the incompetent mutants and the killed ones with the first cases that kill them.
Mutants listed in --equivalent (judged equivalent by hand) are left out of the score.
tools/mutation/README.md says more.

Exit status: 0 the run completed (whatever the score); 1 the suite does not pass on the
unmutated engine, or the run failed; 2 bad options; 4 cosmic-ray is not installed; 130
interrupted.
"""

from __future__ import annotations

import argparse
import ast
import compileall
import io
import os
import re
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import tokenize
from collections import Counter
from dataclasses import dataclass
from importlib.util import find_spec
from itertools import pairwise
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CONFIG = HERE / "cosmic-ray.toml"
COPIED = ("conformance", "reference_impl", "cases", "spec", "tests/data/matches", "tests/data/answers")
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NO_TOOL, EXIT_INTERRUPTED = 0, 1, 2, 4, 130
MARK = "bgconf-mutation:"  # suite_on_reference.py's marker for a mutant it could not test
COSMIC_RAY = "import sys; from cosmic_ray.cli import main; sys.exit(main())"
OUTCOMES = ("killed", "timeout", "survived", "incompetent")


class _Usage(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2
        print(f"run.py: error: {message} (see --help)", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"not a positive integer: {text!r}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"not a positive number of seconds: {text!r}")
    return value


def _regex(text: str) -> re.Pattern:
    try:
        return re.compile(text)
    except re.error as exc:
        raise argparse.ArgumentTypeError(f"not a regular expression: {text!r} ({exc})") from None


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = _Usage(prog="run.py", description=__doc__.split("\n\n")[0],
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--files", nargs="+", metavar="NAME",
                   help="modules of reference_impl/ to mutate (e.g. movegen.py game.py); default: all")
    p.add_argument("--operators", type=_regex, metavar="REGEX",
                   help="only the mutation operators whose name matches (e.g. 'Comparison|AddNot')")
    p.add_argument("--jobs", type=_positive, default=1, metavar="N", help="mutants run at once (default 1)")
    p.add_argument("--timeout", type=_seconds, metavar="SECONDS",
                   help="seconds per mutant (default: the timeout of tools/mutation/cosmic-ray.toml)")
    p.add_argument("--report", type=Path, default=Path("mutation-report.txt"), metavar="PATH",
                   help="where the full report goes (default mutation-report.txt)")
    p.add_argument("--equivalent", type=Path, default=HERE / "equivalent.txt", metavar="PATH",
                   help="mutants judged equivalent by hand (default tools/mutation/equivalent.txt)")
    args = p.parse_args(argv)
    if args.files:
        names = []
        for name in args.files:
            name = Path(name).name if name.startswith("reference_impl/") else name
            name = name if name.endswith(".py") else name + ".py"
            if "/" in name or not (ROOT / "reference_impl" / name).is_file():
                p.error(f"--files: no module {name!r} in reference_impl/")
            names.append(name)
        args.files = sorted(set(names))
    if not args.report.parent.is_dir():
        p.error(f"--report: no directory {str(args.report.parent)!r}")
    return args


# -- spec anchors -------------------------------------------------------------------------------
_CLAUSE = re.compile(r"\b[a-z]+\.[a-z][a-z0-9-]*\b")
_SPEC_DOC = re.compile(r"\bspec/([a-z][a-z0-9-]*)\.md\b")


def spec_clauses() -> set[str]:
    """The clause anchors of spec/rules.md (``<a id="move.larger-die"></a>``)."""
    text = (ROOT / "spec" / "rules.md").read_text(encoding="utf-8")
    return set(re.findall(r'<a id="([^"]+)"></a>', text))


class Anchors:
    """Where one module of reference_impl/ names spec clauses, and the one nearest to a line.

    The anchor of line L: a clause named in a comment of L's statement (``# spec: hit.blot``);
    else the nearest such comment above L in the innermost function around L (for code outside
    functions: above L in the same top-level statement); else the first clause the docstring of
    that function, or of the next one out, names; else the first clause or spec document
    (``spec/perft.md``) that the module docstring names; else none."""

    def __init__(self, source: str, clauses: set[str]):
        self.comments: list[tuple[int, int, str]] = []  # (first line, last line of the statement, clause)
        pending: list[tuple[int, str]] = []
        first = None
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                found = [c for c in _CLAUSE.findall(tok.string) if c in clauses]
                if found and first is None:  # a comment line of its own
                    self.comments.append((tok.start[0], tok.start[0], found[0]))
                elif found:
                    pending.append((tok.start[0], found[0]))
            elif tok.type == tokenize.NEWLINE:
                self.comments.extend((first, tok.start[0], clause) for _, clause in pending)
                pending, first = [], None
            elif tok.type not in (tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING,
                                  tokenize.ENDMARKER) and first is None:
                first = tok.start[0]
        tree = ast.parse(source)
        self.scopes: list[tuple[int, int, str | None]] = []  # (first line, last line, docstring's clause)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found = [c for c in _CLAUSE.findall(ast.get_docstring(node, clean=False) or "") if c in clauses]
                start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                self.scopes.append((start, node.end_lineno, found[0] if found else None))
        self.statements = [(min([n.lineno] + [d.lineno for d in getattr(n, "decorator_list", [])]), n.end_lineno)
                           for n in tree.body]
        doc = ast.get_docstring(tree) or ""
        named = [(m.start(), m.group()) for m in _CLAUSE.finditer(doc) if m.group() in clauses]
        named += [(m.start(), m.group()) for m in _SPEC_DOC.finditer(doc)]
        self.fallback = min(named)[1] if named else None

    def nearest(self, line: int) -> str | None:
        for first, last, clause in self.comments:
            if first <= line <= last:
                return clause
        around = sorted((s for s in self.scopes if s[0] <= line <= s[1]), key=lambda s: -s[0])
        if around:
            start = around[0][0]
        else:
            start = next((a for a, b in self.statements if a <= line <= b), line)
        above = [(last, clause) for first, last, clause in self.comments if start <= first and last < line]
        if above:
            return max(above)[1]
        return next((clause for _, _, clause in around if clause), self.fallback)


def section(anchor: str | None) -> str:
    """``move.larger-die`` -> ``move``; ``spec/perft.md`` -> ``perft``; None -> ``(no anchor)``."""
    if anchor is None:
        return "(no anchor)"
    return anchor.rsplit("/", 1)[-1].split(".")[0]


# -- equivalent mutants -------------------------------------------------------------------------
_EQUIVALENT = re.compile(r"(?:reference_impl/)?(?P<file>[A-Za-z_]\w*\.py):(?P<line>\d+)(?::(?P<col>\d+))?"
                         r"\s+(?P<op>[^\s\[]+)(?:\[(?P<variant>\d+)\])?")


def load_equivalents(path: Path) -> list[tuple[str, int, int | None, str, int | None, int]]:
    """Entries ``FILE:LINE[:COLUMN] OPERATOR[[VARIANT]]  # why`` as (file, line, column, operator,
    variant, line number in the file). A missing file is no entries. Raises ValueError naming a
    bad line."""
    if not path.is_file():
        return []
    out = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = text.split("#", 1)[0].strip()
        if not text:
            continue
        m = _EQUIVALENT.fullmatch(text)
        if not m:
            raise ValueError(f"{path}:{number}: expected FILE:LINE[:COLUMN] OPERATOR[[VARIANT]], e.g. "
                             f"check.py:45:14 core/ReplaceComparisonOperator_Eq_GtE")
        op = m["op"] if "/" in m["op"] else "core/" + m["op"]
        out.append((m["file"], int(m["line"]), int(m["col"]) if m["col"] else None, op,
                    int(m["variant"]) if m["variant"] else None, number))
    return out


# -- results --------------------------------------------------------------------------------------
@dataclass
class Mutant:
    file: str  # name in reference_impl/
    line: int
    col: int  # 1-based
    operator: str
    occurrence: int  # cosmic-ray's index of the mutant among the operator's in the file
    function: str | None
    outcome: str  # one of OUTCOMES
    output: str
    diff: str
    anchor: str | None = None
    equivalent: bool = False
    variant: int = 0  # 1, 2... when the operator makes several mutants at one place (NumberReplacer)

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}:{self.col} {self.operator}" + (f"[{self.variant}]" if self.variant else "")


def classify(result) -> str:
    """killed, timeout, survived or incompetent, from a cosmic-ray WorkResult."""
    worker = getattr(result.worker_outcome, "value", result.worker_outcome)
    test = getattr(result.test_outcome, "value", result.test_outcome)
    output = result.output or ""
    if worker != "normal" or test == "incompetent":
        return "incompetent"
    if test == "survived":
        return "survived"
    if output == "timeout":
        return "timeout"
    if any(line.startswith(MARK) for line in output.splitlines()):
        return "incompetent"
    return "killed"


def _score(counts: Counter) -> str:
    found = counts["killed"] + counts["timeout"]
    total = found + counts["survived"]
    return f"{100 * found / total:.1f}%" if total else "-"


def table(title: str, groups: dict[str, list[Mutant]]) -> list[str]:
    head = ["mutants", *OUTCOMES, "equivalent", "score"]
    width = max([len(title), 5] + [len(k) for k in groups])
    lines = [f"{title:<{width}}  " + "  ".join(f"{h:>11}" for h in head)]
    everyone: list[Mutant] = []
    for key in sorted(groups, key=lambda k: (k.startswith("("), k)):
        everyone += groups[key]
        lines.append(_row(key, width, groups[key]))
    lines.append(_row("total", width, everyone))
    return lines


def _row(name: str, width: int, mutants: list[Mutant]) -> str:
    counts = Counter(m.outcome for m in mutants if not m.equivalent)
    cells = [len(mutants), *(counts[o] for o in OUTCOMES), sum(m.equivalent for m in mutants), _score(counts)]
    return f"{name:<{width}}  " + "  ".join(f"{c:>11}" for c in cells)


def _shown(path: Path) -> str:
    """``path`` relative to the current directory when it is under it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


_FAILING = re.compile(r"^  (\S+) \((?:fail|errored|timeout|unsupported)\):", re.MULTILINE)


def _n(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else many or one + 's'}"


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    return f"{minutes}m{seconds:02d}s" if minutes < 60 else f"{minutes // 60}h{minutes % 60:02d}m"


# -- the run --------------------------------------------------------------------------------------
class _Stop(Exception):
    """Ends the run with an exit status, after the message is printed."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def _copy_tree(dest: Path) -> None:
    dest.mkdir()
    for name in COPIED:
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (dest / "tools" / "mutation").mkdir(parents=True)
    shutil.copy2(HERE / "suite_on_reference.py", dest / "tools" / "mutation")
    # the harness is byte-compiled once; reference_impl never is (see PYTHONDONTWRITEBYTECODE)
    compileall.compile_dir(str(dest / "conformance"), quiet=1)


def _done(session: Path) -> int:
    try:
        with sqlite3.connect(f"file:{session}?mode=ro", uri=True, timeout=1) as db:
            return db.execute("SELECT count(*) FROM work_results").fetchone()[0]
    except sqlite3.Error:
        return -1


def run(args: argparse.Namespace) -> int:
    from cosmic_ray.config import load_config, serialize_config
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    try:
        equivalents = load_equivalents(args.equivalent)
    except ValueError as exc:
        raise _Stop(EXIT_USAGE, str(exc)) from None
    config = load_config(str(CONFIG))
    timeout = args.timeout or config.timeout
    if args.files:
        config["module-path"] = [f"reference_impl/{name}" for name in args.files]
    command = shlex.split(config.test_command)
    if command and command[0] in ("python", "python3"):
        command[0] = sys.executable
    command += ["--cpu-seconds", str(int(timeout) + 30)]
    config["test-command"] = shlex.join(command)
    config["timeout"] = timeout
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")

    with tempfile.TemporaryDirectory(prefix="bgconf-mutation-") as scratch:
        scratch = Path(scratch)
        copies = [scratch / f"copy{i}" for i in range(args.jobs)]
        for copy in copies:
            _copy_tree(copy)
        cfg = scratch / "cosmic-ray.toml"
        cfg.write_text(serialize_config(config), encoding="utf-8")

        t0 = time.monotonic()
        try:
            base = subprocess.run(command, cwd=copies[0], env=env, capture_output=True, text=True, timeout=timeout,
                                  check=False)
        except subprocess.TimeoutExpired:
            raise _Stop(EXIT_FAILED, f"the suite on the unmutated reference engine took over {timeout:g} s") from None
        baseline = time.monotonic() - t0
        if base.returncode != 0:
            tail = " | ".join((base.stdout + base.stderr).strip().splitlines()[-5:])
            raise _Stop(EXIT_FAILED, f"the suite does not pass on the unmutated reference engine: {tail}")
        cases = base.stdout.split()[1] if base.stdout.startswith("all ") else "?"
        if timeout < 5 * baseline:
            print(f"warning: the timeout ({timeout:g} s) is under 5 times the unmutated run ({baseline:.1f} s)",
                  file=sys.stderr)

        session = scratch / "session.sqlite"
        init = subprocess.run([sys.executable, "-c", COSMIC_RAY, "init", str(cfg), str(session)], cwd=copies[0],
                              env=env, capture_output=True, text=True, check=False)
        if init.returncode != 0:
            raise _Stop(EXIT_FAILED, f"cosmic-ray init failed: {(init.stderr or init.stdout).strip()[-500:]}")
        with use_db(str(session), WorkDB.Mode.open) as db:
            items = sorted(db.pending_work_items, key=lambda w: (str(w.mutations[0].module_path),
                                                                 tuple(w.mutations[0].start_pos), w.job_id))
        chosen = [w for w in items if not args.operators or args.operators.search(w.mutations[0].operator_name)]
        if not chosen:
            raise _Stop(EXIT_USAGE, "no mutant to run" + (" matches --operators" if args.operators else ""))
        chosen_ids = {w.job_id for w in chosen}
        skip = WorkResult(worker_outcome=WorkerOutcome.SKIPPED, output="not in this run")
        sessions = []
        for i in range(args.jobs):
            shard = scratch / f"session{i}.sqlite"
            shutil.copyfile(session, shard)
            mine = {w.job_id for w in chosen[i::args.jobs]}
            with use_db(str(shard), WorkDB.Mode.open) as db:
                db.set_multiple_results([w.job_id for w in items if w.job_id not in mine], skip)
            sessions.append((shard, len(items) - len(mine)))
        print(f"mutation run: {len(chosen)} mutants of {len(items)} in "
              f"{', '.join(sorted({Path(w.mutations[0].module_path).name for w in chosen}))}; "
              f"{args.jobs} job{'s' if args.jobs > 1 else ''}, timeout {timeout:g} s; "
              f"the unmutated suite ({cases} cases) takes {baseline:.1f} s", file=sys.stderr)

        t0 = time.monotonic()
        procs = []
        try:
            for copy, (shard, _) in zip(copies, sessions, strict=True):
                log = open(scratch / f"{shard.stem}.log", "w")  # noqa: SIM115 (closed with the process)
                procs.append((subprocess.Popen([sys.executable, "-c", COSMIC_RAY, "exec", str(cfg), str(shard)],
                                               cwd=copy, env=env, stdout=log, stderr=subprocess.STDOUT), log))
            shown = time.monotonic()
            while any(p.poll() is None for p, _ in procs):
                time.sleep(1)
                if time.monotonic() - shown >= 30:
                    shown = time.monotonic()
                    done = sum(max(_done(s) - skipped, 0) for s, skipped in sessions)
                    print(f"  {done}/{len(chosen)} mutants, {_duration(shown - t0)}", file=sys.stderr)
        except KeyboardInterrupt:
            for p, _ in procs:
                p.terminate()
            for p, _ in procs:
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
            raise
        finally:
            for _, log in procs:
                log.close()
        elapsed = time.monotonic() - t0
        for (p, _), (shard, _) in zip(procs, sessions, strict=True):
            if p.returncode != 0:
                tail = (scratch / f"{shard.stem}.log").read_text(errors="replace").strip()[-500:]
                raise _Stop(EXIT_FAILED, f"cosmic-ray exec failed (exit {p.returncode}): {tail}")

        results = {}
        for shard, _ in sessions:
            with use_db(str(shard), WorkDB.Mode.open) as db:
                for item, result in db.completed_work_items:
                    if item.job_id in chosen_ids and result.worker_outcome != WorkerOutcome.SKIPPED:
                        results[item.job_id] = (item, result)
        sources = {name: (copies[0] / "reference_impl" / name).read_text(encoding="utf-8")
                   for name in {Path(w.mutations[0].module_path).name for w in chosen}}

    missing = len(chosen) - len(results)
    if missing:
        raise _Stop(EXIT_FAILED, f"{missing} of {len(chosen)} mutants have no result")
    clauses = spec_clauses()
    anchors = {name: Anchors(source, clauses) for name, source in sources.items()}
    mutants = []
    for item, result in results.values():
        m = item.mutations[0]
        name = Path(m.module_path).name
        mutants.append(Mutant(name, m.start_pos[0], m.start_pos[1] + 1, m.operator_name, m.occurrence,
                              m.definition_name, classify(result), result.output or "", result.diff or "",
                              anchors[name].nearest(m.start_pos[0])))
    mutants.sort(key=lambda m: (m.file, m.line, m.col, m.operator, m.occurrence))
    for a, b in pairwise(mutants):
        if (a.file, a.line, a.col, a.operator) == (b.file, b.line, b.col, b.operator):
            a.variant = a.variant or 1
            b.variant = a.variant + 1
    stale, wrong = [], []
    for file, line, col, op, variant, number in equivalents:
        hits = [m for m in mutants if (m.file, m.line, m.operator) == (file, line, op)
                and col in (None, m.col) and variant in (None, m.variant)]
        for m in hits:  # a killed mutant is not equivalent, whatever the file says: it counts as killed
            m.equivalent = m.outcome not in ("killed", "timeout")
            if not m.equivalent:
                wrong.append(f"line {number}: {m.id} ({m.outcome})")
        if not hits and file in sources and (not args.operators or args.operators.search(op)):
            stale.append(f"line {number}: {file}:{line}{f':{col}' if col else ''} {op}"
                         + (f"[{variant}]" if variant else ""))
    write_report(args, mutants, stale, wrong, elapsed, timeout, baseline, cases)
    return EXIT_OK


def write_report(args, mutants: list[Mutant], stale: list[str], wrong: list[str], elapsed: float,
                 timeout: float, baseline: float, cases: str) -> None:
    from importlib.metadata import version

    by_file: dict[str, list[Mutant]] = {}
    by_section: dict[str, list[Mutant]] = {}
    for m in mutants:
        by_file.setdefault(m.file, []).append(m)
        by_section.setdefault(section(m.anchor), []).append(m)
    counts = Counter(m.outcome for m in mutants if not m.equivalent)
    survivors = [m for m in mutants if m.outcome == "survived" and not m.equivalent]
    n_equivalent = sum(m.equivalent for m in mutants)
    operators = f" (operators matching {args.operators.pattern!r})" if args.operators else ""
    jobs = f"{args.jobs} job{'s' if args.jobs > 1 else ''}"
    summary = [
        (f"mutation run of reference_impl/ (cosmic-ray {version('cosmic-ray')}): {len(mutants)} mutants{operators},"
         f" {jobs}, {_duration(elapsed)} ({len(mutants) / max(elapsed, 1e-9):.2f} mutants/s);"
         f" timeout {timeout:g} s per mutant; the unmutated suite: {cases} cases in {baseline:.1f} s"),
        (f"score {_score(counts)} = (killed + timeout) / (killed + timeout + survived):"
         f" {counts['killed']} killed, {counts['timeout']} timeout, {counts['survived']} survived,"
         f" {counts['incompetent']} incompetent (not counted)"),
        (f"{n_equivalent} mutants marked equivalent in {_shown(args.equivalent)} are left out of the score"
         if n_equivalent else f"no mutant is marked equivalent ({_shown(args.equivalent)})"),
        "",
        *table("file", by_file),
        "",
        *table("section", by_section),
        "(section: of the spec anchor nearest to the mutated line, see Anchors in run.py)",
    ]
    notes = []
    if wrong:
        notes.append(f"{_n(len(wrong), 'mutant')} of {_shown(args.equivalent)} killed, so not equivalent"
                     " (counted as killed; remove the entries):")
        notes += [f"  {w}" for w in wrong]
    if stale:
        notes.append(f"{_n(len(stale), 'entry', 'entries')} of {_shown(args.equivalent)} match no mutant of"
                     " this run (the code moved? update them):")
        notes += [f"  {s}" for s in stale]
    body = [f"{len(survivors)} surviving mutants (id, spec anchor, function), each with its diff:", ""]
    for m in survivors:
        body.append(f"== {m.id}  [{m.anchor or 'no anchor'}]  in {m.function or 'module'}")
        body += [line for line in m.diff.splitlines() if line != "--- mutation diff ---"]
        body.append("")
    for outcome in ("timeout", "incompetent"):
        listed = [m for m in mutants if m.outcome == outcome and not m.equivalent]
        if listed:
            body.append(f"{len(listed)} {outcome} mutants:")
            for m in listed:
                why = next((line for line in m.output.splitlines() if line.startswith(MARK)), m.output.strip())
                body.append(f"  {m.id}  [{m.anchor or 'no anchor'}]"
                            + ("" if outcome == "timeout" else f"  {why[:200]}"))
            body.append("")
    if n_equivalent:
        body.append(f"{n_equivalent} mutants marked equivalent (not counted):")
        body += [f"  {m.id}  ({m.outcome})" for m in mutants if m.equivalent]
        body.append("")
    killed = [m for m in mutants if m.outcome == "killed" and not m.equivalent]
    if killed:
        body.append(f"{len(killed)} killed mutants, each with the first cases that kill it:")
        body += [f"  {m.id}  [{m.anchor or 'no anchor'}]  {' '.join(_FAILING.findall(m.output)[:3])}" for m in killed]
    args.report.write_text("\n".join(summary + [""] + notes + ([""] if notes else []) + body) + "\n",
                           encoding="utf-8")
    print("\n".join(summary + [""] + notes))
    shown = "".join(f"\n  {m.id}  [{m.anchor or 'no anchor'}]" for m in survivors[:10])
    more = f"\n  ... and {len(survivors) - 10} more" if len(survivors) > 10 else ""
    print(f"{len(survivors)} survivors, each with its diff, in {_shown(args.report)}{shown}{more}")


def _terminate(signum, frame):
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if find_spec("cosmic_ray") is None:
        print("cosmic-ray is not installed: pip install 'bgconf[mutation]'", file=sys.stderr)
        return EXIT_NO_TOOL
    signal.signal(signal.SIGTERM, _terminate)
    try:
        return run(args)
    except _Stop as stop:
        print(f"run.py: {stop}", file=sys.stderr)
        return stop.code
    except KeyboardInterrupt:
        print("run.py: interrupted; nothing was written", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
