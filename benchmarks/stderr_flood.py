"""What an engine's stderr and a long reply line cost the harness (on demand, not in tests).

1. ``bgconf run --profile movement`` through tests/fault_engine.py answering quietly,
   then the same engine writing 1 MB to stderr before every answer
   (``--fault stderr-flood --every``), and that engine with its stderr sent to /dev/null
   (what writing the flood costs the engine alone); best of N each, interleaved, and the
   ratio (the harness drains stderr continuously into a bounded tail: the target is 2x or less).
2. One request answered with a 10 MB reply line (``--fault long-line``) against the
   same request answered normally, through the engine interface (``get_engine("cmd:...")``),
   best of N: reading the line should take a few hundred ms at most.

    python benchmarks/stderr_flood.py [--repeat N]

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "tests" / "fault_engine.py"


def engine(*args: str) -> str:
    return "cmd:" + shlex.join([sys.executable, str(ENGINE), *args])


def run_profile(cmd: str, timeout: float) -> tuple[float, int, str]:
    """Wall seconds of one ``bgconf run``, its exit code and its summary line."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "conformance.cli", "run", "--engine", cmd,
                           "--profile", "movement", "--timeout", str(timeout)],
                          capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    summary = next((x for x in reversed(proc.stdout.splitlines()) if " cases: " in x), proc.stdout[-200:])
    return wall, proc.returncode, summary


def stderr_flood(repeat: int, timeout: float) -> None:
    flood_args = [sys.executable, str(ENGINE), "--fault", "stderr-flood", "--every"]
    engines = {
        "quiet": engine("--fault", "none"),
        "stderr flood": engine("--fault", "stderr-flood", "--every"),
        # the engine's own cost of writing the flood, with nobody reading it
        "flood to null": "cmd:sh -c " + shlex.quote("exec " + shlex.join(flood_args) + " 2>/dev/null"),
    }
    best = dict.fromkeys(engines, float("inf"))
    for _ in range(repeat):
        for name, cmd in engines.items():
            wall, code, summary = run_profile(cmd, timeout)
            if code == 0:  # every case passed: a run that went wrong is no timing
                best[name] = min(best[name], wall)
            print(f"  {name:<13} {wall:7.2f} s  exit {code}  {summary}" + ("" if code == 0 else "  (not counted)"))
    ratio = best["stderr flood"] / best["quiet"]
    print(f"movement profile: quiet {best['quiet']:.2f} s, 1 MB of stderr per request "
          f"{best['stderr flood']:.2f} s: ratio {ratio:.2f}x (target <= 2x); the same flood written to"
          f" /dev/null {best['flood to null']:.2f} s ({best['stderr flood'] / best['flood to null']:.2f}x)")


def long_line(repeat: int) -> None:
    from conformance.cases import load_suite
    from conformance.engines.registry import get_engine

    os.environ.setdefault("BGCONF_TIMEOUT", "60")
    case = next(c for c in load_suite().cases if c.kind == "legal_plays")
    request = case.request()
    times = {}
    for name, args in (("normal reply", ("--fault", "none")),
                       ("10 MB reply", ("--fault", "long-line", "--every"))):
        eng = get_engine(engine(*args))
        try:
            eng.describe()
            best = float("inf")
            for _ in range(repeat):
                t0 = time.perf_counter()
                reply = eng.run(dict(request))
                best = min(best, time.perf_counter() - t0)
            kind = next((k for k in ("result", "unsupported", "errored", "timeout") if k in reply), "?")
            times[name] = best
            print(f"  {name:<13} {best * 1000:8.1f} ms  ({kind})")
        finally:
            eng.close()
    print(f"one 10 MB reply line: {times['10 MB reply'] * 1000:.0f} ms against "
          f"{times['normal reply'] * 1000:.1f} ms for a normal reply (target: a few hundred ms; this includes"
          f" the engine writing 10 MB)")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--repeat", type=int, default=3, help="runs of each, best kept (default 3)")
    p.add_argument("--timeout", type=float, default=60, help="bgconf --timeout per request (default 60)")
    p.add_argument("--skip-flood", action="store_true", help="only time the long reply line")
    args = p.parse_args()
    if not args.skip_flood:
        stderr_flood(args.repeat, args.timeout)
    long_line(args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
