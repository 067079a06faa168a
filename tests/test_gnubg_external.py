"""GNU Backgammon's external interface as an engine (conformance/engines/adapters/gnubg_external.py):
it chooses a play for FIBS board lines sent over a local socket.

Skipped when gnubg is not installed, unless BGCONF_REQUIRE_GNUBG=1 (CI)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest
from engines_for_tests import started_or_skip

from conformance.model import Position, play_to_position


@pytest.fixture
def external():
    from conformance.engines.adapters.gnubg_external import GnubgExternalEngine

    engine = started_or_skip(lambda: GnubgExternalEngine(timeout=5), "BGCONF_REQUIRE_GNUBG", "GNU Backgammon")
    yield engine
    engine.close()


def _request(position, dice):
    return {"kind": "chosen_play", "case": "t", "rules": {}, "position": position.to_wire(), "dice": list(dice)}


def test_every_chosen_play_case_passes(external, tmp_path):
    report = tmp_path / "r.jsonl"
    proc = subprocess.run([sys.executable, "-m", "conformance.cli", "run", "--engine", "gnubg-external",
                           "--report", str(report)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = [json.loads(x) for x in report.read_text().splitlines()]
    cases = [r for r in rows if r.get("type") == "case"]
    chosen = [r for r in cases if r["kind"] == "chosen_play"]
    # the chosen-play forms of the variant cases are not asked: it declares no variant (its FIBS
    # board lines cannot carry a checker count), so they are unsupported with that reason
    standard = [r for r in chosen if not r["file"].startswith("cases/variants/")]
    assert standard and {r["status"] for r in standard} == {"pass"}
    assert all(r["status"] == "unsupported" and "variant" in r.get("message", "")
               for r in chosen if r["file"].startswith("cases/variants/"))
    # nothing but chosen plays can be asked of it
    assert {r["status"] for r in cases if r["kind"] != "chosen_play"} == {"unsupported"}
    assert rows[0]["engine"]["name"] == "gnubg-external"


def test_it_describes_itself_and_declines_other_kinds(external):
    info = external.describe()
    assert info["capabilities"] == ["chosen-play"] and info["version"].startswith("1.")
    reply = external.run({"kind": "legal_plays", "position": Position.start().to_wire(), "dice": [3, 1]})
    assert "only chooses plays" in reply["unsupported"]


def test_a_killed_gnubg_errors_one_request_and_the_next_is_answered(external):
    assert external.run(_request(Position.start("x"), (3, 1)))["result"]["play"] == "8/5 6/5"
    os.killpg(external._proc.pgid, signal.SIGKILL)
    external._proc.popen.wait(timeout=5)
    reply = external.run(_request(Position.start("x"), (3, 1)))
    assert "errored" in reply and ("closed" in reply["errored"] or "crashed" in reply["errored"]
                                   or "cannot write" in reply["errored"]), reply
    assert external._proc is None  # the whole session was discarded
    play = external.run(_request(Position.start("o"), (6, 5)))["result"]["play"]
    assert play_to_position(Position.start("o"), play) == play_to_position(Position.start("o"), "24/13")


def test_a_silent_gnubg_is_a_timeout_and_its_group_is_killed(external):
    external.run(_request(Position.start("x"), (3, 1)))
    proc = external._proc
    os.killpg(proc.pgid, signal.SIGSTOP)  # it stops answering
    try:
        reply = external.run(_request(Position.start("x"), (3, 1)))
    finally:
        try:
            os.killpg(proc.pgid, signal.SIGCONT)
        except ProcessLookupError:
            pass
    assert reply.get("timeout", "").startswith("timeout"), reply
    assert proc.popen.poll() is not None  # killed, not left behind
