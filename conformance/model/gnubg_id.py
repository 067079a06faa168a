"""GNU Backgammon Position ID codec (spec: format.position-id).

Layout (GNU Backgammon manual, "A technical description of the Position ID"):
for each of two sides, points 1..24 then the bar in that side's own numbering,
each point written as one 1-bit per checker followed by a 0-bit. The bits are
packed least-significant first into 10 bytes and written in standard base64
without the two padding characters: 14 characters. The first block is the side
NOT on roll, the second the side on roll (as GNU Backgammon's code and every
published example do; the start is ``4HPwATDgc/ABMA``).
"""

from __future__ import annotations

import base64
import binascii

from .errors import CodecError, PositionError
from .position import BAR, CHECKERS, OFF, Position


def encode_position_id(position: Position) -> str:
    """Position -> 14-character Position ID (str). Never raises for a valid position."""
    bits: list[int] = []
    for side in (position.opponent, position.mover):
        for p in list(range(1, 25)) + [BAR]:
            bits.extend([1] * side[p])
            bits.append(0)
    bits.extend([0] * (80 - len(bits)))
    key = bytearray(10)
    for k, bit in enumerate(bits):
        if bit:
            key[k // 8] |= 1 << (k % 8)
    return base64.b64encode(bytes(key)).decode("ascii")[:14]


def decode_position_id(text: str, on_roll: str = "x", checkers: int = CHECKERS) -> Position:
    """14-character Position ID -> Position with ``on_roll`` as the second block's side.

    The ID holds the checkers on the board and bar only; each side has borne off ``checkers``
    (15, or 1, 2, 3 in hypergammon, spec: variant.checkers, format.position-id) minus those.

    Raises CodecError for a string that is not 14 base64 characters, has bits
    past the two blocks, or decodes to an impossible position; its ``reason``
    (match_id.REFUSALS) is ``wrong_length``, ``not_base64``, ``too_many_checkers``,
    ``shared_point`` or ``bad_field``.
    """
    if not isinstance(text, str) or len(text) != 14:
        raise CodecError(f"a Position ID has 14 characters, got {text!r}", "wrong_length")
    try:
        key = base64.b64decode(text + "==", validate=True)
    except (binascii.Error, ValueError):
        raise CodecError(f"Position ID {text!r} is not base64", "not_base64") from None
    bits = [(key[k // 8] >> (k % 8)) & 1 for k in range(80)]
    sides: list[list[int]] = [[0] * 26, [0] * 26]
    slots = list(range(1, 25)) + [BAR]
    side = slot = 0
    k = 0
    while side < 2:
        if k >= 80:
            raise CodecError(f"Position ID {text!r} ends inside the second block", "too_many_checkers")
        if bits[k]:
            sides[side][slots[slot]] += 1
        else:
            slot += 1
            if slot == 25:
                side, slot = side + 1, 0
        k += 1
    if any(bits[k:]):
        raise CodecError(f"Position ID {text!r} has bits set after the two blocks", "bad_field")
    for s in sides:
        on_board = sum(s[1:])
        if on_board > checkers:
            raise CodecError(f"Position ID {text!r} has {on_board} checkers on one side; at most {checkers}",
                          "too_many_checkers")
        s[OFF] = checkers - on_board
    for p in range(1, 25):
        if sides[0][p] and sides[1][25 - p]:
            raise CodecError(f"Position ID {text!r}: a point held by both sides (the {p}-point of the side not"
                          f" on roll is the {25 - p}-point of the side on roll)", "shared_point")
    try:
        return Position.from_mover(on_roll, tuple(sides[1]), tuple(sides[0]))
    except PositionError as exc:
        raise CodecError(f"Position ID {text!r}: {exc}", "bad_field") from None
