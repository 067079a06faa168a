"""bgconf diff: two real runs compared case by case."""

import json
from pathlib import Path

import pytest

from conformance.cases import case_name
from conformance.cli import main
from conformance.reports.report import load_report

HERE = Path(__file__).parent
MUTANT = "python:engines_for_tests:no_larger_die"  # forgets spec: move.larger-die


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("PYTHONPATH", str(HERE))
    out = tmp_path_factory.mktemp("runs")
    reports = {}
    for name, engine, spec in [("reference", "reference", ["move"]), ("mutant", MUTANT, ["move"]),
                               ("narrow", "reference", ["move.larger-die"])]:
        reports[name] = out / f"{name}.jsonl"
        args = ["run", "--engine", engine, "--report", str(reports[name]), "--max-failures", "0"]
        for s in spec:
            args += ["--spec", s]
        main(args)
    mp.undo()
    return reports


def statuses(path):
    """name (``bg-7Q3K``, ``bg-7Q3K[check 3]``) -> status of a report's case lines."""
    return {case_name(c["id"], c["scenario"]): c["status"] for c in load_report(path) if c["type"] == "case"}


def test_a_rule_an_engine_forgets_shows_as_regressions_and_exit_1(runs, capsys):
    assert main(["diff", str(runs["reference"]), str(runs["mutant"])]) == 1
    out = capsys.readouterr().out
    failing = sorted(i for i, s in statuses(runs["mutant"]).items() if s == "fail")
    assert failing, "the mutant must fail some move case"
    regressed = [line.split("REGRESSED", 1)[1].strip().split("  ")[0] for line in out.splitlines()
                 if line.strip().startswith("REGRESSED")]
    assert sorted(regressed) == failing
    assert f"{len(failing)} regressed, 0 fixed, 0 changed, 0 appeared, 0 disappeared" in out
    assert out.splitlines()[0].startswith("old: reference ") and "new: " in out.splitlines()[1]


def test_the_other_way_round_they_are_fixed_and_exit_0(runs, capsys):
    assert main(["diff", str(runs["mutant"]), str(runs["reference"]), "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    failing = sorted(i for i, s in statuses(runs["mutant"]).items() if s == "fail")
    assert sorted(c["case"] for c in d["changes"] if c["change"] == "fixed") == failing
    assert d["counts"]["regressed"] == 0 and d["same_suite"]
    assert d["unchanged"] + len(d["changes"]) == len(statuses(runs["reference"]))
    assert all(c["section"] == c["spec"][0].split(".")[0] for c in d["changes"])


def test_cases_only_on_one_side_appear_or_disappear(runs, capsys):
    narrow, wide = statuses(runs["narrow"]), statuses(runs["reference"])
    assert main(["diff", str(runs["narrow"]), str(runs["reference"]), "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert sorted(c["case"] for c in d["changes"] if c["change"] == "appeared") == sorted(set(wide) - set(narrow))
    assert main(["diff", str(runs["reference"]), str(runs["narrow"]), "--format", "json"]) == 1
    d = json.loads(capsys.readouterr().out)
    assert sorted(c["case"] for c in d["changes"] if c["change"] == "disappeared") == sorted(set(wide) - set(narrow))


def test_cases_that_disappeared_make_the_diff_partial_and_not_exit_0(runs, capsys):
    gone = len(statuses(runs["reference"])) - len(statuses(runs["narrow"]))
    assert main(["diff", str(runs["reference"]), str(runs["narrow"])]) == 1
    out = capsys.readouterr().out.splitlines()
    assert f"partial: {gone} cases of OLD are not in NEW (disappeared): they were not compared" in out
    assert out[-1] == ("verdict: partial, not a full comparison: "
                       f"{gone} cases of OLD are not in NEW (disappeared): they were not compared")
    assert main(["diff", str(runs["reference"]), str(runs["reference"])]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "verdict: no regression"


def test_a_diff_against_an_incomplete_report_is_partial(runs, tmp_path, capsys):
    """A run whose engine crashes on every request is given up: its report is incomplete."""
    import shlex
    import subprocess
    import sys

    given_up = tmp_path / "given-up.jsonl"
    engine = "cmd:" + shlex.join([sys.executable, str(HERE / "fault_engine.py"), "--fault", "crash", "--every",
                                  "--log", str(tmp_path / "log")])
    subprocess.run([sys.executable, "-m", "conformance.cli", "run", "--engine", engine, "--spec", "move",
                    "--report", str(given_up), "--max-restarts", "1", "--timeout", "5"], capture_output=True)
    foot = load_report(given_up)[-1]
    assert foot["type"] == "footer" and foot["incomplete"], foot
    assert main(["diff", str(runs["reference"]), str(given_up), "--markdown", str(tmp_path / "d.md")]) == 1
    out = capsys.readouterr().out
    assert f"partial: NEW {given_up} is incomplete: the engine was given up" in out
    assert out.splitlines()[-1].startswith("verdict: ")
    assert "**Partial, not a full comparison:**" in (tmp_path / "d.md").read_text()
    cut = tmp_path / "no-footer.jsonl"  # a run that never finished: no footer
    cut.write_text("\n".join(runs["reference"].read_text().splitlines()[:-1]) + "\n")
    assert main(["diff", str(cut), str(runs["reference"])]) == 1
    assert f"partial: OLD {cut} is incomplete: no footer: the run did not finish" in capsys.readouterr().out


def test_markdown_and_json_files_for_a_ci_summary(runs, tmp_path, capsys):
    md, js = tmp_path / "d.md", tmp_path / "d.json"
    assert main(["diff", str(runs["reference"]), str(runs["mutant"]), "--markdown", str(md), "--json", str(js)]) == 1
    d = json.loads(js.read_text())
    text = md.read_text()
    assert text.startswith("## bgconf diff")
    assert f"| {d['counts']['regressed']} | 0 | 0 | 0 | 0 | {d['unchanged']} |" in text
    for c in d["changes"]:
        assert f"| **regressed** | `{c['case']}` | pass | fail |" in text
    assert "### move" in text


@pytest.mark.parametrize("content, where", [
    ("not json\n", ":1: not JSON"),
    ('{"type": "footer"}\n', ":1: not a report line"),
    ("HEADER\n{\"type\": \"case\", \"id\": \"bg-XXXX\"}\n", ":2: not a report line"),
    ("HEADER\nHEADER\n", ":2: a second header line"),
    ("", ": empty"),
])
def test_a_file_that_is_not_a_report_is_exit_2_naming_file_and_line(runs, tmp_path, capsys, content, where):
    header = (runs["reference"]).read_text().splitlines()[0]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content.replace("HEADER", header))
    assert main(["diff", str(runs["reference"]), str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"bgconf: {bad}{where}"), err
    assert main(["diff", str(tmp_path / "missing.jsonl"), str(bad)]) == 2
    assert "cannot read the report" in capsys.readouterr().err
