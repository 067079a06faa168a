"""bgconf matrix: the site drawn from real runs, opened in a real browser.

The page is checked in headless chromium (tests/browser.py): the counts it shows equal
the reports', every filter shows exactly the cases it should, and a case's page shows
its YAML and spec text. A screenshot of the page is kept as ``matrix.png`` in the test's
temporary directory (pytest keeps the last three runs under its basetemp; the test
prints the path).
"""

import json
from collections import Counter
from pathlib import Path

import pytest

from browser import board_in_dom, chromium
from conformance.cases import case_name
from conformance.cli import main
from conformance.reports.report import load_report

HERE = Path(__file__).parent
ENGINES = {"reference": "reference", "no-larger-die": "python:engines_for_tests:no_larger_die",
           "moves-only": "python:engines_for_tests:moves_only"}
BAD = {"fail", "errored", "timeout", "xpass"}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("PYTHONPATH", str(HERE))
    out = tmp_path_factory.mktemp("matrix")
    reports = []
    for name, engine in ENGINES.items():
        path = out / f"{name}.jsonl"
        main(["run", "--engine", engine, "--spec", "move", "--spec", "bearoff", "--report", str(path),
              "--max-failures", "0"])
        reports.append(path)
    mp.undo()
    assert main(["matrix", *map(str, reports), "--out", str(out / "site")]) == 0
    return out / "site", [load_report(p) for p in reports]


def cases_of(lines):
    """name (``bg-7Q3K``, ``bg-7Q3K[check 3]``) -> case line of a report."""
    return {case_name(c["id"], c["scenario"]): c for c in lines if c["type"] == "case"}


def test_matrix_json_matches_the_reports(site):
    directory, reports = site
    data = json.loads((directory / "matrix.json").read_text())
    assert [e["counts"] for e in data["engines"]] == [r[-1]["counts"] for r in reports]
    by_id = [cases_of(r) for r in reports]
    for case in data["cases"]:
        assert case["statuses"] == [b[case["name"]]["status"] if case["name"] in b else None for b in by_id]
        assert case["fails_in"] == sum(s in BAD for s in case["statuses"])
    assert {(directory / "cases").iterdir().__next__().suffix} == {".html"}


def test_the_page_in_a_browser_shows_the_reports_counts_and_filters_work(site, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    directory, reports = site
    ids = [cases_of(r) for r in reports]
    union = sorted(set().union(*ids))
    with chromium(tmp_path / "profile") as browser:
        browser.get((directory / "index.html").as_uri())
        assert browser.title.startswith("bgconf matrix")
        rows = browser.find_elements(By.CSS_SELECTOR, "#engines tr[data-engine]")
        assert len(rows) == len(reports)
        for row, report in zip(rows, reports):
            shown = {cell.get_attribute("data-status"): int(cell.text)
                     for cell in row.find_elements(By.CSS_SELECTOR, "td.count")}
            assert shown == report[-1]["counts"]
            assert int(row.find_element(By.CSS_SELECTOR, "td.total").text) == report[-1]["total"]
        section_cells = {r.find_element(By.TAG_NAME, "td").text: [c.text for c in r.find_elements(By.TAG_NAME, "td")[1:]]
                         for r in browser.find_elements(By.CSS_SELECTOR, "#sections tr")[1:]}
        for i, by_id in enumerate(ids):
            bearoff = [c for c in by_id.values() if any(a.startswith("bearoff.") for a in c["spec"])]
            answered = [c for c in bearoff if c["status"] != "unsupported"]
            passed = sum(c["status"] == "pass" for c in answered)
            assert section_cells["bearoff"][i].startswith(f"{passed}/{len(answered)} ")

        def rows_shown():
            """(case id, its tags, the text of its last cell) of each case row the browser lays
            out (a row a filter hides has no box), read in one round trip: the page has hundreds"""
            return browser.execute_script(
                "return Array.from(document.querySelectorAll('tr.case'))"
                ".filter(r => r.getClientRects().length > 0)"
                ".map(r => [r.querySelector('code').textContent, r.dataset.tags || '',"
                " r.cells[r.cells.length - 1].textContent])")

        def visible():
            return [cid for cid, _tags, _last in rows_shown()]

        assert sorted(visible()) == union
        assert browser.find_element(By.ID, "shown").text == str(len(union))
        fails = {cid: sum(b.get(cid, {}).get("status") in BAD for b in ids) for cid in union}
        for cid, _tags, last in rows_shown():
            assert int(last) == fails[cid], cid

        def pick(select_id, value):
            Select(browser.find_element(By.ID, select_id)).select_by_value(value)

        def first_line(cid):
            return next(b[cid] for b in ids if cid in b)

        pick("f-section", "bearoff")
        want = sorted(c for c in union if any(a.startswith("bearoff.") for a in first_line(c)["spec"]))
        assert want and sorted(visible()) == want
        assert browser.find_element(By.ID, "shown").text == str(len(want))
        pick("f-section", "move")
        pick("f-status", "failing")
        want = sorted(c for c in union if fails[c] and any(a.startswith("move.") for a in first_line(c)["spec"]))
        assert want and sorted(visible()) == want
        pick("f-section", "")
        pick("f-status", "unsupported")
        assert sorted(visible()) == sorted(c for c in union if any(b.get(c, {}).get("status") == "unsupported" for b in ids))
        pick("f-status", "")
        pick("f-kind", "play_check")
        assert sorted(visible()) == sorted(c for c in union if first_line(c)["kind"] == "play_check")
        pick("f-kind", "")
        tag = Select(browser.find_element(By.ID, "f-tag")).options[1].get_attribute("value")
        pick("f-tag", tag)
        shown = rows_shown()
        assert shown and all(tag in tags.split() for _cid, tags, _last in shown)
        pick("f-tag", "")
        pick("f-status", "failing")
        screenshot = tmp_path / "matrix.png"
        browser.save_screenshot(str(screenshot))
        print(f"screenshot: {screenshot}")
        assert screenshot.stat().st_size > 10_000

        failing = visible()[0]
        browser.find_element(By.LINK_TEXT, failing).click()
        assert f"id: {failing}" in browser.find_element(By.ID, "yaml").text
        clause = first_line(failing)["spec"][0]
        assert clause in browser.find_element(By.TAG_NAME, "ul").text
        statuses = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#answers td:nth-child(2)")]
        assert statuses == [b[failing]["status"] for b in ids]
        browser.find_element(By.PARTIAL_LINK_TEXT, clause).click()
        assert browser.current_url.endswith(f"spec.html#{clause}")


def test_reports_of_different_suites_are_refused_unless_mixed_suites_is_given(site, tmp_path, capsys):
    """A column run on another suite (here: other case files, another content hash) is not
    comparable with the others: refused with exit 2 naming which report ran which suite;
    with --mixed-suites, drawn with a warning on stderr and on the index page."""
    from conformance.cases import resources

    _directory, reports = site
    bundled = tmp_path / "reference.jsonl"
    assert main(["run", "--engine", "reference", "--spec", "bar", "--report", str(bundled)]) == 0
    mine = tmp_path / "mine.bgcase.yaml"
    mine.write_text((resources.cases_dir() / "movement" / "bar.yaml").read_text())
    other = tmp_path / "other-suite.jsonl"
    assert main(["run", "--engine", "reference", "--cases", str(mine), "--report", str(other)]) == 0
    hashes = [load_report(p)[0]["content_hash"] for p in (bundled, other)]
    assert hashes[0] != hashes[1]
    capsys.readouterr()
    out = tmp_path / "site"
    assert main(["matrix", str(bundled), str(other), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "different suites" in err[0] and "--mixed-suites" in err[0], err
    assert f"(content {hashes[0][:12]}): {bundled}" in err[0] and f"(content {hashes[1][:12]}): {other}" in err[0]
    assert not out.exists()
    assert main(["matrix", str(bundled), str(other), "--out", str(out), "--mixed-suites"]) == 0
    err = capsys.readouterr().err
    assert "warning: the reports were run on different suites" in err and str(other) in err
    page = (out / "index.html").read_text()
    assert 'id="mixed-suites"' in page and hashes[0][:12] in page and hashes[1][:12] in page
    data = json.loads((out / "matrix.json").read_text())
    assert [g["reports"] for g in data["mixed_suites"]] == [[str(bundled)], [str(other)]]
    same = tmp_path / "same"
    assert main(["matrix", str(bundled), str(bundled), "--out", str(same)]) == 0
    assert "warning" not in capsys.readouterr().err
    assert 'id="mixed-suites"' not in (same / "index.html").read_text()


def _to_x(on_roll: str, moves) -> list[tuple[int, int]]:
    """Moves in the mover's numbering as a board's arrows give them: x's numbering, bar 25, off 0."""
    def x(p):
        return p if on_roll == "x" or p in (0, 25) else 25 - p
    return [(x(a), x(b)) for a, b in moves]


def test_a_case_page_draws_the_position_and_the_missing_and_extra_plays(site, tmp_path):
    """A legal_plays failure of the no-larger-die engine: the case page's board reads back as
    the case's position, and each of the answer's missing and extra plays is drawn on its own
    board with that play's moves as arrows; a derived play check's page draws its play."""
    from selenium.webdriver.common.by import By

    from conformance.cases import load_suite
    from conformance.harness.selection import form_finder
    from conformance.model import apply_steps, notation_to_position, written_moves
    from test_board import expected

    directory, reports = site
    find = form_finder(load_suite().cases)
    failures = [c for c in reports[1] if c["type"] == "case" and c["kind"] == "legal_plays"
                and c["status"] == "fail" and (c.get("missing") or c.get("extra"))]
    line = max(failures, key=lambda c: (bool(c.get("missing")) and bool(c.get("extra")), not c["scenario"]))
    case = find(line["id"], line["scenario"])
    name = case_name(line["id"], line["scenario"])
    check = next(c for c in reports[0] if c["type"] == "case" and c["scenario"] == "check 1")
    check_case = find(check["id"], "check 1")
    with chromium(tmp_path / "profile") as browser:
        browser.set_window_size(1400, 3200)
        browser.get((directory / "cases" / f"{name.replace('[', '-').replace(']', '').replace(' ', '-')}.html").as_uri())
        assert name in browser.title
        board = board_in_dom(browser.find_element(By.CSS_SELECTOR, "figure.board"))
        want = expected(case.position)
        assert {k: board[k] for k in ("points", "bar", "off")} == {k: want[k] for k in ("points", "bar", "off")}
        assert board["arrows"] == []
        answer = browser.find_element(By.CSS_SELECTOR, "section.answer[data-engine='1']")
        assert not browser.find_elements(By.CSS_SELECTOR, "section.answer[data-engine='0']")  # the reference passes
        for kind in ("missing", "extra"):
            figures = answer.find_elements(By.CSS_SELECTOR, f"[data-plays='{kind}'] figure.play")
            assert [f.get_attribute("data-play") for f in figures] == line.get(kind, [])
            for figure, play in zip(figures, line.get(kind, [])):
                drawn = board_in_dom(figure)
                assert sorted(drawn["arrows"]) == sorted(_to_x(case.position.on_roll, written_moves(play)))
                mover = _to_x(case.position.on_roll, drawn["arrows"])  # x's numbering back to the mover's
                assert apply_steps(case.position, mover) == notation_to_position(case.position, play)
                assert {k: drawn[k] for k in ("points", "bar", "off")} == {k: want[k] for k in ("points", "bar", "off")}
        screenshot = tmp_path / "case.png"
        answer.location_once_scrolled_into_view
        browser.save_screenshot(str(screenshot))
        print(f"screenshot: {screenshot}")
        assert screenshot.stat().st_size > 10_000

        browser.get((directory / "cases" / f"{check['id']}-check-1.html").as_uri())
        board = board_in_dom(browser.find_element(By.CSS_SELECTOR, "figure.board"))
        assert board["arrows"] == _to_x(check_case.position.on_roll, check_case.steps)
        assert check_case.play in browser.find_element(By.CSS_SELECTOR, "figure.board figcaption").text


def test_form_finder_finds_every_form_a_run_asks():
    """Each case form a run asks (variants in every position format, derived play checks,
    chosen-play forms) is found again from its id and scenario name, as a report line names it."""
    from conformance.cases import load_suite
    from conformance.harness.selection import asked, form_finder

    cases = [c for c in load_suite().cases if c.id in ("bg-4UEK", "bg-X6DC", "bg-C3Z8")]
    info = {"capabilities": ["legal-plays", "play-check", "chosen-play"],
            "position_formats": ["board", "gnubg_id", "xgid", "fibs_board"]}
    forms = asked(cases, info, scenarios=True)
    find = form_finder(load_suite().cases)
    assert len({c.scenario for c in forms}) > 10
    for c in forms:
        found = find(c.id, c.scenario)
        assert (found.name, found.kind, found.position, found.dice, found.play, found.position_format) == \
            (c.name, c.kind, c.position, c.dice, c.play, c.position_format)
    assert find("bg-4UEK", "no such form") is None and find("bg-NOPE", "") is None
