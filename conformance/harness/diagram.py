"""A text diagram of a position, from the side on roll's point of view.

Points 13..24 run along the top, 12..1 along the bottom (the mover's
numbering); ``X``/``O`` mark the sides' checkers, a count is shown when a
point holds more than five. The other side's own point numbers are 25 - p.
"""

from __future__ import annotations

from conformance.model import BAR, OFF, Position, other


def _cell(pos: Position, p: int, row: int) -> str:
    mover, opp = pos.mover, pos.opponent
    n, mark = (mover[p], pos.on_roll.upper()) if mover[p] else (opp[25 - p], other(pos.on_roll).upper())
    if n == 0:
        return " ."
    if row < 4 or n <= 5:
        return f" {mark}" if n > row else "  "
    return f"{n:2d}" if n > 5 else (f" {mark}" if n > row else "  ")


def board_diagram(position: Position, dice=None) -> str:
    """Multi-line string: the board seen by the side on roll, bars, borne-off
    counts, and the dice if given."""
    top = list(range(13, 25))
    bottom = list(range(12, 0, -1))
    me, you = position.on_roll, other(position.on_roll)
    lines = [f" {me.upper()} on roll ({me}'s numbering; {you}'s point = 25 - p)" +
             (f", dice {dice[0]}-{dice[1]}" if dice else "")]
    lines.append(" " + "".join(f"{p:3d}" for p in top[:6]) + "  |" + "".join(f"{p:3d}" for p in top[6:]))
    for row in range(5):
        lines.append(" " + "".join(" " + _cell(position, p, row) for p in top[:6]) + "  |"
                     + "".join(" " + _cell(position, p, row) for p in top[6:]))
    lines.append(" " + "-" * 38)
    for row in range(4, -1, -1):
        lines.append(" " + "".join(" " + _cell(position, p, row) for p in bottom[:6]) + "  |"
                     + "".join(" " + _cell(position, p, row) for p in bottom[6:]))
    lines.append(" " + "".join(f"{p:3d}" for p in bottom[:6]) + "  |" + "".join(f"{p:3d}" for p in bottom[6:]))
    lines.append(f" bar: {me.upper()} {position.mover[BAR]}, {you.upper()} {position.opponent[BAR]}"
                 f"   off: {me.upper()} {position.mover[OFF]}, {you.upper()} {position.opponent[OFF]}")
    return "\n".join(lines)
