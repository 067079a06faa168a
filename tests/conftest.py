"""Settings and fixtures shared by the tests.

``gnubg``: one GNU Backgammon engine per test module (skipped when gnubg is not installed,
failed instead under BGCONF_REQUIRE_GNUBG=1).

hypothesis's per-example deadline is a timing assertion: on a busy machine a correct property
fails only because an example took longer than 200 ms. The tests measure no time (speed lives
in benchmarks/), so every property runs without a deadline.
"""

import os

import pytest
from hypothesis import settings

from conformance.engines.adapters import EngineUnavailable

settings.register_profile("bgconf", deadline=None)
settings.load_profile("bgconf")


@pytest.fixture(scope="module")
def gnubg():
    from conformance.engines.adapters.gnubg.engine import GnubgEngine

    try:
        engine = GnubgEngine()
        engine.describe()
    except EngineUnavailable as exc:
        if os.environ.get("BGCONF_REQUIRE_GNUBG") == "1":
            pytest.fail(f"GNU Backgammon is required here: {exc}")
        pytest.skip(f"GNU Backgammon not installed: {exc}")
    yield engine
    engine.close()
