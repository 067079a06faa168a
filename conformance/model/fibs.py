"""FIBS ``board:`` line codec (spec: format.fibs-board).

Layout, as the FIBS client protocol publishes it (FIBS Client Protocol Detailed
Specification, "board state", http://fibs.com/fibs_interface.html; the same field table
on the MacFIBS "rawboard" help page): 53 fields separated by ``:``, 0-based:

====  ===========================================================================
0     the word ``board``
1, 2  the player's name ("You" while playing), the opponent's name
3     match length; 9999 = unlimited match (bgconf: money play)
4, 5  the player's score, the opponent's score
6-31  positions 0..25: signed checker counts, positive = O's, negative = X's;
      0 and 25 are the two bars (which is whose: field 44)
32    turn: -1 = X to play, 1 = O, 0 = the game is over
33-36 the player's two dice, the opponent's two dice (0 0 = not rolled)
37    cube value
38-39 the player may double, the opponent may double (1/0)
40    was doubled: 1 = the opponent has just doubled the player
41    colour: -1 = the player is X, 1 = the player is O
42    direction: -1 = the player moves from position 24 to 1, 1 = from 1 to 24
43-44 home (0 or 25, where the player bears off), bar (the player's bar position)
45-48 borne off: player, opponent; on the bar: player, opponent
49    can move (0..4); 50 forced move; 51 did Crawford; 52 redoubles
====  ===========================================================================

The player's own point ``p`` is position ``p`` when direction is -1 and ``25 - p``
when it is 1; the opponent's point ``q`` is the player's ``25 - q``. While a double
is pending FIBS writes the line for the doubled player (field 40 is 1) and the turn
stays with the doubler, who has not rolled.

bgconf maps FIBS colour X to side ``x`` and O to ``o``. The encoder writes the
orientation FIBS itself uses (X moves from 1 to 24 and bears off at 25, O the
other way: the two published examples), so a side's points always sit at the same
positions whichever side the line is written for.

Field 51 (Crawford) is read as "the Crawford game has been played": with a player
one point from the match it is 0 in the Crawford game and 1 in the games after it
(FIBS marks the Crawford game itself by refusing doubles: both may-double flags 0).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .errors import CodecError, ModelError
from .game import Cube, Match
from .position import BAR, CHECKERS, OFF, Position, other

#: Match length written for money play (an "unlimited match").
MONEY_LENGTH = 9999
FIELDS = 53
_COLOUR = {"x": -1, "o": 1}
_NAME_OK = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


@dataclass(frozen=True)
class FibsBoard:
    """Everything a ``board:`` line carries.

    ``position``: the board, ``on_roll`` = whose turn (field 32; the doubler while a
    double is pending; when ``game_over`` the turn field is 0 and ``on_roll`` is the
    player). ``player``: the side the line is written for (x or o). ``dice``: the roll
    of the side on turn, in the order written, or None (not rolled). ``cube``: its
    value. ``may_double``: ``{"x": bool, "o": bool}``. ``doubled``: the player has been
    doubled and must take or drop. ``match_length``: 0 for money (9999 on the line).
    ``score``: ``{"x": n, "o": n}``. ``did_crawford``, ``can_move``, ``forced_move``,
    ``redoubles``: fields 51, 49, 50, 52 as integers. ``names``: (player, opponent).
    """

    position: Position
    player: str
    dice: tuple[int, int] | None = None
    cube: int = 1
    may_double: dict = field(default_factory=lambda: {"x": True, "o": True})
    doubled: bool = False
    match_length: int = 0
    score: dict = field(default_factory=lambda: {"x": 0, "o": 0})
    did_crawford: int = 0
    game_over: bool = False
    names: tuple[str, str] = ("You", "Opponent")
    can_move: int = 0
    forced_move: int = 0
    redoubles: int = 0

    # -- the state beside the board, in bgconf's terms ------------------------------------
    def cube_state(self) -> Cube:
        """The cube as bgconf reads it: centred while both may double or the cube is at 1,
        else owned by the only side that may double. Raises CodecError when neither may
        double with a turned cube and no double pending (the owner cannot be told)."""
        if self.cube == 1:
            return Cube(1, "center")
        can = [s for s in ("x", "o") if self.may_double[s]]
        if len(can) == 2:
            return Cube(self.cube, "center")
        if len(can) == 1:
            return Cube(self.cube, can[0])
        raise CodecError(f"cube at {self.cube} with neither side allowed to double: its owner cannot be read")

    def match(self) -> Match:
        """The match state: length (0 = money), score, and the Crawford flags read from
        field 51 when a player is one point from the match (module docstring)."""
        if not self.match_length:
            return Match(0, dict(self.score))
        near = self.match_length - 1
        high, low = max(self.score.values()), min(self.score.values())
        crawfordish = high == near and low < near
        return Match(self.match_length, dict(self.score), crawford=crawfordish and not self.did_crawford,
                     post_crawford=crawfordish and bool(self.did_crawford))

    def state(self) -> dict:
        """The compared fields as plain data (the codec cases' ``fibs`` object)."""
        return {"player": self.player, "dice": list(self.dice) if self.dice else None, "cube": self.cube,
                "may_double": dict(self.may_double), "doubled": self.doubled,
                "match_length": self.match_length, "score": dict(self.score),
                "did_crawford": self.did_crawford}

    @classmethod
    def from_state(cls, position: Position, state: dict) -> FibsBoard:
        """A FibsBoard from a position and a ``state()``-shaped dict; absent keys take the
        defaults (player = the side on roll, or its opponent while a double is pending); the
        game is over when a side has borne off all 15.
        Raises CodecError for a value of the wrong shape."""
        state = dict(state or {})
        doubled = bool(state.get("doubled", False))
        player = state.get("player") or (other(position.on_roll) if doubled else position.on_roll)
        dice = state.get("dice")
        try:
            board = cls(position, player, tuple(dice) if dice else None, int(state.get("cube", 1)),
                        {"x": True, "o": True, **(state.get("may_double") or {})}, doubled,
                        int(state.get("match_length", 0)), {"x": 0, "o": 0, **(state.get("score") or {})},
                        int(state.get("did_crawford", 0)),
                        game_over=CHECKERS in (position.x[OFF], position.o[OFF]))
        except (TypeError, ValueError) as exc:
            raise CodecError(f"FIBS board state {state!r}: {exc}") from None
        _check(board)
        return board


def fibs_state_differences(want: dict, got) -> list[str]:
    """The fields of two FIBS board states (``FibsBoard.state()`` dicts) that differ, each
    as ``"cube is 2, expected 4"``; dice compare in any order. ``got`` may be anything an
    engine sent: a missing or malformed field is a difference."""
    out = []
    for key, value in want.items():
        mine = got.get(key) if isinstance(got, dict) else None
        if key == "dice" and isinstance(mine, list) and value:
            same = sorted(mine, key=str) == sorted(value)
        else:
            same = mine == value
        if not same:
            out.append(f"{key} is {mine!r}, expected {value!r}")
    return out


def _check(board: FibsBoard) -> None:
    if board.player not in ("x", "o"):
        raise CodecError(f"the FIBS board's player is x or o, not {board.player!r}")
    if board.dice is not None and (len(board.dice) != 2 or not all(1 <= d <= 6 for d in board.dice)):
        raise CodecError(f"dice {board.dice!r}: two numbers 1..6, or none")
    if board.cube < 1 or board.cube & (board.cube - 1):
        raise CodecError(f"cube value {board.cube} is not a power of two")
    if board.match_length < 0 or board.match_length == MONEY_LENGTH:
        raise CodecError(f"match length {board.match_length}: 0 = money, else the points to win")
    for side in ("x", "o"):
        n = board.score[side]
        if n < 0 or (board.match_length and n >= board.match_length):
            raise CodecError(f"score {n} of {side} in a match to {board.match_length or 'money'}")
    if board.doubled and board.dice is not None:
        raise CodecError("a pending double comes before the doubler rolls: no dice with doubled")
    if board.doubled and board.player == board.position.on_roll and not board.game_over:
        raise CodecError("while a double is pending the line is written for the doubled player, not the doubler")


def encode_fibs_board(board: FibsBoard) -> str:
    """A FibsBoard -> its ``board:`` line (str), in FIBS's own orientation (module
    docstring). Names have ``:`` and other characters outside ``[A-Za-z0-9_]`` replaced
    by ``_``. Raises CodecError for an impossible state."""
    _check(board)
    pos, me = board.position, board.player
    opp = other(me)
    colour = _COLOUR[me]
    direction = 1 if me == "x" else -1
    home = 25 if direction == 1 else 0
    cells = [0] * 26
    for side in ("x", "o"):
        sign = _COLOUR[side]
        counts = pos.side(side)
        for p in range(1, 25):
            if counts[p]:
                cells[p if side == "o" else 25 - p] = sign * counts[p]
    bar_of = {"o": 25, "x": 0}  # where each side's bar is, in FIBS's orientation
    for side in ("x", "o"):
        cells[bar_of[side]] = _COLOUR[side] * pos.side(side)[BAR]
    turn = 0 if board.game_over else _COLOUR[pos.on_roll]
    mine = board.dice if board.dice and pos.on_roll == me and not board.game_over else (0, 0)
    theirs = board.dice if board.dice and pos.on_roll == opp and not board.game_over else (0, 0)
    length = board.match_length or MONEY_LENGTH
    fields = ["board", _name(board.names[0]), _name(board.names[1]), length,
              board.score[me], board.score[opp], *cells, turn, *mine, *theirs, board.cube,
              int(board.may_double[me]), int(board.may_double[opp]), int(board.doubled),
              colour, direction, home, bar_of[me], pos.side(me)[OFF], pos.side(opp)[OFF],
              pos.side(me)[BAR], pos.side(opp)[BAR], board.can_move, board.forced_move,
              board.did_crawford, board.redoubles]
    return ":".join(str(f) for f in fields)


def _name(text: str) -> str:
    return "".join(c if c in _NAME_OK else "_" for c in str(text)) or "_"


def decode_fibs_board(line: str) -> FibsBoard:
    """A ``board:`` line -> FibsBoard. Any orientation FIBS allows is read (colour and
    direction from fields 41 and 42, the bars from fields 44, 47 and 48). Raises
    CodecError naming the field that is wrong (a count that does not add up to 15
    checkers a side, a point held by both sides, a bad flag...)."""
    if not isinstance(line, str):
        raise CodecError(f"a FIBS board is a string, not {type(line).__name__}")
    parts = line.strip().split(":")
    if parts[0] != "board":
        raise CodecError(f"a FIBS board line starts with 'board:', not {line[:20]!r}")
    if len(parts) != FIELDS:
        raise CodecError(f"a FIBS board line has {FIELDS} fields separated by ':', this one has {len(parts)}")
    try:
        n = [0, 0, 0] + [int(p.strip()) for p in parts[3:]]
    except ValueError:
        bad = next(i for i, p in enumerate(parts) if i >= 3 and not p.strip().lstrip("-").isdigit())
        raise CodecError(f"FIBS board field {bad} is {parts[bad]!r}, not a whole number") from None
    colour, direction, home, bar = n[41], n[42], n[43], n[44]
    if colour not in (-1, 1):
        raise CodecError(f"FIBS board field 41 (colour) is {colour}: -1 = X, 1 = O")
    if direction not in (-1, 1):
        raise CodecError(f"FIBS board field 42 (direction) is {direction}: -1 or 1")
    if bar not in (0, 25) or home not in (0, 25):
        raise CodecError(f"FIBS board fields 43-44 (home, bar) are {home}, {bar}: each 0 or 25")
    me = "x" if colour == -1 else "o"
    opp = other(me)
    cells = n[6:32]
    mine, theirs = [0] * 26, [0] * 26
    for at in range(1, 25):
        v = cells[at]
        own = at if direction == -1 else 25 - at
        if v * colour > 0:
            mine[own] = abs(v)
        elif v:
            theirs[25 - own] = abs(v)
    mine[BAR], theirs[BAR] = n[47], n[48]
    for who, at, count in (("player", bar, n[47]), ("opponent", 25 - bar, n[48])):
        if cells[at] and abs(cells[at]) != count:
            raise CodecError(f"FIBS board: the {who}'s bar holds {abs(cells[at])} at position {at} but field"
                             f" {47 if who == 'player' else 48} says {count}")
    mine[OFF], theirs[OFF] = n[45], n[46]
    for who, counts in (("player", mine), ("opponent", theirs)):
        if any(c < 0 for c in counts) or sum(counts) != CHECKERS:
            raise CodecError(f"FIBS board: the {who}'s checkers on the points, bar and off add up to"
                             f" {sum(counts)}, not {CHECKERS}")
    turn = n[32]
    if turn not in (-1, 0, 1):
        raise CodecError(f"FIBS board field 32 (turn) is {turn}: -1 = X, 1 = O, 0 = game over")
    on_roll = me if turn == 0 else ("x" if turn == -1 else "o")
    x, o = (mine, theirs) if me == "x" else (theirs, mine)
    try:
        position = Position(on_roll, tuple(x), tuple(o))
    except ModelError as exc:
        raise CodecError(f"FIBS board: {exc}") from None
    dice_fields = (n[33], n[34]) if on_roll == me else (n[35], n[36])
    if dice_fields == (0, 0):
        dice = None
    elif all(1 <= d <= 6 for d in dice_fields):
        dice = dice_fields
    else:
        raise CodecError(f"FIBS board: dice {dice_fields[0]} {dice_fields[1]} of the side on turn: two of 1..6,"
                         f" or 0 0")
    for i in (38, 39, 40):
        if n[i] not in (0, 1) and not (i == 40 and n[i] == -1):
            raise CodecError(f"FIBS board field {i} is {n[i]}: a flag, 0 or 1")
    length = 0 if n[3] == MONEY_LENGTH else n[3]
    if length < 0:
        raise CodecError(f"FIBS board field 3 (match length) is {n[3]}")
    board = FibsBoard(position, me, dice, n[37], {me: bool(n[38]), opp: bool(n[39])}, bool(n[40]), length,
                      {me: n[4], opp: n[5]}, n[51], turn == 0, (parts[1], parts[2]), n[49], n[50], n[52])
    try:
        _check(board)
    except CodecError as exc:
        raise CodecError(f"FIBS board: {exc}") from None
    return board


def with_orientation(line: str, *, direction: int) -> str:
    """The same board line rewritten with the player moving the other way (field 42 =
    ``direction``; positions mirrored, home and bar moved). Both lines describe one game;
    used to check that a reader follows fields 41-44 (str). Raises CodecError."""
    board = decode_fibs_board(line)
    parts = line.strip().split(":")
    if int(parts[42]) == direction:
        return line.strip()
    cells = [int(p) for p in parts[6:32]]
    mirrored = [cells[25 - i] for i in range(26)]
    parts[6:32] = [str(v) for v in mirrored]
    parts[42] = str(direction)
    parts[43] = str(25 if direction == 1 else 0)
    parts[44] = str(0 if direction == 1 else 25)
    out = ":".join(parts)
    if decode_fibs_board(out) != replace(board, names=board.names):
        raise CodecError("re-oriented board does not read back the same")  # pragma: no cover
    return out
