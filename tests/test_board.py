"""The SVG board (conformance.reports.board) and ``bgconf show --svg``.

Each drawn board is read back from its data attributes (every point's checkers, both bars,
both trays, the arrows of a play) and compared with the position it was drawn from: every case
of the suite with a position, in both colours, random positions, the 16 plays of 3-1, and the
file ``show --svg`` writes. One test reads the counts back from the DOM of headless chromium
(tests/browser.py) and keeps a screenshot as ``board.png`` in its tmp_path.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings

from browser import board_in_dom, chromium
from conformance.cases import load_suite
from conformance.harness.strategies import cubes, dice, matches, positions
from conformance.model import BAR, OFF, Cube, Match, NotationError, Position, apply_steps, decode_xgid
from conformance.reports.board import drawable_moves, render_board
from reference_impl.movegen import legal_plays

SVG = "{http://www.w3.org/2000/svg}"
ROOT = Path(__file__).resolve().parent.parent
WITH_POSITION = [c for c in load_suite().cases if c.position is not None]


def read_back(svg: str) -> dict:
    """The board as its data attributes give it: ``points`` {N: (x, o)} in x's numbering,
    ``bar`` and ``off`` {side: count}, ``arrows`` [(from, to, hit)], ``on_roll``."""
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg" and root.get("role") == "img"
    groups = list(root.iter(SVG + "g"))
    points = {int(g.get("data-point")): (int(g.get("data-x")), int(g.get("data-o")))
              for g in groups if g.get("data-point")}
    assert sorted(points) == list(range(1, 25))
    return {"points": points, "on_roll": root.get("data-on-roll"),
            "bar": {g.get("data-bar"): int(g.get("data-count")) for g in groups if g.get("data-bar")},
            "off": {g.get("data-off"): int(g.get("data-count")) for g in groups if g.get("data-off")},
            "arrows": [(int(g.get("data-from")), int(g.get("data-to")), g.get("data-hit") == "1")
                       for g in groups if g.get("data-from")]}


def expected(position: Position) -> dict:
    """What the board of ``position`` must read back as."""
    return {"points": {n: (position.x[n], position.o[25 - n]) for n in range(1, 25)},
            "on_roll": position.on_roll,
            "bar": {s: position.side(s)[BAR] for s in ("x", "o")},
            "off": {s: position.side(s)[OFF] for s in ("x", "o")}, "arrows": []}


def test_every_case_position_reads_back_in_both_colours():
    assert len(WITH_POSITION) > 300
    for case in WITH_POSITION:
        for position in (case.position, case.position.swap_colours()):
            svg = render_board(position, dice=case.dice, cube=case.cube, score=case.match)
            assert read_back(svg) == expected(position), case.id
            title, desc = (ET.fromstring(svg).find(SVG + tag).text for tag in ("title", "desc"))
            assert f"{position.on_roll.upper()} on roll" in title
            assert f"X pip {position.pips('x')}, O pip {position.pips('o')}" in desc, case.id
            if case.dice:
                assert f"dice {case.dice[0]}-{case.dice[1]}" in desc


def _labels(svg: str) -> dict[int, tuple[str, float, float]]:
    """Each point group's drawn number, its triangle's tip x and base y, by x's number."""
    out = {}
    for g in ET.fromstring(svg).iter(SVG + "g"):
        if g.get("data-point"):
            corners = [tuple(map(float, c.split(","))) for c in g.find(SVG + "polygon").get("points").split()]
            out[int(g.get("data-point"))] = (g.find(SVG + "text").text, corners[2][0], corners[0][1])
    return out


@pytest.mark.parametrize("on_roll", ["x", "o"])
def test_points_are_numbered_from_the_side_on_roll_with_its_home_board_bottom_right(on_roll):
    labels = _labels(render_board(Position.start(on_roll)))
    mine = {int(text): (tip, base) for text, tip, base in labels.values()}
    for n, (text, _tip, _base) in labels.items():
        assert int(text) == (n if on_roll == "x" else 25 - n)
    assert mine[1][0] > mine[6][0] > mine[7][0] > mine[12][0]      # bottom row: 12 .. 1 left to right
    assert mine[13][0] < mine[18][0] < mine[19][0] < mine[24][0]   # top row: 13 .. 24 left to right
    assert all(mine[p][1] > mine[q][1] for p in range(1, 13) for q in range(13, 25))  # 1..12 below


def test_checkers_carry_letters_and_a_count_above_five():
    position = Position.from_dict({"on_roll": "x", "x": {"points": {6: 9, 5: 3, 4: 3}},
                                   "o": {"points": {1: 2}, "bar": 1, "off": 12}})
    root = ET.fromstring(render_board(position))
    texts = {int(g.get("data-point")): [t.text for t in g.iter(SVG + "text")][1:]
             for g in root.iter(SVG + "g") if g.get("data-point")}
    assert texts[6] == ["X", "X", "X", "X", "9"]
    assert texts[5] == ["X", "X", "X"]
    assert texts[24] == ["O", "O"]
    assert [t.text for g in root.iter(SVG + "g") if g.get("data-bar") == "o" for t in g.iter(SVG + "text")] == ["O"]
    assert "O 12" in [t.text for g in root.iter(SVG + "g") if g.get("data-off") == "o" for t in g.iter(SVG + "text")]


def _path_ends(svg: str) -> list[tuple[float, float]]:
    ends = []
    for g in ET.fromstring(svg).iter(SVG + "g"):
        if g.get("data-from"):
            numbers = [float(v) for v in re.findall(r"-?[\d.]+", g.find(SVG + "path").get("d"))]
            ends.append((numbers[0], numbers[-2]))
    return ends


@pytest.mark.parametrize("on_roll", ["x", "o"])
def test_the_16_plays_of_3_1_are_drawn_between_their_points(on_roll):
    start = Position.start(on_roll)
    plays = legal_plays(start, (3, 1))
    assert len(plays) == 16
    to_x = (lambda p: p) if on_roll == "x" else (lambda p: 25 - p)
    for after, steps in plays.items():
        svg = render_board(start, dice=(3, 1), play=steps)
        board = read_back(svg)
        assert board["arrows"] == [(to_x(a), to_x(b), False) for a, b in steps]
        mover = [(to_x(a), to_x(b)) for a, b, _hit in board["arrows"]]
        assert apply_steps(start, mover) == after
        tips = {n: tip for n, (_text, tip, _base) in _labels(svg).items()}
        assert _path_ends(svg) == [(tips[to_x(a)], tips[to_x(b)]) for a, b in steps]


def test_hits_entering_and_bearing_off_are_marked():
    position = Position.from_dict({"on_roll": "o", "x": {"points": {6: 2, 5: 1}, "off": 12},
                                   "o": {"points": {3: 14}, "bar": 1}})
    board = read_back(render_board(position, dice=(5, 3), play=[(25, 20), (3, 0)]))
    assert board["arrows"] == [(25, 5, True), (22, 0, False)]
    with pytest.raises(NotationError):
        render_board(position, play=[(6, 1)])


def test_dice_cube_and_score_are_drawn():
    position = Position.start("o")
    root = ET.fromstring(render_board(position, dice=(6, 5), cube=Cube(4, "x"),
                                      score=Match(7, {"x": 6, "o": 3}, crawford=True)))
    cube = next(g for g in root.iter(SVG + "g") if g.get("data-cube"))
    assert (cube.get("data-cube"), cube.get("data-owner")) == ("4", "x")
    assert [g.get("data-dice") for g in root.iter(SVG + "g") if g.get("data-dice")] == ["6-5"]
    desc = root.find(SVG + "desc").text
    assert desc.startswith("O on roll, dice 6-5, cube 4 owned by X, match to 7 (X 6, O 3, Crawford game)")
    assert not [g for g in ET.fromstring(render_board(position)).iter(SVG + "g") if g.get("data-cube")]


@settings(max_examples=150, deadline=None)
@given(positions(), dice(), cubes(), matches())
def test_random_positions_draw_well_formed_boards_that_read_back(position, roll, cube, match):
    for drawn in (position, position.swap_colours()):
        svg = render_board(drawn, dice=roll, cube=cube, score=match, width=480)
        assert read_back(svg) == expected(drawn)
        assert ET.fromstring(svg).get("width") == "480"


# -- bgconf show --svg ---------------------------------------------------------------------
def bgconf(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "conformance.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


def test_show_svg_writes_the_case_board(tmp_path):
    case = next(c for c in WITH_POSITION if c.id == "bg-C3Z8")
    target = tmp_path / "boards" / "board.svg"
    proc = bgconf("show", "bg-C3Z8", "--svg", str(target))
    assert proc.returncode == 0, proc.stderr
    assert f"board drawn in {target}" in proc.stdout
    board = read_back(target.read_text(encoding="utf-8"))
    assert board == expected(case.position)
    assert [p.name for p in target.parent.iterdir()] == ["board.svg"]  # nothing left beside it
    to_stdout = bgconf("show", "bg-C3Z8", "--svg", "-")
    assert to_stdout.returncode == 0 and to_stdout.stdout == target.read_text(encoding="utf-8")


def test_show_position_draws_an_id_with_its_state():
    xgid = "XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:2:4:0:7:10"
    proc = bgconf("show", "--position", xgid, "--svg", "-")
    assert proc.returncode == 0, proc.stderr
    root = ET.fromstring(proc.stdout)
    assert read_back(proc.stdout) == expected(decode_xgid(xgid))
    assert "dice 5-2, cube 2 owned by O, match to 7 (X 2, O 4)" in root.find(SVG + "desc").text
    text = bgconf("show", "--position", "4HPwATDgc/ABMA:cAkAAAAAAAAA")
    assert text.returncode == 0 and "Position ID: 4HPwATDgc/ABMA" in text.stdout


def _fibs_line() -> str:
    from conformance.model import FibsBoard, encode_fibs_board

    return encode_fibs_board(FibsBoard(Position.start("o"), "o", dice=(6, 4), cube=2,
                                       may_double={"x": True, "o": False}, match_length=5,
                                       score={"x": 1, "o": 3}))


@pytest.mark.parametrize("text, on_roll, summary", [
    ("start", "x", "X on roll, X pip 167"),
    ("4HPwATDgc/ABMA", "x", "X on roll, X pip 167"),
    ("4HPwATDgc/ABMA:cAkAAAAAAAAA", "x", "X on roll, cube 1 centred, money play"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:0:0:0:0:10", "o", "O on roll, cube 1 centred, money play"),
    (None, "o", "O on roll, dice 6-4, cube 2 owned by X, match to 5 (X 1, O 3)"),
])
def test_show_position_reads_every_written_form(text, on_roll, summary):
    proc = bgconf("show", "--position", text or _fibs_line(), "--svg", "-")
    assert proc.returncode == 0, proc.stderr
    assert read_back(proc.stdout) == expected(Position.start(on_roll))
    assert ET.fromstring(proc.stdout).find(SVG + "desc").text.startswith(summary)


@pytest.mark.parametrize("args, message", [
    (["show", "bg-NOPE", "--svg", "-"], "unknown case id bg-NOPE"),
    (["show", "--position", "not-an-id", "--svg", "-"], "--position not-an-id:"),
    (["show", "--position", "XGID=nonsense"], "--position XGID=nonsense:"),
    (["show", "--position", "4HPwATDgc/ABMA:nope"], "--position 4HPwATDgc/ABMA:nope:"),
    (["show", "--position", "board:You:Opponent:1:2"], "--position board:You:Opponent:1:2:"),
    (["show"], "give a case id or --position"),
    (["show", "bg-C3Z8", "--position", "start"], "give a case id or --position"),
    (["show", "bg-2AVN", "--svg", "-"], "bg-2AVN"),
])
def test_show_errors_are_one_line_and_exit_2(args, message):
    proc = bgconf(*args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and message in proc.stderr and "Traceback" not in proc.stderr


def test_show_svg_refuses_an_output_it_cannot_write_or_that_is_an_input(tmp_path):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    proc = bgconf("show", "bg-C3Z8", "--svg", str(folder))
    assert proc.returncode == 2 and "--svg" in proc.stderr and "is a directory" in proc.stderr
    cases = tmp_path / "mine.bgcase.yaml"
    source = next(c for c in WITH_POSITION if c.id == "bg-C3Z8").file
    cases.write_text(Path(source).read_text(encoding="utf-8"), encoding="utf-8")
    before = cases.read_bytes()
    proc = bgconf("show", "bg-C3Z8", "--cases", str(cases), "--svg", str(cases))
    assert proc.returncode == 2 and "an output never overwrites an input" in proc.stderr
    assert cases.read_bytes() == before
    assert "Traceback" not in proc.stderr


def test_the_board_in_a_browser_reads_back(tmp_path):
    from selenium.webdriver.common.by import By

    case = next(c for c in WITH_POSITION if c.position.x[BAR] or c.position.o[BAR])
    page = tmp_path / "board.svg"
    page.write_text(render_board(case.position, dice=case.dice, cube=case.cube), encoding="utf-8")
    with chromium(tmp_path / "profile") as browser:
        browser.get(page.as_uri())
        shown = board_in_dom(browser)
        want = expected(case.position)
        assert {k: shown[k] for k in ("points", "bar", "off")} == {k: want[k] for k in ("points", "bar", "off")}
        circles = browser.find_elements(By.CSS_SELECTOR, "g[data-point] circle")
        assert circles and all(c.is_displayed() for c in circles)
        screenshot = tmp_path / "board.png"
        browser.save_screenshot(str(screenshot))
        print(f"screenshot: {screenshot}")
        assert screenshot.stat().st_size > 10_000


# every board of a page read back by the browser's own DOM, as data: one figure per board
_READ_ALL = """
return Array.from(document.querySelectorAll('figure')).map(function (f) {
  function all(sel) { return Array.from(f.querySelectorAll(sel)); }
  return {id: f.id,
          points: all('svg g[data-point]').map(function (g) {
              return [+g.dataset.point, +g.dataset.x, +g.dataset.o]; }),
          bar: all('svg g[data-bar]').map(function (g) { return [g.dataset.bar, +g.dataset.count]; }),
          off: all('svg g[data-off]').map(function (g) { return [g.dataset.off, +g.dataset.count]; }),
          shown: all('svg g[data-point] circle').every(function (c) { return c.getBBox().width > 0; })};
});
"""


def test_every_case_renders_in_a_browser_and_reads_back_in_both_colours(tmp_path):
    """All the suite's positions, each as written and colours swapped, on one page in chromium:
    every point's counts, both bars and both trays, read from the page's DOM, are the case's."""
    boards, want = [], {}
    for case in WITH_POSITION:
        for tag, position in (("as-written", case.position), ("swapped", case.position.swap_colours())):
            name = f"{case.id}-{tag}"
            boards.append(f'<figure id="{name}">' + render_board(position, dice=case.dice, cube=case.cube,
                                                                 score=case.match, ident=name, width=320)
                          + "</figure>")
            e = expected(position)
            want[name] = ({n: xo for n, xo in e["points"].items()}, e["bar"], e["off"])
    page = tmp_path / "all.html"
    page.write_text("<!doctype html><meta charset=utf-8><title>boards</title><body>" + "".join(boards),
                    encoding="utf-8")
    with chromium(tmp_path / "profile") as browser:
        browser.get(page.as_uri())
        shown = browser.execute_script(_READ_ALL)
    assert len(shown) == len(want) == 2 * len(WITH_POSITION)
    for board in shown:
        points, bar, off = want[board["id"]]
        assert {n: (x, o) for n, x, o in board["points"]} == points, board["id"]
        assert dict(board["bar"]) == bar and dict(board["off"]) == off, board["id"]
        assert board["shown"], board["id"]


def test_drawable_moves_finds_an_order_that_can_be_made_or_none():
    start = Position.start("x")
    assert drawable_moves(start, "13/7/5") == [(13, 7), (7, 5)]
    assert drawable_moves(start, "6/2 8/6") == [(6, 2), (8, 6)]
    empty_six = Position.from_dict({"on_roll": "x", "x": {"points": {8: 2}}, "o": {"points": {1: 2}}})
    assert drawable_moves(empty_six, "6/2 8/6") == [(8, 6), (6, 2)]  # 6/2 only after 8/6
    assert drawable_moves(start, [(24, 21), (21, 20)]) == [(24, 21), (21, 20)]
    assert drawable_moves(start, "none") == []
    for unmade in ("3/1", "junk", "6/1", [(30, 2)], "6/8"):
        assert drawable_moves(start, unmade) is None, unmade


def test_boards_on_one_page_have_their_own_ids():
    start = Position.start("x")
    ids = [re.findall(r' id="([^"]+)"', render_board(start, play=[(24, 21)], ident=name)) for name in ("a", "b")]
    assert ids == [["a-title", "a-desc", "a-arrowhead"], ["b-title", "b-desc", "b-arrowhead"]]
    assert 'url(#b-arrowhead)' in render_board(start, play=[(24, 21)], ident="b")
