"""Adapter: bgsage, the Open Sage bot engine (C++, ``pip install bgsage``; MPL-2.0).

Imported lazily (so ``bgconf engines`` works without it); public API only:
``bgsage.possible_moves(board26, d1, d2)`` returns every legal play as the resulting board, one per
distinct position, ``[]`` when there is none. ``board26[0]`` is the opponent's bar (a positive
count), ``[1..24]`` the points in the roller's numbering (+ the roller's checkers, - the
opponent's), ``[25]`` the roller's bar; the resulting boards use the same layout, still from the
roller's side. Checkers borne off are not on the board (15 minus the rest).

Each play is answered as bgsage's resulting position in board form, converted as is.

Capabilities: ``legal-plays``; ``play-check`` (legal iff the play's resulting position is one of
bgsage's, or, when bgsage has no play, iff it leaves the board unchanged).
"""

from __future__ import annotations

from conformance.engines.adapters import EngineUnavailable
from conformance.engines.adapters.third_party import ThirdPartyAdapter
from conformance.model import BAR, Position, parse_dice

NAME = "bgsage"
DISTRIBUTION = "bgsage"


def _engine():
    try:
        from bgsage import possible_moves
    except ImportError as exc:
        raise EngineUnavailable(f"{DISTRIBUTION} is not installed ({exc}): pip install 'bgconf[{NAME}]'") from None
    return possible_moves


def _board(position: Position) -> list[int]:
    me, opp = position.mover, position.opponent
    board = [0] * 26
    board[0] = opp[BAR]
    for p in range(1, 25):
        board[p] = me[p] - opp[25 - p]  # at most one of the two is non-zero
    board[25] = me[BAR]
    return board


def _result(position: Position, board: list[int]) -> Position:
    if len(board) != 26:
        raise ValueError(f"bgsage returned a board of {len(board)} entries, not 26: {board!r}")
    me, opp = [0] * 26, [0] * 26
    for p in range(1, 25):
        n = int(board[p])
        if n > 0:
            me[p] = n
        elif n < 0:
            opp[25 - p] = -n
    me[BAR], opp[BAR] = int(board[25]), int(board[0])
    me[0], opp[0] = 15 - sum(me), 15 - sum(opp)
    return Position.from_mover(position.on_roll, tuple(me), tuple(opp)).passed()


class Adapter(ThirdPartyAdapter):
    """bgsage behind the engine interface (run isolated by ``bgconf serve``)."""

    NAME = NAME
    DISTRIBUTION = DISTRIBUTION

    def legal_plays(self, request: dict) -> dict:
        possible_moves = _engine()
        position = Position.from_dict(request["position"])
        d1, d2 = parse_dice(request["dice"])
        boards = possible_moves(_board(position), d1, d2)
        return {"plays": [_result(position, list(b)).to_wire() for b in boards]}

