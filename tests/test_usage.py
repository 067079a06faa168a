"""Usage errors are usage errors: every command that runs an engine says the same one
line and exits 4 for an unknown or uninstalled engine; numbers, engine names, output
paths and selections are checked before any work (exit 2), never with a traceback."""

import pytest

import conformance.engines.registry
from conformance.cli import main

ENGINE_COMMANDS = [
    ["run", "--case", "bg-C3Z8"],
    ["certify", "--profile", "movement"],
    ["fuzz", "--examples", "10"],
    ["bisect", "start", "--depth", "1"],
    ["perft", "start", "--depth", "1"],
]


def one_line(capsys) -> str:
    out = capsys.readouterr()
    lines = [x for x in out.err.splitlines() if x.strip()]
    assert len(lines) == 1, out.err
    assert "Traceback" not in out.err + out.out
    return lines[0]


@pytest.mark.parametrize("command", ENGINE_COMMANDS, ids=lambda c: c[0])
def test_an_unknown_engine_is_exit_4_with_the_same_line_everywhere(capsys, command, tmp_path):
    args = [command[0], "--engine", "no-such-engine", *command[1:]]
    if command[0] == "certify":
        args += ["--out", str(tmp_path)]
    assert main(args) == 4
    assert one_line(capsys) == ("bgconf: unknown engine 'no-such-engine'; known: " +
                                ", ".join(sorted(conformance.engines.registry.BUILTIN)) + ", or python:module:factory")


@pytest.mark.parametrize("command", ENGINE_COMMANDS, ids=lambda c: c[0])
def test_an_uninstalled_engine_is_exit_4_with_the_install_command(capsys, monkeypatch, command, tmp_path):
    monkeypatch.setattr(conformance.engines.registry, "installed_version", lambda dist: None)
    args = [command[0], "--engine", "bgsage", *command[1:]]
    if command[0] == "certify":
        args += ["--out", str(tmp_path)]
    assert main(args) == 4
    line = one_line(capsys)
    assert line == "bgconf: engine 'bgsage' could not start: bgsage is not installed: pip install 'bgconf[bgsage]'"


def test_playout_names_the_engines_it_drives(capsys):
    assert main(["playout", "--engine", "reference"]) == 4
    assert "openspiel" in one_line(capsys)


@pytest.mark.parametrize("args", [
    ["run", "--engine", "reference", "--timeout", "0"],
    ["run", "--engine", "reference", "--timeout", "nan"],
    ["run", "--engine", "reference", "--timeout", "inf"],
    ["run", "--engine", "reference", "--timeout", "-1"],
    ["run", "--engine", "reference", "--max-restarts", "0"],
    ["run", "--engine", "reference", "--max-failures", "-1"],
    ["fuzz", "--engine", "reference", "--examples", "0"],
    ["fuzz", "--engine", "reference", "--timeout", "abc"],
    ["perft", "start", "--depth", "-1"],
    ["bisect", "--engine", "reference", "--depth", "0"],
    ["playout", "--engine", "openspiel", "--games", "0"],
    ["new-id", "-n", "0"],
])
def test_numbers_are_checked_when_parsed(capsys, args):
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "error: argument" in err and "Traceback" not in err


@pytest.mark.parametrize("engine", ["cmd:", "cmd:   ", "python:nosuch"])
def test_a_malformed_engine_name_is_exit_2(capsys, engine):
    assert main(["run", "--engine", engine, "--case", "bg-C3Z8"]) == 2
    assert one_line(capsys).startswith("bgconf: ")


def test_selections_with_no_case_are_exit_2(capsys, tmp_path):
    assert main(["run", "--engine", "reference", "--cases", str(tmp_path)]) == 2
    assert "no case files in" in one_line(capsys)
    assert main(["list", "--spec", "nosuch"]) == 2
    assert "no such spec anchor or section" in one_line(capsys)
    assert main(["list", "--tag", "nosuch"]) == 2
    assert "no case matches" in one_line(capsys)
    assert main(["run", "--engine", "reference", "--spec", "nosuch"]) == 2
    one_line(capsys)


@pytest.mark.parametrize("option", ["--report", "--junit", "--markdown", "--html", "--badge"])
def test_an_output_that_cannot_be_written_stops_before_the_engine_starts(capsys, monkeypatch, tmp_path, option):
    started = []
    real = conformance.engines.registry.start_engine
    monkeypatch.setattr(conformance.engines.registry, "start_engine", lambda *a, **k: started.append(a) or real(*a, **k))
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    assert main(["run", "--engine", "reference", "--case", "bg-C3Z8", option, str(blocker / "out")]) == 2
    line = one_line(capsys)
    assert option in line and "is not a directory" in line
    assert started == []
    assert main(["run", "--engine", "reference", "--case", "bg-C3Z8", option, "/proc/no-such/x"]) == 2
    assert "cannot write there" in one_line(capsys)
    assert main(["run", "--engine", "reference", "--case", "bg-C3Z8", option, str(tmp_path)]) == 2
    assert "is a directory" in one_line(capsys)


def test_certify_out_and_table_write_are_checked_first(capsys, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    assert main(["certify", "--engine", "reference", "--profile", "movement", "--out", str(blocker)]) == 2
    assert "--out" in one_line(capsys)
    assert main(["table", "--engine", "reference", "--write", str(tmp_path / "missing.md")]) == 2
    assert "--write" in one_line(capsys)
    (tmp_path / "no-markers.md").write_text("# nothing here\n")
    assert main(["table", "--engine", "reference", "--write", str(tmp_path / "no-markers.md")]) == 2
    assert "markers" in one_line(capsys)


def test_table_gives_the_whole_reason_an_engine_is_missing(tmp_path, monkeypatch, capsys):
    hint = "install it with: apt-get update && apt-get install -y something-long; and pip install a | b"
    (tmp_path / "absent_engine.py").write_text(f"def make():\n    raise RuntimeError({hint!r})\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    assert main(["table", "--engine", "python:absent_engine:make"]) == 0
    row = [r for r in capsys.readouterr().out.splitlines() if r.startswith("| python:absent_engine")]
    assert len(row) == 1 and row[0].endswith(hint.replace("|", "\\|") + ") |" + " |" * 9), row
    assert row[0].replace("\\|", "").count("|") == 12, row  # eleven cells, the bot column last


@pytest.mark.parametrize("args", [
    ["run", "--engine", "reference", "--cases", "MISSING"],
    ["run", "--engine", "reference", "--cases", "MISSING", "--suite-version", "RELEASE"],
    ["validate", "MISSING"],
    ["list", "--cases", "MISSING"],
    ["show", "bg-C3Z8", "--cases", "MISSING"],
    ["export", "--cases", "MISSING"],
    ["mutants", "--cases", "MISSING"],
    ["release", "--cases", "MISSING", "--out", "OUT"],
    ["matrix", "REPORT", "--out", "OUT", "--cases", "MISSING"],
], ids=lambda a: a[0] + ("-suite-version" if "--suite-version" in a else ""))
def test_a_case_path_that_does_not_exist_is_a_usage_error_naming_it(capsys, tmp_path, args):
    from conformance import __version__
    from conformance.cases import resources

    missing = tmp_path / "nowhere" / "mine.bgcase.yaml"
    report = tmp_path / "r.jsonl"
    if "REPORT" in args:
        assert main(["run", "--engine", "reference", "--case", "bg-C3Z8", "--report", str(report)]) == 0
    good = tmp_path / "good.bgcase.yaml"  # a case file that exists beside the missing one
    good.write_text((resources.cases_dir() / "movement" / "bar.yaml").read_text())
    values = {"MISSING": str(missing), "REPORT": str(report), "OUT": str(tmp_path / "out"), "RELEASE": __version__}
    argv = [values.get(a, a) for a in args]
    at = argv.index(str(missing))
    if argv[at - 1] == "--cases":
        argv[at - 1:at - 1] = ["--cases", str(good)]
    else:
        argv[at:at] = [str(good)]
    capsys.readouterr()
    assert main(argv) == 2
    line = one_line(capsys)
    option = "--cases " if args[0] != "validate" else ""
    assert line == f"bgconf: {option}{missing}: no such file or directory"
    assert not (tmp_path / "out").exists()


def test_a_case_file_with_errors_is_still_exit_3(capsys, tmp_path):
    bad = tmp_path / "bad.bgcase.yaml"
    bad.write_text("format: 1\ncases:\n  - id: not-an-id\n")
    assert main(["run", "--engine", "reference", "--cases", str(bad)]) == 3
    assert main(["validate", str(bad)]) == 3
