"""The commands that read run reports (diff, merge, matrix) given the wrong file: one
line naming the file and line, and the documented exit code."""

import re
from pathlib import Path

import pytest

from conformance.cli import main

DATA = Path(__file__).parent / "data" / "matches"


@pytest.fixture(scope="module")
def run_report(tmp_path_factory):
    path = tmp_path_factory.mktemp("readers") / "reference.jsonl"
    assert main(["run", "--engine", "reference", "--spec", "bearoff", "--report", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def replay_report(tmp_path_factory):
    path = tmp_path_factory.mktemp("readers") / "replay.jsonl"
    record = min(DATA.glob("*.mat"))
    assert main(["replay", "--quiet", "--report", str(path), str(record)]) in (0, 1)
    return path


@pytest.mark.parametrize("command", [
    ["diff", "RUN", "REPLAY"],
    ["merge", "REPLAY", "--out", "OUT"],
    ["matrix", "RUN", "REPLAY", "--out", "OUT"],
])
def test_a_replay_report_is_named_as_such_exit_2(run_report, replay_report, tmp_path, capsys, command):
    capsys.readouterr()
    args = [str({"RUN": run_report, "REPLAY": replay_report, "OUT": tmp_path / "out"}.get(a, a))
            for a in command]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    expected = (f"bgconf: {replay_report}:1: a bgconf replay report; this command reads the reports"
                " of bgconf run --report")
    assert err == [expected], err


def test_certify_verify_names_a_replay_report_exit_2(replay_report, capsys):
    capsys.readouterr()
    assert main(["certify", "--verify", str(replay_report)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    expected = f"bgconf: --verify {replay_report}: a bgconf replay report; --verify reads the report of a certify or run"
    assert err == [expected], err


def test_matrix_with_case_files_that_do_not_load_prints_each_error_and_exits_3(run_report, tmp_path, capsys):
    bad = tmp_path / "broken.bgcase.yaml"
    bad.write_text("format: 1\ncases:\n  - id: not-an-id\n")
    capsys.readouterr()
    assert main(["matrix", str(run_report), "--out", str(tmp_path / "site"), "--cases", str(bad)]) == 3
    err = capsys.readouterr().err
    assert f"{bad}:" in err, err
    assert (tmp_path / "site" / "index.html").exists()


def test_matrix_with_a_cases_path_that_does_not_exist_is_a_usage_error(run_report, tmp_path, capsys):
    bad = tmp_path / "broken.bgcase.yaml"
    bad.write_text("format: 1\ncases:\n  - id: not-an-id\n")
    missing = tmp_path / "missing.bgcase.yaml"
    capsys.readouterr()
    assert main(["matrix", str(run_report), "--out", str(tmp_path / "site"),
                 "--cases", str(bad), "--cases", str(missing)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"bgconf: --cases {missing}: no such file or directory"], err
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("command, codes", [
    ("diff", {0, 1, 2, 130, 143}),
    ("merge", {0, 1, 2, 130, 143}),
    ("matrix", {0, 2, 3, 130, 143}),
    ("export", {0, 2, 3, 130, 143}),
    ("release", {0, 2, 3, 130, 143}),
    ("engines", {0, 2, 130, 143}),
])
def test_the_help_documents_the_exit_codes_of_the_command_itself(command, codes, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out.split("exit codes:\n", 1)[1]
    documented = {int(m) for m in re.findall(r"^  (\d+) ", text, re.MULTILINE)}
    assert documented == codes, text
    assert "engine was given up" not in text and "case failed" not in text
