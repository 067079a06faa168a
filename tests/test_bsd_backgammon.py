"""BSD backgammon as an engine (conformance/engines/adapters/bsd_backgammon.py): play checks typed at
its Move: prompt and the play its computer chooses, from crafted save files.

The save-file and typing helpers are tested everywhere; the game itself is skipped when it
is not installed (apt-get install bsdgames; pip install pexpect), unless
BGCONF_REQUIRE_BSD_BACKGAMMON=1 (CI)."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from engines_for_tests import started_or_skip

from conformance.engines.adapters import EngineUnavailable
from conformance.engines.adapters.bsd_backgammon import RED, WHITE, save_file, spellings
from conformance.model import Position, play_to_position
from reference_impl import legal_plays

EXPECTATIONS = Path(__file__).parent.parent / "expectations" / "bsd-backgammon.yaml"


def _fields(data: bytes) -> dict:
    n = struct.unpack(f"={len(data) // 4}i", data)
    return {"board": n[:26], "off": n[26:28], "in": n[28:30], "dice": n[30:32], "cturn": n[32],
            "dlast": n[33], "pnum": n[34], "scores": n[35:37], "gvalue": n[37], "raflag": n[38]}


def test_the_save_file_holds_the_board_as_the_game_reads_it():
    f = _fields(save_file(Position.start("o"), (6, 5), RED))
    # the side on roll is White: negative counts on its own point numbers; Red on 25 - p
    assert f["board"][24] == -2 and f["board"][13] == -5 and f["board"][6] == -5 and f["board"][8] == -3
    assert f["board"][1] == 2 and f["board"][12] == 5 and f["board"][19] == 5 and f["board"][17] == 3
    assert f["board"][0] == f["board"][25] == 0
    assert f["off"] == (-15, -15) and f["in"] == (5, 5)  # checkers outside: off is stored less 15
    assert (f["dice"], f["cturn"], f["pnum"], f["gvalue"], f["raflag"]) == ((6, 5), WHITE, RED, 1, 0)


def test_bars_and_a_bear_off_in_the_save_file():
    pos = Position.from_dict({"on_roll": "x", "x": {"points": {3: 2, 1: 1}, "bar": 0},
                              "o": {"points": {13: 3, 6: 2}, "bar": 1}})
    f = _fields(save_file(pos, (2, 1), WHITE))
    assert f["board"][0] == 1 and f["board"][25] == 0  # Red's bar is 0
    assert f["off"] == (12, 9 - 15) and f["in"] == (3, 2)
    assert f["pnum"] == WHITE


def test_a_play_is_typed_one_die_per_move_in_every_order():
    assert spellings([(13, 5)], (5, 3)) == [[(13, 8), (8, 5)], [(13, 10), (10, 5)]]
    assert spellings([(24, 16)], (4, 4)) == [[(24, 20), (20, 16)]]
    assert spellings([(25, 22), (13, 8)], (5, 3))[0] == [(25, 22), (13, 8)]
    assert [(9, 3), (3, 0)] in spellings([(9, 0)], (6, 4))  # the 4 bears off from 3
    assert spellings([(13, 4)], (5, 3)) == []  # no dice add up to 9
    blot_on_11 = [0] * 26
    blot_on_11[11] = 1
    # 13/5 with 6-2 written without a hit: not via the blot on 11 (the game would hit it)
    assert spellings([(13, 5)], (6, 2), blot_on_11) == [[(13, 7), (7, 5)]]
    # a hit by the first move clears the point for the second
    assert spellings([(13, 11), (11, 5)], (6, 2), blot_on_11)[0] == [(13, 11), (11, 5)]


@pytest.fixture(scope="module")
def bsd():
    from conformance.engines.adapters.bsd_backgammon import BsdBackgammonEngine

    engine = started_or_skip(lambda: BsdBackgammonEngine(), "BGCONF_REQUIRE_BSD_BACKGAMMON", "BSD backgammon")
    yield engine
    engine.close()


def _check(engine, position, dice, play):
    from conformance.model import written_moves

    return engine.run({"kind": "play_check", "position": position.to_wire(), "dice": list(dice),
                       "play": play, "steps": [list(s) for s in written_moves(play)]})


def test_it_checks_plays_at_its_own_prompt(bsd):
    start = Position.start("x")
    assert _check(bsd, start, (3, 1), "8/5 6/5") == {"result": {"legal": True}}
    assert _check(bsd, start, (3, 1), "8/4")["result"]["legal"] is True  # 8/5/4 (or 8/7/4): one checker
    refused = _check(bsd, start, (6, 5), "24/18 24/19")["result"]  # 19 is o's 6-point
    assert refused["legal"] is False and "Destination occupied" in refused["message"]
    assert _check(bsd, start, (6, 5), "24/13")["result"]["legal"] is True  # one checker, both dice
    o_start = Position.start("o")
    assert _check(bsd, o_start, (6, 4), "24/18 13/9")["result"]["legal"] is True


def test_its_computer_chooses_a_legal_play_or_none(bsd):
    start = Position.start("o")
    play = bsd.run({"kind": "chosen_play", "position": start.to_wire(), "dice": [6, 2]})["result"]["play"]
    assert play_to_position(start, play) in legal_plays(start, (6, 2))
    closed = Position.from_dict({"on_roll": "x", "x": {"points": {13: 1}, "bar": 1},
                                 "o": {"points": {24: 2, 13: 5, 6: 4, 5: 2, 3: 2}}})
    assert bsd.run({"kind": "chosen_play", "position": closed.to_wire(), "dice": [5, 3]}) == {"result": {"play": None}}


def test_what_it_cannot_be_asked_is_unsupported(bsd):
    assert set(bsd.describe()["capabilities"]) == {"play-check", "chosen-play"}
    reply = bsd.run({"kind": "legal_plays", "position": Position.start().to_wire(), "dice": [3, 1]})
    assert "only check a play or choose one" in reply["unsupported"]
    passed = bsd.run({"kind": "play_check", "position": Position.start().to_wire(), "dice": [3, 1],
                      "play": "none", "steps": []})
    assert "pass cannot be typed" in passed["unsupported"]


def test_a_program_that_is_not_the_game_errors_the_request_and_leaves_nothing(tmp_path):
    from conformance.engines.adapters.bsd_backgammon import BsdBackgammonEngine

    try:
        fake = BsdBackgammonEngine(program=sys.executable, timeout=2)
    except EngineUnavailable as exc:
        pytest.skip(str(exc))
    reply = fake.run({"kind": "chosen_play", "position": Position.start().to_wire(), "dice": [3, 1]})
    assert "errored" in reply or "timeout" in reply, reply


def test_a_killed_terminal_program_takes_its_children_with_it():
    pytest.importorskip("pexpect")
    from conformance.engines.process import TerminalProcess

    proc = TerminalProcess(["/bin/sh", "-c", "sleep 300 & echo started; sleep 300"])
    assert proc.expect(["started"], timeout=10) == 0
    group = proc.pgid
    proc.kill()
    time.sleep(0.2)
    alive = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if int(stat[3]) == group and stat[0] != b"Z":
                alive.append(entry)
    assert not alive, f"processes of the killed session still running: {alive}"


def test_typing_and_closing_a_terminal_program_wait_for_nothing():
    """pexpect's own pauses (50 ms before each write, 100 ms after closing the terminal) are off:
    a program under a terminal is typed to after its prompt, and its session is killed before
    the terminal is closed. A line typed as soon as the prompt shows still reaches the
    program, every time."""
    pytest.importorskip("pexpect")
    from conformance.engines.process import TerminalProcess

    proc = TerminalProcess(["/bin/sh", "-c", 'for i in 1 2 3 4 5; do printf "Move: "; read line;'
                            ' echo "got <$line>"; done'])
    try:
        assert proc.child.delaybeforesend is None
        assert proc.child.ptyproc.delayafterclose < 0.01 and proc.child.ptyproc.delayafterterminate < 0.01
        for i in range(5):
            assert proc.expect(["Move: "], timeout=10) == 0
            proc.send(f"13-8,{i}\n")
            assert proc.expect([r"got <13-8,\d>"], timeout=10) == 0
            assert proc.match.group(0) == f"got <13-8,{i}>"
    finally:
        proc.kill()


def test_the_suite_on_bsd_backgammon_with_its_known_bugs(bsd, tmp_path):
    """Every case it can answer: the rule bugs listed in the expectations file fail (xfail),
    everything else passes, and the bar case of the public report is among the passes."""
    report = tmp_path / "r.jsonl"
    # two workers, each with its own game at its own terminal: the same report as one (test_jobs)
    # in about half the time
    proc = subprocess.run([sys.executable, "-m", "conformance.cli", "run", "--engine", "bsd-backgammon",
                           "--expectations", str(EXPECTATIONS), "--report", str(report), "--jobs", "2"],
                          capture_output=True, text=True, timeout=2400)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    rows = [json.loads(x) for x in report.read_text().splitlines() if '"type": "case"' in x or '"case"' in x]
    cases = [r for r in rows if r.get("type") == "case"]
    status = {(r["id"], r["scenario"]): r["status"] for r in cases}
    assert {s for s in status.values()} <= {"pass", "xfail", "unsupported"}
    # its computer player's choice in the forms listed with varies: true changes between runs
    from conformance.harness.expectations import load

    varies = load(EXPECTATIONS).varies
    assert varies == {f"{c}[chosen-play]" for c in ("bg-X6DC", "bg-2TC4", "bg-A7VF", "bg-7H7A")}
    steady = {key: s for key, s in status.items() if f"{key[0]}[{key[1]}]" not in varies}
    assert sum(s == "xfail" for s in steady.values()) == 24  # 8 cases as written, 16 derived play checks
    for key in [("bg-5D3K", "chosen-play"), ("bg-J6YF", ""), ("bg-9W99", "chosen-play"), ("bg-QEQ2", "")]:
        assert status[key] == "pass", key
