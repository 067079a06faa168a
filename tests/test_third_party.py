"""The third-party engine adapters (conformance/engines/adapters/, conformance.engines.registry.THIRD_PARTY).

Per engine, skipped when its distribution is not installed (``pip install 'bgconf[NAME]'``):

- ``bgconf run --engine NAME`` on a few cases (through the child-process isolation) passes the
  cases every engine gets right and catches the engine's known rule bugs on the cases that show
  them;
- the whole suite with the engine's expectations file (``expectations/NAME.yaml``, its known rule
  bugs): exactly the listed cases fail;
- the adapter's conversion on the starting position, both colours: every roll, compared play by
  play with the reference (3-1 gives 16 plays, all 21 rolls 447 for an engine that is right).

Without any engine installed, every adapter still describes itself and answers each request
``errored`` with the install command.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.harness.compare import _engine_plays
from conformance.engines.registry import NPM, THIRD_PARTY, get_engine, install_state
from conformance.model import Position
from reference_impl import legal_plays

from conformance.engines.adapters.codec_library import CodecLibraryAdapter

# the engines that generate plays; the position-id libraries (codec only) are tested by
# tests/test_codec_libraries.py
PYTHON_ENGINES = sorted(n for n in THIRD_PARTY
                        if not issubclass(importlib.import_module(THIRD_PARTY[n][0]).Adapter, CodecLibraryAdapter))
ENGINES = PYTHON_ENGINES + sorted(NPM)  # the npm engines are reached through their node wrappers

# Cases all seven engines answer right: bar entry with a hit, entering during the bear-off, a hit on
# the way, no legal play, the start position's 3-1, a play check each way; x and o on roll.
COMMON_PASS = ["bg-3AFJ", "bg-JXH3", "bg-8AQM", "bg-P4H4", "bg-M5TC", "bg-L8WY", "bg-4WNB",
               "bg-L5M3", "bg-C3Z8", "bg-ZAM9", "bg-VDR6", "bg-PG9P"]

# Rule bugs of the pinned versions, each on the smallest case that shows it: case -> status.
KNOWN_BUGS: dict[str, dict[str, str]] = {
    "gnubg-nn": {},
    # findbestmoves cuts a move tuple short after the first checker borne off ((6,) for
    # 6/off 5/off); the adapter will not guess the rest, so bear-off cases are errored.
    "gnubg-py": {"bg-9KYM": "errored"},
    # bearoff.last-checker: 4/off alone is offered though 4/2*/off uses both dice.
    "bgsage": {"bg-GHJ4": "fail", "bg-JG27": "fail"},
    # move.doubles with bearoff.exact: with 1-1 it misses walking one checker 4/3/2/1/off, and
    # with 3-3 it misses 6/3 6/off 4/1
    # (see also test_gym_backgammon_misses_bear_offs_with_1_1).
    "gym-backgammon": {"bg-4NFH": "fail", "bg-2ZLK": "fail"},
    # bearoff.higher-die (4/off with a 6 while a checker stands on 6), move.larger-die (12/7),
    # move.maximum-dice (Game.get_max_move_count mutates the copy it searches and says 1 here),
    # bearoff.last-checker (5/4 alone with 6-1 from a last checker on 5).
    "pygammon": {"bg-DEUP": "fail", "bg-2TC4": "fail", "bg-4UEK": "fail", "bg-9YUT": "fail"},
    # move.maximum-dice with doubles (legal_moves offers partial doubles), move.larger-die.
    "magmacrunch": {"bg-4YKJ": "fail", "bg-HMK4": "fail", "bg-2TC4": "fail"},
    # move.maximum-dice (a one-die play when another play uses both), move.larger-die,
    # bearoff.last-checker (a first move that bears off the last checker is the only play; with a
    # double it plays on from empty points: a physically impossible play, so errored).
    "willse": {"bg-4UEK": "fail", "bg-2TC4": "fail", "bg-GHJ4": "fail", "bg-ACP3": "errored"},
    # its masks accept a first move that leaves the other die unplayable: move.maximum-dice (13/8 with
    # 6-5), move.larger-die (12/7), bearoff.last-checker (4/off alone); score.backgammon ignores the
    # loser's bar (expectations/pgx.yaml lists every case).
    "pgx": {"bg-DACX": "fail", "bg-X6DC": "fail", "bg-GHJ4": "fail", "bg-53UK": "fail"},
    # is_play_legal compares the mover's checkers only: a stop on a closed point (move.separate-dice,
    # 13/8/5, and its colour twin) goes unseen. Its input has no hit marks, so bg-JG27 (4/off against
    # 4/2*/off) is notation there and not asked of it (expectations/gammonview.yaml).
    "gammonview": {"bg-RLKW": "fail", "bg-RCCA": "fail"},
    # bearoff.last-checker: 4/off alone is offered beside 4/2*/off (the move tree stops at the
    # fifteenth checker off and keeps that shorter play).
    "tsgammon": {"bg-GHJ4": "fail", "bg-JG27": "fail"},
}

# Distinct plays from the starting position per engine when the engine differs from the rules.
# magmacrunch's legal_moves also lists the partial doubles (1 to 3 of the 4 moves): 649, not 447.
START_TOTAL = {"magmacrunch": 649}


def _need(name: str) -> None:
    """Skip unless engine ``name`` is installed; an npm engine missing while
    BGCONF_REQUIRE_NODE=1 (as in CI, which runs npm ci) fails instead."""
    version, how = install_state(name)
    if version is None:
        if name in NPM and os.environ.get("BGCONF_REQUIRE_NODE") == "1":
            pytest.fail(f"{name} is not installed ({how}) and BGCONF_REQUIRE_NODE=1")
        pytest.skip(f"{name} is not installed ({how})")


def bgconf(*args):
    return subprocess.run([sys.executable, "-m", "conformance.cli", *args], capture_output=True,
                          text=True, env=dict(os.environ), timeout=600)


def _case_args(ids):
    return [a for i in ids for a in ("--case", i)]


@pytest.mark.parametrize("name", ENGINES)
def test_engine_passes_the_common_cases(name):
    _need(name)
    proc = bgconf("run", "--engine", name, "--no-play-checks", *_case_args(COMMON_PASS))  # the cases as written
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{len(COMMON_PASS)} cases: {len(COMMON_PASS)} pass" in proc.stdout
    assert f"engine: {name} {install_state(name)[0]}" in proc.stdout


@pytest.mark.parametrize("name", [n for n in ENGINES if KNOWN_BUGS[n]])
def test_known_rule_bugs_are_caught(name, tmp_path):
    _need(name)
    report = tmp_path / "report.jsonl"
    proc = bgconf("run", "--engine", name, "--report", str(report), *_case_args(KNOWN_BUGS[name]))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    got = {}
    for line in report.read_text().splitlines():
        row = json.loads(line)
        if row.get("type") == "case" and not row["scenario"]:  # the cases as written
            got[row["id"]] = row["status"]
    assert got == KNOWN_BUGS[name], proc.stdout


EXPECTATIONS = Path(__file__).resolve().parent.parent / "expectations"


# the pip and npm engines; BSD backgammon's file is checked by tests/test_bsd_backgammon.py
@pytest.mark.parametrize("name", sorted(p.stem for p in EXPECTATIONS.glob("*.yaml") if install_state(p.stem) is not None))
def test_whole_suite_equals_the_recorded_expectations(name, tmp_path):
    """The engine's run of the whole suite fails exactly the cases its expectations file lists
    (each is xfail, none xpass, no stale id) and passes or leaves unsupported all others."""
    from conformance.harness.expectations import load

    _need(name)
    expected = load(EXPECTATIONS / f"{name}.yaml")
    assert expected.engine == name
    report = tmp_path / "report.jsonl"
    proc = bgconf("run", "--engine", name, "--report", str(report), "--expectations",
                  str(EXPECTATIONS / f"{name}.yaml"))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    statuses = {}
    for line in report.read_text().splitlines():
        row = json.loads(line)
        if row.get("type") == "case":  # every form of a case: as written, derived play checks...
            statuses.setdefault(row["id"], set()).add(row["status"])
    # an entry bg-XXXX[form] names one form of its case (here: a derived check)
    assert {cid for cid, st in statuses.items() if "xfail" in st} == {n.split("[", 1)[0] for n in expected.xfail}
    assert set().union(*statuses.values()) <= {"pass", "unsupported", "xfail"}


@pytest.fixture(scope="module")
def isolated():
    """One isolated engine per name for the start-position checks."""
    engines = {}
    yield lambda name: engines.setdefault(name, get_engine(name))
    for engine in engines.values():
        engine.close()


def _start_requests(on_roll):
    pos = Position.start(on_roll)
    rolls = [(d1, d2) for d1 in range(1, 7) for d2 in range(d1, 7)]
    return pos, rolls, [{"kind": "legal_plays", "case": f"start-{on_roll}-{d1}{d2}", "rules": {},
                         "position": pos.to_wire(), "dice": [d1, d2]} for d1, d2 in rolls]


@pytest.mark.parametrize("on_roll", ["x", "o"])
@pytest.mark.parametrize("name", ENGINES)
def test_start_position_conversion(name, on_roll, isolated):
    _need(name)
    engine = isolated(name)
    pos, rolls, requests = _start_requests(on_roll)
    replies = engine.run_batch(requests)
    total = 0
    for (d1, d2), reply in zip(rolls, replies):
        assert "result" in reply, ((d1, d2), reply)
        theirs = set(_engine_plays(pos, reply["result"]))
        ours = set(legal_plays(pos, (d1, d2)))
        total += len(theirs)
        if (d1, d2) == (3, 1):
            assert len(theirs) == 16
            assert Position.from_mover(on_roll, _after_8_5_6_5(), pos.opponent).passed() in theirs
        if name == "magmacrunch" and d1 == d2:
            # partial doubles on top of the full ones (move.maximum-dice); the full ones are all there
            assert ours < theirs
        else:
            assert theirs == ours, (d1, d2)
    assert total == START_TOTAL.get(name, 447)


def _after_8_5_6_5():
    side = [0] * 26
    for p, n in {24: 2, 13: 5, 8: 2, 6: 4, 5: 2}.items():
        side[p] = n
    return tuple(side)


def _ask(engine, pos, dice):
    reply = engine.run({"kind": "legal_plays", "case": "conversion", "rules": {},
                        "position": pos.to_wire(), "dice": list(dice)})
    assert "result" in reply, reply
    return set(_engine_plays(pos, reply["result"]))


def _other(side):
    return "o" if side == "x" else "x"


@pytest.mark.parametrize("on_roll", ["x", "o"])
@pytest.mark.parametrize("name", ENGINES)
def test_bar_and_hit_conversion(name, on_roll, isolated):
    """bar = 25 and each colour's numbering: the bar checker enters on 21, hitting the opponent's
    blot on its 4-point, or on 23; the opponent's 20-point (the mover's 5) is closed."""
    _need(name)
    pos = Position.from_dict({"on_roll": on_roll, on_roll: {"points": {"6": 3, "2": 1}, "bar": 1},
                              _other(on_roll): {"points": {"4": 1, "20": 3}}})
    theirs = _ask(isolated(name), pos, (4, 2))
    assert theirs == set(legal_plays(pos, (4, 2)))
    assert any(p.side(_other(on_roll))[25] == 1 for p in theirs)  # some play hits


@pytest.mark.parametrize("on_roll", ["x", "o"])
@pytest.mark.parametrize("name", ENGINES)
def test_bear_off_conversion(name, on_roll, isolated):
    """off = 0: from 6:1 and 3:1 with 6-3 the plays are all off, or 6/3 and a 6 off from 3."""
    _need(name)
    pos = Position.from_dict({"on_roll": on_roll, on_roll: {"points": {"6": 1, "3": 1}},
                              _other(on_roll): {"points": {"24": 2, "13": 13}}})
    if name == "gnubg-py":  # every bear-off comes back as a truncated move tuple
        reply = isolated(name).run({"kind": "legal_plays", "case": "conversion", "rules": {},
                                    "position": pos.to_wire(), "dice": [6, 3]})
        assert "incomplete move tuple" in reply.get("errored", ""), reply
        return
    theirs = _ask(isolated(name), pos, (6, 3))
    assert theirs == set(legal_plays(pos, (6, 3)))
    assert any(p.side(on_roll)[0] == 15 for p in theirs)


def test_gym_backgammon_misses_bear_offs_with_1_1(isolated):
    """gym-backgammon 0.0.1 bug outside the suite's cases (found by a differential run against the
    reference): with x on 4:2 and 1-1 it lacks 4/off (one checker 4/3/2/1/off), a legal play."""
    _need("gym-backgammon")
    pos = Position.from_dict({"on_roll": "x", "x": {"points": {"4": 2}}, "o": {"points": {"9": 1}}})
    reply = isolated("gym-backgammon").run({"kind": "legal_plays", "case": "gym-1-1", "rules": {},
                                            "position": pos.to_wire(), "dice": [1, 1]})
    theirs = set(_engine_plays(pos, reply["result"]))
    ours = legal_plays(pos, (1, 1))
    assert len(ours) == 3 and theirs < set(ours)
    missing = set(ours) - theirs
    assert [p.x for p in missing] == [Position.from_dict({"on_roll": "o", "x": {"points": {"4": 1}},
                                                          "o": {"points": {"9": 1}}}).x]


# -- without the engines -------------------------------------------------------------------------

_IMPORTS = {
    "gnubg-nn": ["gnubg_nn"],
    "gnubg-py": ["gnubg"],
    "bgsage": ["bgsage"],
    "gym-backgammon": ["gym_backgammon", "gym_backgammon.envs", "gym_backgammon.envs.backgammon"],
    "pygammon": ["pygammon"],
    "magmacrunch": ["backgammon", "backgammon.rules"],
    "willse": ["willse_backgammon", "willse_backgammon.Main_Files", "willse_backgammon.Main_Files.Logic"],
    "pgx": ["pgx", "pgx.backgammon", "jax"],
    "gammonview": ["gvformat", "gvformat.legality"],
}
_CACHES = {"gym-backgammon": "_module", "willse": "_board_class", "gnubg-py": "_contexts", "pgx": "_pgx"}


@pytest.mark.parametrize("name", PYTHON_ENGINES)
def test_not_installed_answers_errored_with_the_install_command(name, monkeypatch):
    module = importlib.import_module(THIRD_PARTY[name][0])
    for imported in _IMPORTS[name]:
        monkeypatch.setitem(sys.modules, imported, None)  # import fails as if not installed
    import conformance.engines.adapters.third_party as base

    monkeypatch.setattr(base, "installed_version", lambda dist: None)
    if hasattr(module, "installed_version"):
        monkeypatch.setattr(module, "installed_version", lambda dist: None)
    if name in _CACHES:
        monkeypatch.setattr(module, _CACHES[name], None)
    if name == "magmacrunch":
        monkeypatch.delitem(sys.modules, module._PRIVATE, raising=False)
    adapter = module.Adapter()
    info = adapter.describe()
    assert info["name"] == name and info["version"] == "not installed"
    assert "legal-plays" in info["capabilities"] and info["rule_options"] == {}
    request = {"kind": "legal_plays", "case": "t", "rules": {}, "position": "start", "dice": [3, 1]}
    reply = adapter.run(request)
    assert "errored" in reply and f"pip install 'bgconf[{name}]'" in reply["errored"], reply
    reply = adapter.run({**request, "kind": "play_check", "play": "8/5 6/5", "steps": [[8, 5], [6, 5]]})
    assert "errored" in reply and f"pip install 'bgconf[{name}]'" in reply["errored"], reply


def test_an_npm_engine_not_installed_names_the_npm_command(monkeypatch, tmp_path, capsys):
    """Without its node_modules an npm engine does not start, and it and bgconf engines say how to
    install it."""
    from conformance.engines import registry
    from conformance.engines.adapters import EngineUnavailable
    from conformance.cli import main

    monkeypatch.setattr(registry, "NPM_DIR", tmp_path)
    for name in NPM:
        assert registry.npm_version(NPM[name][1]) is None
        with pytest.raises(EngineUnavailable, match=f"npm ci --prefix {tmp_path}"):
            get_engine(name)
        version, how = install_state(name)
        assert version is None and "npm ci --prefix" in how
    # list the npm engines only (no other engine is started for the listing)
    monkeypatch.setattr("conformance.commands.engines.BUILTIN", {n: registry.BUILTIN[n] for n in NPM})
    assert main(["engines"]) == 0
    out = capsys.readouterr().out
    for name in NPM:
        assert f"not installed: npm ci --prefix {tmp_path}" in out.split(name, 1)[1].splitlines()[0]
