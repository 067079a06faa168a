"""Plays judged per second over the bundled real matches, parse included (on demand, not in tests).

Two ways of judging the same plays, side by side in one run, each from the file text:

- **bgconf replay**: ``conformance.harness.record_reader.read_mat`` (bgconf's one ``.mat`` grammar,
  sides by column, onto the record model) and ``record_judge.judge_record`` (every
  play, no play, cube action and result stepped through the rules by ``reference_impl.record``).
- **gammonview's own check**: the library's parser (``gvformat.mat_parser.parse_mat_file``),
  its board tracking (``gvformat.game_reconstructor.reconstruct_decisions``) and its legality
  check (``gvformat.legality.is_play_legal``) on every checker play, the moves read by
  ``conformance.model.parse_play`` for both.

Rounds interleave the two and each one's best round by CPU time (the process's own, which\na busy machine inflates less than wall time) is kept, both shown; the target is at least 20,000
plays/s for bgconf replay and never slower than the library's own check.

    python benchmarks/replay_speed.py [--repeat N] [FILE_OR_FOLDER ...]
"""

from __future__ import annotations

import argparse
import gc
import time
from pathlib import Path

from conformance.model import parse_play, written_moves
from conformance.harness.record_judge import judge_record, record_files
from conformance.harness.record_reader import read_mat

DEFAULT = Path(__file__).resolve().parent.parent / "tests" / "data" / "matches"


def bgconf_replay(texts: list[tuple[str, str]]) -> int:
    written_moves.cache_clear()  # each round reads every play's text afresh
    plays = 0
    for name, text in texts:
        plays += judge_record(read_mat(text, name)).plays
    return plays


def gammonview_check(texts: list[tuple[str, str]]) -> int:
    from gvformat.game_reconstructor import find_crawford_game_index, reconstruct_decisions
    from gvformat.legality import is_play_legal
    from gvformat.mat_parser import parse_mat_file

    plays = 0
    for _name, text in texts:
        data = parse_mat_file(text)
        crawford = find_crawford_game_index(data["games"], data["match_length"], data["crawford_rule"])
        for i, game in enumerate(data["games"]):
            recon = reconstruct_decisions(game, data["match_length"], data["player1"], data["player2"],
                                          is_crawford=i == crawford)
            for dec in recon["decisions"]:
                if dec["kind"] != "checker":
                    continue
                board = dec["board"]  # the mover's frame: + mover, - opponent, 25 the mover's bar
                mine = [max(0, n) for n in board[:25]] + [board[25]]
                mine[0] = 0
                opp = [0] * 26
                for p in range(1, 25):
                    if board[p] < 0:
                        opp[p] = -board[p]
                pairs = [(a, b) for points, _m in parse_play(dec["notation"] or "")
                         for a, b in zip(points, points[1:])]
                is_play_legal(mine, opp, dec["dice"][0], dec["dice"][1], pairs)
                plays += 1
    return plays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=[str(DEFAULT)])
    parser.add_argument("--repeat", type=int, default=5, help="rounds (best kept, default 5)")
    args = parser.parse_args()
    files, problems = record_files(args.paths)
    for p in problems:
        print(f"skipped {p.file}: {p.message}")
    texts = [(str(f), f.read_text(encoding="utf-8")) for f in files if f.suffix == ".mat"]
    contenders = {"bgconf replay (reference)": bgconf_replay, "gammonview is_play_legal": gammonview_check}
    best: dict[str, tuple[float, int]] = {}
    for _ in range(args.repeat):
        for name, run in contenders.items():
            gc.collect()
            t0, c0 = time.perf_counter(), time.process_time()
            n = run(texts)
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
            if name not in best or dc < best[name][1]:
                best[name] = (dt, dc, n)
    print(f"{len(texts)} records, best of {args.repeat} rounds (by CPU time), parse included")
    for name, (dt, dc, n) in best.items():
        print(f"  {name:<28} {n:6d} plays: {n / dc:9,.0f} plays/s CPU ({dc * 1000:7.1f} ms),"
              f" {n / dt:9,.0f} plays/s wall ({dt * 1000:7.1f} ms)")


if __name__ == "__main__":
    main()
