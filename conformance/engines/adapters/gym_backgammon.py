"""Adapter: gym-backgammon (pure Python, ``pip install gym-backgammon``; MIT).

Imported lazily (so ``bgconf engines`` works without it); public API only: the game class
``gym_backgammon.envs.backgammon.Backgammon`` and its ``get_valid_plays(colour, roll)``, which
returns the set of plays, each a tuple of ``(source, target)`` moves.

The engine's board is a list of 24 ``(count, colour)`` pairs; index i is WHITE's point i + 1 and
BLACK's point 24 - i. WHITE moves towards index 0 and rolls negative numbers, BLACK towards
index 23 with positive ones; a source ``"bar"`` is the bar, a target below 0 (WHITE) or above 23
(BLACK) is off. ``bar``/``off`` are ``[WHITE, BLACK]`` counts. bgconf's x plays WHITE and o plays
BLACK, so a case with o on roll exercises the engine's BLACK code. The board, ``bar``, ``off`` and
``players_positions = get_players_positions()`` are set on a fresh ``Backgammon()``.

Each play is answered as the engine's own step list converted to the mover's numbering
(25 = bar, 0 = off), in the engine's order; nothing is fixed or filtered.

Quirks handled here: importing the package imports ``gym``, which prints a deprecation notice
(silenced), and ``gym_backgammon.envs`` imports its renderer, which needs ``pyglet``, a dependency
gym-backgammon does not declare; without pyglet the module ``envs/backgammon.py`` (stdlib imports
only) is loaded from the installed distribution by its path.

Capabilities: ``legal-plays``; ``play-check`` (legal iff the play's resulting position is one of
the engine's, or, when it has no play, iff it leaves the board unchanged).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
import warnings
from importlib import metadata

from conformance.engines.adapters import EngineUnavailable
from conformance.engines.adapters.third_party import ThirdPartyAdapter
from conformance.engines.interface import installed_version
from conformance.model import BAR, OFF, Position, parse_dice

NAME = "gym-backgammon"
DISTRIBUTION = "gym-backgammon"
_MODULE = "gym_backgammon/envs/backgammon.py"

_module = None


def _load_by_path():
    """Load envs/backgammon.py from the installed distribution without its package's imports."""
    path = metadata.distribution(DISTRIBUTION).locate_file(_MODULE)
    spec = importlib.util.spec_from_file_location("_bgconf_gym_backgammon_game", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _engine():
    global _module
    if _module is not None:
        return _module
    if installed_version(DISTRIBUTION) is None:
        raise EngineUnavailable(f"{DISTRIBUTION} is not installed: pip install 'bgconf[{NAME}]'")
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()), \
            contextlib.redirect_stdout(sys.stderr):
        warnings.simplefilter("ignore")
        try:
            from gym_backgammon.envs import backgammon as module
        except ImportError:  # pyglet (for the renderer) or gym itself missing
            module = _load_by_path()
    _module = module
    return module


def _game(g, position: Position):
    """A Backgammon set to ``position``; returns (game, engine colour of the mover)."""
    white, black = position.x, position.o  # x plays WHITE, o plays BLACK
    game = g.Backgammon()
    board = [(0, None)] * 24
    for p in range(1, 25):
        if white[p]:
            board[p - 1] = (white[p], g.WHITE)
        if black[p]:
            board[24 - p] = (black[p], g.BLACK)
    game.board = board
    game.bar = [white[BAR], black[BAR]]
    game.off = [white[OFF], black[OFF]]
    game.players_positions = game.get_players_positions()
    return game, (g.WHITE if position.on_roll == "x" else g.BLACK)


def _point(g, colour: int, index, source: bool) -> int:
    """An engine board index (or "bar", or a target past the edge) -> the mover's point."""
    if index == g.BAR:
        if not source:
            raise ValueError(f"a move lands on {index!r}")
        return BAR
    if not isinstance(index, int):
        raise ValueError(f"unknown board index {index!r}")
    if colour == g.WHITE:
        return OFF if index < 0 and not source else index + 1
    return OFF if index > 23 and not source else 24 - index


class Adapter(ThirdPartyAdapter):
    """gym-backgammon behind the engine interface (run isolated by ``bgconf serve``)."""

    NAME = NAME
    DISTRIBUTION = DISTRIBUTION

    def legal_plays(self, request: dict) -> dict:
        g = _engine()
        position = Position.from_dict(request["position"])
        d1, d2 = parse_dice(request["dice"])
        game, colour = _game(g, position)
        roll = (-d1, -d2) if colour == g.WHITE else (d1, d2)
        with contextlib.redirect_stdout(sys.stderr):
            found = game.get_valid_plays(colour, roll)
        plays = [[[_point(g, colour, s, True), _point(g, colour, t, False)] for s, t in play]
                 for play in found]
        return {"plays": plays}

