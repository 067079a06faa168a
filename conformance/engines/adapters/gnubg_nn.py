"""Adapter: gnubg-nn (GNU Backgammon's move generator as a C extension, ``pip install gnubg-nn``).

gnubg-nn is GPL software: bgconf never copies it; this module imports the separately installed
package at run time (lazily, so ``bgconf engines`` works without it) and uses only its public API:

- ``gnubg_nn.moves(board, d1, d2, 1)`` with ``board = (not_on_roll[25], on_roll[25])``, each side
  in its own numbering (index i = point i + 1, index 24 = its bar), returns one
  ``(position key, steps)`` pair per distinct resulting position; steps are ``(from, to)`` in the
  mover's numbering with 25 = bar and 0 = off, as bgconf writes them.
- ``gnubg_nn.board_from_position_key(key)`` gives the resulting board, still from the mover's side.

Each play is answered as gnubg-nn's own step list when those steps, applied to the position,
give exactly the board of its key; otherwise (an inconsistency inside gnubg-nn) as that resulting
board in board form, which is gnubg-nn's verdict. Nothing is fixed or filtered.

Capabilities: ``legal-plays``; ``play-check`` (a play is legal iff its resulting position is one
of gnubg-nn's, or, when gnubg-nn has no play, iff it leaves the board unchanged).
"""

from __future__ import annotations

from conformance.engines.adapters import EngineUnavailable
from conformance.engines.adapters.third_party import ThirdPartyAdapter
from conformance.model import ModelError, Position, apply_steps, parse_dice

NAME = "gnubg-nn"
DISTRIBUTION = "gnubg-nn"


def _engine():
    try:
        import gnubg_nn
    except ImportError as exc:
        raise EngineUnavailable(f"{DISTRIBUTION} is not installed ({exc}): pip install 'bgconf[{NAME}]'") from None
    return gnubg_nn


def _board(position: Position) -> tuple[list[int], list[int]]:
    """bgconf position -> gnubg's (not_on_roll[25], on_roll[25])."""
    return list(position.opponent[1:26]), list(position.mover[1:26])


def _side26(side25) -> tuple[int, ...]:
    """gnubg's 25 counts (points 1..24, bar) -> bgconf's 26 (off, points 1..24, bar)."""
    side25 = [int(n) for n in side25]
    return (15 - sum(side25), *side25)


def _result(position: Position, board) -> Position:
    opponent, mover = board
    return Position.from_mover(position.on_roll, _side26(mover), _side26(opponent)).passed()


def _play(position: Position, steps: list[list[int]], result: Position):
    """The engine's steps when they reproduce its resulting position, else that position."""
    try:
        if apply_steps(position, steps) == result:
            return steps
    except ModelError:
        pass
    return result.to_wire()


class Adapter(ThirdPartyAdapter):
    """gnubg-nn behind the engine interface (run isolated: ``bgconf serve python:MODULE:Adapter``)."""

    NAME = NAME
    DISTRIBUTION = DISTRIBUTION

    def legal_plays(self, request: dict) -> dict:
        nn = _engine()
        position = Position.from_dict(request["position"])
        d1, d2 = parse_dice(request["dice"])
        plays = []
        for key, steps in nn.moves(_board(position), d1, d2, 1):
            result = _result(position, nn.board_from_position_key(key))
            plays.append(_play(position, [[int(a), int(b)] for a, b in steps], result))
        return {"plays": plays}

