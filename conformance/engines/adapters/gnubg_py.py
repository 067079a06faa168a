"""Adapter: GNU Backgammon's Python 3 bindings (``pip install gnubg``, imported as ``gnubg``).

GPL software: bgconf never copies it; this module imports the separately installed package at
run time (lazily, so ``bgconf engines`` works without it) and uses only its public API:
``gnubg.findbestmoves(board, cubeinfo, evalcontext, (d1, d2))`` returns every legal play, one per
distinct resulting position, as ``{"move": (from, to, from, to, ...), "score": ...}``, with
``board = (not_on_roll[25], on_roll[25])`` (index i = point i + 1, index 24 = the bar) and points
1-based in the mover's numbering, 25 = bar. Evaluation is 0-ply (every play is still listed).

Quirks handled here:

- ``gnubg.command(...)`` prints boards on the C-level stdout (which is the protocol channel of
  ``bgconf serve``) and ``new session`` / ``hint`` hung here, so neither is used.
- A move tuple stops right after the source of the first checker borne off: gnubg's internal
  "off" (-1) doubles as the end marker, so ``6/off 5/off`` comes back as ``(6,)``. An odd-length
  tuple is therefore incomplete, and bgconf cannot know the rest of the play without guessing; such
  a request is answered ``errored`` (naming the tuple) rather than repaired.

Capabilities: ``legal-plays``; ``play-check`` (legal iff the play's resulting position is one of
gnubg's, or, when gnubg has no play, iff it leaves the board unchanged).
"""

from __future__ import annotations

from conformance.engines.adapters import EngineUnavailable
from conformance.engines.adapters.third_party import ThirdPartyAdapter
from conformance.model import Position, parse_dice

NAME = "gnubg-py"
DISTRIBUTION = "gnubg"

_contexts: tuple | None = None


class TruncatedMove(RuntimeError):
    """findbestmoves returned a move tuple cut short at a bear-off."""


def _engine():
    global _contexts
    try:
        import gnubg
        find = gnubg.findbestmoves
    except (ImportError, AttributeError) as exc:
        raise EngineUnavailable(f"{DISTRIBUTION} is not installed ({exc}): pip install 'bgconf[{NAME}]'") from None
    if _contexts is None:
        # money game, centred cube; cubeless 0-ply, deterministic, no pruning, no noise
        _contexts = (gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0), gnubg.evalcontext(0, 0, 1, 0, 0.0))
    return find, _contexts


def _board(position: Position) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return tuple(position.opponent[1:26]), tuple(position.mover[1:26])


def _steps(move: tuple) -> list[list[int]]:
    if len(move) % 2:
        raise TruncatedMove(
            f"gnubg.findbestmoves returned the incomplete move tuple {tuple(move)!r}: it stops after"
            " the source of a checker borne off, so the rest of that play is unknown")
    return [[int(move[i]), int(move[i + 1])] for i in range(0, len(move), 2)]


class Adapter(ThirdPartyAdapter):
    """gnubg (PyPI bindings) behind the engine interface (run isolated by ``bgconf serve``)."""

    NAME = NAME
    DISTRIBUTION = DISTRIBUTION

    def legal_plays(self, request: dict) -> dict:
        find, (cubeinfo, evalcontext) = _engine()
        position = Position.from_dict(request["position"])
        d1, d2 = parse_dice(request["dice"])
        found = find(_board(position), cubeinfo, evalcontext, (d1, d2))
        return {"plays": [_steps(entry["move"]) for entry in found]}

