"""Adapter: pygammon (pure Python, ``pip install pygammon``; MIT).

pygammon has no move generator. Its game loop (``pygammon.run``) computes
``Game.get_max_move_count()`` at the start of a turn and then accepts exactly that many moves,
each one die applied by the one-step validator ``Game.move(die_index, source)`` (which raises
``InvalidMove`` or, when the fifteenth checker is borne off, ``GameWon``, which ends the turn and
the game). This adapter enumerates that: every sequence of accepted ``Game.move`` calls, on
``deepcopy`` copies as pygammon itself does, that is ``get_max_move_count()`` long or ends with
``GameWon``. Sequences reaching a state already explored (same board, bars, borne-off counts and
dice left) are not explored twice; that changes nothing but the time. Slow, as pygammon is.

The engine's board is 24 ``Point(side, count)``; index i is FIRST's point i + 1 and SECOND's point
24 - i. FIRST moves down and enters from index 24, SECOND moves up and enters from index -1; a
destination off the board is a bear-off; ``player.hit`` is the bar, ``player.borne`` the checkers
off. bgconf's x plays FIRST and o plays SECOND.

Each play is answered as the step list of the ``Game.move`` calls (mover's numbering, 25 = bar,
0 = off) when those steps, applied to the position, give the board pygammon ended with; otherwise
as that board in board form, which is pygammon's verdict. Nothing is fixed or filtered.

Capabilities: ``legal-plays``; ``play-check`` (legal iff the play's resulting position is one of
pygammon's, or, when pygammon allows no move, iff it leaves the board unchanged).
"""

from __future__ import annotations

import contextlib
import sys
from copy import deepcopy

from conformance.engines.adapters import EngineUnavailable
from conformance.engines.adapters.third_party import ThirdPartyAdapter, plays_answer
from conformance.model import BAR, OFF, Position, parse_dice

NAME = "pygammon"
DISTRIBUTION = "pygammon"


def _engine():
    try:
        from pygammon import core, exceptions, structures
    except ImportError as exc:
        raise EngineUnavailable(f"{DISTRIBUTION} is not installed ({exc}): pip install 'bgconf[{NAME}]'") from None
    return core, exceptions, structures


def _game(core, st, position: Position, dice: tuple[int, int]):
    first, second = position.x, position.o  # x plays FIRST, o plays SECOND
    game = core.Game(st.Side.FIRST if position.on_roll == "x" else st.Side.SECOND)
    board = [st.Point() for _ in range(24)]
    for p in range(1, 25):
        if first[p]:
            board[p - 1] = st.Point(st.Side.FIRST, first[p])
        if second[p]:
            board[24 - p] = st.Point(st.Side.SECOND, second[p])
    game.board = board
    for side, counts in ((st.Side.FIRST, first), (st.Side.SECOND, second)):
        game.players[side].hit = counts[BAR]
        game.players[side].borne = counts[OFF]
    game.dice = (dice[0], dice[1]) * (2 if dice[0] == dice[1] else 1)
    game.dice_played = set()
    return game


def _position(st, game, on_roll: str) -> Position:
    """pygammon's board after the play -> bgconf position (turn passed)."""
    first, second = [0] * 26, [0] * 26
    for i, point in enumerate(game.board):
        if point.side is st.Side.FIRST:
            first[i + 1] += point.count
        elif point.side is st.Side.SECOND:
            second[24 - i] += point.count
    for side, counts in ((st.Side.FIRST, first), (st.Side.SECOND, second)):
        counts[BAR] = game.players[side].hit
        counts[OFF] = game.players[side].borne
    return Position(on_roll, tuple(first), tuple(second)).passed()


def _state_key(game) -> tuple:
    left = sorted(d for i, d in enumerate(game.dice) if i not in game.dice_played)
    return (tuple((p.side, p.count) for p in game.board),
            tuple((pl.hit, pl.borne) for pl in game.players.values()), tuple(left))


def _point(st, side, index: int) -> int:
    if not 0 <= index < 24:
        return OFF
    return index + 1 if side is st.Side.FIRST else 24 - index


class Adapter(ThirdPartyAdapter):
    """pygammon behind the engine interface (run isolated by ``bgconf serve``)."""

    NAME = NAME
    DISTRIBUTION = DISTRIBUTION

    def legal_plays(self, request: dict) -> dict:
        core, exc, st = _engine()
        position = Position.from_dict(request["position"])
        game = _game(core, st, position, parse_dice(request["dice"]))
        with contextlib.redirect_stdout(sys.stderr):
            finals = self._enumerate(core, exc, st, game, position.on_roll)
        return {"plays": plays_answer(position, finals)}

    @staticmethod
    def _enumerate(core, exc, st, game, on_roll: str) -> dict:
        """Resulting position -> the first step list found for it."""
        wanted = game.get_max_move_count()
        finals: dict = {}
        if wanted == 0:  # pygammon's turn passes without a move
            return finals
        seen: set = set()
        side = game.side

        def walk(g, steps: list) -> None:
            if len(steps) >= wanted:
                finals.setdefault(_position(st, g, on_roll), steps)
                return
            key = _state_key(g)
            if key in seen:
                return
            seen.add(key)
            player = g.players[side]
            for die_index in range(len(g.dice)):
                if die_index in g.dice_played:
                    continue
                # the sources pygammon's own search tries (range(BOARD_SIZE)), less those that are
                # not the mover's (Game.move refuses them: SOURCE_NOT_OWNED_PIECE)
                sources = [None] if player.hit else [i for i, p in enumerate(g.board) if p.side is side]
                for source in sources:
                    start = player.beginning if source is None else source
                    step = [BAR if source is None else _point(st, side, source),
                            _point(st, side, start + g.dice[die_index] * player.direction)]
                    nxt = deepcopy(g)
                    try:
                        nxt.move(die_index, source)
                    except exc.InvalidMove:
                        continue
                    except exc.GameWon:
                        finals.setdefault(_position(st, nxt, on_roll), steps + [step])
                        continue
                    walk(nxt, steps + [step])

        walk(game, [])
        return finals

