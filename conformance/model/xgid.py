"""XGID (eXtreme Gammon ID) codec, position part (spec: format.xgid).

Layout, as GNU Backgammon's importer reads it (research note B.3; no official
specification is published): ``XGID=P:CV:CP:T:D:S1:S2:CJ:ML:MC``. ``P`` has 26
characters and is absolute, not relative to the side on roll: index 0 is the
top player's bar, 1..24 the points in the bottom player's numbering, 25 the
bottom player's bar; ``-`` is empty, ``A``..``P`` are 1..16 checkers of the
bottom player, ``a``..``p`` of the top player (a top checker at index i stands
on the top player's point 25 - i). ``T`` is 1 when the bottom player is on roll,
-1 for the top player.

bgconf maps the bottom player to side ``x`` and the top player to side ``o``.
The other fields (cube, dice, score, match) are read by ``decode_xgid_fields``.
"""

from __future__ import annotations

from .errors import CodecError, PositionError
from .position import BAR, CHECKERS, OFF, Position


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
        raise CodecError(f"an XGID starts with 'XGID=', got {str(text)[:40]!r}")
    fields = text[5:].split(":")
    if len(fields) != 10:
        raise CodecError(f"an XGID has 10 fields separated by ':', got {len(fields)} in {text!r}")
    board = fields[0]
    if len(board) != 26 or any(c != "-" and not ("A" <= c <= "P" or "a" <= c <= "p") for c in board):
        raise CodecError(f"XGID board field must be 26 characters of '-', A-P, a-p: {board!r}")
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
            raise CodecError(f"XGID field {name} is not a number: {value!r}") from None
    if out["turn"] not in (1, -1):
        raise CodecError(f"XGID turn field is 1 (bottom) or -1 (top), not {out['turn']}")
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
                raise CodecError("XGID index 0 is the top player's bar; it holds no bottom checker")
            x[BAR if i == 25 else i] += n
        else:
            if i == 25:
                raise CodecError("XGID index 25 is the bottom player's bar; it holds no top checker")
            o[BAR if i == 0 else 25 - i] += n
    for side, name in ((x, "bottom"), (o, "top")):
        if sum(side) > CHECKERS:
            raise CodecError(f"XGID {name} player has {sum(side)} checkers; at most {CHECKERS}")
        side[OFF] = CHECKERS - sum(side)
    try:
        return Position("x" if fields["turn"] == 1 else "o", tuple(x), tuple(o))
    except PositionError as exc:
        raise CodecError(f"XGID {text!r}: {exc}") from None
