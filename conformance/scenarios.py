"""Metamorphic scenarios: each case re-asked in forms that must not change the answer.

- ``swapped``: colours exchanged (x and o swap sides, turn, owner, scores...);
- ``dice-reversed``: the two dice given in the other order;
- ``gnubg-id`` / ``xgid``: the position sent as a GNU Backgammon Position ID or an
  XGID instead of the board form, only to engines that declare the format.

A scenario's case keeps the id and gets a ``scenario`` name, shown as
``bg-7Q3K[dice-reversed]``.
"""

from __future__ import annotations

from dataclasses import replace

from .cases import Case, ExpectedPlays
from .model import Cube, Match, other

SCENARIOS = ("swapped", "dice-reversed", "gnubg-id", "xgid")
_MOVEMENT = ("legal_plays", "play_check", "apply_play")


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
    else:
        return None
    return replace(case, raw=raw, expected=expected, scenario="swapped", **changes)


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
        for fmt, name in (("gnubg_id", "gnubg-id"), ("xgid", "xgid")):
            if fmt in formats:
                out.append(replace(case, position_format=fmt, scenario=name))
    return out
