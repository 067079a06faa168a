"""What the gnubg adapter's plans share: its two errors, bgconf's sides as gnubg's players,
gnubg's limits and rule settings, and the conversions between bgconf's dicts and gnubg's terms.

Boards are gnubg's ``[not_on_roll[25], on_roll[25]]`` (index p-1 = point p, 24 = the bar);
positions are the board form of spec/protocol.md. A request outside what gnubg answers raises
``_Unsupported`` (the reply ``{"unsupported": why}``), a bad one ``_Failure`` (``{"errored": why}``).
"""

from __future__ import annotations

from typing import Any

from conformance.engines.interface import OPTION_UNSUPPORTED
from conformance.model import (
    SIDES, VARIANTS, Cube, Match, ModelError, Position, check_variant, effective_rules, read_position, variant_checkers,
)


class _Failure(Exception):
    """A request that cannot be answered; becomes ``{"errored": ...}``."""


class _Unsupported(Exception):
    """A request outside what gnubg answers; becomes ``{"unsupported": ...}``."""


#: bgconf's sides as gnubg's players: x is player 0 (``gnubg.match()``'s "X", the first die of
#: each opening throw), o is player 1 ("O").
PLAYER = {"x": 0, "o": 1}
SIDE = ("x", "o")
#: gnubg 1.07's highest cube (its MAX_CUBE); it has no setting for another cap.
GNUBG_MAX_CUBE = 4096
#: "GNU Backgammon is compiled with support only for matches of length 64 and below".
GNUBG_MAX_MATCH = 64
#: `set automatic doubles` takes at most 12.
GNUBG_MAX_AUTO_DOUBLES = 12
_RESULT = {"single game": "single", "gammon": "gammon", "backgammon": "backgammon"}

#: Rule option values gnubg has a setting for (see describe()). ``max_cube`` is the exception:
#: gnubg's cube simply stops at 4096, so every cap is declared and a request whose answer
#: depends on a cap other than 4096 is answered unsupported.
RULE_OPTIONS = {
    "cube": [True, False],                                      # set cube use on|off
    "max_cube": [2 ** k for k in range(16)] + [None],           # see above
    "jacoby": [False, True],                                    # set jacoby off|on
    "beavers": [False, True],                                   # set beavers 0 | 1
    "raccoons": [False, True],                                  # set beavers 1 | 2
    "automatic_doubles": list(range(GNUBG_MAX_AUTO_DOUBLES + 1)),  # set automatic doubles n
    "crawford": [True, False],                                  # set automatic crawford on|off
    "backgammon_multiplier": [3],                               # gnubg counts a backgammon 3 times
    "opening_reroll": [False],                                  # no such variant in gnubg
    "winner_starts": [False],                                   # every gnubg game opens with a throw
    "variant": list(VARIANTS),                                  # set variation (VARIATION below)
}

#: bgconf's variants (spec: variant.option) as gnubg 1.07's `set variation` names them.
VARIATION = {"standard": "standard", "nackgammon": "nackgammon",
             "hypergammon-1": "1-chequer-hypergammon", "hypergammon-2": "2-chequer-hypergammon",
             "hypergammon-3": "3-chequer-hypergammon"}


def _variant(req: dict) -> str:
    """The request's variant (spec: variant.option), checked."""
    variant = (req.get("rules") or {}).get("variant", "standard") if isinstance(req, dict) else "standard"
    if variant not in VARIATION:
        raise _Failure(f"bad rules: unknown variant {variant!r}")
    return variant


def _position(data: Any, variant: str = "standard") -> Position:
    """A request's position read in ``variant``, with that variant's checker count."""
    try:
        position = read_position(data, variant)
        check_variant(position, variant)
        return position
    except ModelError as exc:
        raise _Failure(f"bad position: {exc}") from None


def _board(position: Position) -> list[list[int]]:
    """Position -> gnubg board ``[not_on_roll[25], on_roll[25]]`` (index p-1, bar at 24)."""
    return [list(side[1:26]) for side in (position.opponent, position.mover)]


def _board_to_position(board: list[list[int]], on_roll: str, variant: str = "standard") -> dict:
    """gnubg board (not_on_roll, on_roll) -> board-form position dict with ``on_roll`` on roll;
    each side has borne off ``variant``'s checker count minus those on the board."""
    checkers = variant_checkers(variant)
    sides = [tuple([checkers - sum(arr)] + [int(n) for n in arr]) for arr in board]
    try:
        return Position.from_mover(on_roll, sides[1], sides[0]).to_wire()
    except ModelError as exc:
        raise _Failure(f"gnubg decoded an impossible position: {exc}") from None


def _refused_or(got: dict, answer) -> dict:
    """gnubg's refusal as ``{"refused": None, "message": ...}`` (no reason code: gnubg's
    messages do not say which check failed), else ``answer(got)``."""
    if "refused" in got:
        return {"refused": None, "message": f"gnubg: {got['refused']}"}
    return answer(got)


def _rules(req: dict) -> dict:
    try:
        return effective_rules(req.get("rules"))
    except ModelError as exc:
        raise _Failure(f"bad rules: {exc}") from None


def _match_of(req: dict) -> Match:
    try:
        match = Match.from_dict(req.get("match"))
    except ModelError as exc:
        raise _Failure(f"bad match: {exc}") from None
    if match.length > GNUBG_MAX_MATCH:
        raise _Unsupported(f"gnubg plays matches of at most {GNUBG_MAX_MATCH} points, not {match.length}")
    return match


def _cube_of(req: dict) -> Cube:
    try:
        return Cube.from_dict(req.get("cube"))
    except ModelError as exc:
        raise _Failure(f"bad cube: {exc}") from None


def _side_arg(value: Any, name: str) -> str:
    if value not in SIDES:
        raise _Failure(f"{name} must be x or o, not {value!r}")
    return value


def _owner(cube: Cube) -> int:
    return -1 if cube.owner == "center" else PLAYER[cube.owner]


def _beavers(rules: dict) -> int:
    """gnubg's `set beavers n`: how many redoubles (a beaver, then raccoons) one cube action may have."""
    return 0 if not rules["beavers"] else 2 if rules["raccoons"] else 1


def _game_spec(match: Match, rules: dict, *, jacoby: bool = False, beavers: int = 0) -> dict:
    return {"length": match.length, "score": [match.score["x"], match.score["o"]],
            "crawford": match.crawford, "post_crawford": match.post_crawford,
            "cube_use": rules["cube"], "jacoby": jacoby, "beavers": beavers,
            "auto_crawford": rules["crawford"]}


def _cap_note(cap: Any) -> str:
    # worded as the runner words an unsupported option value, so that certificates
    # list it among the options not covered
    return (f"{OPTION_UNSUPPORTED} max_cube={cap!r} here: gnubg has no max_cube"
            f" setting (its cube stops at {GNUBG_MAX_CUBE})")


def _moment(state: dict) -> str:
    if state["doubled"]:
        return {0: "double_offered", 1: "beaver_offered"}.get(state["beavers"], "raccoon_offered")
    return "after_roll" if state["dice"][0] else "before_roll"


def _cube_dict(state: dict) -> dict:
    owner = state["owner"]
    return {"value": state["cube"], "owner": "center" if owner < 0 else SIDE[owner]}
