"""XGID (eXtreme Gammon ID) codec, position part (spec: format.xgid).

Layout, as GNU Backgammon's own XGID importer reads it (no official
specification is published): ``XGID=P:CV:CP:T:D:S1:S2:CJ:ML:MC``. ``P`` has 26
characters and is absolute, not relative to the side on roll: index 0 is the
top player's bar, 1..24 the points in the bottom player's numbering, 25 the
bottom player's bar; ``-`` is empty, ``A``..``P`` are 1..16 checkers of the
bottom player, ``a``..``p`` of the top player (a top checker at index i stands
on the top player's point 25 - i). ``T`` is 1 when the bottom player is on roll,
-1 for the top player.

bgconf maps the bottom player to side ``x`` and the top player to side ``o``.

The other fields (``decode_xgid_state`` and ``encode_xgid_state`` read and write them as an
IdState): ``CV`` log2 of the cube value (a cube of 8 is written 3); ``CP`` the cube owner, 1
bottom, 0 centred, -1 top; ``D`` ``00`` before the roll, two digits for the dice rolled (either
order), ``D`` when the player in ``T`` has doubled and the other must take or drop (``CV`` and
``CP`` then still give the cube before the double); ``S1``, ``S2`` the bottom and top scores;
``CJ`` in match play 1 for the Crawford game, in money play bit 1 the Jacoby rule and bit 2
beavers; ``ML`` the match length, 0 for money play; ``MC`` log2 of the highest cube (XG writes 10).
"""

from __future__ import annotations

from .errors import CodecError, ModelError, PositionError
from .game import Cube, Match
from .match_id import IdState
from .position import BAR, CHECKERS, OFF, Position

#: The IdState fields an XGID carries (no resignation, no game state).
XGID_FIELDS = ("cube", "on_roll", "turn", "dice", "double_offered", "match", "jacoby", "beavers", "max_cube")
#: What an XGID's MC field says when it is 10, XG's usual value.
XGID_MAX_CUBE = 1 << 10


def encode_xgid(position: Position) -> str:
    """Position -> ``XGID=...`` with a centred cube at 1, no dice, money play (str)."""
    chars = []
    for i in range(26):
        if i == 0:
            n, lower = position.o[BAR], True
        elif i == 25:
            n, lower = position.x[BAR], False
        else:
            n, lower = (position.x[i], False) if position.x[i] else (position.o[25 - i], True)
        chars.append("-" if n == 0 else chr((ord("a") if lower else ord("A")) + n - 1))
    turn = 1 if position.on_roll == "x" else -1
    return f"XGID={''.join(chars)}:0:0:{turn}:00:0:0:0:0:10"


def decode_xgid_fields(text: str) -> dict:
    """The ten fields of an XGID as a dict: ``board`` (26 chars), ``cube_log2``,
    ``cube_position`` (1 bottom, 0 centred, -1 top), ``turn``, ``dice``, ``score_bottom``,
    ``score_top``, ``crawford_jacoby``, ``match_length``, ``max_cube_log2``.
    Raises CodecError naming the bad field."""
    if not isinstance(text, str) or not text.startswith("XGID="):
        raise CodecError(f"an XGID starts with 'XGID=', got {str(text)[:40]!r}", "bad_field")
    fields = text[5:].split(":")
    if len(fields) != 10:
        raise CodecError(f"an XGID has 10 fields separated by ':', got {len(fields)} in {text!r}", "wrong_length")
    board = fields[0]
    if len(board) != 26:
        raise CodecError(f"XGID board field has 26 characters, {board!r} has {len(board)}", "wrong_length")
    if any(c != "-" and not ("A" <= c <= "P" or "a" <= c <= "p") for c in board):
        raise CodecError(f"XGID board field must be 26 characters of '-', A-P, a-p: {board!r}", "bad_field")
    names = ("cube_log2", "cube_position", "turn", "dice", "score_bottom", "score_top", "crawford_jacoby",
             "match_length", "max_cube_log2")
    out: dict = {"board": board}
    for name, value in zip(names, fields[1:]):
        if name == "dice":
            out[name] = value
            continue
        try:
            out[name] = int(value)
        except ValueError:
            raise CodecError(f"XGID field {name} is not a number: {value!r}", "bad_field") from None
    if out["turn"] not in (1, -1):
        raise CodecError(f"XGID turn field is 1 (bottom) or -1 (top), not {out['turn']}", "bad_field")
    return out


def decode_xgid(text: str) -> Position:
    """``XGID=...`` -> Position (bottom player = x, top = o, side on roll from the
    turn field). Raises CodecError."""
    fields = decode_xgid_fields(text)
    x, o = [0] * 26, [0] * 26
    for i, c in enumerate(fields["board"]):
        if c == "-":
            continue
        n = ord(c.lower()) - ord("a") + 1
        if c.isupper():
            if i == 0:
                raise CodecError("XGID index 0 is the top player's bar; it holds no bottom checker", "bad_field")
            x[BAR if i == 25 else i] += n
        else:
            if i == 25:
                raise CodecError("XGID index 25 is the bottom player's bar; it holds no top checker", "bad_field")
            o[BAR if i == 0 else 25 - i] += n
    for side, name in ((x, "bottom"), (o, "top")):
        if sum(side) > CHECKERS:
            raise CodecError(f"XGID {name} player has {sum(side)} checkers; at most {CHECKERS}", "too_many_checkers")
        side[OFF] = CHECKERS - sum(side)
    try:
        return Position("x" if fields["turn"] == 1 else "o", tuple(x), tuple(o))
    except PositionError as exc:
        raise CodecError(f"XGID {text!r}: {exc}", "bad_field") from None


def decode_xgid_state(text: str) -> tuple[Position, IdState]:
    """``XGID=...`` -> (Position, IdState with every field of XGID_FIELDS) (spec: format.xgid).

    The side on roll is ``T`` (during a pending double: the doubler, with the other side to
    act); ``max_cube`` is 2 to the power ``MC``. Raises CodecError with ``reason`` (see
    match_id.REFUSALS): ``score_not_below_length``, ``bad_field`` (a cube log2 outside 0..15, an
    owner other than -1/0/1, dice not ``00``, ``D`` or two digits 1..6, a Crawford field other
    than 0/1 in match play or 0..3 in money play, MC outside 0..15), or the position's reasons.
    """
    position = decode_xgid(text)
    f = decode_xgid_fields(text)
    where = f"XGID {text!r}"
    if not 0 <= f["cube_log2"] <= 15:
        raise CodecError(f"{where}: the cube field is log2 of the cube, 0..15, not {f['cube_log2']}", "bad_field")
    if f["cube_position"] not in (1, 0, -1):
        raise CodecError(f"{where}: cube position is 1 (bottom), 0 (centred) or -1 (top), not {f['cube_position']}",
                      "bad_field")
    dice_field, dice, doubled = f["dice"], None, False
    if dice_field == "D":
        doubled = True
    elif len(dice_field) == 2 and all(c in "123456" for c in dice_field):
        dice = (int(dice_field[0]), int(dice_field[1]))
    elif dice_field != "00":
        raise CodecError(f"{where}: the dice field is 00, D or two dice 1..6, not {dice_field!r}", "bad_field")
    length = f["match_length"]
    if length < 0 or f["score_bottom"] < 0 or f["score_top"] < 0:
        raise CodecError(f"{where}: match length and scores are whole numbers >= 0", "bad_field")
    if length and max(f["score_bottom"], f["score_top"]) >= length:
        raise CodecError(f"{where}: score {f['score_bottom']}-{f['score_top']} in a match to {length}: a score at or"
                      f" above the match length means the match is over", "score_not_below_length")
    cj = f["crawford_jacoby"]
    if cj not in ((0, 1) if length else (0, 1, 2, 3)):
        raise CodecError(f"{where}: field CJ is {cj}; 0/1 (Crawford) in match play, 0..3 (Jacoby 1 + beavers 2)"
                      f" in money play", "bad_field")
    if not 0 <= f["max_cube_log2"] <= 15:
        raise CodecError(f"{where}: field MC is log2 of the highest cube, 0..15, not {f['max_cube_log2']}", "bad_field")
    owner = {1: "x", 0: "center", -1: "o"}[f["cube_position"]]
    try:
        state = IdState(
            cube=Cube(1 << f["cube_log2"], owner), on_roll=position.on_roll, dice=dice, double_offered=doubled,
            match=Match(length, {"x": f["score_bottom"], "o": f["score_top"]}, crawford=bool(length and cj & 1)),
            jacoby=bool(not length and cj & 1), beavers=bool(not length and cj & 2),
            max_cube=1 << f["max_cube_log2"])
    except ModelError as exc:
        raise CodecError(f"{where}: {exc}", "bad_field") from None
    return position, state


def encode_xgid_state(position: Position, state: IdState) -> str:
    """(Position, IdState) -> ``XGID=...`` with every field (dice high first; ``max_cube``
    None is written as 10, XG's usual value). Raises CodecError when the state's side on roll
    is not the position's, or a value has no XGID spelling (``cube_not_power_of_two``,
    ``bad_field``: a resignation or a game that is not being played)."""
    if state.on_roll != position.on_roll:
        raise CodecError(f"the state has {state.on_roll} on roll, the position {position.on_roll}", "bad_field")
    if state.resignation != "none" or state.game_state != "playing":
        raise CodecError("an XGID has no field for a resignation or a game not being played", "bad_field")
    value = state.cube.value
    if value & (value - 1):
        raise CodecError(f"cube value {value} is not a power of two", "cube_not_power_of_two")
    board = encode_xgid(position).split(":")[0]
    cp = {"x": 1, "center": 0, "o": -1}[state.cube.owner]
    dice = "D" if state.double_offered else (f"{state.dice[0]}{state.dice[1]}" if state.dice else "00")
    m = state.match
    cj = int(m.crawford) if m.length else int(state.jacoby) + 2 * int(bool(state.beavers))
    mc = (state.max_cube or XGID_MAX_CUBE).bit_length() - 1
    turn = 1 if state.on_roll == "x" else -1
    return (f"{board}:{value.bit_length() - 1}:{cp}:{turn}:{dice}:{m.score['x']}:{m.score['o']}:{cj}:{m.length}"
            f":{mc}")
