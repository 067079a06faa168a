"""bgconf table: the README's certification table and its bug table, reproduced row for row.

The certification table is generated for a couple of fast engines (the reference, and the
JavaScript example when node is installed) and compared with the README's committed rows for
those engines: same content, same order; ``--write`` changes nothing outside the markers, and
each engine's progress is printed on stderr as it runs. The bug table (``--bugs``, one row per
root cause) is generated for every engine it has rows of, each installed one run on the whole
suite in every scenario, and compared with the README's rows of that engine.
"""

import os
import shutil
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.reports.table import (BUGS_END, BUGS_HEAD, BUGS_START, END, EXAMPLE_ENGINE, HEAD, START, bug_table,
                                       certification_table, example_available, readme_rows)

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
needs_node = pytest.mark.skipif(shutil.which("node") is None and not os.environ.get("BGCONF_REQUIRE_NODE"),
                                reason="node is not installed (apt-get install nodejs)")


def committed(*names: str) -> list[str]:
    """The README's rows of these engines, in the README's order."""
    return [row for row in readme_rows(README.read_text()) if row.split(" | ")[0].lstrip("| ") in names]


@needs_node
def test_the_rows_of_the_reference_and_the_javascript_example_are_the_readmes(monkeypatch):
    monkeypatch.chdir(ROOT)  # the example's command is relative to the checkout
    table = certification_table([EXAMPLE_ENGINE, "reference"])  # given in the other order
    lines = table.splitlines()
    assert lines[:2] == HEAD
    assert lines[2:] == committed("reference", EXAMPLE_ENGINE)
    assert [row.split(" | ")[0] for row in lines[2:]] == ["| reference", f"| {EXAMPLE_ENGINE}"]


def test_the_javascript_example_is_a_row_of_the_default_table_from_a_checkout():
    assert example_available(ROOT) == (shutil.which("node") is not None)
    assert any(row.startswith(f"| {EXAMPLE_ENGINE} |") for row in readme_rows(README.read_text()))


def test_an_engine_that_only_chooses_a_play_comes_after_those_that_list_legal_plays():
    """gnubg-external (capability chosen-play: 757 cases, the chosen-play form of each
    legal_plays case too) follows the engines that list legal plays, as in the README."""
    from engines_for_tests import started_or_skip

    from conformance.engines.registry import get_engine

    started_or_skip(lambda: get_engine("gnubg-external"), "BGCONF_REQUIRE_GNUBG", "GNU Backgammon").close()
    lines = certification_table(["gnubg-external", "reference"]).splitlines()
    assert lines[2:] == committed("reference", "gnubg-external")
    assert lines[2].startswith("| reference |") and lines[3].startswith("| gnubg-external |")


@needs_node
def test_table_write_reproduces_the_committed_rows_and_keeps_the_rest_of_the_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    copy = tmp_path / "README.md"
    text = README.read_text()
    copy.write_text(text)
    assert main(["table", "--engine", EXAMPLE_ENGINE, "--engine", "reference", "--write", str(copy)]) == 0
    written = copy.read_text()
    assert written.split(START)[0] == text.split(START)[0]
    assert written.split(END)[1] == text.split(END)[1]
    assert readme_rows(written) == committed("reference", EXAMPLE_ENGINE)
    err = capsys.readouterr().err.splitlines()
    assert err == [f"bgconf: table: [1/2] {EXAMPLE_ENGINE}: running the suite...",
                   f"bgconf: table: [1/2] {EXAMPLE_ENGINE}: {_counts(EXAMPLE_ENGINE)}",
                   "bgconf: table: [2/2] reference: running the suite...",
                   f"bgconf: table: [2/2] reference: {_counts('reference')}"], err


def _counts(name: str) -> str:
    """The progress line's counts of an engine, read from its README row."""
    cells = committed(name)[0].strip("| ").split(" | ")
    return f"{cells[2]} cases, {cells[3]} pass, {cells[4]} fail, {cells[5]} errored, {cells[6]} unsupported"


# The bug table: one row per root cause of each engine's failures (bgconf table --bugs).

def committed_bugs(name: str) -> list[str]:
    """The README's bug table rows of one engine, in the README's order."""
    rows = readme_rows(README.read_text(), BUGS_START, BUGS_END, BUGS_HEAD)
    return [row for row in rows if row.split(" | ")[0].lstrip("| ") == name]


def bug_engines() -> list[str]:
    """The engines that have rows in the README's bug table, in its order."""
    rows = readme_rows(README.read_text(), BUGS_START, BUGS_END, BUGS_HEAD)
    return list(dict.fromkeys(row.split(" | ")[0].lstrip("| ") for row in rows))


def _installed_or_skip(name: str) -> None:
    """Skip unless engine ``name`` is installed (a pip or npm engine by its install state, a
    program by starting it); fail instead when its BGCONF_REQUIRE_... flag is 1."""
    from engines_for_tests import started_or_skip

    from conformance.engines.registry import get_engine, install_state

    flag = {"gnubg": "BGCONF_REQUIRE_GNUBG", "tsgammon": "BGCONF_REQUIRE_NODE",
            "bsd-backgammon": "BGCONF_REQUIRE_BSD_BACKGAMMON"}.get(name, "BGCONF_REQUIRE_PIP_ENGINES")
    state = install_state(name)
    if state is not None and state[0] is None:
        if os.environ.get(flag) == "1":
            pytest.fail(f"{name} is required here ({flag}=1): {state[1]}")
        pytest.skip(f"{name} is not installed ({state[1]})")
    started_or_skip(lambda: get_engine(name), flag, name).close()


def test_the_bug_table_names_the_engines_whose_failures_it_shows():
    assert readme_rows(README.read_text(), BUGS_START, BUGS_END, BUGS_HEAD), "the README has no bug table rows"
    assert {"pgx", "gammonview", "tsgammon", "bsd-backgammon"} <= set(bug_engines())


#: engines whose bug-table rows take a whole run in every scenario that is too slow for the default
#: test run (BSD backgammon: about 3,500 questions typed at a terminal, 12 minutes); their failures
#: are pinned by their own whole-suite test against their expectations file
#: (tests/test_bsd_backgammon.py), and BGCONF_BUG_TABLE_ALL=1 checks their rows here too
SLOW_ROWS = {"bsd-backgammon"}


@pytest.mark.parametrize("name", [n for n in bug_engines()
                                  if n not in SLOW_ROWS or os.environ.get("BGCONF_BUG_TABLE_ALL") == "1"])
def test_every_row_of_the_bug_table_is_what_the_engine_answers_today(name):
    """The engine's rows, regenerated from a run of the whole suite in every scenario with the
    checkout's expectations files, are the README's rows: same root causes, same order."""
    _installed_or_skip(name)
    lines = bug_table([name], notes_dir=ROOT / "expectations").splitlines()
    assert lines[:2] == BUGS_HEAD
    got, want = lines[2:], committed_bugs(name)
    if name in VARYING:  # its computer player's choice varies from run to run where it is wrong
        got, want = [r for r in map(VARYING[name], got) if r], [r for r in map(VARYING[name], want) if r]
    assert got == want


def _without_chosen_smaller_die(row: str) -> str | None:
    """A row of BSD backgammon with what varies from run to run left out: its computer player
    plays the smaller die alone (12/7 where 12/6 is the only play) in some runs and not in others,
    so a row led by such a chosen play is left out (None), and the chosen-play forms are taken
    out of the forms a ``move.larger-die`` row names; every other part is fixed."""
    cells = row.split(" | ")
    if cells[3] != "`move.larger-die`":
        return row
    if "[chosen-play" in cells[4]:
        return None
    cells[5] = ", ".join(f for f in cells[5].split(", ") if not f.startswith("chosen-play")) or "-"
    return " | ".join(cells)


#: engines whose rows may change from one run to the next, and how to compare them
VARYING = {"bsd-backgammon": _without_chosen_smaller_die}


def test_a_row_is_one_root_cause_with_its_kind_and_the_forms_under_it(tmp_path):
    """The broken engine plays the smaller die: each case it fails as written is one row naming
    the forms that fail with it; an expectations entry gives a row its text and kind, and a
    failure no entry lists is unreviewed."""
    import json

    from test_cli import bgconf

    from conformance.harness.expectations import load
    from conformance.reports import rootcause
    from conformance.reports.table import UNREVIEWED, bug_rows

    broken = "python:engines_for_tests:no_larger_die"
    report = tmp_path / "r.jsonl"
    bgconf("run", "--engine", broken, "--spec", "move.larger-die", "--scenarios", "--report", str(report))
    lines = [json.loads(x) for x in report.read_text().splitlines()]
    run = (lines[0]["engine"], lines, "")
    causes = rootcause.group([x for x in run[1] if x["type"] == "case"], rootcause.line_key, rootcause.WRONG)
    assert causes and any(c.under for c in causes)
    first = causes[0].lead["id"]
    notes = tmp_path / "notes.yaml"
    notes.write_text(f"format: 1\nengine: {broken}\nxfail:\n"
                     f"  {first}: {{reason: 'move.larger-die: plays the smaller die', kind: notation}}\n")
    rows = bug_rows(broken, run, load(notes))
    assert len(rows) == len(causes)
    cells = [row.strip("| ").split(" | ") for row in rows]
    assert cells[0][2:5] == ["notation", "`move.larger-die`", first] and cells[0][6] == "plays the smaller die"
    assert all(c[2] == UNREVIEWED for c in cells[1:])
    for cause, c in zip(causes, cells):
        assert c[5] == (", ".join(x["scenario"] for x in cause.under) or "-")


def test_an_expectations_file_with_a_bad_kind_is_refused_before_any_engine_runs(tmp_path, capsys):
    (tmp_path / "reference.yaml").write_text("format: 1\nengine: reference\nxfail:\n"
                                             "  bg-C3Z8: {reason: 'x', kind: typo}\n")
    assert main(["table", "--bugs", "--engine", "reference", "--expectations-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "reference.yaml: xfail bg-C3Z8: kind must be one of rule bug, notation, unreviewed, not 'typo'" in err
    assert "running the suite" not in err and "Traceback" not in err


def test_table_bugs_write_replaces_only_the_bug_table(tmp_path, monkeypatch):
    name = "gammonview"
    _installed_or_skip(name)
    monkeypatch.chdir(ROOT)  # the expectations files of the checkout
    copy = tmp_path / "README.md"
    text = README.read_text()
    copy.write_text(text)
    assert main(["table", "--bugs", "--engine", name, "--write", str(copy)]) == 0
    written = copy.read_text()
    assert written.split(BUGS_START)[0] == text.split(BUGS_START)[0]
    assert written.split(BUGS_END)[1] == text.split(BUGS_END)[1]
    assert readme_rows(written, BUGS_START, BUGS_END, BUGS_HEAD) == committed_bugs(name)
