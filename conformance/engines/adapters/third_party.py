"""What every third-party adapter shares: its identity and the play check by legal set.

An adapter subclasses ``ThirdPartyAdapter``, sets ``NAME`` (the key of
``conformance.engines.registry.THIRD_PARTY``) and ``DISTRIBUTION`` (the PyPI name), and
implements ``legal_plays``. ``play_check`` is then answered from the engine's
own legal plays: a play is legal iff its resulting position is one of them
(spec: move.same-play), or, when the engine finds no play, iff it leaves the
board unchanged (spec: move.pass).
"""

from __future__ import annotations

from conformance.engines.interface import Engine, installed_version
from conformance.model import ModelError, Position, applied_sides, other, play_to_position


def plays_answer(position: Position, finals: dict) -> list:
    """The ``plays`` of a legal_plays answer from an engine's resulting positions, each with the
    step list (mover's numbering) the engine made it by: the steps when they, applied to
    ``position``, give that position, else the position in board form (the engine's verdict
    either way; nothing is fixed or filtered)."""
    plays = []
    mover, opponent = position.on_roll, other(position.on_roll)
    for result, steps in finals.items():
        try:  # apply_steps(position, steps) == result, without building that position
            same = (result.on_roll == opponent
                    and applied_sides(position, steps) == (result.side(mover), result.side(opponent)))
        except ModelError:
            same = False
        plays.append(steps if same else result.to_wire())
    return plays


def play_check_answer(position: Position, results: list[Position], play) -> dict:
    """``{"legal": bool}``: whether ``play`` (notation, steps or board form) on ``position`` gives
    one of the engine's resulting positions ``results`` (spec: move.same-play), or, when the
    engine finds no play, leaves the board unchanged (spec: move.pass)."""
    legal = set(results)
    if not legal:  # no legal play: only the empty play (the board unchanged) is legal
        legal.add(position.passed())
    try:
        return {"legal": play_to_position(position, play) in legal}
    except ModelError:
        return {"legal": False}  # physically impossible, so not one of the engine's plays


class ThirdPartyAdapter(Engine):
    """Base of the third-party adapters (each runs isolated behind the protocol)."""

    NAME = ""
    DISTRIBUTION = ""

    def describe(self) -> dict:
        return {"name": self.NAME, "version": installed_version(self.DISTRIBUTION) or "not installed",
                "capabilities": ["legal-plays", "play-check"], "rule_options": {},
                "position_formats": ["board"]}

    def play_check(self, request: dict) -> dict:
        position = Position.from_dict(request["position"])
        plays = [play_to_position(position, p) for p in self.legal_plays(request)["plays"]]
        return play_check_answer(position, plays, request["play"])
