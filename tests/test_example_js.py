"""The example engine in JavaScript (examples/js/engine.js) passes every movement case
through the JSON-lines protocol. Skipped without `node` on PATH, unless
BGCONF_REQUIRE_NODE=1 (then it fails instead)."""

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parent.parent / "examples" / "js" / "engine.js"
MOVEMENT_KINDS = ("legal_plays", "play_check", "apply_play")


@pytest.fixture(scope="module")
def node():
    path = shutil.which("node")
    if path is None:
        if os.environ.get("BGCONF_REQUIRE_NODE") == "1":
            pytest.fail("node is not on PATH and BGCONF_REQUIRE_NODE=1")
        pytest.skip("node is not on PATH (set BGCONF_REQUIRE_NODE=1 to make this a failure)")
    return path


@pytest.fixture(scope="module")
def report(node, tmp_path_factory):
    out = tmp_path_factory.mktemp("example-js") / "report.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "run", "--engine", f"cmd:node {shlex.quote(str(ENGINE))}", "--report", str(out)],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return lines


def test_the_example_engine_answers_the_handshake(report):
    header = report[0]
    assert header["type"] == "header"
    assert header["engine"]["name"] == "bgconf-example-js"
    assert header["engine"]["version"] == "1.0.0"
    assert sorted(header["engine"]["capabilities"]) == ["apply-play", "legal-plays", "play-check"]


def test_no_case_fails_or_errors(report):
    footer = report[-1]
    assert footer["type"] == "footer" and not footer["incomplete"]
    bad = [f"{c['id']} {c['status']}: {c.get('message', '')}" for c in report
           if c["type"] == "case" and c["status"] not in ("pass", "unsupported")]
    assert not bad, "\n".join(bad)
    assert footer["counts"]["fail"] == footer["counts"]["errored"] == footer["counts"]["timeout"] == 0


def test_every_movement_case_passes(report):
    every = [c for c in report if c["type"] == "case"]
    # the variant cases are not asked: the example declares the standard game alone
    variant = [c for c in every if c["file"].startswith("cases/variants/")]
    assert variant and {c["status"] for c in variant} == {"unsupported"}
    cases = [c for c in every if not c["file"].startswith("cases/variants/")]
    movement = [c for c in cases if c["kind"] in MOVEMENT_KINDS]
    assert all(c["status"] == "pass" for c in movement)
    passed = Counter(c["kind"] for c in movement if c["status"] == "pass")
    # every legal-plays case of the suite (96 in suite 2026.11.0, with colour twins)
    assert passed["legal_plays"] >= 90, passed
    assert passed["play_check"] > 0 and passed["apply_play"] > 0, passed
    # only the kinds the engine does not declare are unsupported
    assert {c["kind"] for c in cases if c["status"] == "unsupported"}.isdisjoint(MOVEMENT_KINDS)
