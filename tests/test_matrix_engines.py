"""bgconf matrix's engine pages, badges and history, from real runs.

Two versions of one engine (tests/versioned_engine.py, a command engine that says which version
it is) wrong on different cases, and the reference engine: the engine page groups the newest
version's failures by section and clause, each with its board and a link to its case page; its
history shows the case the newer version broke as regressed and the one it mended as fixed;
a board on the page, opened in chromium, reads back as the case's position (a screenshot of
the page is kept as ``engine.png`` in the test's temporary directory). The badges are checked
against shields.io's endpoint schema and against the badge ``bgconf certify`` writes for the
same report, for a failing engine and for the reference.
"""

import json
import shlex
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from browser import board_in_dom, chromium
from conformance.cases import load_suite
from conformance.cli import main

HERE = Path(__file__).parent


def pick_cases():
    """Two bearoff and one bar legal_plays case under the standard rules, each with two or more
    legal plays (so that leaving one out is a wrong answer): (A, B, C)."""
    cases = [c for c in load_suite().cases if c.kind == "legal_plays" and not c.scenario and not c.rules
             and len(c.expect.get("plays") or []) >= 2]
    bearoff = [c for c in cases if c.spec[0].startswith("bearoff.")]
    bar = next(c for c in cases if c.spec[0].startswith("bar."))
    return bearoff[0], next(c for c in bearoff[1:] if c.spec[0] != bearoff[0].spec[0]), bar


def versioned(version: str, wrong) -> str:
    return (f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(HERE / 'versioned_engine.py'))} {version}"
            f" {','.join(c.id for c in wrong)}")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Version 1.9 wrong on A and C, version 1.10 on B and C, the reference; the reports given
    newest first, so that only the versions order them."""
    a, b, c = pick_cases()
    out = tmp_path_factory.mktemp("engines")
    chosen = [arg for case in (a, b, c) for arg in ("--case", case.id)]
    reports = {}
    for name, engine in (("new", versioned("1.10", [b, c])), ("old", versioned("1.9", [a, c])),
                         ("reference", "reference")):
        reports[name] = out / f"{name}.jsonl"
        main(["run", "--engine", engine, *chosen, "--report", str(reports[name]), "--max-failures", "0"])
    assert main(["matrix", *(str(p) for p in reports.values()), "--out", str(out / "site")]) == 0
    return out / "site", (a, b, c)


class Page(HTMLParser):
    """An engine page read as it is written: its section and clause groups, the cases in each
    (with the link each names), the boards in each cause, the history's changes."""

    def __init__(self, text: str):
        super().__init__()
        self.groups, self.links, self.boards, self.changes = {}, {}, {}, []
        self.section = self.clause = self.cause = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "data-section" in a:
            self.section = a["data-section"]
        if "data-clause" in a:
            self.clause = a["data-clause"]
        if tag == "div" and "data-case" in a:
            self.cause = a["data-case"]
            self.groups.setdefault(self.section, {}).setdefault(self.clause, []).append(self.cause)
        if tag == "a" and self.cause and self.cause not in self.links:
            self.links[self.cause] = a["href"]
        if tag == "svg" and self.cause:
            self.boards[self.cause] = self.boards.get(self.cause, 0) + 1
        if tag == "tr" and "data-change" in a:
            self.changes.append((a["data-case"], a["data-change"]))


def test_the_engine_page_groups_the_failures_by_clause_with_boards_and_links(site):
    directory, (a, b, c) = site
    index = (directory / "index.html").read_text()
    assert 'href="engines/versioned.html"' in index and 'href="engines/reference.html"' in index
    page = Page((directory / "engines" / "versioned.html").read_text())
    # the newest version (1.10, given first) is the one whose failures are shown: B and C, not A
    assert page.groups == {b.spec[0].split(".")[0]: {b.spec[0]: [b.id]},
                           c.spec[0].split(".")[0]: {c.spec[0]: [c.id]}}
    for case in (b, c):
        assert page.links[case.id] == f"../cases/{case.id}.html"
        assert (directory / "engines" / page.links[case.id]).is_file()
        assert page.boards[case.id] >= 2  # the case's board and its missing play's
    reference = Page((directory / "engines" / "reference.html").read_text())
    assert reference.groups == {} and not reference.changes


def test_the_history_shows_the_regressed_and_the_fixed_case(site):
    directory, (a, b, c) = site
    data = json.loads((directory / "matrix.json").read_text())
    page = next(p for p in data["engine_pages"] if p["name"] == "versioned")
    assert [data["engines"][i]["version"] for i in page["reports"]] == ["1.10", "1.9"]
    [step] = page["history"]
    changes = {x["case"]: x["change"] for x in step["changes"]}
    assert changes == {a.id: "fixed", b.id: "regressed"}  # C fails in both: unchanged
    assert step["counts"]["regressed"] == 1 and step["counts"]["fixed"] == 1
    shown = Page((directory / "engines" / "versioned.html").read_text()).changes
    assert sorted(shown) == sorted(changes.items())


def test_a_board_on_the_engine_page_reads_back_in_a_browser(site, tmp_path):
    from selenium.webdriver.common.by import By

    from test_board import expected

    directory, (a, b, c) = site
    with chromium(tmp_path / "profile") as browser:
        browser.set_window_size(1400, 2400)
        browser.get((directory / "engines" / "versioned.html").as_uri())
        assert browser.title.startswith("versioned")
        for case in (b, c):
            cause = browser.find_element(By.CSS_SELECTOR, f"div.cause[data-case='{case.id}']")
            board = board_in_dom(cause.find_element(By.CSS_SELECTOR, "figure.board"))
            want = expected(case.position)
            assert {k: board[k] for k in ("points", "bar", "off")} == {k: want[k] for k in ("points", "bar", "off")}
            assert cause.find_elements(By.CSS_SELECTOR, "[data-plays='missing'] figure.play")
        screenshot = tmp_path / "engine.png"
        browser.save_screenshot(str(screenshot))
        print(f"screenshot: {screenshot}")
        assert screenshot.stat().st_size > 10_000
        browser.find_element(By.CSS_SELECTOR, f"div.cause[data-case='{b.id}'] a").click()
        assert browser.current_url.endswith(f"cases/{b.id}.html")
        assert f"id: {b.id}" in browser.find_element(By.ID, "yaml").text


SCHEMA = {"schemaVersion": int, "label": str, "message": str, "color": str}


@pytest.mark.parametrize("engine, certified", [("python:engines_for_tests:no_larger_die", False),
                                               ("reference", True)])
def test_each_badge_follows_the_endpoint_schema_and_says_what_certify_says(engine, certified, tmp_path,
                                                                          monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(HERE))
    out = tmp_path / "cert"
    assert main(["certify", "--engine", engine, "--profile", "movement", "--out", str(out)]) == (0 if certified else 1)
    [report] = out.glob("*.jsonl")
    [written] = out.glob("*.badge.json")
    assert main(["matrix", str(report), "--out", str(tmp_path / "site")]) == 0
    data = json.loads((tmp_path / "site" / "matrix.json").read_text())
    [page] = data["engine_pages"]
    files = sorted((tmp_path / "site" / "badges").iterdir())
    assert [f.name for f in files] == sorted(f"{page['slug']}-{p}.json" for p in page["badges"])
    for f in files:
        shield = json.loads(f.read_text())
        assert {k: type(v) for k, v in shield.items()} == SCHEMA and shield["schemaVersion"] == 1
        assert shield["message"].strip()
    movement = json.loads((tmp_path / "site" / "badges" / f"{page['slug']}-movement.json").read_text())
    assert movement == json.loads(written.read_text())
    assert movement["message"].startswith("certified") == certified
    # a movement certificate says nothing of the other profiles: not a certificate for them
    assert json.loads((tmp_path / "site" / "badges" / f"{page['slug']}-money.json").read_text())["message"] \
        == "partial, not a certificate"
