"""Adapter: willse-backgammon (pure Python, ``pip install willse-backgammon``; MIT).

Public API only: ``willse_backgammon.Main_Files.Logic.Board(positions28)`` and its
``returnMoveSequences(player, roll)``, which returns one move sequence per resulting board. Board
indices 0..23 are the points 1..24 (negative = player 1, "dark"; positive = player 2, "light"),
24 and 25 the bars of players 1 and 2, 26 and 27 their checkers off (positive counts). Player 2
moves from 24 towards 1 (its numbering is the board's), player 1 from 1 towards 24. A move is
``(start, end)`` in board points with 1001 = bar and 2002 = off; a sequence is a tuple or list of
moves, and a one-move sequence comes back unwrapped, as the bare ``(start, end)`` pair.
bgconf's x plays player 2 and o plays player 1, so a case with o on roll exercises player 1's
code. After building the Board the adapter calls the board's own ``updatePip()``,
``updateLastOccupiedPoint()`` (both players) and ``updateBearOffStatus()``, as the game does
after every move; ``Board(positions)`` alone leaves the start position's pip counts, last points
and bear-off flags in place.

Each play is answered as the engine's own sequence converted to the mover's numbering
(25 = bar, 0 = off), in the engine's order; nothing is fixed or filtered.

Quirk handled here: importing the engine (its ``Graphics`` module, which ``Logic`` imports) calls
``os.chdir`` to the site-packages directory and imports ``arcade``; the adapter restores the
working directory and sends anything printed to stderr.

Capabilities: ``legal-plays``; ``play-check`` (legal iff the play's resulting position is one of
the engine's, or, when it has no play, iff it leaves the board unchanged).
"""

from __future__ import annotations

import contextlib
import os
import sys

from conformance.engines.adapters import EngineUnavailable
from conformance.engines.adapters.third_party import ThirdPartyAdapter
from conformance.model import BAR, OFF, Position, parse_dice

NAME = "willse"
DISTRIBUTION = "willse-backgammon"
ENGINE_BAR, ENGINE_OFF = 1001, 2002

_board_class = None


def _engine():
    global _board_class
    if _board_class is not None:
        return _board_class
    cwd = os.getcwd()
    try:
        with contextlib.redirect_stdout(sys.stderr):
            from willse_backgammon.Main_Files.Logic import Board
    except ImportError as exc:
        raise EngineUnavailable(f"{DISTRIBUTION} is not installed ({exc}): pip install 'bgconf[{NAME}]'") from None
    finally:
        os.chdir(cwd)
    _board_class = Board
    return Board


def _board(Board, position: Position):
    light, dark = position.x, position.o  # x plays player 2 (light, +), o plays player 1 (dark, -)
    positions = [0] * 28
    for p in range(1, 25):
        if light[p]:
            positions[p - 1] = light[p]
        if dark[p]:
            positions[24 - p] = -dark[p]  # o's point p is board point 25 - p
    positions[24], positions[25] = dark[BAR], light[BAR]
    positions[26], positions[27] = dark[OFF], light[OFF]
    board = Board(positions)
    board.updatePip()
    board.updateLastOccupiedPoint(1)
    board.updateLastOccupiedPoint(2)
    board.updateBearOffStatus()
    return board


def _is_move(item) -> bool:
    return (isinstance(item, (tuple, list)) and len(item) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in item))


def _point(player: int, value: int, source: bool) -> int:
    if value == ENGINE_BAR and source:
        return BAR
    if value == ENGINE_OFF and not source:
        return OFF
    if not 1 <= value <= 24:
        raise ValueError(f"willse returned the point {value!r}")
    return value if player == 2 else 25 - value


class Adapter(ThirdPartyAdapter):
    """willse-backgammon behind the engine interface (run isolated by ``bgconf serve``)."""

    NAME = NAME
    DISTRIBUTION = DISTRIBUTION

    def legal_plays(self, request: dict) -> dict:
        Board = _engine()
        position = Position.from_dict(request["position"])
        d1, d2 = parse_dice(request["dice"])
        player = 2 if position.on_roll == "x" else 1
        board = _board(Board, position)
        cwd = os.getcwd()
        try:
            with contextlib.redirect_stdout(sys.stderr):
                sequences = board.returnMoveSequences(player, [d1, d2])
        finally:
            os.chdir(cwd)
        plays = []
        for seq in sequences:
            moves = [seq] if _is_move(seq) else list(seq)
            plays.append([[_point(player, m[0], True), _point(player, m[1], False)] for m in moves])
        return {"plays": plays}

