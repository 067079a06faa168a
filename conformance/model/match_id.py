"""The state beside the board, and the GNU Backgammon Match ID codec (spec: format.match-id).

``IdState`` is what an interchange id says besides the checkers: the cube, who rolled and who
must act, the dice, a pending double or resignation, the game state, the match (length, score,
Crawford game), and the rule flags some formats carry (Jacoby; in the XGID also beavers and the
highest cube). The Match ID and the XGID (``xgid.py``) both read into it.

Match ID layout (GNU Backgammon manual, "A technical description of the Match ID"; bits
numbered from 0, each field an unsigned integer written least significant bit first, the 72 bits
packed least significant first into 9 bytes and written in standard base64, 12 characters):

==========  =====  ===========================================================
bits        width  field
==========  =====  ===========================================================
0-3         4      log2 of the cube value
4-5         2      cube owner: 0 = player 0, 1 = player 1, 3 = centred
6           1      the player on roll (who rolls, or rolled, this turn)
7           1      this game is the Crawford game
8-10        3      game state: 0 none, 1 playing, 2 over, 3 resigned, 4 dropped
11          1      the player who must act now (the other one while a double or
                   a resignation is pending)
12          1      a double is offered
13-14       2      resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon
15-17       3      die 1 (0 = not rolled)
18-20       3      die 2
21-35       15     match length (0 = money play)
36-50       15     score of player 0
51-65       15     score of player 1
66          1      Jacoby rule NOT in use (GNU Backgammon since 2011; older ids
                   have 0 here, and in match play it is ignored)
67-71       5      zero
==========  =====  ===========================================================

bgconf maps GNU Backgammon's player 1 (the bottom player, drawn as ``X`` in its board
diagrams) to side ``x`` and player 0 to side ``o``, as the XGID's bottom player is ``x``.
Dice are kept high first, so two ids that differ only in the order of the dice decode to one
state, and the encoder writes the higher die first (as GNU Backgammon does).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from typing import Any, Mapping

from .errors import CodecError, ModelError
from .game import Cube, Match
from .position import SIDES, other

#: Side of each Match ID player number, and back.
PLAYER_SIDE = {0: "o", 1: "x"}
SIDE_PLAYER = {"o": 0, "x": 1}
GAME_STATES = ("none", "playing", "over", "resigned", "dropped")
RESIGNATIONS = ("none", "single", "gammon", "backgammon")
#: The IdState fields a Match ID carries; ``beavers`` and ``max_cube`` it does not.
MATCH_ID_FIELDS = ("cube", "on_roll", "turn", "dice", "double_offered", "resignation", "game_state", "match",
                   "jacoby")
_LAYOUT = (("cube_log2", 0, 4), ("owner", 4, 2), ("move", 6, 1), ("crawford", 7, 1), ("game", 8, 3),
           ("turn", 11, 1), ("doubled", 12, 1), ("resign", 13, 2), ("die1", 15, 3), ("die2", 18, 3),
           ("length", 21, 15), ("score0", 36, 15), ("score1", 51, 15), ("no_jacoby", 66, 1), ("zero", 67, 5))
MAX_FIELD = (1 << 15) - 1


@dataclass(frozen=True)
class IdState:
    """Cube, turn, dice, offers and match state of an id (see the module docstring).

    ``cube``: Cube; ``on_roll``: the side that rolls or rolled this turn (x or o); ``turn``:
    the side that must act now (None = derived: the other side while a double or a resignation
    is pending, else ``on_roll``); ``dice``: (high, low) or None; ``resignation``: one of
    RESIGNATIONS; ``game_state``: one of GAME_STATES; ``match``: Match (``post_crawford`` is
    not carried); ``jacoby``: money play only; ``beavers``, ``max_cube`` (a power of two):
    None when the format does not carry them. Raises GameStateError (a ModelError) when the
    fields contradict each other.
    """

    cube: Cube = field(default_factory=Cube)
    on_roll: str = "x"
    turn: str | None = None
    dice: tuple[int, int] | None = None
    double_offered: bool = False
    resignation: str = "none"
    game_state: str = "playing"
    match: Match = field(default_factory=Match)
    jacoby: bool = False
    beavers: bool | None = None
    max_cube: int | None = None

    def __post_init__(self) -> None:
        if self.on_roll not in SIDES:
            raise ModelError(f"on_roll is x or o, not {self.on_roll!r}")
        pending = self.double_offered or self.resignation != "none"
        if self.turn is None:
            object.__setattr__(self, "turn", other(self.on_roll) if pending else self.on_roll)
        if self.turn not in SIDES:
            raise ModelError(f"turn is x or o, not {self.turn!r}")
        if self.dice is not None:
            d = tuple(self.dice)
            if len(d) != 2 or any(isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 6 for n in d):
                raise ModelError(f"dice are two numbers 1..6, not {self.dice!r}")
            object.__setattr__(self, "dice", (max(d), min(d)))
        if self.resignation not in RESIGNATIONS:
            raise ModelError(f"resignation is one of {', '.join(RESIGNATIONS)}, not {self.resignation!r}")
        if self.game_state not in GAME_STATES:
            raise ModelError(f"game_state is one of {', '.join(GAME_STATES)}, not {self.game_state!r}")
        if self.double_offered and self.dice is not None:
            raise ModelError("a double is offered before the roll: a state with a pending double has no dice")
        if self.double_offered and self.resignation != "none":
            raise ModelError("a double and a resignation cannot both be pending")
        if self.match.money is False and self.jacoby:
            raise ModelError("the Jacoby rule is a money-play rule: match play has no jacoby")
        if self.max_cube is not None and (not isinstance(self.max_cube, int) or self.max_cube < 1
                                          or self.max_cube & (self.max_cube - 1)):
            raise ModelError(f"max_cube is a power of two, not {self.max_cube!r}")

    # -- the case and wire form ----------------------------------------------
    @classmethod
    def from_dict(cls, data: Any) -> "IdState":
        """The mapping form (see ``to_dict``; every key optional) -> IdState. Raises ModelError."""
        if not isinstance(data, Mapping):
            raise ModelError(f"a state is a mapping of cube, on_roll, dice, match, ..., not {data!r}")
        known = {"cube", "on_roll", "turn", "dice", "double_offered", "resignation", "game_state", "match",
                 "jacoby", "beavers", "max_cube"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ModelError(f"unknown state field(s) {', '.join(map(str, unknown))}; fields: {', '.join(sorted(known))}")
        dice = data.get("dice")
        return cls(cube=Cube.from_dict(data.get("cube")), on_roll=data.get("on_roll", "x"), turn=data.get("turn"),
                   dice=None if dice is None else tuple(dice), double_offered=bool(data.get("double_offered", False)),
                   resignation=data.get("resignation", "none"), game_state=data.get("game_state", "playing"),
                   match=Match.from_dict(data.get("match")), jacoby=bool(data.get("jacoby", False)),
                   beavers=data.get("beavers"), max_cube=data.get("max_cube"))

    def to_dict(self) -> dict:
        """``{"cube": {value, owner}, "on_roll", "turn", "dice": [high, low] | None,
        "double_offered", "resignation", "game_state", "match": {length, score, crawford},
        "jacoby"}`` plus ``beavers`` and ``max_cube`` when carried."""
        out = {"cube": self.cube.to_dict(), "on_roll": self.on_roll, "turn": self.turn,
               "dice": list(self.dice) if self.dice else None, "double_offered": self.double_offered,
               "resignation": self.resignation, "game_state": self.game_state,
               "match": {"length": self.match.length, "score": dict(self.match.score),
                         "crawford": self.match.crawford},
               "jacoby": self.jacoby}
        if self.beavers is not None:
            out["beavers"] = self.beavers
        if self.max_cube is not None:
            out["max_cube"] = self.max_cube
        return out

    def differences(self, other_state: "IdState", fields: tuple[str, ...]) -> list[str]:
        """``["cube is {...}, expected {...}", ...]`` for each of ``fields`` that differs
        (this state is the one found, ``other_state`` the one expected)."""
        out = []
        mine, theirs = self.to_dict(), other_state.to_dict()
        for name in fields:
            if mine.get(name) != theirs.get(name):
                out.append(f"{name} is {mine.get(name)!r}, expected {theirs.get(name)!r}")
        return out

    def post_crawford(self, crawford_rule: bool = True) -> bool:
        """Whether a game in this state is post-Crawford, as GNU Backgammon infers it from the
        score: the Crawford rule on, a match, not the Crawford game, a player one point away."""
        m = self.match
        return (crawford_rule and not m.money and not m.crawford
                and max(m.score["x"], m.score["o"]) == m.length - 1)


def _key(text: Any, length: int, name: str) -> int:
    if not isinstance(text, str):
        raise CodecError(f"a {name} is a string, not {type(text).__name__}", "bad_field")
    if len(text) != length:
        raise CodecError(f"a {name} has {length} characters, {text!r} has {len(text)}", "wrong_length")
    pad = "=" * (-length % 4)
    try:
        if "=" in text:  # padding is no character of an id: its bits would go missing
            raise ValueError(text)
        raw = base64.b64decode(text + pad, validate=True)
    except (binascii.Error, ValueError):
        raise CodecError(f"{name} {text!r} is not base64 (A-Z a-z 0-9 + /)", "not_base64") from None
    return int.from_bytes(raw, "little")


def decode_match_id(text: str) -> IdState:
    """12-character Match ID -> IdState (spec: format.match-id).

    Raises CodecError with ``reason`` (one of REFUSALS): ``wrong_length``, ``not_base64``,
    ``score_not_below_length`` (a match score at or above the length), or ``bad_field`` (bits
    67-71 set, a game state above 4, a die of 7, one die without the other, a Crawford game in
    money play or with nobody one point away, a pending double with dice, an owned cube at 1).
    """
    bits = _key(text, 12, "Match ID")
    f = {name: (bits >> start) & ((1 << width) - 1) for name, start, width in _LAYOUT}
    where = f"Match ID {text!r}"
    if f["zero"]:
        raise CodecError(f"{where} has bits set after bit 66", "bad_field")
    if f["game"] >= len(GAME_STATES):
        raise CodecError(f"{where} has game state {f['game']}; states are 0..4", "bad_field")
    if 7 in (f["die1"], f["die2"]) or (f["die1"] == 0) != (f["die2"] == 0):
        raise CodecError(f"{where} has dice {f['die1']} and {f['die2']}: two dice 1..6, or both 0", "bad_field")
    length = f["length"]
    score = {PLAYER_SIDE[0]: f["score0"], PLAYER_SIDE[1]: f["score1"]}
    if length and max(score.values()) >= length:
        raise CodecError(f"{where}: score {score['x']}-{score['o']} (x-o) in a match to {length}: a score at or"
                      f" above the match length means the match is over", "score_not_below_length")
    owner = "center" if f["owner"] in (2, 3) else PLAYER_SIDE[f["owner"]]
    try:
        return IdState(
            cube=Cube(1 << f["cube_log2"], owner), on_roll=PLAYER_SIDE[f["move"]], turn=PLAYER_SIDE[f["turn"]],
            dice=(f["die1"], f["die2"]) if f["die1"] else None, double_offered=bool(f["doubled"]),
            resignation=RESIGNATIONS[f["resign"]], game_state=GAME_STATES[f["game"]],
            match=Match(length, score, crawford=bool(f["crawford"])),
            jacoby=bool(length == 0 and not f["no_jacoby"]))
    except ModelError as exc:
        raise CodecError(f"{where}: {exc}", "bad_field") from None


def encode_match_id(state: IdState) -> str:
    """IdState -> 12-character Match ID (higher die first; bit 66 = not Jacoby, so 1 in
    match play). Raises CodecError (``cube_not_power_of_two``, ``bad_field``) for a value
    the layout cannot hold (a cube above 2^15, a length or score above 32767)."""
    value = state.cube.value
    if value & (value - 1):
        raise CodecError(f"cube value {value} is not a power of two", "cube_not_power_of_two")
    log2 = value.bit_length() - 1
    if log2 > 15:
        raise CodecError(f"cube value {value} is above 2^15, the Match ID's highest", "bad_field")
    m = state.match
    if max(m.length, m.score["x"], m.score["o"]) > MAX_FIELD:
        raise CodecError(f"match length and scores are at most {MAX_FIELD} in a Match ID", "bad_field")
    dice = state.dice or (0, 0)
    f = {"cube_log2": log2, "owner": 3 if state.cube.owner == "center" else SIDE_PLAYER[state.cube.owner],
         "move": SIDE_PLAYER[state.on_roll], "crawford": int(m.crawford),
         "game": GAME_STATES.index(state.game_state), "turn": SIDE_PLAYER[state.turn],
         "doubled": int(state.double_offered), "resign": RESIGNATIONS.index(state.resignation),
         "die1": dice[0], "die2": dice[1], "length": m.length, "score0": m.score[PLAYER_SIDE[0]],
         "score1": m.score[PLAYER_SIDE[1]], "no_jacoby": int(not state.jacoby), "zero": 0}
    bits = 0
    for name, start, width in _LAYOUT:
        bits |= f[name] << start
    return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")


def encode_state_dict(data: Any) -> str:
    """A state in mapping form -> Match ID; a cube that is not a power of two is refused
    with ``cube_not_power_of_two`` before the rest is read. Raises CodecError."""
    cube = data.get("cube") if isinstance(data, Mapping) else None
    value = cube.get("value") if isinstance(cube, Mapping) else None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1 and value & (value - 1):
        raise CodecError(f"cube value {value} is not a power of two", "cube_not_power_of_two")
    match = data.get("match") if isinstance(data, Mapping) else None
    if isinstance(match, Mapping) and isinstance(match.get("score"), Mapping):
        length, score = match.get("length", 0), match["score"]
        if isinstance(length, int) and length > 0 and any(
                isinstance(n, int) and n >= length for n in score.values()):
            raise CodecError(f"score {dict(score)} in a match to {length}: a score at or above the match length"
                          f" means the match is over", "score_not_below_length")
    try:
        state = IdState.from_dict(data)
    except ModelError as exc:
        raise CodecError(f"cannot encode the state: {exc}", "bad_field") from None
    return encode_match_id(state)
