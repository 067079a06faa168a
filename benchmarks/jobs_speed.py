"""--jobs 1 against --jobs 2, side by side in one run (on demand, not in tests).

- **The suite per engine**: the wall time of ``bgconf run --engine E`` (the whole bundled suite,
  as a user runs it, engine start-up included) with ``--jobs 1`` and ``--jobs 2``, for every engine
  of ``bgconf engines`` that is installed here (OpenSpiel, which cannot be given a position, by
  ``bgconf playout --engine openspiel --games G`` instead), and the two reports compared (timings
  aside) so that a speed-up never hides a different answer.
- **Replay**: recorded plays judged a second by ``bgconf replay --jobs 1`` and ``--jobs 2`` on a
  corpus of at least ``--files`` record files: the bundled ``.mat`` records (tests/data/matches,
  cases/replays) copied again and again under shuffled names into a temporary folder. Two rates:
  by the command's wall time (Python's start, the file listing and the output check included),
  and by the report's own clock (its footer's ``wall_s``: from the first file handed out, the
  workers' start included, to the last file written).

First a control: a pure-Python loop alone, then twice the work in two processes at once; the
ratio is the most any ``--jobs 2`` can gain on this machine as it is loaded now (2.0 on two free
cores, about 1.0 when other work takes the second core).

Each command is its own process, timed from outside, ``--repeat`` times in turn (``--jobs 1``,
``--jobs 2``, ``--jobs 1``, ...); the fastest time of each is kept, the usual way to set aside
what other work on the machine took. The commands run with Python's bytecode cache on (an
inherited ``PYTHONDONTWRITEBYTECODE`` is dropped for them), as an installed bgconf runs: without
it every process, each worker included, compiles bgconf's modules again, about 0.2 s each.
The target is ``--jobs 2`` at least 1.7 times as fast as ``--jobs 1`` on the slow engines and on
replay, on a machine with two free cores.

    python benchmarks/jobs_speed.py [--engine E ...] [--files N] [--games G] [--repeat R] [--skip-suite | --skip-replay]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the engines whose suite run takes long enough for the target to apply (seconds with --jobs 1 >= this)
SLOW_S = 10.0
TARGET = 1.7
TIMINGS = ("ms", "wall_s", "started", "argv", "engine_s", "reference_s")


def bgconf(*args: str, cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    t0 = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "conformance.cli", *args], cwd=cwd, env=env, capture_output=True,
                         text=True)
    return time.perf_counter() - t0, run


def untimed(path: Path) -> list[dict]:
    return [{k: v for k, v in json.loads(x).items() if k not in TIMINGS} for x in path.read_text().splitlines()]


def installed_engines() -> list[str]:
    from conformance.engines.registry import BUILTIN, install_state

    names = []
    for name in BUILTIN:
        state = install_state(name)
        if state is None or state[0] is not None:
            names.append(name)
    return names + ["openspiel"]


def suite_times(name: str, games: int, work: Path, repeat: int = 1) -> dict:
    """The fastest wall seconds of ``repeat`` runs of the suite (or OpenSpiel's playout) with 1
    and with 2 jobs, and whether the reports of the first two agree."""
    out: dict = {"engine": name}
    reports = []
    for attempt in range(repeat):
        for jobs in (1, 2):
            report = work / f"{name}-{jobs}-{attempt}.jsonl"
            if name == "openspiel":
                args = ["playout", "--engine", "openspiel", "--games", str(games), "--seed", "1"]
            else:
                args = ["run", "--engine", name]
            seconds, run = bgconf(*args, "--jobs", str(jobs), "--report", str(report), cwd=work)
            if run.returncode not in (0, 1) or not report.exists():
                out["error"] = f"--jobs {jobs} exited {run.returncode}: {(run.stderr.strip().splitlines() or [''])[-1]}"
                return out
            out[jobs] = min(seconds, out.get(jobs, seconds))
            if attempt == 0:
                reports.append(untimed(report))
    out["same"] = reports[0] == reports[1]
    if not out["same"]:  # an engine whose own answers vary (BSD backgammon's computer player)
        differ = [a.get("id", a["type"]) + (f"[{a['scenario']}]" if a.get("scenario") else "")
                  for a, b in zip(reports[0], reports[1]) if a != b]
        out["differ"] = differ[:5]
    return out


def corpus(folder: Path, count: int, seed: int = 1) -> int:
    """At least ``count`` record files in ``folder``: the bundled .mat records copied under
    shuffled names; returns how many."""
    sources = sorted((ROOT / "tests" / "data" / "matches").glob("*.mat")) + sorted((ROOT / "cases" / "replays").glob("*.mat"))
    rng = random.Random(seed)
    copies = [src for _ in range(-(-count // len(sources))) for src in sources]
    rng.shuffle(copies)
    for i, src in enumerate(copies):
        shutil.copyfile(src, folder / f"{rng.getrandbits(48):012x}-{i:05d}.mat")
    return len(copies)


def replay_rates(files: int, work: Path, repeat: int = 1) -> dict:
    """Plays judged a second by ``bgconf replay`` with 1 and with 2 jobs on a corpus of at least
    ``files`` record files, the fastest of ``repeat`` runs each, and whether the reports of the
    first two agree."""
    records = work / "records"
    records.mkdir()
    n = corpus(records, files)
    out: dict = {"files": n}
    reports = []
    for attempt in range(repeat):
        for jobs in (1, 2):
            report = work / f"replay-{jobs}-{attempt}.jsonl"
            seconds, run = bgconf("replay", "--quiet", "--jobs", str(jobs), "--report", str(report), str(records),
                                  cwd=work)
            if not report.exists():
                out["error"] = f"--jobs {jobs} exited {run.returncode}: {run.stderr[-300:]}"
                return out
            lines = untimed(report)
            plays = lines[-1]["plays"]
            judged = json.loads(report.read_text().splitlines()[-1])["wall_s"]
            if jobs not in out or seconds < out[jobs][0]:
                out[jobs] = (seconds, plays, plays / seconds)
            out[("judging", jobs)] = min(judged, out.get(("judging", jobs), judged))
            if attempt == 0:
                reports.append(lines)
    out["same"] = reports[0] == reports[1]
    return out


def _burn(n: int) -> int:
    x = 0
    for i in range(n):
        x += i * i
    return x


def control(n: int = 10_000_000) -> float:
    """The speed-up two processes get here now on twice the work of one (see the docstring)."""
    import multiprocessing

    t0 = time.perf_counter()
    _burn(n)
    one = time.perf_counter() - t0
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        pool.map(_burn, [1, 1])  # the workers started
        t0 = time.perf_counter()
        pool.map(_burn, [n, n], chunksize=1)
        two = time.perf_counter() - t0
    return 2 * one / two


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", action="append", help="only these engines (default: every installed one)")
    parser.add_argument("--files", type=int, default=1000, help="record files in the replay corpus (default 1000)")
    parser.add_argument("--games", type=int, default=20, help="OpenSpiel playout games (default 20)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of each command, the fastest kept (default 3)")
    parser.add_argument("--skip-suite", action="store_true")
    parser.add_argument("--skip-replay", action="store_true")
    args = parser.parse_args()
    print(f"cores here: {len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()};"
          f" control: two processes do {control():.2f}x the work of one in the same time;"
          f" the fastest of {args.repeat} runs of each command", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if not args.skip_suite:
            print(f"{'engine':<16} {'--jobs 1':>9} {'--jobs 2':>9} {'speed-up':>8}  reports  target", flush=True)
            for name in args.engine or installed_engines():
                r = suite_times(name, args.games, work, args.repeat)
                if "error" in r:
                    print(f"{name:<16} {r['error']}", flush=True)
                    continue
                ratio = r[1] / r[2]
                slow = r[1] >= SLOW_S
                verdict = ("met" if ratio >= TARGET else "MISSED") if slow else "(fast engine)"
                same = "same" if r["same"] else "differ: " + ", ".join(r["differ"])
                print(f"{name:<16} {r[1]:8.1f}s {r[2]:8.1f}s {ratio:7.2f}x  {same:<7}  {verdict}", flush=True)
        if not args.skip_replay:
            r = replay_rates(args.files, work, args.repeat)
            if "error" in r:
                print(f"replay: {r['error']}")
                return
            (s1, p1, v1), (s2, p2, v2) = r[1], r[2]
            ratio = v2 / v1
            j1, j2 = r[("judging", 1)], r[("judging", 2)]
            print(f"replay of {r['files']} record files ({p1} plays), reports {'same' if r['same'] else 'DIFFER'}:")
            print(f"  command wall time: --jobs 1 {s1:.2f} s, {v1:,.0f} plays/s; --jobs 2 {s2:.2f} s,"
                  f" {v2:,.0f} plays/s; {ratio:.2f}x; target {'met' if ratio >= TARGET else 'MISSED'}")
            print(f"  report's clock:    --jobs 1 {j1:.2f} s, {p1 / j1:,.0f} plays/s; --jobs 2 {j2:.2f} s,"
                  f" {p2 / j2:,.0f} plays/s; {j1 / j2:.2f}x; target {'met' if j1 / j2 >= TARGET else 'MISSED'}")


if __name__ == "__main__":
    main()
