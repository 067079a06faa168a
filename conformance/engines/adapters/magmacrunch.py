"""Adapter: magmacrunch-backgammon (pure Python, ``pip install magmacrunch-backgammon``;
PolyForm-Noncommercial).

Public API only: ``rules.legal_moves(board28, who, d1, d2)`` returns the moves the game offers,
each a list of ``Step(frm, to, type, die)``. The board is 28 counts in the PLAYER's numbering:
index 0 = PLAYER's bar, 1..24 the points (+ PLAYER, - AI), 25 = AI's bar (negative count),
26 = PLAYER's checkers off (positive), 27 = AI's (negative). PLAYER moves down and bears off to
0; AI moves up, enters from 25 and bears off to 25. bgconf's x plays PLAYER and o plays AI, so a
case with o on roll exercises the engine's AI code.

Each play is answered as the engine's own step list converted to the mover's numbering
(25 = bar, 0 = off), in the engine's order. Nothing is fixed or filtered: the engine's list
includes, as its docstring says, partial doubles (one to four steps) and plays of either die when
only one can be played; the game's screen, not ``legal_moves``, stops a player from ending a
double early.

Quirk handled here: the distribution installs a top-level package named ``backgammon``, a name
anything on ``sys.path`` (the current directory first) can shadow or clash with. The adapter
loads ``backgammon/rules.py`` (stdlib imports only) from the installed distribution by its path,
under a private module name, and never imports the name ``backgammon``.

Capabilities: ``legal-plays``; ``play-check`` (legal iff the play's resulting position is one of
the engine's, or, when it has no play, iff it leaves the board unchanged).
"""

from __future__ import annotations

import importlib.util
import sys
from importlib import metadata

from conformance.engines.adapters import EngineUnavailable
from conformance.engines.adapters.third_party import ThirdPartyAdapter
from conformance.engines.interface import installed_version
from conformance.model import BAR, OFF, Position, parse_dice

NAME = "magmacrunch"
DISTRIBUTION = "magmacrunch-backgammon"
_MODULE = "backgammon/rules.py"
_PRIVATE = "_bgconf_magmacrunch_rules"


def _engine():
    module = sys.modules.get(_PRIVATE)
    if module is not None:
        return module
    if installed_version(DISTRIBUTION) is None:
        raise EngineUnavailable(f"{DISTRIBUTION} is not installed: pip install 'bgconf[{NAME}]'")
    path = metadata.distribution(DISTRIBUTION).locate_file(_MODULE)
    spec = importlib.util.spec_from_file_location(_PRIVATE, path)
    if spec is None or not path.is_file():
        raise EngineUnavailable(f"{DISTRIBUTION} has no {_MODULE} at {path}; reinstall: pip install 'bgconf[{NAME}]'")
    module = importlib.util.module_from_spec(spec)
    sys.modules[_PRIVATE] = module  # dataclasses look their module up while the class is built
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[_PRIVATE]
        raise
    return module


def _board(r, position: Position) -> list[int]:
    player, ai = position.x, position.o
    board = [0] * r.ARRAY_SIZE
    for p in range(1, 25):
        board[p] = player[p] - ai[25 - p]  # at most one of the two is non-zero
    board[r.BAR_PLAYER] = player[BAR]
    board[r.BAR_AI] = -ai[BAR]
    board[r.OFF_PLAYER] = player[OFF]
    board[r.OFF_AI] = -ai[OFF]
    return board


def _step(r, who: str, step) -> list[int]:
    """An engine Step -> [from, to] in the mover's numbering."""
    if who == r.PLAYER:
        frm = BAR if step.frm == r.BAR_PLAYER else step.frm
        to = OFF if step.to == r.HOME_PLAYER else step.to
    else:
        frm = BAR if step.frm == r.BAR_AI else 25 - step.frm
        to = OFF if step.to == r.HOME_AI else 25 - step.to
    return [int(frm), int(to)]


class Adapter(ThirdPartyAdapter):
    """magmacrunch-backgammon behind the engine interface (run isolated by ``bgconf serve``)."""

    NAME = NAME
    DISTRIBUTION = DISTRIBUTION

    def legal_plays(self, request: dict) -> dict:
        r = _engine()
        position = Position.from_dict(request["position"])
        d1, d2 = parse_dice(request["dice"])
        who = r.PLAYER if position.on_roll == "x" else r.AI
        moves = r.legal_moves(_board(r, position), who, d1, d2)
        return {"plays": [[_step(r, who, s) for s in move] for move in moves]}

