"""Fuzz positions per second for each installed third-party engine, before and after batches, and
the pgx playout before and after (on demand, not in tests).

For each engine (the names of ``ENGINES`` that are installed; the others are listed as skipped):

- **after**: the campaign as ``bgconf fuzz`` runs it: batches of ``--batch`` requests (100), sent
  whole to an engine that declares ``"batch": true`` (pgx, gnubg), each asked alone to the others.
- **before**, for pgx: the same campaign on its one-state path (``BGCONF_PGX_SERIAL=1``: no
  ``batch`` declared, each request answered alone by pgx's ``Env.step`` on one state and one micro
  action at a time, as the adapter did before batches). The other engines have one path (gnubg
  was already sent batches): their before is their after, measured once.

Each figure is ``conformance.harness.fuzz.search`` over the same seeded examples of one kind
(``--kind``, default legal_plays), every answer judged against the reference, with no limit on
mismatches (pgx and others have known ones: the search goes on), the engine started and warmed
up first (pgx compiles at start). Beside the rate, where the time goes: the CPU time per position
of this process (example decoding, the protocol's client, the reference's answer and the
comparison) and, for the engines bgconf runs as a child process, of that process (the engine and
its adapter); and the reference's own answers alone (``Oracle.expected``), per position. "CPU-bound
pos/s" is 1000 / (the two CPU times): the rate when the two processes, which take turns, have a
core each to themselves (pipe latency left out). An engine that does not declare ``--kind`` is
measured on the first fuzzed kind it declares (BSD backgammon and gnubg-external: play_check).

The pgx playout: ``bgconf playout --engine pgx --games N`` (default 30) as a child process, wall
time, serial path then batched.

    python benchmarks/engine_speed.py [--engine NAME ...] [--seconds S] [--kind KIND] [--games N]
                                      [--no-playout]

The machine is whatever runs it: on a shared machine the wall-time figures fall with the load,
the CPU times much less.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

from conformance.engines.registry import start_engine
from conformance.harness.fuzz import CAPABILITY, Oracle, search
from conformance.harness.strategies import KINDS, decode_example, example_size

ROOT = Path(__file__).resolve().parent.parent
#: the third-party engines, in the order shown (bgconf run --engine NAME)
ENGINES = ("pgx", "tsgammon", "gammonview", "bsd-backgammon", "gnubg", "gnubg-external", "gnubg-nn", "gnubg-py",
           "bgsage", "gym-backgammon", "pygammon", "magmacrunch", "willse")
SERIAL = "BGCONF_PGX_SERIAL"


def _cpu(pid: int | None) -> float | None:
    """User + system CPU seconds of process ``pid`` so far (Linux /proc), or None."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _pid(engine) -> int | None:
    proc = getattr(engine, "_proc", None)
    popen = getattr(proc, "popen", None)
    return getattr(popen, "pid", None)


def oracle_ms(kind: str, n: int = 500) -> float:
    """The reference's answers alone: milliseconds per example of ``kind``."""
    rng = random.Random(7)
    examples = [decode_example(kind, rng.randbytes(example_size(kind))) for _ in range(n)]
    oracle = Oracle()
    t0 = time.process_time()
    for ex in examples:
        oracle.expected(ex)
    return (time.process_time() - t0) / n * 1000


def measure(name: str, kind: str, batch: int, seconds: float, serial: bool) -> dict | str:
    """One engine, one path: the search's rate and CPU per position, or why it was skipped."""
    if serial:
        os.environ[SERIAL] = "1"
    else:
        os.environ.pop(SERIAL, None)
    try:
        engine, info = start_engine(name)
    except Exception as exc:  # not installed, cannot start: skipped, with the reason
        return f"skipped: {str(exc).splitlines()[0][:120]}"
    try:
        declared = [k for k in (kind, *KINDS) if CAPABILITY[k] in info.get("capabilities", [])]
        if not declared:
            return "skipped: declares none of the fuzzed kinds"
        kind = declared[0]  # the kind asked, else the first the engine declares
        oracle = Oracle()
        # warm up (pgx compiles its batched functions at each size when a batch first needs it),
        # then a short run to size the measure
        search(engine, oracle, kind, 3 * batch if info.get("batch") else 10, 1, batch=batch, max_groups=10 ** 9)
        sizing, _ = search(engine, oracle, kind, batch if info.get("batch") else 10, 2, batch=batch,
                           max_groups=10 ** 9)
        wanted = int((sizing.rate or 1.0) * seconds)  # about ``seconds`` of work, whole batches when more than one
        examples = max(20, min(50_000, wanted // batch * batch if wanted >= batch else wanted))
        pid = _pid(engine)
        cpu0, own0, t0 = _cpu(pid), time.process_time(), time.perf_counter()
        camp, _ = search(engine, oracle, kind, examples, 0, batch=batch, max_groups=10 ** 9)
        wall = time.perf_counter() - t0
        cpu1 = _cpu(pid)
        return {"kind": kind, "positions": camp.positions, "rate": camp.positions / wall, "mismatched": camp.mismatched,
                "harness_ms": (time.process_time() - own0) / camp.positions * 1000,
                "engine_ms": (cpu1 - cpu0) / camp.positions * 1000 if cpu0 is not None and cpu1 is not None else None,
                "batch": bool(info.get("batch") or getattr(engine, "BATCHES", False))}
    finally:
        engine.close()
        os.environ.pop(SERIAL, None)


def playout(games: int, serial: bool) -> tuple[float, str]:
    """Wall seconds of ``bgconf playout --engine pgx --games N`` and its summary line."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop(SERIAL, None)
    if serial:
        env[SERIAL] = "1"
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "conformance.cli", "playout", "--engine", "pgx", "--games", str(games)],
                          capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    summary = next((line for line in proc.stdout.splitlines() if re.search(r"\bgames? played\b", line)),
                   (proc.stdout.strip().splitlines() or [f"exit {proc.returncode}"])[-1])
    return wall, summary.strip()


def _row(name: str, path: str, got) -> str:
    if isinstance(got, str):
        return f"{name:15} {path:8} {got}"
    engine = f"{got['engine_ms']:7.3f}" if got["engine_ms"] is not None else "      -"
    bound = (f"{1000 / (got['harness_ms'] + got['engine_ms']):9.0f}" if got["engine_ms"]
             else f"{'-':>9}")
    return (f"{name:15} {path:8} {got['kind']:11} {got['rate']:9.1f} {bound} {got['positions']:7d}"
            f" {got['mismatched']:6d}  {got['harness_ms']:7.3f}   {engine}  {'yes' if got['batch'] else 'no'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", action="append", help=f"engines to measure (default: {', '.join(ENGINES)})")
    parser.add_argument("--kind", default="legal_plays", choices=sorted(CAPABILITY))
    parser.add_argument("--batch", type=int, default=100, help="requests per batch after (default 100)")
    parser.add_argument("--seconds", type=float, default=10.0, help="about how long each measure runs (default 10)")
    parser.add_argument("--games", type=int, default=30, help="pgx playout games (default 30)")
    parser.add_argument("--no-playout", action="store_true", help="skip the pgx playout")
    args = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"engine speed: fuzz {args.kind}, {os.cpu_count()} CPUs, load average {load:.2f} at the start")
    print(f"the reference's answers alone: {oracle_ms(args.kind):.3f} ms per position (CPU)")
    print(f"{'engine':15} {'path':8} {'kind':11} {'pos/s':>9} {'CPU-bound':>9} {'asked':>7} {'mism.':>6}"
          f"  harness  engine  batch")
    print(f"{'':15} {'':8} {'':11} {'wall':>9} {'pos/s':>9} {'':>7} {'':>6}  CPU ms/position")
    for name in args.engine or ENGINES:
        if name == "pgx":
            before = measure(name, args.kind, args.batch, args.seconds, serial=True)
            print(_row(name, "before", before), flush=True)
            if isinstance(before, str):
                continue
        print(_row(name, "after" if name == "pgx" else "one path",
                   measure(name, args.kind, args.batch, args.seconds, serial=False)), flush=True)
    if not args.no_playout:
        for label, serial in (("before", True), ("after", False)):
            wall, summary = playout(args.games, serial)
            print(f"pgx playout, {args.games} games, {label}: {wall:.1f} s wall ({summary})", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} at the end" if hasattr(os, "getloadavg") else "")
    return 0

if __name__ == "__main__":
    sys.exit(main())
