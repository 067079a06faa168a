"""Python engines as the README describes them: any object with describe() and kind
methods works with python:module:factory, isolated or not; one without describe() is
refused at start with exit 4 and one line."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.engines.interface import EngineStartError, as_engine
from conformance.engines.registry import get_engine

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "python"


def bgconf(*args):
    env = dict(os.environ, PYTHONPATH=str(EXAMPLE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "conformance.cli", *args], capture_output=True, text=True,
                          env=env, timeout=600)


def test_the_readme_recipe_is_certified_for_movement(tmp_path):
    proc = bgconf("certify", "--engine", "python:my_engine:MyEngine", "--profile", "movement",
                  "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "**Certified** for profile `movement`" in proc.stdout
    assert "restarts" not in proc.stderr and "Traceback" not in proc.stderr


def test_an_object_without_describe_is_refused_at_start_with_one_line():
    proc = bgconf("run", "--engine", "python:my_engine:NotAnEngine", "--case", "bg-C3Z8")
    assert proc.returncode == 4, proc.stdout + proc.stderr
    lines = [x for x in proc.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "no describe() method" in lines[0], proc.stderr


def test_in_process_the_object_is_wrapped(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    engine = get_engine("python:my_engine:MyEngine", isolated=False)
    reply = engine.run({"kind": "legal_plays", "case": "c", "rules": {},
                        "position": {"on_roll": "x", "x": {"points": {"6": 15}, "bar": 0, "off": 0},
                                     "o": {"points": {"6": 15}, "bar": 0, "off": 0}}, "dice": [6, 6]})
    assert reply["result"]["plays"] == [[[6, 0], [6, 0], [6, 0], [6, 0]]]
    assert "unsupported" in engine.run({"kind": "cube_action"})
    with pytest.raises(EngineStartError, match="no describe"):
        as_engine(object(), "python:x:y")
