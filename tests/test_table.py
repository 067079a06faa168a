"""bgconf table: the README's certification table, reproduced row for row.

The table is generated for a couple of fast engines (the reference, and the JavaScript example
when node is installed) and compared with the README's committed rows for those engines: same
content, same order; ``--write`` changes nothing outside the markers, and each engine's progress
is printed on stderr as it runs.
"""

import os
import shutil
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.reports.table import END, EXAMPLE_ENGINE, HEAD, START, certification_table, example_available, readme_rows

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
