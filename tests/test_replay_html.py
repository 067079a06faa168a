"""``bgconf replay --html``: the page of a run, checked in headless chromium (tests/browser.py).

The record cases/replays/real-hedgehog-long-hop.mat has one illegal play (game 12, move 10:
13/3 7/4 with 3-3). Its event on the page must show the board before the play (read back from
the DOM and compared with the position the judge reached, found here by the judge itself), the
recorded play's moves as arrows and the nearest legal plays each on a small board. A
screenshot is kept as ``replay.png`` in the test's tmp_path.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from browser import board_in_dom, chromium
from conformance.cli import main
from conformance.harness.record_judge import judge_record
from conformance.harness.record_reader import read_record
from conformance.model import apply_steps, written_moves
from test_board import expected
from test_matrix import _to_x

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "cases" / "replays" / "real-hedgehog-long-hop.mat"


def test_the_page_shows_the_illegal_play_on_the_board_before_it(tmp_path, capsys):
    from selenium.webdriver.common.by import By

    [event] = [e for e in judge_record(read_record(RECORD)).events if e.level == "illegal"]
    assert (event.game, event.move, event.recorded) == (12, 10, "13/3 7/4")
    page = tmp_path / "out" / "replay.html"
    page.parent.mkdir()
    assert main(["replay", str(RECORD), "--html", str(page), "--quiet"]) == 1
    assert f"wrote the page of the run to {page}" in capsys.readouterr().out
    assert [p.name for p in page.parent.iterdir()] == ["replay.html"]  # nothing left beside it
    with chromium(tmp_path / "profile") as browser:
        browser.set_window_size(1400, 2000)
        browser.get(page.as_uri())
        [section] = browser.find_elements(By.CSS_SELECTOR, "section.record")
        assert section.get_attribute("data-file") == str(RECORD)
        [shown] = section.find_elements(By.CSS_SELECTOR, "div.event")
        assert (shown.get_attribute("data-game"), shown.get_attribute("data-move")) == ("12", "10")
        board = board_in_dom(shown.find_element(By.CSS_SELECTOR, "figure.board"))
        want = expected(event.position)
        assert {k: board[k] for k in ("points", "bar", "off")} == {k: want[k] for k in ("points", "bar", "off")}
        on_roll = event.position.on_roll
        assert sorted(board["arrows"]) == sorted(_to_x(on_roll, written_moves("13/3 7/4")))
        assert "13/3 7/4" in shown.find_element(By.CSS_SELECTOR, "figure.board figcaption").text
        figures = shown.find_elements(By.CSS_SELECTOR, "[data-plays='nearest'] figure.play")
        assert [f.get_attribute("data-play") for f in figures] == event.nearest and len(figures) == 3
        for figure, play in zip(figures, event.nearest):
            arrows = _to_x(on_roll, board_in_dom(figure)["arrows"])  # back to the mover's numbering
            assert apply_steps(event.position, arrows) == apply_steps(event.position, written_moves(play))
        shown.location_once_scrolled_into_view
        screenshot = tmp_path / "replay.png"
        browser.save_screenshot(str(screenshot))
        print(f"screenshot: {screenshot}")
        assert screenshot.stat().st_size > 10_000


def test_html_never_overwrites_a_record_and_keeps_an_existing_page_on_refusal(tmp_path, capsys):
    record = tmp_path / "match.mat"
    shutil.copy(RECORD, record)
    before = record.read_bytes()
    assert main(["replay", str(record), "--html", str(record)]) == 2
    err = capsys.readouterr().err
    assert "an output never overwrites an input" in err and "--html" in err and "Traceback" not in err
    assert record.read_bytes() == before
    folder = tmp_path / "a-folder"
    folder.mkdir()
    assert main(["replay", str(record), "--html", str(folder)]) == 2
    assert "--html" in capsys.readouterr().err


def test_a_legal_record_gets_a_page_saying_so(tmp_path, capsys):
    legal = ROOT / "tests" / "data" / "matches" / "B4_SrGcsKAQmoTyHlgJCbM.mat"
    page = tmp_path / "legal.html"
    page.write_text("an older page\n")
    assert main(["replay", str(legal), "--html", str(page), "--quiet"]) == 0
    text = page.read_text()
    assert "Every event is legal." in text or 'data-level="note"' in text
    assert 'class="event illegal"' not in text and "<svg" not in text


def test_help_names_html():
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "conformance.cli", "replay", "--help"], capture_output=True,
                          text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0 and "--html FILE.html" in proc.stdout and "the legal plays nearest to it" in " ".join(proc.stdout.split())
