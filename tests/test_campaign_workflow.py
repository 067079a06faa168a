"""The campaign workflow (.github/workflows/campaign.yml, docs/campaigns.md): its commands run
here shard by shard as the matrix would run them, then the merge job's, and the merged report
is the report of one unsharded run (timings aside)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).parent.parent
WORKFLOW = ROOT / ".github" / "workflows" / "campaign.yml"
TIMINGS = ("ms", "wall_s", "started", "argv")


def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())


def expand(text: str, values: dict) -> str:
    """``${{ name }}`` expressions of ``text`` replaced by ``values[name]``; any other is an error."""
    def one(m: re.Match) -> str:
        name = m.group(1).strip()
        assert name in values, f"{WORKFLOW.name}: the test does not know ${{{{ {name} }}}}"
        return str(values[name])

    return re.sub(r"\$\{\{(.*?)\}\}", one, text)


def bgconf_steps(job: dict) -> list[str]:
    """The ``run:`` commands of a job that call bgconf (installing and printing left out)."""
    return [s["run"] for s in job["steps"] if "run" in s and re.match(r"\s*bgconf ", s["run"])]


def shell(command: str, cwd: Path, env: dict) -> None:
    run = subprocess.run(["bash", "-e", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                         timeout=900)
    assert run.returncode == 0, f"{command}\n{run.stdout[-2000:]}{run.stderr[-2000:]}"


def local_env(tmp_path: Path, flow: dict) -> dict:
    """The workflow's env, with ``bgconf`` on PATH as this checkout's command line."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "bgconf"
    shim.write_text(f"#!/bin/sh\nexec {sys.executable} -m conformance.cli \"$@\"\n")
    shim.chmod(0o755)
    return dict(os.environ, **{k: str(v) for k, v in flow["env"].items()},
                PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
                PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
                GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"))


def untimed(path: Path) -> list[dict]:
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    return [{k: v for k, v in line.items() if k not in TIMINGS} for line in lines]


def test_the_workflow_is_a_matrix_of_shards_with_artifacts_and_a_merge_job():
    flow = workflow()
    shard, merge = flow["jobs"]["shard"], flow["jobs"]["merge"]
    assert shard["strategy"]["matrix"]["shard"] == list(range(1, len(shard["strategy"]["matrix"]["shard"]) + 1))
    commands = bgconf_steps(shard)
    assert [c.split()[1] for c in commands] == ["run", "fuzz"]
    assert all("--shard ${{ matrix.shard }}/${{ strategy.job-total }}" in c for c in commands)
    uploads = [s for s in shard["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert len(uploads) == 1 and uploads[0]["if"] == "always()"
    assert merge["needs"] == "shard"
    download = next(s for s in merge["steps"] if s.get("uses", "").startswith("actions/download-artifact@"))
    assert download["with"]["merge-multiple"] is True
    assert re.fullmatch(download["with"]["pattern"].replace("*", ".*"), expand(uploads[0]["with"]["name"],
                                                                                {"matrix.shard": 3}))
    assert [c.split()[1] for c in bgconf_steps(merge)] == ["merge", "certify"]


def test_the_workflow_run_shard_by_shard_then_merged_is_one_unsharded_run(tmp_path):
    flow = workflow()
    env = local_env(tmp_path, flow)
    shard_job, merge_job = flow["jobs"]["shard"], flow["jobs"]["merge"]
    shards = shard_job["strategy"]["matrix"]["shard"]
    upload = next(s for s in shard_job["steps"] if s.get("uses", "").startswith("actions/upload-artifact@"))
    artifacts = tmp_path / "artifacts"  # what download-artifact with merge-multiple gives the merge job
    artifacts.mkdir()
    for k in shards:
        values = {"matrix.shard": k, "strategy.job-total": len(shards)}
        machine = tmp_path / f"machine-{k}"  # each matrix job has its own machine
        machine.mkdir()
        for command in bgconf_steps(shard_job):
            shell(expand(command, values), machine, env)
        for name in expand(upload["with"]["path"], values).split():
            assert (machine / name).is_file(), f"shard {k} did not write {name}, which it uploads"
            (artifacts / name).write_bytes((machine / name).read_bytes())
    for command in bgconf_steps(merge_job):
        shell(expand(command, {}), artifacts, env)
    whole = tmp_path / "whole.jsonl"
    shell(f'bgconf run --engine "$ENGINE" --profile "$PROFILE" --scenarios --report {whole} || test $? -eq 1',
          tmp_path, env)
    merged = untimed(artifacts / "campaign.jsonl")
    assert merged[1:] == untimed(whole)[1:]  # every case line and the footer
    head, one = merged[0], untimed(whole)[0]
    assert {k: v for k, v in head.items() if k != "selection"} == {k: v for k, v in one.items() if k != "selection"}
    assert head["selection"].get("profile") == one["selection"].get("profile") == flow["env"]["PROFILE"]
    fuzzed = "".join((artifacts / f"fuzz-{k}.txt").read_text() for k in shards)
    assert fuzzed.count(f"seed {flow['env']['SEED']}:") >= len(shards)
