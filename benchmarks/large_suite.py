"""Loading a large case suite: wall time and peak memory (on demand, not in tests).

Writes FILES case files of PER_FILE valid cases each (default 1,000 x 100 =
100,000 cases) into a temporary directory, then checks them the way
``bgconf validate --no-reference DIR`` does, in a fresh Python process so that
its peak resident memory (``ru_maxrss``) is the loader's alone, not the
generator's.

Half of the cases (``--generated``) are legal_plays cases on generated
positions (the fuzzers' position layouts: contact, race, bar, bear-off...) and
random dice, whose expected plays come from the reference engine
(``reference_impl.legal_plays``); the others are copies of the bundled suite's
cases (every kind), re-id'd with fresh ids of the bgconf id alphabet. Every
case loads without error.

    python benchmarks/large_suite.py [--files N] [--per-file N] [--generated SHARE] [--seed N] [--keep DIR]

Targets on a 2-core machine: under 30 s and under 500 MB for 100,000 cases.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from conformance.cases import ID_ALPHABET

TARGET_SECONDS = 30.0
TARGET_MB = 500.0
TITLE_MAX = 120  # the schema's maxLength of a title


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _flow(value) -> str:
    """A YAML flow-style rendering of a loaded case value (dicts, lists, scalars)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_flow(k)}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return str(value)
    return _q(str(value))


def _case_text(raw: dict) -> str:
    lines = []
    for j, (key, value) in enumerate(raw.items()):
        lines.append(f"{'  - ' if j == 0 else '    '}{key}: {_flow(value)}")
    return "\n".join(lines) + "\n"


def _fresh_ids(count: int, rng: random.Random, taken: set[str]) -> list[str]:
    out = []
    for n in rng.sample(range(len(ID_ALPHABET) ** 4), count + len(taken)):
        chars = []
        for _ in range(4):
            n, r = divmod(n, len(ID_ALPHABET))
            chars.append(ID_ALPHABET[r])
        cid = "bg-" + "".join(chars)
        if cid not in taken:
            out.append(cid)
            if len(out) == count:
                return out
    raise RuntimeError("not enough fresh ids")


def _bundled_cases() -> tuple[list[dict], set[str]]:
    from conformance.cases import resources
    from conformance.cases import case_files
    from conformance.cases.read import _compose

    raws: list[dict] = []
    for path in case_files():
        data = _compose(path.read_text(encoding="utf-8"))[1]
        raws.extend(data["cases"])
    taken = {r["id"] for r in raws} | set(resources.retired_ids())
    return raws, taken


def _generated_case(rng: random.Random, cid: str) -> dict:
    import yaml

    from conformance.harness.found_cases import position_yaml
    from conformance.model import format_play
    from conformance.harness.strategies import POSITION_BYTES, decode_position
    from reference_impl import legal_plays

    position, scenario = decode_position(bytes(rng.randrange(256) for _ in range(POSITION_BYTES)))
    dice = (rng.randint(1, 6), rng.randint(1, 6))
    found = legal_plays(position, dice)
    plays = [format_play(position, steps) for steps in found.values() if steps]
    if dice[0] == dice[1]:
        spec = ["move.doubles"]
    elif position.mover[25]:
        spec = ["bar.enter-first"]
    elif not any(position.mover[7:25]):
        spec = ["bearoff.all-home"]
    else:
        spec = ["move.maximum-dice"]
    if not plays:
        spec = ["move.pass"]
    if len(plays) > 40:  # a long list: the count and a few of the plays
        expect = {"count": len(plays), "includes": rng.sample(plays, 3)}
    else:
        expect = {"plays": plays}
    return {
        "id": cid,
        "title": f"{dice[0]}-{dice[1]} in a {scenario} position: {len(plays)} legal plays",
        "kind": "legal_plays",
        "spec": spec,
        "position": yaml.safe_load(position_yaml(position)),
        "dice": list(dice),
        "expect": expect,
        "provenance": {"source": "benchmarks/large_suite.py (generated)", "verified_by": ["reference"]},
    }


def generate(root: Path, files: int, per_file: int, seed: int, generated: float = 0.5) -> int:
    """Write the case files, a share ``generated`` of their cases generated legal_plays
    cases, the others copies; returns the total size in bytes."""
    rng = random.Random(seed)
    bundled, taken = _bundled_cases()
    ids = iter(_fresh_ids(files * per_file, rng, taken))
    total = 0
    for f in range(files):
        parts = [f"format: 1\ndescription: \"benchmark file {f + 1} of {files}\"\ncases:\n"]
        for i in range(per_file):
            cid = next(ids)
            if rng.random() >= generated:
                raw = dict(rng.choice(bundled), id=cid)
                title = f"{raw['title']} (copy {f}.{i})"
                raw["title"] = title if len(title) <= TITLE_MAX else raw["title"]
            else:
                raw = _generated_case(rng, cid)
            parts.append(_case_text(raw))
        path = root / f"bench-{f:04d}.bgcase.yaml"
        path.write_text("".join(parts), encoding="utf-8")
        total += path.stat().st_size
    return total


MEASURE = """
import resource, sys, time
from conformance.cli import main
start, cpu = time.perf_counter(), time.process_time()
code = main(["validate", "--no-reference", sys.argv[1]])
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"RESULT exit={code} seconds={seconds:.2f} cpu={cpu:.2f} peak_mb={peak:.0f}")
"""


def measure(root: Path) -> tuple[int, float, float, float, str]:
    """Run ``bgconf validate --no-reference ROOT`` in a fresh process: (exit code,
    wall seconds, CPU seconds, peak resident MB, its summary line)."""
    proc = subprocess.run([sys.executable, "-c", MEASURE, str(root)], capture_output=True, text=True, check=False)
    lines = proc.stdout.splitlines()
    result = [line for line in lines if line.startswith("RESULT ")]
    if not result:
        raise SystemExit(f"the measurement failed:\n{proc.stdout}\n{proc.stderr}")
    fields = dict(item.split("=") for item in result[-1].split()[1:])
    summary = next((line for line in lines if " valid case" in line), "")
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    if errors:
        print("\n".join(errors[:5]), file=sys.stderr)
    return int(fields["exit"]), float(fields["seconds"]), float(fields["cpu"]), float(fields["peak_mb"]), summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--per-file", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--generated", type=float, default=0.5, metavar="SHARE",
                        help="the share of generated legal_plays cases, the rest being copies (default 0.5)")
    parser.add_argument("--keep", metavar="DIR", help="write the files into DIR and keep them")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bgconf-bench-") as tmp:
        root = Path(args.keep) if args.keep else Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        size = generate(root, args.files, args.per_file, args.seed, args.generated)
        print(f"generated {args.files * args.per_file} cases in {args.files} files"
              f" ({size / 1e6:.1f} MB, largest file {max(p.stat().st_size for p in root.iterdir()) / 1e3:.0f} kB)"
              f" in {time.perf_counter() - start:.1f} s")
        code, seconds, cpu, peak, summary = measure(root)
    print(summary)
    print(f"bgconf validate --no-reference: {seconds:.1f} s ({cpu:.1f} s of CPU), peak memory {peak:.0f} MB"
          f" (targets: {TARGET_SECONDS:.0f} s, {TARGET_MB:.0f} MB)")
    ok = code == 0 and seconds < TARGET_SECONDS and peak < TARGET_MB
    print("within the targets" if ok else "NOT within the targets" + ("" if code == 0 else f" (exit {code})"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
