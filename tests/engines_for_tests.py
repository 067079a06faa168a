"""Deliberately wrong engines for the project's own tests (selected as
python:engines_for_tests:NAME)."""

from conformance.adapters.reference import ReferenceEngine
from conformance.model import Position
from reference_impl.movegen import _extend, dice_moves


class NoLargerDieRule(ReferenceEngine):
    """Keeps every play that uses the most dice, but forgets that a single die must be
    the larger one (spec: move.larger-die)."""

    def describe(self):
        return dict(super().describe(), name="no-larger-die")

    def legal_plays(self, request):
        position = Position.from_dict(request["position"])
        moves = dice_moves(request["dice"])
        orders = [moves] if moves[0] == moves[-1] else [moves, moves[::-1]]
        found = []
        for order in orders:
            _extend(list(position.mover), list(position.opponent), order, (), found, 25)
        most = max(len(steps) for *_, steps in found)
        return {"plays": [[list(s) for s in steps] for *_, steps in found if len(steps) == most and steps]}


class Crashing(ReferenceEngine):
    """Raises on every legal_plays request."""

    def describe(self):
        return dict(super().describe(), name="crashing")

    def legal_plays(self, request):
        raise RuntimeError("engine bug")


class Garbage(ReferenceEngine):
    """Answers plays that cannot be applied."""

    def describe(self):
        return dict(super().describe(), name="garbage")

    def legal_plays(self, request):
        return {"plays": [[[3, 1]], "not a play"]}


class MovesOnly(ReferenceEngine):
    """Declares only legal-plays."""

    def describe(self):
        return dict(super().describe(), capabilities=["legal-plays"])


def no_larger_die():
    return NoLargerDieRule()


def crashing():
    return Crashing()


def garbage():
    return Garbage()


def moves_only():
    return MovesOnly()
