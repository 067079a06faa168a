"""Adapter: gammonview's legality checker (pure Python, ``pip install gammonview``; MIT).

gammonview is a match-analysis library; its module ``gvformat.legality`` decides, from a position
and the dice alone, which plays are legal, for its importers to flag illegal recorded plays.
Public API used: ``legal_plays(mine, opp, d1, d2) -> (plays, dice_used)`` and
``is_play_legal(mine, opp, d1, d2, play) -> bool``.

Its board is mover-relative: ``mine[p]`` and ``opp[p]`` are the counts on the mover's point p
(1..24), ``mine[25]`` the mover's bar; borne-off checkers are not kept. So ``opp[p]`` is the
opponent's own point ``25 - p``. A play is a tuple of ``(from, to)`` moves (``to`` 0 = off)
*sorted*, not in the order they are made, so the adapter orders them: it answers the first order
of those moves that can be made one after the other (``conformance.model.apply_steps``), which
gives the resulting position whatever the order (a blot is hit by the first checker landing on
its point). When no order can be made, the sorted moves are answered as they are and bgconf
reports them.

``play_check`` is answered by gammonview's own ``is_play_legal`` on the request's moves as written
(``steps``), not from its legal set. Its play input has no hit marks (a move is ``(from, to)``, and
gammonview documents that only the mover's checkers are followed), so the adapter declares
``"hit_marks": false``: a play whose moves may hit on the way unsaid (``13/5`` with 6-2 and a
blot on 7) is not asked of it (spec/protocol.md, Hit marks).

Capabilities: ``legal-plays``; ``play-check``.
"""

from __future__ import annotations

from itertools import permutations

from conformance.engines.adapters import EngineUnavailable
from conformance.engines.adapters.third_party import ThirdPartyAdapter
from conformance.engines.interface import installed_version
from conformance.model import BAR, ModelError, Position, apply_steps, parse_dice

NAME = "gammonview"
DISTRIBUTION = "gammonview"


def _engine():
    if installed_version(DISTRIBUTION) is None:
        raise EngineUnavailable(f"{DISTRIBUTION} is not installed: pip install 'bgconf[{NAME}]'")
    try:
        from gvformat import legality
    except ImportError as exc:
        raise EngineUnavailable(f"{DISTRIBUTION} cannot be imported ({exc}): pip install 'bgconf[{NAME}]'") from None
    return legality


def _boards(position: Position) -> tuple[list[int], list[int]]:
    """gammonview's (mine, opp) for ``position``'s mover."""
    mover, opponent = position.mover, position.opponent
    mine = [0] * 26
    opp = [0] * 26
    for p in range(1, 25):
        mine[p] = mover[p]
        opp[p] = opponent[25 - p]
    mine[BAR] = mover[BAR]
    return mine, opp


def _ordered(position: Position, play) -> list[list[int]]:
    """The moves of a sorted gammonview play in an order that can be made, or as given."""
    moves = [[int(f), int(t)] for f, t in play]
    for order in dict.fromkeys(permutations(map(tuple, moves))):
        try:
            apply_steps(position, order)
        except ModelError:
            continue
        return [list(m) for m in order]
    return moves


class Adapter(ThirdPartyAdapter):
    """gammonview's ``gvformat.legality`` behind the engine interface (run isolated by ``bgconf serve``)."""

    NAME = NAME
    DISTRIBUTION = DISTRIBUTION

    def describe(self) -> dict:
        return {**super().describe(), "hit_marks": False}

    def legal_plays(self, request: dict) -> dict:
        legality = _engine()
        position = Position.from_dict(request["position"])
        d1, d2 = parse_dice(request["dice"])
        mine, opp = _boards(position)
        plays, _used = legality.legal_plays(mine, opp, d1, d2)
        return {"plays": [_ordered(position, play) for play in sorted(plays) if play]}

    def play_check(self, request: dict) -> dict:
        legality = _engine()
        position = Position.from_dict(request["position"])
        d1, d2 = parse_dice(request["dice"])
        mine, opp = _boards(position)
        steps = [tuple(int(x) for x in step) for step in request.get("steps") or []]
        return {"legal": bool(legality.is_play_legal(mine, opp, d1, d2, steps))}
