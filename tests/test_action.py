"""The GitHub Actions composite action (action.yml): its certify step, run here by bash
exactly as a runner would run it, with the inputs substituted and GITHUB_OUTPUT and
GITHUB_STEP_SUMMARY pointing at files. The setup-python and install steps are the
runner's own business and are only checked for what they install."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
EXPRESSION = re.compile(r"\$\{\{\s*([a-z.\-_]+)\s*\}\}")


def steps():
    return {s["id"]: s for s in ACTION["runs"]["steps"]}


def substitute(text, inputs):
    def value(m):
        scope, _, name = m.group(1).partition(".")
        assert scope == "inputs", m.group(0)
        return inputs.get(name, ACTION["inputs"][name].get("default", ""))

    return EXPRESSION.sub(value, text)


def run_step(step, inputs, tmp_path):
    env = {k: substitute(str(v), inputs) for k, v in step.get("env", {}).items()}
    out, summary = tmp_path / "github_output", tmp_path / "step_summary"
    env.update(PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", HOME=str(tmp_path),
               GITHUB_OUTPUT=str(out), GITHUB_STEP_SUMMARY=str(summary),
               PYTHONPATH=str(ROOT / "tests"))
    proc = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=tmp_path, env=env, capture_output=True, text=True)
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines()) if out.exists() else {}
    return proc, outputs, summary.read_text() if summary.exists() else ""


def test_every_expression_names_a_declared_input_and_the_outputs_come_from_the_certify_step():
    text = (ROOT / "action.yml").read_text()
    names = {m.group(1) for m in EXPRESSION.finditer(text)}
    for name in names:
        scope, _, rest = name.partition(".")
        if scope == "inputs":
            assert rest in ACTION["inputs"], name
        else:
            assert name in {"github.action_path"} or name.startswith("steps.certify.outputs."), name
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["outputs"]) == {"certified", "report", "certificate"}
    install = steps()["install"]
    assert install["env"]["BGCONF_SOURCE"] == "${{ github.action_path }}"  # bgconf as pinned by the action's ref
    assert 'pip install --quiet "${BGCONF_SOURCE}${BGCONF_EXTRAS}"' in install["run"]


def test_a_certified_engine_passes_and_writes_the_summary(tmp_path):
    proc, outputs, summary = run_step(steps()["certify"], {"engine": "reference"}, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert outputs["certified"] == "true"
    assert summary.startswith("## bgconf ") and "**Certified** for profile `movement`" in summary
    report = tmp_path / outputs["report"]
    assert report.name == "reference-movement.jsonl" and report.exists()
    assert (tmp_path / outputs["certificate"]).read_text().startswith("<!doctype html>")


def test_an_engine_that_breaks_a_rule_fails_the_step_with_the_summary(tmp_path):
    inputs = {"engine": "python:engines_for_tests:no_larger_die", "out": "certs"}
    proc, outputs, summary = run_step(steps()["certify"], inputs, tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert outputs["certified"] == "false"
    assert "**Not certified** for profile `movement`" in summary and "### Failures" in summary
    assert Path(outputs["report"]).parent.name == "certs"


def test_expectations_with_links_reach_the_summary(tmp_path):
    link = "https://example.org/mutant/issues/1"
    proc, outputs, _ = run_step(steps()["certify"], {"engine": "python:engines_for_tests:no_larger_die"}, tmp_path)
    known = subprocess.run([sys.executable, "-m", "conformance.cli", "expectations", str(tmp_path / outputs["report"])],
                           capture_output=True, text=True, check=True).stdout
    data = yaml.safe_load(known)
    for entry in data["xfail"].values():
        entry["link"] = link
    exp = tmp_path / "known.yaml"
    exp.write_text(yaml.safe_dump(data))
    (tmp_path / "step_summary").unlink()
    proc, outputs, summary = run_step(steps()["certify"], {"engine": "python:engines_for_tests:no_larger_die",
                                                            "expectations": str(exp)}, tmp_path)
    assert proc.returncode == 1  # known failures are not a certificate
    assert f"([bug report]({link}))" in summary and "### Known failures (xfail)" in summary


@pytest.mark.parametrize("profile", ["nonsense"])
def test_a_bad_input_fails_the_step_and_says_so_in_the_summary(tmp_path, profile):
    proc, outputs, summary = run_step(steps()["certify"], {"engine": "reference", "profile": profile}, tmp_path)
    assert proc.returncode == 2 and outputs["certified"] == "false"
    assert "wrote no summary (exit 2)" in summary
