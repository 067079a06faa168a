"""A headless Debian chromium driven by Selenium, for the tests of pages (``apt-get install
chromium chromium-driver``, ``pip install 'bgconf[test]'``).

Skips when either is missing, unless BGCONF_REQUIRE_BROWSER=1 (CI sets it, so there a
missing browser fails instead of skipping). The browser gets a fresh profile directory
and no network features, so a page that works here works from a disk, offline.
"""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("BGCONF_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("BGCONF_CHROMEDRIVER", "/usr/bin/chromedriver")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1800"]


def _missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install 'bgconf[test]')"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not shutil.which(path):
            return f"{path} not found (apt-get install chromium chromium-driver)"
    return None


@contextmanager
def chromium(profile: Path):
    """A Selenium WebDriver on headless chromium with a fresh ``--user-data-dir`` in
    ``profile``; skips (or fails, under BGCONF_REQUIRE_BROWSER=1) without a browser."""
    problem = _missing()
    if problem:
        if os.environ.get("BGCONF_REQUIRE_BROWSER") == "1":
            pytest.fail(f"a browser is required here: {problem}")
        pytest.skip(problem)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS + [f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()


def board_in_dom(scope) -> dict:
    """The SVG board inside ``scope`` (a WebElement holding one board, e.g. its ``figure``) as
    the data attributes of the page's DOM give it: ``points`` {N: (x, o)} in x's numbering,
    ``bar`` and ``off`` {side: count}, ``arrows`` [(from, to)] in x's numbering (25 bar, 0 off),
    in the order drawn."""
    from selenium.webdriver.common.by import By

    def groups(attribute: str):
        return scope.find_elements(By.CSS_SELECTOR, f"svg g[{attribute}]")

    return {"points": {int(g.get_attribute("data-point")): (int(g.get_attribute("data-x")),
                                                            int(g.get_attribute("data-o")))
                       for g in groups("data-point")},
            "bar": {g.get_attribute("data-bar"): int(g.get_attribute("data-count")) for g in groups("data-bar")},
            "off": {g.get_attribute("data-off"): int(g.get_attribute("data-count")) for g in groups("data-off")},
            "arrows": [(int(g.get_attribute("data-from")), int(g.get_attribute("data-to")))
                       for g in groups("data-from")]}
