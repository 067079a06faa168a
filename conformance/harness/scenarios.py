"""Metamorphic scenarios: each case re-asked in forms that must not change the answer.

- ``swapped``: colours exchanged (x and o swap sides, turn, owner, scores...);
- ``dice-reversed``: the two dice given in the other order;
- ``gnubg-id`` / ``xgid`` / ``fibs-board``: the position sent as a GNU Backgammon
  Position ID, an XGID or a FIBS ``board:`` line (written for the side on roll, with
  the case's dice) instead of the board form, only to engines that declare the format
  (XGID and FIBS board only for positions of 15 checkers a side: spec: variant.codecs).

A scenario's case keeps the id and gets a ``scenario`` name, shown as
``bg-7Q3K[dice-reversed]``. ``bgconf certify`` asks every scenario that applies (a
certificate covers them: ``forms``); ``bgconf run`` asks them with ``--scenarios``.
"""

from __future__ import annotations

from dataclasses import replace

from conformance.cases import Case, ExpectedPlays, ExpectedRecord, RecordGame
from conformance.model import Cube, Match, other, swap_event

SCENARIOS = ("swapped", "dice-reversed", "gnubg-id", "xgid", "fibs-board")
_MOVEMENT = ("legal_plays", "play_check", "apply_play")
#: the position formats an engine may declare (``position_formats``) -> the scenario sending it
_FORMATS = {"gnubg_id": "gnubg-id", "xgid": "xgid", "fibs_board": "fibs-board"}


def _swap_side(name):
    return other(name) if name in ("x", "o") else name


def _swap_match(match: Match | None) -> Match | None:
    if match is None:
        return None
    return Match(match.length, {"x": match.score["o"], "o": match.score["x"]}, match.crawford,
                 match.post_crawford)


def _swapped(case: Case) -> Case | None:
    raw = dict(case.raw)
    expected = case.expected
    changes: dict = {}
    if case.position is not None:
        changes["position"] = case.position.swap_colours()
    if case.kind == "legal_plays":
        exp: ExpectedPlays = case.expected
        flip = (lambda d: {p.swap_colours(): t for p, t in d.items()})
        expected = ExpectedPlays(None if exp.exact is None else flip(exp.exact), exp.count,
                                 flip(exp.includes), flip(exp.excludes))
    elif case.kind == "apply_play":
        expected = case.expected.swap_colours()
    elif case.kind in ("play_check", "perft"):
        pass
    elif case.kind == "game_result":
        expected = dict(case.expected, winner=other(case.expected["winner"]))
        changes["cube"] = Cube(case.cube.value, _swap_side(case.cube.owner))
        changes["match"] = _swap_match(case.match)
    elif case.kind == "cube_action":
        raw["on_roll"] = other(raw["on_roll"])
        raw["action"] = dict(raw["action"], by=other(raw["action"]["by"]))
        changes["cube"] = Cube(case.cube.value, _swap_side(case.cube.owner))
        changes["match"] = _swap_match(case.match)
        expected = dict(case.expected)
        if "cube" in expected:
            expected["cube"] = dict(expected["cube"], owner=_swap_side(expected["cube"]["owner"]))
        if "game_over" in expected:
            expected["game_over"] = dict(expected["game_over"], winner=other(expected["game_over"]["winner"]))
    elif case.kind == "opening_roll":
        raw["throws"] = [[b, a] for a, b in raw["throws"]]
        changes["match"] = _swap_match(case.match)
        expected = dict(case.expected, starts=other(case.expected["starts"]))
    elif case.kind == "match_transition":
        changes["match"] = _swap_match(case.match)
        raw["result"] = dict(raw["result"], winner=other(raw["result"]["winner"]))
        expected = dict(case.expected)
        expected["score"] = {"x": expected["score"]["o"], "o": expected["score"]["x"]}
        if "winner" in expected:
            expected["winner"] = other(expected["winner"])
        if expected.get("next_starts") in ("x", "o"):
            expected["next_starts"] = other(expected["next_starts"])
    elif case.kind == "game_record":
        changes["match"] = _swap_match(case.match)
        changes["games"] = tuple(
            RecordGame(g.position.swap_colours() if g.position is not None else None,
                       Cube(g.cube.value, _swap_side(g.cube.owner)) if g.cube is not None else None,
                       tuple(swap_event(e) for e in g.events))
            for g in case.games)
        exp: ExpectedRecord = case.expected
        expected = ExpectedRecord(exp.refused, tuple(_swap_state(s) if s else s for s in exp.states),
                                  _swap_state(exp.final), tuple(e["text"] for g in changes["games"] for e in g.events))
    else:
        return None
    return replace(case, raw=raw, expected=expected, scenario="swapped", **changes)


def _swap_state(state: dict) -> dict:
    """A game_record state with the colours exchanged."""
    out = dict(state)
    for key in ("on_roll", "winner", "next_starts"):
        if key in out:
            out[key] = _swap_side(out[key])
    if "position" in out:
        out["position"] = out["position"].swap_colours()
    if "cube" in out:
        out["cube"] = dict(out["cube"], owner=_swap_side(out["cube"]["owner"]))
    if "score" in out:
        out["score"] = {"x": out["score"]["o"], "o": out["score"]["x"]}
    if "game_over" in out:
        out["game_over"] = dict(out["game_over"], winner=other(out["game_over"]["winner"]))
    return out


def variants(case: Case, engine_info: dict) -> list[Case]:
    """The scenario variants of ``case`` that apply (the formats the engine declares)."""
    out = []
    swapped = _swapped(case)
    if swapped is not None:
        out.append(swapped)
    if case.kind in _MOVEMENT and case.dice and case.dice[0] != case.dice[1]:
        out.append(replace(case, dice=case.dice[::-1], scenario="dice-reversed"))
    formats = set(engine_info.get("position_formats", ["board"]))
    if case.position is not None and case.kind != "codec":
        for fmt, name in _FORMATS.items():
            # XGID and FIBS boards cannot say how many checkers a side has (spec: variant.codecs)
            if fmt in formats and (fmt == "gnubg_id" or case.position.checkers == 15):
                out.append(replace(case, position_format=fmt, scenario=name))
    return out


def forms(engine_info: dict) -> list[str]:
    """The scenarios asked of an engine described by ``engine_info`` (its ``describe()``),
    in SCENARIOS order: ``swapped``, ``dice-reversed``, and one per position format it
    declares beside the board. What a certificate covers; a case is asked in those of
    them that apply to it (``variants``)."""
    formats = set(engine_info.get("position_formats", ["board"]))
    return ["swapped", "dice-reversed"] + [name for fmt, name in _FORMATS.items() if fmt in formats]


def with_variants(cases: list[Case], engine_info: dict) -> list[Case]:
    """``cases`` followed by the scenario variants of each (``variants``), in case order."""
    return list(cases) + [v for c in cases for v in variants(c, engine_info)]
