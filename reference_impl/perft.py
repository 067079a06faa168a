"""Backgammon perft (spec/perft.md, convention bgperft-1).

``perft(p, 0) = 1``; ``perft(p, d) = sum over rolls r of w(r) * sum over the
successors s of p for r of perft(s, d - 1)``. The successors are the distinct
resulting positions of the legal plays (the pass when there is none); a
successor in which the mover has borne off all checkers ends the game: it
counts 1 and is not expanded.
"""

from __future__ import annotations

from conformance.model import OFF, Position

from .movegen import legal_plays, plays, to_position

ROLLS_21 = tuple((a, b) for a in range(6, 0, -1) for b in range(a, 0, -1))
ROLL_SETS = {
    "all21": tuple((r, 1) for r in ROLLS_21),
    "weighted36": tuple((r, 1 if r[0] == r[1] else 2) for r in ROLLS_21),
}


def _finished(position: Position) -> bool:
    return position.x[OFF] == position.checkers or position.o[OFF] == position.checkers


def successors(position: Position, roll: tuple[int, int]) -> list[Position]:
    """The distinct positions after each legal play of ``roll`` (the pass if none)."""
    return list(legal_plays(position, roll))


def perft(position: Position, depth: int, roll_set: str = "all21") -> int:
    """The perft count of ``position`` to ``depth`` (int >= 0) over ``roll_set``
    (``all21`` or ``weighted36``). Raises KeyError for an unknown roll set."""
    rolls = ROLL_SETS[roll_set]
    memo: dict[tuple[Position, int], int] = {}

    def count(p: Position, d: int) -> int:
        if d == 0 or _finished(p):
            return 1
        if d == 1:  # the successors are leaves: count the distinct plays
            return sum(w * len(plays(p, r)) for r, w in rolls)
        key = (p, d)
        if key not in memo:
            memo[key] = sum(w * sum(count(to_position(p, s), d - 1) for s in plays(p, r)) for r, w in rolls)
        return memo[key]

    return count(position, depth)


def divide(position: Position, depth: int, roll_set: str = "all21") -> dict[tuple[int, int], int]:
    """Per roll: its weighted contribution to ``perft(position, depth)`` (depth >= 1)."""
    return {r: w * sum(perft(s, depth - 1, roll_set) for s in legal_plays(position, r))
            for r, w in ROLL_SETS[roll_set]}
