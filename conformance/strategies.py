"""Hypothesis strategies for valid positions and rolls.

``positions()`` draws valid positions (spec: board.checkers) with both sides
still in the game, biased towards the areas where engines go wrong: checkers
on the bar, bear-offs, crowded home boards and blots.
"""

from __future__ import annotations

from hypothesis import strategies as st

from conformance.model import BAR, CHECKERS, OFF, Position


def _slot_weights(phase: str) -> list[int]:
    """Candidate slots (1..25) for a side's checkers, repeated to weight them."""
    if phase == "bearoff":
        return [1, 2, 3, 4, 5, 6] * 6 + [7, 8, 25]
    if phase == "bar":
        return list(range(1, 26)) + [25] * 6 + list(range(1, 7)) * 2
    return list(range(1, 26))


@st.composite
def positions(draw, on_roll: str | None = None) -> Position:
    """A valid Position: each side 1..15 checkers on the board or bar, no shared point.

    ``on_roll``: force the side on roll (default: either).
    """
    mover = draw(st.sampled_from(["x", "o"])) if on_roll is None else on_roll
    sides: dict[str, list[int]] = {}
    for name in ("x", "o"):
        phase = draw(st.sampled_from(["any", "bearoff", "bar"]))
        slots = _slot_weights(phase)
        count = draw(st.integers(min_value=1, max_value=CHECKERS))
        board = [0] * 26
        other_side = sides.get("x")
        for _ in range(count):
            choices = slots
            if other_side is not None:
                choices = [s for s in slots if s == BAR or other_side[25 - s] == 0]
            if not choices:
                break
            board[draw(st.sampled_from(choices))] += 1
        if sum(board[1:]) == 0:
            free = [p for p in range(1, 25) if other_side is None or other_side[25 - p] == 0]
            board[free[0]] = 1
        board[OFF] = CHECKERS - sum(board[1:])
        sides[name] = board
    return Position(mover, tuple(sides["x"]), tuple(sides["o"]))


def dice() -> st.SearchStrategy[tuple[int, int]]:
    """A roll: two dice 1..6, in either order."""
    return st.tuples(st.integers(1, 6), st.integers(1, 6))
