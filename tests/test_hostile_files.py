"""Hostile files found by trying to break bgconf: each gives one line naming the file (and the
line and case where it applies), a documented exit code, and never a traceback or a hang."""

import json
import subprocess
import sys

import pytest

CASE = """format: 1
cases:
  - id: bg-W9ZQ
    title: "A checker on the bar enters"
    kind: legal_plays
    spec: [bar.enter-first]
    position:
      on_roll: x
      x: {points: {13: 14}, bar: 1}
      o: {points: {6: 5, 8: 3, 13: 5, 24: 2}}
    dice: [6, 5]
    expect:
      plays: [%s]
    provenance: {source: "derived", verified_by: [reference]}
"""


def bgconf(*args, cwd, timeout=120):
    return subprocess.run([sys.executable, "-m", "conformance.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout)


@pytest.mark.parametrize("moves", [5, 15, 60])
def test_a_play_of_more_than_four_moves_is_refused_at_once(tmp_path, moves):
    """Trying every order of the written moves took n! steps: 15 moves never finished."""
    (tmp_path / "long.bgcase.yaml").write_text(CASE % ('"' + " ".join(["13/7"] * moves) + '", "bar/20/14"'))
    for command in (["validate", "long.bgcase.yaml"], ["run", "--engine", "reference", "--cases", "long.bgcase.yaml"]):
        proc = bgconf(*command, cwd=tmp_path, timeout=60)
        assert proc.returncode == 3, proc.stdout + proc.stderr
        assert "Traceback" not in proc.stderr
        assert f"long.bgcase.yaml:13: bg-W9ZQ:" in proc.stdout + proc.stderr
        assert f"{moves} moves written; a play has at most four" in proc.stdout + proc.stderr


def test_a_complex_yaml_key_is_a_case_file_error(tmp_path):
    text = CASE.replace("x: {points: {13: 14}, bar: 1}", "x: {points: {? [1, 2] : 14}, bar: 1}") % '"bar/20/14"'
    (tmp_path / "key.bgcase.yaml").write_text(text)
    proc = bgconf("validate", "key.bgcase.yaml", cwd=tmp_path)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert "key.bgcase.yaml:9: not valid YAML: a key must be a plain value, not a list" in proc.stdout + proc.stderr


HOSTILE_REPORTS = {
    "deep.jsonl": "[" * 200_000 + "]" * 200_000 + "\n",
    "bignum.jsonl": '{"type": "header", "n": ' + "9" * 5001 + "}\n",
    "array.jsonl": "[1, 2]\n",
    "null.jsonl": "null\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE_REPORTS))
@pytest.mark.parametrize("command", ["diff", "verify", "expectations", "merge", "matrix"])
def test_a_hostile_report_is_exit_2_naming_the_file(tmp_path, name, command):
    (tmp_path / name).write_text(HOSTILE_REPORTS[name])
    args = {"diff": ["diff", name, name], "verify": ["certify", "--verify", name], "expectations": ["expectations", name],
            "merge": ["merge", "--out", "merged.jsonl", name], "matrix": ["matrix", name, "--out", "site"]}[command]
    proc = bgconf(*args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert name in proc.stderr
    assert not (tmp_path / "merged.jsonl").exists() and not (tmp_path / "site" / "index.html").exists()


def test_expectations_of_a_report_without_a_header_is_a_usage_error(tmp_path):
    (tmp_path / "obj.jsonl").write_text(json.dumps({"a": 1}) + "\n")
    proc = bgconf("expectations", "obj.jsonl", cwd=tmp_path)
    assert proc.returncode == 2 and "obj.jsonl:1: not a report line" in proc.stderr
